"""Chunks as LlamaIndex nodes (``llama_index.core.schema.TextNode``), and back.

Each record becomes a ``TextNode`` with

* ``id_`` the chunk id and ``text`` the chunk's text as finchunk indexes it (the context
  header line, then the span texts);
* ``start_char_idx`` / ``end_char_idx`` the offsets of its source in ``Document.text``: for a
  one-span chunk ``doc.text[start_char_idx:end_char_idx]`` is exactly the span (the text
  without its header line); a chunk of several spans (a table and the notes that qualify it)
  gets the first start and the last end, and all its spans are in ``metadata["spans"]``;
* ``metadata`` the record's fields plus the document's metadata
  (:func:`finchunk.adapters.record_metadata`), every key excluded from the embedding and LLM
  views, so ``node.get_content(MetadataMode.EMBED)`` is the text finchunk indexed;
* ``relationships``: ``SOURCE`` → the document id, ``PREVIOUS`` / ``NEXT`` → the neighbouring
  chunks of the same document, in the order given.

:func:`to_source_document` gives the matching LlamaIndex ``Document`` (``id_`` the doc id, the
full text), and :func:`from_nodes` turns retrieved nodes back into records.

Needs the ``llama-index`` extra: ``pip install 'finchunk[llama-index]'`` (``llama-index-core``)::

    from finchunk.adapters.llama_index import to_nodes
    from finchunk.records import read_chunks

    nodes = to_nodes(read_chunks("chunks.jsonl"))
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from finchunk.adapters import metadata_record, record_metadata
from finchunk.extras import import_extra
from finchunk.model import Document
from finchunk.records import ChunkRecord
from finchunk.retrieve.metadata import canonical_metadata

if TYPE_CHECKING:
    from llama_index.core.schema import BaseNode, NodeWithScore, TextNode


def _schema() -> ModuleType:
    return import_extra("llama_index.core.schema", "llama-index", "LlamaIndex nodes")


def _node(schema: ModuleType, record: ChunkRecord) -> Any:
    meta = record_metadata(record)
    source = schema.RelatedNodeInfo(
        node_id=record.doc_id,
        node_type=schema.ObjectType.DOCUMENT,
        metadata=dict(record.metadata),
    )
    return schema.TextNode(
        id_=record.id,
        text=record.text,
        start_char_idx=min(s for s, _ in record.spans) if record.spans else None,
        end_char_idx=max(e for _, e in record.spans) if record.spans else None,
        metadata=meta,
        excluded_embed_metadata_keys=list(meta),
        excluded_llm_metadata_keys=list(meta),
        relationships={schema.NodeRelationship.SOURCE: source},
    )


def to_nodes(records: Iterable[ChunkRecord]) -> list[TextNode]:
    """Records as ``TextNode``s, in order, each linked to its document (``SOURCE``) and to
    the previous and next record of the same document (``PREVIOUS`` / ``NEXT``)."""
    schema = _schema()
    nodes = [_node(schema, r) for r in records]
    last: dict[str, Any] = {}
    for node in nodes:
        doc_id = node.metadata["doc_id"]
        prev = last.get(doc_id)
        if prev is not None:
            rel = schema.NodeRelationship
            prev.relationships[rel.NEXT] = _link(schema, node)
            node.relationships[rel.PREVIOUS] = _link(schema, prev)
        last[doc_id] = node
    return nodes


def _link(schema: ModuleType, node: Any) -> Any:
    return schema.RelatedNodeInfo(node_id=node.node_id, node_type=schema.ObjectType.TEXT)


def to_node(record: ChunkRecord) -> TextNode:
    """One record as a ``TextNode`` (linked to its document only)."""
    return _node(_schema(), record)


def to_source_document(doc: Document) -> Any:
    """A finchunk document as the LlamaIndex ``Document`` its nodes' ``SOURCE`` names:
    ``id_`` the doc id, ``text`` the whole text (the nodes' offsets index into it), the
    metadata in canonical form (as the chunk records carry it)."""
    schema = _schema()
    return schema.Document(id_=doc.id, text=doc.text, metadata=canonical_metadata(doc.metadata))


def from_node(node: BaseNode | NodeWithScore) -> ChunkRecord:
    """The record a node of :func:`to_nodes` came from (a retriever's ``NodeWithScore``
    too): its text and the metadata keys that are not the record's as document metadata."""
    inner = getattr(node, "node", node)
    return metadata_record(inner.get_content(), inner.metadata, f"LlamaIndex node {inner.node_id}")


def from_nodes(nodes: Iterable[BaseNode | NodeWithScore]) -> list[ChunkRecord]:
    """The records of nodes made by :func:`to_nodes`, in order."""
    return [from_node(n) for n in nodes]
