"""Evidence delivery: score units finer than chunks, deliver the best within a budget, with the
context that gives them meaning.

A chunk is a retrieval unit sized for a ranking; a context window is a budget. Delivering
whole chunks pays for text the question did not need and for the chunk's header once per
chunk. Evidence delivery works over any chunker's ranking:

1. **Units.** The elements the top ``pool`` chunks touch (a paragraph, a table, a note, a list;
   headings and page furniture are context, not units). An element longer than
   ``unit_max`` characters is cut into windows: a table into groups of whole rows, each
   carrying the table's column-header rows as context; text and lists into runs of whole
   sentences or lines.
2. **Scores.** Each unit's score mixes the best score of the chunks that hold it (scaled
   by the top chunk's) with its own BM25 score against the question among the units of the
   pool (scaled the same way): ``weight * chunk + (1 - weight) * unit``.
3. **Packing.** Best first, each unit that still fits the budget is delivered with what
   it needs that is not delivered yet: its section's header line (once per document
   section, not once per chunk), a table's caption and column-header rows. A unit citing a
   note (``Element.cites``) brings the note next, when it fits. With several groups (one
   ranking per entity a comparison question names), the groups take turns. When the
   pool's units are all delivered and room is left, the units of the chunks below the
   pool follow in the chunks' rank order.

What is delivered is :class:`Evidence`: pieces (document, spans, pages, the context spans
they brought) grouped in blocks, one per document section; :meth:`Evidence.text` renders
them (one block per section, its header once, pieces in document order, optionally each
with its citation) and :meth:`Evidence.to_json` gives the same content to programs. The
rendered text never exceeds the budget: ``len(evidence.text()) <= budget`` (in characters,
or in cl100k tokens counted piece by piece, an upper bound). A budget too small for any
unit delivers the start of the best one and says so (``Evidence.note``).

Spans are offsets into ``Document.text``; nothing is recovered by searching text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from finchunk.chunk.header import context_header
from finchunk.errors import InputError
from finchunk.model import Document, Element, ElementKind, Span, merge_spans
from finchunk.retrieve.query.evidence_units import (
    TABLE_MAX,
    UNIT_MAX,
    Hit,
    Unit,
    UnitCache,
    UnitIndex,
    _unit_text,
    chars,
    cl100k_tokens,
    split_by_entity,
)

#: Candidate units come from this many top chunks.
POOL = 5
#: Share of a unit's score that comes from its chunk's score (the rest: its own BM25).
WEIGHT = 0.7
PIECE_JOINER = "\n\n"
BLOCK_JOINER = "\n\n"
LINE_JOINER = "\n"

Cost = Callable[[str], int]
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True, slots=True)
class Piece:
    """A delivered unit: its spans, the context spans it brought (not delivered before),
    its section, pages and score."""

    doc_id: str
    spans: tuple[Span, ...]
    context: tuple[Span, ...]
    section: tuple[str, ...]
    pages: tuple[int, ...]
    score: float
    truncated: bool = False

    @property
    def all_spans(self) -> tuple[Span, ...]:
        """Every span the piece delivers (context first)."""
        return (*self.context, *self.spans)

    def text(self, doc: Document) -> str:
        """Its spans' text in order: two spans of one block of the document (no blank line
        between them: a table's header rows and some of its rows, two runs of a list) are
        joined by a line break, so a table stays one table; spans of different blocks by
        :data:`PIECE_JOINER`."""
        out: list[str] = []
        end = None
        for s, e in self.all_spans:
            if end is not None:
                same = end <= s and _BLANK_LINE.search(doc.text, end, s) is None
                out.append(LINE_JOINER if same else PIECE_JOINER)
            out.append(doc.text[s:e])
            end = e
        return "".join(out)

    def citation(self) -> str:
        pages = f" p. {','.join(map(str, self.pages))}" if self.pages else ""
        spans = ",".join(f"{s}-{e}" for s, e in merge_spans(self.all_spans))
        return f"[{self.doc_id}{pages} @{spans}]"


@dataclass(frozen=True)
class Evidence:
    """What evidence delivery chose, in delivery order, and how it renders."""

    pieces: tuple[Piece, ...]
    documents: Mapping[str, Document] = field(repr=False)
    budget: int
    unit: str = "chars"
    cite: bool = False
    note: str = ""
    headers: bool = True  # False: a budget too small for a header line (pieces alone)

    @property
    def truncated(self) -> bool:
        return any(p.truncated for p in self.pieces)

    @property
    def size(self) -> int:
        """What :meth:`text` costs in the budget's unit (characters, or cl100k tokens)."""
        text = self.text()
        return cl100k_tokens(text) if self.unit == "tokens" else len(text)

    def blocks(self) -> list[tuple[tuple[str, tuple[str, ...]], list[Piece]]]:
        """Pieces grouped by (document, section), blocks in order of first delivery,
        pieces in document order within a block."""
        groups: dict[tuple[str, tuple[str, ...]], list[Piece]] = {}
        for p in self.pieces:
            groups.setdefault((p.doc_id, p.section), []).append(p)
        return [(k, sorted(v, key=lambda p: p.all_spans[0])) for k, v in groups.items()]

    def header(self, doc_id: str, section: tuple[str, ...]) -> str:
        return context_header(self.documents[doc_id], section)

    def text(self) -> str:
        """One block per document section: its header line once, then its pieces."""
        out = []
        for (doc_id, section), pieces in self.blocks():
            doc = self.documents[doc_id]
            body = PIECE_JOINER.join(_piece_text(p, doc, self.cite) for p in pieces)
            head = f"{self.header(doc_id, section)}{LINE_JOINER}" if self.headers else ""
            out.append(f"{head}{body}")
        return BLOCK_JOINER.join(out)

    def to_json(self) -> dict[str, Any]:
        blocks = []
        for (doc_id, section), pieces in self.blocks():
            doc = self.documents[doc_id]
            blocks.append(
                {
                    "doc_id": doc_id,
                    "section": list(section),
                    "header": self.header(doc_id, section) if self.headers else "",
                    "pieces": [
                        {
                            "text": p.text(doc),
                            "spans": [list(s) for s in p.spans],
                            "context": [list(s) for s in p.context],
                            "pages": list(p.pages),
                            "citation": p.citation(),
                            "score": round(p.score, 6),
                            "truncated": p.truncated,
                        }
                        for p in pieces
                    ],
                }
            )
        return {
            "budget": self.budget,
            "unit": self.unit,
            "size": self.size,
            "note": self.note,
            "text": self.text(),
            "blocks": blocks,
        }


def _piece_text(p: Piece, doc: Document, cite: bool) -> str:
    text = p.text(doc)
    return f"{text} {p.citation()}" if cite else text


@dataclass(frozen=True, slots=True)
class EvidenceSettings:
    """Evidence delivery's parameters (defaults chosen on the development sets)."""

    pool: int = POOL
    weight: float = WEIGHT
    unit_max: int = UNIT_MAX
    table_max: int = TABLE_MAX
    #: a unit citing a note brings the note next (off: demo recall 0.768 on, 0.770 off @1200)
    notes: bool = False

    def __post_init__(self) -> None:
        if self.pool < 1:
            raise InputError(f"evidence: pool must be at least 1 chunk, got {self.pool}")
        if not 0.0 <= self.weight <= 1.0:
            raise InputError(f"evidence: weight must be in [0, 1], got {self.weight}")
        if self.unit_max < 20:
            raise InputError(f"evidence: unit_max must be at least 20, got {self.unit_max}")


@dataclass
class _Candidate:
    unit: Unit
    score: float
    group: int
    tier: int = 0  # 0: a unit of the top ``pool`` chunks; 1: of a chunk below them


def _scaled(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else np.zeros_like(values)


def _candidates(
    question: str,
    groups: Sequence[Sequence[Hit]],
    cache: UnitCache,
    settings: EvidenceSettings,
    index: UnitIndex | None = None,
) -> list[_Candidate]:
    """Every unit of each group's top chunks, scored (a unit in several groups: its first)."""
    from finchunk.retrieve.lexical.bm25 import BM25Index

    units: dict[Unit, tuple[float, int]] = {}
    for g, hits in enumerate(groups):
        top = hits[: settings.pool]
        chunk_scores = _scaled(np.array([max(h.score, 0.0) for h in top], dtype=np.float64))
        for h, cs in zip(top, chunk_scores.tolist(), strict=True):
            for u in cache.within(h.doc_id, h.spans):
                best = units.get(u)
                if best is None or (best[1] == g and cs > best[0]):
                    units[u] = (cs, g if best is None else best[1])
    if not units:
        return []
    listed = list(units)
    if index is not None:
        every = index.scores(question)
        own = _scaled(np.maximum(every[[index.position[u] for u in listed]], 0.0))
    else:
        texts = [_unit_text(cache.documents[u.doc_id], u) for u in listed]
        own = _scaled(np.maximum(BM25Index(texts).scores(question).astype(np.float64), 0.0))
    w = settings.weight
    scored = [
        _Candidate(u, w * units[u][0] + (1 - w) * float(o), units[u][1])
        for u, o in zip(listed, own.tolist(), strict=True)
    ]
    return scored + _below_pool(groups, cache, settings, units)


def _below_pool(
    groups: Sequence[Sequence[Hit]],
    cache: UnitCache,
    settings: EvidenceSettings,
    taken: Mapping[Unit, Any],
) -> list[_Candidate]:
    """The units of the chunks below the pool, in the chunks' rank order (their score
    falls with the rank): what a budget the pool's units do not fill delivers next."""
    out: list[_Candidate] = []
    seen = set(taken)
    for g, hits in enumerate(groups):
        below = hits[settings.pool :]
        for rank, h in enumerate(below):
            for u in cache.within(h.doc_id, h.spans):
                if u not in seen:
                    seen.add(u)
                    out.append(_Candidate(u, -float(rank), g, tier=1))
    return out


class _Packer:
    """The delivered pieces and their exact rendered cost, piece by piece."""

    def __init__(
        self, documents: Mapping[str, Document], budget: int, cost: Cost, cite: bool
    ) -> None:
        self.documents, self.budget, self.cost, self.cite = documents, budget, cost, cite
        self.spent = 0
        self.pieces: list[Piece] = []
        self.blocks: set[tuple[str, tuple[str, ...]]] = set()
        self.delivered: dict[str, list[Span]] = {}

    def _new(self, doc_id: str, spans: Sequence[Span]) -> tuple[Span, ...]:
        """The parts of ``spans`` not delivered yet."""
        done = self.delivered.get(doc_id, [])
        out: list[Span] = []
        for s, e in spans:
            pieces = [(s, e)]
            for a, b in done:
                pieces = [
                    part
                    for ps, pe in pieces
                    for part in ((ps, min(pe, a)), (max(ps, b), pe))
                    if part[1] > part[0]
                ]
            out.extend(pieces)
        return tuple(_trimmed(self.documents[doc_id].text, out))

    def piece(self, unit: Unit, score: float) -> Piece | None:
        """The piece ``unit`` would add (None: all of it is delivered already)."""
        doc = self.documents[unit.doc_id]
        spans = self._new(unit.doc_id, unit.spans)
        if not spans:
            return None
        context = self._new(unit.doc_id, unit.context)
        element = doc.elements[unit.element]
        if doc.pages:
            pages = tuple(dict.fromkeys(doc.page_at(s) for s, _ in spans))
        else:
            pages = (element.page,) if element.page is not None else ()
        section = element.section
        return Piece(unit.doc_id, spans, context, section, pages, score)  # type: ignore[arg-type]

    def price(self, p: Piece) -> int:
        doc = self.documents[p.doc_id]
        extra = self.cost(_piece_text(p, doc, self.cite))
        if (p.doc_id, p.section) in self.blocks:
            return extra + self.cost(PIECE_JOINER)
        head = self.cost(context_header(doc, p.section)) + self.cost(LINE_JOINER)
        return extra + head + (self.cost(BLOCK_JOINER) if self.blocks else 0)

    def add(self, p: Piece, price: int) -> None:
        self.spent += price
        self.pieces.append(p)
        self.blocks.add((p.doc_id, p.section))
        done = self.delivered.setdefault(p.doc_id, [])
        done[:] = merge_spans([*done, *p.all_spans])


def _trimmed(text: str, spans: Sequence[Span]) -> list[Span]:
    """``spans`` without the whitespace at their ends (what is left of a unit between
    delivered spans starts with a line break, or is one alone: then it is dropped)."""
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def _cited_notes(doc: Document, element: Element, group: int, score: float) -> list[_Candidate]:
    if not element.cites:
        return []
    return [
        _Candidate(Unit(doc.id, i, (e.span,)), score, group)
        for i, e in enumerate(doc.elements)
        if e.kind is ElementKind.NOTE and e.mark in element.cites
    ]


def _truncated(
    packer: _Packer, best: _Candidate, unit: str, budget: int
) -> tuple[tuple[Piece, ...], str, bool]:
    """The start of the best unit cut to the budget, a note saying so, and whether its
    section header fits too (when not, the piece is delivered without it)."""
    p = packer.piece(best.unit, best.score)
    assert p is not None
    doc = packer.documents[p.doc_id]
    s, e = p.spans[0]
    # without its context: the unit's own text, cut to what fits
    bare = Piece(p.doc_id, ((s, e),), (), p.section, p.pages, p.score, True)
    cite = packer.cost(bare.citation()) + 1 if packer.cite else 0
    head = packer.price(bare) - packer.cost(_piece_text(bare, doc, packer.cite))
    headers = budget - head - cite > 0
    room = budget - cite - (head if headers else 0)
    end = s
    if room > 0:
        lo, hi = s, e  # the longest prefix whose cost fits (cost grows with length)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if packer.cost(doc.text[s:mid]) <= room:
                lo = mid
            else:
                hi = mid - 1
        end = lo
    said = f"its first {end - s} characters delivered" if end > s else "nothing delivered"
    if end > s and not headers:
        said += " (without its section header)"
    note = f"budget of {budget} {unit} too small for the best unit ({packer.price(p)} {unit}): "
    if end <= s:
        return (), note + said, headers
    return (
        (Piece(p.doc_id, ((s, end),), (), p.section, p.pages, p.score, True),),
        note + said,
        headers,
    )


def deliver_evidence(
    question: str,
    groups: Sequence[Sequence[Hit]],
    documents: Mapping[str, Document],
    budget: int,
    *,
    settings: EvidenceSettings = EvidenceSettings(),
    tokens: bool = False,
    cite: bool = False,
    cache: UnitCache | None = None,
    index: UnitIndex | None = None,
) -> Evidence:
    """The best evidence for ``question`` from one ranking (or one per entity, taking
    turns) within ``budget`` characters (cl100k tokens with ``tokens``)."""
    unit = "tokens" if tokens else "chars"
    if budget < 1:
        raise InputError(f"--budget must be a positive number of {unit}, not {budget}")
    cache = cache or UnitCache(documents, settings.unit_max, settings.table_max)
    cands = _candidates(question, groups, cache, settings, index)
    packer = _Packer(documents, budget, cl100k_tokens if tokens else chars, cite)
    queues = [
        sorted((c for c in cands if c.group == g), key=lambda c: (c.tier, -c.score))
        for g in range(len(groups))
    ]
    while any(queues):
        for q in queues:
            _take_one(packer, q, settings)
    note = ""
    if not packer.pieces and cands:
        best = min(cands, key=lambda c: (c.tier, -c.score))
        pieces, note, headers = _truncated(packer, best, unit, budget)
        packer.pieces.extend(pieces)
        return Evidence(tuple(packer.pieces), documents, budget, unit, cite, note, headers)
    return Evidence(tuple(packer.pieces), documents, budget, unit, cite, note)


def _take_one(packer: _Packer, queue: list[_Candidate], settings: EvidenceSettings) -> None:
    """Deliver the best unit of ``queue`` that fits (dropping those that do not or are
    delivered already); a unit citing notes queues them next."""
    while queue:
        c = queue.pop(0)
        p = packer.piece(c.unit, c.score)
        if p is None:
            continue
        price = packer.price(p)
        if packer.spent + price > packer.budget:
            continue
        packer.add(p, price)
        if settings.notes:
            doc = packer.documents[c.unit.doc_id]
            queue[:0] = _cited_notes(doc, doc.elements[c.unit.element], c.group, c.score)
        return


def deliver_plan(
    plan: Any,
    ranked: Sequence[Hit],
    documents: Mapping[str, Document],
    *,
    settings: EvidenceSettings = EvidenceSettings(),
    cite: bool = False,
    cache: UnitCache | None = None,
    index: UnitIndex | None = None,
) -> Evidence:
    """The evidence step of a :class:`~finchunk.retrieve.query.plan.QueryPlan` whose delivery is
    ``evidence``: its ranking (from :func:`~finchunk.retrieve.query.plan.run_plan`, whole and
    deep) packed within the delivery's budget, the plan's information need scoring the
    units, a slot per entity the plan holds."""
    delivery = plan.delivery
    return deliver_evidence(
        plan.query,
        split_by_entity(ranked, plan.entities),
        documents,
        delivery.evidence_budget,
        settings=settings,
        tokens=delivery.tokens,
        cite=cite,
        cache=cache,
        index=index,
    )
