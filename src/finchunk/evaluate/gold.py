"""The one gold model: per question, the passages (spans) and pages that answer it.

Three readers feed it: the lesson schema (passage tables, :func:`gold_from_corpus`),
quote-gold JSONL (quotes aligned to spans, also through a :class:`Corpus`) and FinanceBench
(evidence quotes aligned on their gold pages, :mod:`finchunk.evaluate.financebench`).

``evidence`` is the number of gold items the question has, aligned or not: recall divides by
it, so a quote that could not be aligned counts as a passage no chunk retrieves.

An item may have alternatives: the same answer stated in several places ("any of these").
``items`` gives, for each passage, the 0-based evidence item it states; an item counts as
retrieved when any of its passages is (empty ``items``: each passage is its own item).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from finchunk.model import Span

if TYPE_CHECKING:
    from finchunk.evaluate.corpus import Corpus


@dataclass(frozen=True, slots=True)
class GoldPassage:
    doc_id: str
    span: Span


@dataclass(frozen=True, slots=True)
class QuestionGold:
    """What answers one question: passages (doc id + span), pages (doc id, 1-based page),
    and per passage the evidence item it states (``items``; see the module docstring)."""

    id: str
    passages: tuple[GoldPassage, ...] = ()
    pages: frozenset[tuple[str, int]] = frozenset()
    evidence: int = -1  # -1: as many as the passages' items
    type: str = ""
    items: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.items and len(self.items) != len(self.passages):
            raise ValueError(
                f"question {self.id!r}: {len(self.items)} items for {len(self.passages)} passages"
            )
        stated = len(set(self.items)) if self.items else len(self.passages)
        if self.evidence < 0:
            object.__setattr__(self, "evidence", stated)
        if self.evidence < stated or any(not 0 <= i < self.evidence for i in self.items):
            raise ValueError(
                f"question {self.id!r}: evidence {self.evidence} does not hold the items "
                f"of its {len(self.passages)} passages"
            )

    def item_ranks(self, ranks: Sequence[int]) -> list[int]:
        """Per evidence item with a passage (in item order), the first of its passages'
        ranks (``ranks``: one per passage, 0 for never retrieved; 0 when none is)."""
        if not self.items:
            return list(ranks)
        best: dict[int, int] = {}
        for item, rank in zip(self.items, ranks, strict=True):
            seen = best.get(item, 0)
            best[item] = rank if rank and (not seen or rank < seen) else seen
        return [best[i] for i in sorted(best)]


@dataclass(frozen=True)
class GoldSet:
    """Gold for a set of questions, in question order (the order reports average in)."""

    questions: Mapping[str, QuestionGold] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "questions", MappingProxyType(dict(self.questions)))

    @classmethod
    def of(cls, golds: Sequence[QuestionGold]) -> GoldSet:
        out: dict[str, QuestionGold] = {}
        for g in golds:
            if g.id in out:
                raise ValueError(f"question {g.id!r} appears twice in the gold set")
            out[g.id] = g
        return cls(out)

    def __iter__(self) -> Iterator[QuestionGold]:
        return iter(self.questions.values())

    def __len__(self) -> int:
        return len(self.questions)

    def __getitem__(self, qid: str) -> QuestionGold:
        return self.questions[qid]

    @property
    def types(self) -> list[str]:
        return sorted({g.type for g in self})

    def of_type(self, t: str) -> GoldSet:
        return GoldSet({g.id: g for g in self if g.type == t})


def gold_from_corpus(corpus: Corpus) -> GoldSet:
    """Gold of the answerable questions of a corpus (lesson schema or aligned quotes)."""
    passages = corpus.passages
    golds = []
    for q in corpus.answerable:
        spans = tuple(GoldPassage(passages[p].doc_id, passages[p].span) for p in q.gold)
        golds.append(QuestionGold(q.id, spans, type=q.type, items=q.items))
    return GoldSet.of(golds)
