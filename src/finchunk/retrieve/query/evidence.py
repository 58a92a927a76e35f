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
   pool (scaled the same way): ``weight * chunk + (1 - weight) * unit``; optionally SPLADE's
   or an embedder's score in the unit's own (:mod:`finchunk.retrieve.query.evidence_score`).
3. **Packing.** Best first, each unit that still fits the budget is delivered with what
   it needs that is not delivered yet: its section's header line (once per document
   section, not once per chunk), a table's caption and column-header rows. A unit citing a
   note (``Element.cites``) brings the note next, when it fits. With several groups (one
   ranking per entity a comparison question names), the groups take turns. When the
   pool's units are all delivered and room is left, the units of the chunks below the
   pool follow in the chunks' rank order. Optionally (``adjacent``) a delivered unit lifts
   the units beside it.

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

from finchunk.chunk.header import context_header
from finchunk.errors import InputError
from finchunk.model import Document, Element, ElementKind, Span, merge_spans
from finchunk.retrieve.query.evidence_score import (
    DEFAULT_SETTINGS,
    Candidate,
    EvidenceSettings,
    candidates,
    lift,
    neighbours,
)
from finchunk.retrieve.query.evidence_units import (
    Hit,
    Unit,
    UnitCache,
    UnitIndex,
    chars,
    cl100k_tokens,
    split_by_entity,
)

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


class _Packer:
    """The delivered pieces and their exact rendered cost, piece by piece."""

    def __init__(self, cache: UnitCache, budget: int, cost: Cost, cite: bool) -> None:
        self.cache, self.documents = cache, cache.documents
        self.budget, self.cost, self.cite = budget, cost, cite
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


def _cited_notes(doc: Document, element: Element, group: int, score: float) -> list[Candidate]:
    if not element.cites:
        return []
    return [
        Candidate(Unit(doc.id, i, (e.span,)), score, group, tier=-1)  # next, before all
        for i, e in enumerate(doc.elements)
        if e.kind is ElementKind.NOTE and e.mark in element.cites
    ]


def _truncated(
    packer: _Packer, best: Candidate, unit: str, budget: int
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
    settings: EvidenceSettings = DEFAULT_SETTINGS,
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
    cands = candidates(question, groups, cache, settings, index)
    packer = _Packer(cache, budget, cl100k_tokens if tokens else chars, cite)
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


def _take_one(packer: _Packer, queue: list[Candidate], settings: EvidenceSettings) -> None:
    """Deliver the best unit of ``queue`` that fits (dropping those that do not or are
    delivered already); a unit citing notes queues them next, and with
    ``settings.adjacent`` its neighbours are lifted."""
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
        if settings.adjacent > 0 and c.tier == 0:
            lift(queue, neighbours(packer.cache, c.unit), c, settings.adjacent)
        return


def deliver_plan(
    plan: Any,
    ranked: Sequence[Hit],
    documents: Mapping[str, Document],
    *,
    settings: EvidenceSettings = DEFAULT_SETTINGS,
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
