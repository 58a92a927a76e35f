"""Coverage of gold passages by retrieved chunks, and per-question scores.

* coverage of a passage by a set of chunks: the share of its characters inside the union
  of their spans (overlaps count once);
* a passage is *retrieved* at k when the top-k chunks cover at least ``threshold`` of it;
* per question: ``recall`` (share of gold passages retrieved), ``complete`` (all of them),
  ``chars`` (characters delivered: the sum of ``len(chunk.text)`` over the top k).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from finchunk.model import Span, merge_spans

DEFAULT_THRESHOLD = 0.5


def coverage(passage: Span, spans: Iterable[Span]) -> float:
    """Share of ``passage``'s characters inside the union of ``spans``."""
    ps, pe = passage
    if pe <= ps:
        return 0.0
    covered = 0
    for s, e in merge_spans((max(s, ps), min(e, pe)) for s, e in spans):
        covered += e - s
    return covered / (pe - ps)


class Delivered(Protocol):
    """What scoring needs of a delivered chunk (a :class:`~finchunk.model.Chunk` has it)."""

    @property
    def doc_id(self) -> str: ...

    @property
    def spans(self) -> Sequence[Span]: ...

    @property
    def text(self) -> str: ...


@dataclass(frozen=True, slots=True)
class GoldPassage:
    doc_id: str
    span: Span


@dataclass(frozen=True, slots=True)
class QuestionScore:
    recall: float
    complete: bool
    chars: int
    chunks: int


def count_retrieved(
    delivered: Sequence[Delivered],
    gold: Sequence[GoldPassage],
    threshold: float = DEFAULT_THRESHOLD,
) -> int:
    """How many gold passages the delivered chunks cover to at least ``threshold``."""
    by_doc: dict[str, list[Span]] = defaultdict(list)
    for c in delivered:
        by_doc[c.doc_id].extend(c.spans)
    return sum(1 for g in gold if coverage(g.span, by_doc.get(g.doc_id, ())) >= threshold)


def score_chunks(
    delivered: Sequence[Delivered],
    gold: Sequence[GoldPassage],
    threshold: float = DEFAULT_THRESHOLD,
) -> QuestionScore:
    """Score the chunks delivered for one question against its gold passages."""
    hit = count_retrieved(delivered, gold, threshold)
    return QuestionScore(
        recall=hit / len(gold) if gold else 0.0,
        complete=bool(gold) and hit == len(gold),
        chars=sum(len(c.text) for c in delivered),
        chunks=len(delivered),
    )


def within_budget(ranked: Sequence[Delivered], budget: int) -> list[Delivered]:
    """Chunks in rank order until the next one would exceed ``budget`` characters."""
    out: list[Delivered] = []
    spent = 0
    for c in ranked:
        n = len(c.text)
        if spent + n > budget:
            break
        out.append(c)
        spent += n
    return out
