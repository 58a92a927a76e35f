"""What the framework classes of :mod:`finchunk.adapters.langchain` and
:mod:`finchunk.adapters.llama_index` run, without any framework: finchunk's own code paths.

* :class:`IndexSearch` — an index (a path, opened once, or an opened
  :class:`~finchunk.retrieve.index.store.Index`) and the options ``finchunk search`` takes (``k``,
  ``retriever`` ``auto`` by default, ``filters``, ``auto_filter``, ``budget``, ``distinct``,
  ``per_entity``); ``search(query)`` is :func:`finchunk.retrieve.query.search.search`;
* :func:`make_splitter` — a chunker as ``finchunk chunk`` makes it (``structure``, the
  context header on), or the chunker given;
* :func:`text_records` — a text already in memory (a framework's document) parsed as
  Markdown (plain text is Markdown without markup), chunked into records whose spans index
  that very text;
* :func:`file_documents` / :func:`file_records` — files and folders read as ``finchunk chunk``
  and ``finchunk index`` read them (:func:`finchunk.retrieve.index.sources.file_sources`: HTML, PDF,
  Markdown; ids from file names; ``NAME.meta.json`` metadata), then chunked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from finchunk.chunk import Chunker, Strategy, make_chunker
from finchunk.errors import InputError
from finchunk.model import Document
from finchunk.records import ChunkRecord, document_records
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.kinds import AUTO_RETRIEVER, Distinct
from finchunk.retrieve.neural.dense import Embedder
from finchunk.retrieve.query.search import FilterSpec, SearchOptions, SearchResult, search
from finchunk.retrieve.query.search import search_options as query_search_options


def search_options(
    *,
    k: int = 5,
    retriever: str = AUTO_RETRIEVER,
    filters: FilterSpec = None,
    auto_filter: bool = False,
    budget: int | None = None,
    distinct: Distinct | str = Distinct.NONE,
    per_entity: bool = False,
) -> SearchOptions:
    """The :class:`SearchOptions` of ``finchunk search`` with these options, by keyword
    (:func:`finchunk.retrieve.query.search.search_options`: bad ones are an
    :class:`InputError` now, not at the first question)."""
    return query_search_options(k, retriever, filters, auto_filter, distinct, per_entity, budget)


class IndexSearch:
    """``finchunk search`` on one index: ``index`` a directory (opened here, once, and held
    until :meth:`close`) or an :class:`Index` already opened, or an object whose ``store``
    is one (``finchunk.Index``), left open."""

    def __init__(
        self, index: str | Path | Index, options: SearchOptions, embedder: Embedder | None = None
    ) -> None:
        store = getattr(index, "store", None)  # the top-level finchunk.Index wraps one
        if isinstance(index, Index) or isinstance(store, Index):
            self.index, self._owned = (index if isinstance(index, Index) else store), False
        elif isinstance(index, str | Path):
            self.index, self._owned = Index.open(Path(index)), True
        else:
            raise InputError(f"index: expected an index directory or an opened Index: {index!r}")
        self.options = options
        self.embedder = embedder

    def search(self, query: str, options: SearchOptions | None = None) -> SearchResult:
        return search(self.index, query, options or self.options, embedder=self.embedder)

    def close(self) -> None:
        """Release the index when this object opened it."""
        if self._owned:
            self.index.close()


def make_splitter(
    chunker: Chunker | Strategy | str = Strategy.STRUCTURE,
    *,
    size: int | None = None,
    overlap: int | None = None,
    header: bool = True,
    split_tables: bool = False,
) -> Chunker:
    """``chunker`` itself when it is a chunker, else :func:`finchunk.chunk.make_chunker` of
    that strategy (the context header on, as ``finchunk chunk`` has it)."""
    if isinstance(chunker, Strategy | str):
        return make_chunker(
            chunker, size=size, overlap=overlap, header=header, split_tables=split_tables
        )
    if not callable(getattr(chunker, "chunk", None)):
        raise InputError(f"chunker: expected a strategy name or a finchunk chunker: {chunker!r}")
    return chunker


def text_doc_id(text: str, metadata: Mapping[str, Any], given: str | None = None) -> str:
    """The document id of a text from a framework: ``given`` (the framework document's own
    id), else its metadata's ``doc_id``, then ``source``; else ``text-`` and a digest of the
    text (the same text, the same id)."""
    for candidate in (given, metadata.get("doc_id"), metadata.get("source")):
        if isinstance(candidate, str | int) and str(candidate).strip():
            return str(candidate)
    return "text-" + hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def text_document(text: str, doc_id: str, metadata: Mapping[str, Any] | None = None) -> Document:
    """``text`` parsed as Markdown (plain text is Markdown without markup): the document
    whose ``text`` is exactly ``text``, so that its chunks' spans index it. The metadata
    is the document's but for ``doc_id`` (the id, :func:`text_doc_id`) and what the
    adapters add to a chunk's (a search hit's ``score`` …, ``start_index``); a field named
    like a chunk's own (a PDF loader's ``page``) is kept, as ``doc_page`` in the chunks'
    metadata (:func:`finchunk.adapters.record_metadata`)."""
    from finchunk.adapters import ADDED_KEYS
    from finchunk.parse.markdown import parse_markdown
    from finchunk.text.metadata import canonical_field

    dropped = {"doc_id", *ADDED_KEYS}
    meta = {k: v for k, v in (metadata or {}).items() if canonical_field(k) not in dropped}
    return parse_markdown(text, doc_id, metadata=meta)


def text_records(
    text: str, doc_id: str, chunker: Chunker, metadata: Mapping[str, Any] | None = None
) -> list[ChunkRecord]:
    """The chunk records of :func:`text_document` of ``text`` (none for a blank text)."""
    if not text.strip():
        return []
    doc = text_document(text, doc_id, metadata)
    return document_records(doc, chunker.chunk(doc))


def file_documents(paths: str | Path | Iterable[str | Path]) -> Iterator[Document]:
    """Each document of files and folders, read as ``finchunk index`` reads them (ids from
    the file names; a file that cannot be read is a :class:`~finchunk.errors.ParseError`
    naming it)."""
    from finchunk.retrieve.index.sources import file_sources

    listed = [paths] if isinstance(paths, str | Path) else list(paths)
    for source in file_sources(listed):
        yield source.loader()


def file_records(
    paths: str | Path | Iterable[str | Path], chunker: Chunker
) -> Iterator[tuple[Document, list[ChunkRecord]]]:
    """Each document of :func:`file_documents` with its chunk records."""
    for doc in file_documents(paths):
        yield doc, document_records(doc, chunker.chunk(doc))
