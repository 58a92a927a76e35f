"""Chunks as LangChain documents (``langchain_core.documents.Document``), and back.

``page_content`` is the chunk's text as finchunk indexes it (the context header line, then
the span texts), ``id`` the chunk id, and ``metadata`` the record's fields plus the
document's metadata (:func:`finchunk.adapters.record_metadata`): ``spans`` locate the source,
``doc.text[start:end]`` for each ``[start, end]``. :func:`from_documents` turns documents a
LangChain retriever or vector store returns back into :class:`~finchunk.records.ChunkRecord`
(for citations or ``finchunk eval``).

Needs the ``langchain`` extra: ``pip install 'finchunk[langchain]'`` (``langchain-core``)::

    from finchunk.adapters.langchain import to_documents
    from finchunk.records import read_chunks

    docs = to_documents(read_chunks("chunks.jsonl"))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from finchunk.adapters import metadata_record, record_metadata
from finchunk.extras import import_extra
from finchunk.records import ChunkRecord

if TYPE_CHECKING:
    from langchain_core.documents import Document


def _document_class() -> Any:
    module = import_extra("langchain_core.documents", "langchain", "LangChain documents")
    return module.Document


def to_document(record: ChunkRecord) -> Document:
    """One record as a LangChain ``Document``."""
    return _document_class()(
        page_content=record.text, metadata=record_metadata(record), id=record.id
    )


def to_documents(records: Iterable[ChunkRecord]) -> list[Document]:
    """Records as LangChain documents, in order."""
    cls = _document_class()
    return [cls(page_content=r.text, metadata=record_metadata(r), id=r.id) for r in records]


def from_document(document: Document) -> ChunkRecord:
    """The record a document of :func:`to_document` came from (its ``page_content`` is the
    text; metadata keys that are not the record's are the document metadata)."""
    where = f"LangChain document {document.id or ''}".rstrip()
    return metadata_record(document.page_content, document.metadata, where)


def from_documents(documents: Iterable[Document]) -> list[ChunkRecord]:
    """The records of documents made by :func:`to_documents`, in order."""
    return [from_document(d) for d in documents]
