"""The one gold model: per question, the passages (spans) and pages that answer it.

Three readers feed it: the lesson schema (passage tables, :func:`gold_from_corpus`),
quote-gold JSONL (quotes aligned to spans, also through a :class:`Corpus`) and FinanceBench
(evidence quotes aligned on their gold pages, :mod:`finchunk.evaluate.financebench`).

``evidence`` is the number of gold items the question has, aligned or not: recall divides by
it, so a quote that could not be aligned counts as a passage no chunk retrieves.
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
    """What answers one question: passages (doc id + span), pages (doc id, 1-based page)."""

    id: str
    passages: tuple[GoldPassage, ...] = ()
    pages: frozenset[tuple[str, int]] = frozenset()
    evidence: int = -1  # -1: as many as passages
    type: str = ""

    def __post_init__(self) -> None:
        if self.evidence < 0:
            object.__setattr__(self, "evidence", len(self.passages))
        if self.evidence < len(self.passages):
            raise ValueError(
                f"question {self.id!r}: evidence {self.evidence} < {len(self.passages)} passages"
            )


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
        golds.append(QuestionGold(q.id, spans, type=q.type))
    return GoldSet.of(golds)
