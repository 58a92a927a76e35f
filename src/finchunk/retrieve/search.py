"""Search an index: filters, one of three retrievers, and hits that cite their source spans.

Every hit carries its document id, spans and the cited text ``doc.text[start:end]`` of each
span, read from the text stored in the index (the same text the spans were computed on).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.records import ChunkRecord
from finchunk.retrieve.base import Hits
from finchunk.retrieve.dense import Embedder
from finchunk.retrieve.filters import Filter
from finchunk.retrieve.retriever import RetrieverKind, RetrieverSpec, parse_retriever
from finchunk.retrieve.store import Index
from finchunk.retrieve.text import normalize, query_terms

_WORD_RE = re.compile(r"\w+")


@dataclass(frozen=True)
class SearchOptions:
    """``retriever``: any name the retriever factory knows (``bm25``, ``dense``,
    ``hybrid``, ``bm25/dense@50`` …)."""

    k: int = 5
    retriever: RetrieverSpec | RetrieverKind | str = RetrieverKind.BM25
    filters: tuple[Filter, ...] = ()
    auto_filter: bool = False
    per_document: bool = False


@dataclass(frozen=True)
class Hit:
    """A ranked chunk: its record, plus rank, score, document title and citations
    (``doc.text[start:end]`` for each span)."""

    rank: int
    record: ChunkRecord
    title: str
    score: float
    citations: tuple[str, ...]

    @property
    def chunk_id(self) -> str:
        return self.record.id

    @property
    def doc_id(self) -> str:
        return self.record.doc_id

    @property
    def section(self) -> tuple[str, ...]:
        return self.record.section

    @property
    def page(self) -> int | None:
        return self.record.page

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        return self.record.spans

    @property
    def text(self) -> str:
        return self.record.text

    def to_json(self) -> dict[str, Any]:
        """The chunk record's fields (:mod:`finchunk.records`), with ``chunk_id`` (= ``id``,
        kept for compatibility), rank, title, score and citations."""
        return {
            "rank": self.rank,
            "chunk_id": self.record.id,
            **self.record.to_json(),
            "title": self.title,
            "score": round(self.score, 6),
            "citations": list(self.citations),
        }


@dataclass
class SearchResult:
    query: str
    retriever: RetrieverSpec
    hits: list[Hit]
    filters: list[Filter] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "retriever": str(self.retriever),
            "filters": [str(f) for f in self.filters],
            "notes": self.notes,
            "results": [h.to_json() for h in self.hits],
        }


def resolve_filters(
    index: Index, query: str, explicit: Sequence[Filter], auto: bool
) -> tuple[list[Filter], list[str]]:
    """The filters to apply and notes that say where they came from."""
    filters, notes = list(explicit), []
    if auto:
        meta = index.meta_index
        found = meta.relax(meta.auto_filters(query))
        if found:
            notes.append("auto-filter: " + ", ".join(map(str, found)))
        else:
            notes.append(
                "auto-filter: nothing in the question matches the index's metadata; no filter"
            )
        filters += [f for f in found if f not in filters]
    return filters, notes


def chunk_mask(index: Index, filters: Sequence[Filter]) -> np.ndarray | None:
    if not filters:
        return None
    return index.meta_index.mask(filters)[index.chunk_doc]


def best_per_document(hits: Hits, chunk_doc: np.ndarray, k: int) -> Hits:
    """From a ranking, the best chunk of each document (ties: the first chunk), for the
    ``k`` best documents."""
    docs = chunk_doc[hits.positions]
    _, first = np.unique(docs, return_index=True)
    return hits.take(np.sort(first)[:k])


def search(
    index: Index,
    query: str,
    options: SearchOptions = SearchOptions(),
    *,
    embedder: Embedder | None = None,
) -> SearchResult:
    if not query.strip():
        raise InputError("empty question")
    if options.k < 1:
        raise InputError(f"-k must be at least 1, got {options.k}")
    spec = parse_retriever(options.retriever)
    filters, notes = resolve_filters(index, query, options.filters, options.auto_filter)
    mask = chunk_mask(index, filters)
    result = SearchResult(query, spec, [], filters, notes)
    if mask is not None and not mask.any():
        notes.append("no document matches the filters " + ", ".join(map(str, filters)))
        return result
    retriever = index.retriever(spec, embedder)
    if options.per_document:
        ranked = best_per_document(
            retriever.search(query, index.size, mask), index.chunk_doc, options.k
        )
        notes.append(f"per-document: best chunk of each of {len(ranked)} document(s)")
    else:
        ranked = retriever.search(query, options.k, mask)
    result.hits = [_hit(index, r + 1, i, s) for r, (i, s) in enumerate(ranked)]
    return result


def _hit(index: Index, rank: int, position: int, score: float) -> Hit:
    c = index.chunk(position)
    text = index.document_text(c.doc_id)
    cited = tuple(text[s:e] for s, e in c.spans)
    return Hit(rank, c, index.title(c.doc_id), float(score), cited)


def term_spans(text: str, query: str) -> list[tuple[int, int]]:
    """Where the query's terms occur in ``text`` (word by word, ignoring case and accents)."""
    terms = set(query_terms(query))
    return [m.span() for m in _WORD_RE.finditer(text) if normalize(m.group()) in terms]
