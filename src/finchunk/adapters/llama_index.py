"""finchunk in LlamaIndex: chunks as nodes (``llama_index.core.schema.TextNode``) and back, a
retriever over a finchunk index, a node parser and a reader built on finchunk's parsers and
chunkers.

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
full text), and :func:`from_nodes` turns retrieved nodes back into records (from either
metadata form).

The classes (created on first use, so that importing this module imports no LlamaIndex):

* :class:`FinchunkRetriever` — a ``BaseRetriever``: ``retriever.retrieve(question)`` runs
  ``finchunk search`` on an index (retriever ``auto`` unless told, filters, budget, k) and
  gives ``NodeWithScore``s whose metadata adds ``rank``, ``score``, ``title``, ``citations``;
* :class:`FinchunkNodeParser` — a ``NodeParser``: a document's text parsed as Markdown
  (plain text too) and chunked (``structure`` with the context header unless told); the
  nodes' spans and ``start_char_idx`` / ``end_char_idx`` index the document's text;
* :class:`FinchunkReader` — a ``BaseReader``: files parsed as ``finchunk chunk`` parses
  them (HTML, PDF, Markdown); ``load_data`` gives one ``Document`` a file (usable as a
  ``SimpleDirectoryReader`` ``file_extractor``), ``load_nodes`` its chunks as nodes, with
  what the parser found (tables, pages) that the node parser, reading text, cannot know.

What the classes write is flat metadata (``flat=True``: scalar values only, lists as JSON
strings; see :mod:`finchunk.adapters`), which any vector store takes; the converters keep
lists unless given ``flat=True``.

Needs the ``llama-index`` extra: ``pip install 'finchunk[llama-index]'`` (``llama-index-core``)::

    from finchunk.adapters.llama_index import to_nodes
    from finchunk.records import read_chunks

    nodes = to_nodes(read_chunks("chunks.jsonl"))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from finchunk.adapters import hit_metadata, metadata_record, record_metadata
from finchunk.extras import import_extra
from finchunk.model import Document
from finchunk.records import ChunkRecord
from finchunk.text.metadata import canonical_metadata

if TYPE_CHECKING:
    from llama_index.core.schema import BaseNode, NodeWithScore, TextNode

    from finchunk.retrieve.query.search import Hit

EXTRA = "llama-index"


def _schema() -> ModuleType:
    return import_extra("llama_index.core.schema", EXTRA, "LlamaIndex nodes")


def _node(
    schema: ModuleType, record: ChunkRecord, flat: bool = False, meta: dict[str, Any] | None = None
) -> Any:
    meta = record_metadata(record, flat) if meta is None else meta
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


def to_nodes(records: Iterable[ChunkRecord], flat: bool = False) -> list[TextNode]:
    """Records as ``TextNode``s, in order, each linked to its document (``SOURCE``) and to
    the previous and next record of the same document (``PREVIOUS`` / ``NEXT``); ``flat``:
    scalar metadata only."""
    schema = _schema()
    nodes = [_node(schema, r, flat) for r in records]
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


def to_node(record: ChunkRecord, flat: bool = False) -> TextNode:
    """One record as a ``TextNode`` (linked to its document only)."""
    return _node(_schema(), record, flat)


def hit_nodes(hits: Sequence[Hit], flat: bool = True) -> list[NodeWithScore]:
    """Search hits as ``NodeWithScore``s: each chunk's node (linked to its document), its
    metadata with ``rank``, ``score``, ``title`` and ``citations``
    (:func:`finchunk.adapters.hit_metadata`), the hit's score."""
    schema = _schema()
    nodes = [_node(schema, h.record, meta=hit_metadata(h, flat)) for h in hits]
    return [schema.NodeWithScore(node=n, score=h.score) for n, h in zip(nodes, hits, strict=True)]


def to_source_document(doc: Document, extra: Mapping[str, Any] | None = None) -> Any:
    """A finchunk document as the LlamaIndex ``Document`` its nodes' ``SOURCE`` names:
    ``id_`` the doc id, ``text`` the whole text (the nodes' offsets index into it), the
    metadata in canonical form (as the chunk records carry it; strings), then ``extra``
    (a reader's ``extra_info``) for the keys it lacks."""
    schema = _schema()
    meta: dict[str, Any] = canonical_metadata(doc.metadata)
    for k, v in (extra or {}).items():
        meta.setdefault(k, v)
    return schema.Document(id_=doc.id, text=doc.text, metadata=meta)


def from_node(node: BaseNode | NodeWithScore) -> ChunkRecord:
    """The record a node of :func:`to_nodes` came from (a retriever's ``NodeWithScore``
    too): its text and the metadata keys that are not the record's as document metadata."""
    inner = getattr(node, "node", node)
    return metadata_record(inner.get_content(), inner.metadata, f"LlamaIndex node {inner.node_id}")


def from_nodes(nodes: Iterable[BaseNode | NodeWithScore]) -> list[ChunkRecord]:
    """The records of nodes made by :func:`to_nodes`, in order."""
    return [from_node(n) for n in nodes]


# --- the classes, made on first use -------------------------------------------------------------


def _retriever_class() -> type:
    base = import_extra("llama_index.core.retrievers", EXTRA, "a LlamaIndex retriever")

    from finchunk.adapters.pipeline import IndexSearch, search_options

    class FinchunkRetriever(base.BaseRetriever):  # type: ignore[misc, name-defined]
        """``finchunk search`` as a LlamaIndex retriever: ``index`` a directory (opened
        once, held until :meth:`close`) or an opened index; the options ``finchunk search``
        takes (``k``, ``retriever`` ``auto``, ``filters``, ``auto_filter``, ``budget``,
        ``distinct``, ``per_entity``, ``embedder``), checked here (InputError).
        """

        def __init__(
            self,
            index: Any,
            *,
            k: int = 5,
            retriever: str = "auto",
            filters: Any = None,
            auto_filter: bool = False,
            budget: int | None = None,
            distinct: str = "none",
            per_entity: bool = False,
            embedder: Any = None,
            flat: bool = True,
            **kwargs: Any,
        ) -> None:
            self.options = search_options(
                k=k,
                retriever=retriever,
                filters=filters,
                auto_filter=auto_filter,
                budget=budget,
                distinct=distinct,
                per_entity=per_entity,
            )
            self.flat = flat
            self._search = IndexSearch(index, self.options, embedder)
            super().__init__(**kwargs)

        @property
        def index(self) -> Any:
            """The opened :class:`finchunk.retrieve.index.store.Index`."""
            return self._search.index

        def search(self, query: str) -> Any:
            """The :class:`~finchunk.retrieve.query.search.SearchResult` (hits, notes, filters)."""
            return self._search.search(query, self.options)

        def _retrieve(self, query_bundle: Any) -> list[Any]:
            return hit_nodes(self.search(query_bundle.query_str).hits, self.flat)

        def close(self) -> None:
            """Release the index (when this retriever opened it)."""
            self._search.close()

    FinchunkRetriever.__module__ = __name__
    return FinchunkRetriever


def _node_parser_class() -> type:
    base = import_extra("llama_index.core.node_parser", EXTRA, "a LlamaIndex node parser")
    from pydantic import Field, PrivateAttr

    from finchunk.adapters.pipeline import make_splitter, text_doc_id, text_records

    class FinchunkNodeParser(base.NodeParser):  # type: ignore[misc, name-defined]
        """finchunk's chunkers as a LlamaIndex ``NodeParser``.

        Each document's (or node's) text is parsed as Markdown, which plain text is too,
        and chunked by ``chunker``: a strategy name (``structure``, ``recursive``,
        ``fixed``, ``bytitle``, ``tokens``, with ``size``, ``overlap``, ``split_tables``;
        the context header on unless ``header=False``, as ``finchunk chunk``) or a finchunk
        chunker. The nodes are :func:`to_nodes`'s, their document the input (``doc_id`` and
        ``SOURCE`` its id; ``text[start:end]`` of the input for each span); its metadata is
        carried as strings (a field named like one of the chunk's own as ``doc_`` and its
        name).
        """

        chunker: Any = Field(default="structure", description="Strategy name or chunker.")
        size: int | None = None
        overlap: int | None = None
        header: bool = True
        split_tables: bool = False
        flat: bool = True
        _chunker: Any = PrivateAttr(default=None)

        def model_post_init(self, context: Any, /) -> None:
            super().model_post_init(context)
            self._chunker = make_splitter(
                self.chunker,
                size=self.size,
                overlap=self.overlap,
                header=self.header,
                split_tables=self.split_tables,
            )

        def _parse_nodes(
            self, nodes: Sequence[Any], show_progress: bool = False, **kwargs: Any
        ) -> list[Any]:
            out: list[Any] = []
            for node in nodes:
                text = node.get_content()
                doc_id = text_doc_id(text, node.metadata, node.node_id)
                out += to_nodes(text_records(text, doc_id, self._chunker, node.metadata), self.flat)
            return out

        def _postprocess_parsed_nodes(
            self, nodes: list[Any], parent_doc_map: dict[str, Any]
        ) -> list[Any]:
            # LlamaIndex's own would search the text for each node's (text.find) and merge
            # the document's metadata unflattened: the nodes already have both, exactly.
            return nodes

    FinchunkNodeParser.__module__ = __name__
    return FinchunkNodeParser


def _reader_class() -> type:
    base = import_extra("llama_index.core.readers.base", EXTRA, "a LlamaIndex reader")

    from finchunk.adapters.pipeline import file_documents, file_records, make_splitter

    class FinchunkReader(base.BaseReader):  # type: ignore[misc, name-defined]
        """Files and folders read as ``finchunk chunk`` and ``finchunk index`` read them:
        HTML, PDF, Markdown; a file's id is its name without the suffix (under a folder,
        its path relative to the folder); ``NAME.meta.json`` beside it adds metadata.

        ``load_data(paths)`` (``lazy_load_data``): one ``Document`` a file
        (:func:`to_source_document`; ``extra_info``, what ``SimpleDirectoryReader`` passes
        a ``file_extractor``, joins its metadata). ``load_nodes(paths)``: the files' chunks
        as :func:`to_nodes` makes them (``chunker`` and its options as
        :class:`FinchunkNodeParser`), flat metadata unless ``flat=False``.
        """

        def __init__(
            self,
            chunker: Any = "structure",
            *,
            size: int | None = None,
            overlap: int | None = None,
            header: bool = True,
            split_tables: bool = False,
            flat: bool = True,
        ) -> None:
            self.chunker = make_splitter(
                chunker, size=size, overlap=overlap, header=header, split_tables=split_tables
            )
            self.flat = flat

        def lazy_load_data(
            self, paths: Any, extra_info: Mapping[str, Any] | None = None, **kwargs: Any
        ) -> Iterator[Any]:
            for doc in file_documents(paths):
                yield to_source_document(doc, extra_info)

        def load_nodes(self, paths: str | Path | Iterable[str | Path]) -> list[Any]:
            records = [r for _, recs in file_records(paths, self.chunker) for r in recs]
            return to_nodes(records, self.flat)

    FinchunkReader.__module__ = __name__
    return FinchunkReader


_CLASSES: dict[str, Callable[[], type]] = {
    "FinchunkRetriever": _retriever_class,
    "FinchunkNodeParser": _node_parser_class,
    "FinchunkReader": _reader_class,
}


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        cls = _CLASSES[name]()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
