"""finchunk in LangChain: chunks as ``Document``s and back, a retriever over a finchunk index,
a text splitter and a document loader built on finchunk's parsers and chunkers.

``page_content`` is the chunk's text as finchunk indexes it (the context header line, then
the span texts), ``id`` the chunk id, and ``metadata`` the record's fields plus the
document's metadata (:func:`finchunk.adapters.record_metadata`): ``spans`` locate the source,
``doc.text[start:end]`` for each ``[start, end]``. :func:`from_documents` turns documents a
LangChain retriever or vector store returns back into :class:`~finchunk.records.ChunkRecord`
(for citations or ``finchunk eval``), from either metadata form.

The classes (created on first use, so that importing this module imports no LangChain):

* :class:`FinchunkRetriever` — a ``BaseRetriever``: ``retriever.invoke(question)`` runs
  ``finchunk search`` on an index (retriever ``auto`` unless told, filters, budget, k); each
  document's metadata adds ``rank``, ``score``, ``title`` and ``citations``;
* :class:`FinchunkSplitter` — a ``TextSplitter``: a document's ``page_content`` parsed as
  Markdown (plain text too) and chunked (``structure`` with the context header unless told);
  the chunks' spans index ``page_content`` itself;
* :class:`FinchunkLoader` — a ``BaseLoader``: files and folders parsed as ``finchunk chunk``
  parses them (HTML, PDF, Markdown), yielding one document per chunk.

What the classes write is flat metadata (``flat=True``: scalar values only, lists as JSON
strings; see :mod:`finchunk.adapters`), which any vector store takes; the converters keep
lists unless given ``flat=True``.

Needs the ``langchain`` extra: ``pip install 'finchunk[langchain]'`` (``langchain-core``,
``langchain-text-splitters``)::

    from finchunk.adapters.langchain import to_documents
    from finchunk.records import read_chunks

    docs = to_documents(read_chunks("chunks.jsonl"))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from finchunk.adapters import hit_metadata, metadata_record, record_metadata
from finchunk.extras import import_extra
from finchunk.records import ChunkRecord

if TYPE_CHECKING:
    from langchain_core.documents import Document

    from finchunk.retrieve.query.search import Hit

EXTRA = "langchain"


def _document_class() -> Any:
    module = import_extra("langchain_core.documents", EXTRA, "LangChain documents")
    return module.Document


def to_document(record: ChunkRecord, flat: bool = False) -> Document:
    """One record as a LangChain ``Document`` (``flat``: scalar metadata only)."""
    return _document_class()(
        page_content=record.text, metadata=record_metadata(record, flat), id=record.id
    )


def to_documents(records: Iterable[ChunkRecord], flat: bool = False) -> list[Document]:
    """Records as LangChain documents, in order (``flat``: scalar metadata only)."""
    cls = _document_class()
    return [cls(page_content=r.text, metadata=record_metadata(r, flat), id=r.id) for r in records]


def hit_documents(hits: Iterable[Hit], flat: bool = True) -> list[Document]:
    """Search hits as documents: each chunk's, its metadata with ``rank``, ``score``,
    ``title`` and ``citations`` (:func:`finchunk.adapters.hit_metadata`)."""
    cls = _document_class()
    return [cls(page_content=h.text, metadata=hit_metadata(h, flat), id=h.chunk_id) for h in hits]


def from_document(document: Document) -> ChunkRecord:
    """The record a document of :func:`to_document` (or of a class here) came from (its
    ``page_content`` is the text; metadata keys that are not the record's are the document
    metadata; a hit's ``rank``, ``score``, ``title`` and ``citations`` are left out)."""
    where = f"LangChain document {document.id or ''}".rstrip()
    return metadata_record(document.page_content, document.metadata, where)


def from_documents(documents: Iterable[Document]) -> list[ChunkRecord]:
    """The records of documents made by :func:`to_documents`, in order."""
    return [from_document(d) for d in documents]


# --- the classes, made on first use -------------------------------------------------------------


#: The retriever's fields that are ``finchunk search`` options.
_SEARCH_FIELDS = ("k", "retriever", "filters", "auto_filter", "budget", "distinct", "per_entity")


def _retriever_class() -> type:
    retrievers = import_extra("langchain_core.retrievers", EXTRA, "a LangChain retriever")
    from pydantic import ConfigDict, PrivateAttr

    from finchunk.adapters.pipeline import IndexSearch, search_options

    class FinchunkRetriever(retrievers.BaseRetriever):  # type: ignore[misc, name-defined]
        """``finchunk search`` as a LangChain retriever.

        ``index``: an index directory (opened once, held until :meth:`close`) or an opened
        :class:`finchunk.retrieve.index.store.Index`. The options are ``finchunk search``'s: ``k``
        (5), ``retriever`` (``auto``: chosen per question; or ``bm25``, ``dense``,
        ``hybrid``, ``bm25/splade@100+0.5`` …), ``filters`` (``{"issuer": "Repsol"}`` or
        ``["year=2024"]``), ``auto_filter``, ``budget`` (characters), ``distinct``
        (``none``, ``page``, ``document``), ``per_entity``; ``embedder`` for a dense search
        when the index's own is not to be used. Bad options raise
        :class:`~finchunk.errors.InputError` when the retriever is made.
        """

        model_config = ConfigDict(arbitrary_types_allowed=True)

        index: Any
        k: int = 5
        retriever: str = "auto"
        filters: Any = None
        auto_filter: bool = False
        budget: int | None = None
        distinct: str = "none"
        per_entity: bool = False
        embedder: Any = None
        flat: bool = True
        _search: Any = PrivateAttr(default=None)

        def model_post_init(self, context: Any, /) -> None:
            super().model_post_init(context)
            self._search = IndexSearch(self.index, self.search_options(), self.embedder)

        def search_options(self) -> Any:
            """The :class:`~finchunk.retrieve.query.search.SearchOptions` of the fields now."""
            return search_options(**{f: getattr(self, f) for f in _SEARCH_FIELDS})

        def search(self, query: str) -> Any:
            """The :class:`~finchunk.retrieve.query.search.SearchResult` (hits, notes, filters)."""
            return self._search.search(query, self.search_options())

        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Any]:
            return hit_documents(self.search(query).hits, self.flat)

        def close(self) -> None:
            """Release the index (when this retriever opened it)."""
            self._search.close()

    FinchunkRetriever.__module__ = __name__
    return FinchunkRetriever


def _split_documents(records: list[ChunkRecord], flat: bool, start_index: bool) -> list[Any]:
    """A splitter's documents of ``records`` (``start_index``: the first span's start)."""
    cls = _document_class()
    out = []
    for r in records:
        meta = record_metadata(r, flat)
        if start_index:
            meta["start_index"] = min(s for s, _ in r.spans)
        out.append(cls(page_content=r.text, metadata=meta, id=r.id))
    return out


def _splitter_class() -> type:
    base = import_extra("langchain_text_splitters", EXTRA, "a LangChain text splitter")

    from finchunk.adapters.pipeline import make_splitter, text_doc_id, text_records

    class FinchunkSplitter(base.TextSplitter):  # type: ignore[misc, name-defined]
        """finchunk's chunkers as a LangChain ``TextSplitter``: each text is parsed as
        Markdown (plain text too) and chunked by ``chunker``, a strategy name (options
        ``size``, ``overlap``, ``split_tables``; the header on unless ``header=False``) or
        a finchunk chunker. Documents: spans into the input's ``page_content``, its metadata
        beside them (a field named like a chunk's, a loader's ``page``, as ``doc_page``),
        ``start_index`` with ``add_start_index=True``; ``doc_id`` the input's ``id``, else
        its metadata's ``doc_id`` or ``source``, else a digest of its text.
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
            add_start_index: bool = False,
        ) -> None:
            self.chunker = make_splitter(
                chunker, size=size, overlap=overlap, header=header, split_tables=split_tables
            )
            self.flat = flat
            n = max(size or 1, overlap or 0)  # TextSplitter's checks; finchunk's chunker sizes
            super().__init__(chunk_size=n, chunk_overlap=0, add_start_index=add_start_index)

        def split_text(self, text: str) -> list[str]:
            return [r.text for r in text_records(text, text_doc_id(text, {}), self.chunker)]

        def _split(self, text: str, metadata: dict[str, Any], doc_id: str | None) -> list[Any]:
            doc_id = text_doc_id(text, metadata, doc_id)
            records = text_records(text, doc_id, self.chunker, metadata)
            return _split_documents(records, self.flat, self._add_start_index)

        def create_documents(
            self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
        ) -> list[Any]:
            metas = metadatas or [{}] * len(texts)
            return [d for t, m in zip(texts, metas, strict=True) for d in self._split(t, m, None)]

        def split_documents(self, documents: Iterable[Any]) -> list[Any]:
            return [
                d for doc in documents for d in self._split(doc.page_content, doc.metadata, doc.id)
            ]

    FinchunkSplitter.__module__ = __name__
    return FinchunkSplitter


def _loader_class() -> type:
    loaders = import_extra("langchain_core.document_loaders", EXTRA, "a LangChain loader")

    from finchunk.adapters.pipeline import file_records, make_splitter

    class FinchunkLoader(loaders.BaseLoader):  # type: ignore[misc, name-defined]
        """Files and folders read and chunked as ``finchunk chunk`` does: HTML, PDF (pages),
        Markdown; a file's id is its name without the suffix (under a folder, its path
        relative to the folder); ``NAME.meta.json`` beside it adds metadata. ``lazy_load``
        yields one document per chunk (``chunker`` and its options as
        :class:`FinchunkSplitter`), flat metadata unless ``flat=False``.
        """

        def __init__(
            self,
            paths: str | Path | Iterable[str | Path],
            chunker: Any = "structure",
            *,
            size: int | None = None,
            overlap: int | None = None,
            header: bool = True,
            split_tables: bool = False,
            flat: bool = True,
        ) -> None:
            self.paths = [paths] if isinstance(paths, str | Path) else list(paths)
            self.chunker = make_splitter(
                chunker, size=size, overlap=overlap, header=header, split_tables=split_tables
            )
            self.flat = flat

        def lazy_load(self) -> Iterator[Any]:
            for _, records in file_records(self.paths, self.chunker):
                yield from to_documents(records, self.flat)

    FinchunkLoader.__module__ = __name__
    return FinchunkLoader


_CLASSES: dict[str, Callable[[], type]] = {
    "FinchunkRetriever": _retriever_class,
    "FinchunkSplitter": _splitter_class,
    "FinchunkLoader": _loader_class,
}


def __getattr__(name: str) -> Any:
    if name in _CLASSES:
        cls = _CLASSES[name]()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
