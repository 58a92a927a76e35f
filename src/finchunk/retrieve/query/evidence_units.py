"""Evidence units: the pieces of a document evidence delivery scores and packs, finer than
chunks: each paragraph, table, note or list an element holds, longer ones cut into windows
of whole rows (a table's header rows carried as context) or whole sentences and lines
(:func:`element_units`), cached per document (:class:`UnitCache`) and scored by BM25
among themselves (:class:`UnitIndex`). Delivery: :mod:`finchunk.retrieve.query.evidence`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from finchunk.chunk.header import context_header
from finchunk.chunk.tablectx import _lines, header_rows_end, is_caption
from finchunk.errors import InputError
from finchunk.model import Document, ElementKind, Span

#: Elements longer than this are cut into windows (characters).
UNIT_MAX = 600


#: Tables longer than this are cut into row groups (characters): a table is usually read
#: whole, and its gold passage is the whole table.
TABLE_MAX = 800


#: A long table's row groups hold at most ``unit_max // ROWS_SHARE`` characters of rows.
ROWS_SHARE = 2


_UNIT_KINDS = (ElementKind.TEXT, ElementKind.TABLE, ElementKind.NOTE, ElementKind.LIST)


_SENTENCE = re.compile(r"(?<=[.;:!?])\s+(?=\S)")


def chars(text: str) -> int:
    return len(text)


def cl100k_tokens(text: str) -> int:
    from finchunk.chunk.tokens import cl100k

    return len(cl100k().encode_ordinary(text))


@dataclass(frozen=True, slots=True)
class Unit:
    """A scoring unit: ``spans`` are its own text, ``context`` what it needs to be read
    (a table's caption and column-header rows), both offsets into its document."""

    doc_id: str
    element: int  # index into doc.elements
    spans: tuple[Span, ...]
    context: tuple[Span, ...] = ()


def _windows(doc: Document, start: int, end: int, size: int, lines: bool) -> list[Span]:
    """Runs of whole sentences (or lines) of ``doc.text[start:end]``, each at most ``size``
    characters unless one sentence alone is longer."""
    if lines:
        parts = _lines(doc, start, end)
    else:
        parts, pos = [], start
        for m in _SENTENCE.finditer(doc.text, start, end):
            parts.append((pos, m.start()))
            pos = m.end()
        parts.append((pos, end))
    out: list[Span] = []
    for s, e in parts:
        if out and e - out[-1][0] <= size:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return [(s, e) for s, e in out if e > s]


def _caption(doc: Document, i: int) -> tuple[Span, ...]:
    """The caption line right above table ``i`` (same section), if there is one."""
    if i == 0:
        return ()
    e = doc.elements[i - 1]
    same = e.kind is ElementKind.TEXT and e.section == doc.elements[i].section
    if same and is_caption(doc.element_text(e)):
        return (e.span,)
    return ()


def element_units(
    doc: Document, i: int, unit_max: int = UNIT_MAX, table_max: int = TABLE_MAX
) -> list[Unit]:
    """The units of element ``i`` of ``doc`` (none for headings and furniture)."""
    e = doc.elements[i]
    if e.kind not in _UNIT_KINDS or e.end <= e.start:
        return []
    if e.kind is ElementKind.TABLE:
        caption = _caption(doc, i)
        whole = [Unit(doc.id, i, (e.span,), caption)] if len(e) <= table_max else []
        if len(e) <= unit_max:
            return whole
        # row groups, each with the column-header rows: what a budget too small for the
        # whole table delivers (the whole table, when it fits, scores as one unit too)
        head_end = header_rows_end(doc, e)
        head = (e.start, head_end)
        rows = _windows(doc, head_end, e.end, max(1, unit_max // ROWS_SHARE), lines=True)
        return whole + [Unit(doc.id, i, (r,), (*caption, head)) for r in rows]
    if len(e) <= unit_max:
        return [Unit(doc.id, i, (e.span,))]
    lines = e.kind is ElementKind.LIST
    return [Unit(doc.id, i, (w,)) for w in _windows(doc, e.start, e.end, unit_max // 2, lines)]


class UnitCache:
    """Units per document element, computed once per document (keyed by document id)."""

    def __init__(
        self,
        documents: Mapping[str, Document],
        unit_max: int = UNIT_MAX,
        table_max: int = TABLE_MAX,
    ) -> None:
        self.documents = documents
        self.unit_max, self.table_max = unit_max, table_max
        self._starts: dict[str, np.ndarray] = {}
        self._ends: dict[str, np.ndarray] = {}
        self._units: dict[tuple[str, int], list[Unit]] = {}

    def _bounds(self, doc: Document) -> tuple[np.ndarray, np.ndarray]:
        if doc.id not in self._starts:
            self._starts[doc.id] = np.array([e.start for e in doc.elements], dtype=np.int64)
            self._ends[doc.id] = np.array([e.end for e in doc.elements], dtype=np.int64)
        return self._starts[doc.id], self._ends[doc.id]

    def units(self, doc: Document, i: int) -> list[Unit]:
        key = (doc.id, i)
        if key not in self._units:
            self._units[key] = element_units(doc, i, self.unit_max, self.table_max)
        return self._units[key]

    def within(self, doc_id: str, spans: Sequence[Span]) -> list[Unit]:
        """The units overlapping ``spans`` of document ``doc_id``, in document order."""
        doc = self.documents.get(doc_id)
        if doc is None:
            raise InputError(f"evidence: document {doc_id!r} is not in the corpus")
        starts, ends = self._bounds(doc)
        out: list[Unit] = []
        for s, e in spans:
            for i in np.flatnonzero((starts < e) & (ends > s)).tolist():
                out.extend(u for u in self.units(doc, i) if _overlaps(u.spans, s, e))
        return list(dict.fromkeys(out))


class UnitIndex:
    """BM25 over every unit of a corpus, each indexed with its context header (document line
    and section path) as a chunk with its header is: a unit then scores with the corpus's
    statistics rather than those of a few candidates. With an ``embedder``, units' cosines
    with a question too (:meth:`cosines`; vectors embedded when first asked, kept by text)."""

    def __init__(self, cache: UnitCache, embedder: Any = None) -> None:
        from finchunk.retrieve.lexical.bm25 import BM25Index

        self.cache = cache
        self.embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}
        self.units: list[Unit] = []
        for doc in cache.documents.values():
            for i in range(len(doc.elements)):
                self.units.extend(cache.units(doc, i))
        self.position = {u: n for n, u in enumerate(self.units)}
        self.bm25 = BM25Index(_unit_text(cache.documents[u.doc_id], u) for u in self.units)

    def scores(self, question: str) -> np.ndarray:
        return self.bm25.scores(question).astype(np.float64)

    def cosines(self, question: str, units: Sequence[Unit]) -> np.ndarray:
        """Each unit's cosine with ``question`` under the embedder (units with their context
        header, as :meth:`scores` reads them); a unit's vector is embedded once."""
        texts = [_unit_text(self.cache.documents[u.doc_id], u) for u in units]
        new = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if new:
            self._vectors.update(zip(new, self.embedder.embed_passages(new), strict=True))
        q = self._queries.get(question)
        if q is None:
            if len(self._queries) >= 4096:
                self._queries.clear()
            q = self._queries[question] = self.embedder.embed_queries([question])[0]
        return np.array([float(self._vectors[t] @ q) for t in texts], dtype=np.float64)


def _unit_text(doc: Document, u: Unit) -> str:
    head = context_header(doc, doc.elements[u.element].section)
    return f"{head}\n" + "\n".join(doc.text[s:e] for s, e in (*u.context, *u.spans))


def _overlaps(spans: Sequence[Span], s: int, e: int) -> bool:
    return any(a < e and b > s for a, b in spans)


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked chunk as evidence delivery reads it (a ScoredChunk has these fields)."""

    doc_id: str
    spans: tuple[Span, ...]
    score: float


def split_by_entity(hits: Sequence[Hit], entities: Sequence[Sequence[str]]) -> list[list[Hit]]:
    """One ranking per entity (the hits of its documents, in rank order) when the question
    names several, so that each gets a slot in turn; else the ranking as one group. Hits of
    no entity's documents stay in a last group."""
    if len(entities) < 2:
        return [list(hits)]
    owner = {d: g for g, docs in enumerate(entities) for d in docs}
    groups: list[list[Hit]] = [[] for _ in range(len(entities) + 1)]
    for h in hits:
        groups[owner.get(h.doc_id, len(entities))].append(h)
    return [g for g in groups if g]
