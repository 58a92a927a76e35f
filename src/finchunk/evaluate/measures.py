"""Measures as values: ``Recall(5)``, ``Chars(Budget(1300))``, ``NDCG(10)`` …

Each measure is a small frozen object holding its parameters; ``value(ranking, gold)``
scores one question's ranking (a tuple of :class:`~finchunk.evaluate.runs.ScoredChunk`)
against its :class:`~finchunk.evaluate.gold.QuestionGold`; :func:`score` scores a whole run.

Definitions (a passage is *retrieved* by a set of chunks when the union of their spans
covers at least ``threshold`` of its characters, overlaps counted once; the half-coverage
rule is ``threshold = 0.5``; an evidence item is retrieved when one of its passages is, so
an answer stated in several places counts once, wherever it is found):

* ``Recall`` — share of the question's gold evidence retrieved (``EvidenceRecall`` is the
  same measure under FinanceBench's name; unaligned evidence counts as not retrieved);
* ``Complete`` — 1 when every evidence item is retrieved;
* ``Chars`` — characters delivered (the indexed texts of the chunks); ``Delivered`` — chunks;
* ``PageHit`` — 1 when some chunk touches a gold page; ``PageRecall`` — share of gold pages
  touched (FinanceBench's page accuracy and page recall);
* ``NDCG`` — the gain at rank *i* is the number of evidence items first retrieved at *i*;
  the ideal puts one new item at each rank (binary relevance on items, as trec_eval's
  ``ndcg_cut`` with items as documents);
* ``RR`` — 1 / the rank at which the first evidence item is retrieved (MRR when averaged).

Each takes a cut: ``k`` (the top k) or a :class:`Budget` (chunks in rank order while they
fit in a number of characters; ``skip=True`` passes over one that does not fit and goes on).
A question missing from a run is scored as an empty ranking (0 for every measure here) and
counted in :attr:`Scores.missing`, never dropped.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from types import MappingProxyType
from typing import Protocol

import numpy as np

from finchunk.evaluate.gold import GoldPassage, GoldSet, QuestionGold
from finchunk.evaluate.runs import Run, ScoredChunk
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


class Located(Protocol):
    """What coverage needs of a chunk (a Chunk and a ScoredChunk both have it)."""

    @property
    def doc_id(self) -> str: ...

    @property
    def spans(self) -> Sequence[Span]: ...


def count_retrieved(
    delivered: Sequence[Located],
    gold: QuestionGold,
    threshold: float = DEFAULT_THRESHOLD,
) -> int:
    """How many of ``gold``'s evidence items the delivered chunks retrieve: an item is
    retrieved when one of its passages is covered to at least ``threshold``."""
    by_doc: dict[str, list[Span]] = defaultdict(list)
    for c in delivered:
        by_doc[c.doc_id].extend(c.spans)
    covered = [int(coverage(g.span, by_doc.get(g.doc_id, ())) >= threshold) for g in gold.passages]
    return sum(1 for r in gold.item_ranks(covered) if r)


def first_retrieved_ranks(
    ranking: Sequence[Located], gold: Sequence[GoldPassage], threshold: float
) -> list[int]:
    """For each gold passage, the 1-based rank at which the chunks so far first retrieve it
    (0: never in ``ranking``)."""
    out = [0] * len(gold)
    seen: dict[str, list[Span]] = defaultdict(list)
    for rank, c in enumerate(ranking, 1):
        seen[c.doc_id].extend(c.spans)
        for i, g in enumerate(gold):
            if out[i] or g.doc_id != c.doc_id:
                continue
            if coverage(g.span, seen[g.doc_id]) >= threshold:
                out[i] = rank
        if all(out):
            break
    return out


# --- cuts ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Budget:
    """Chunks in rank order while their characters fit in ``chars``; at the first that does
    not fit, stop (``skip=False``) or pass over it and go on (``skip=True``)."""

    chars: int
    skip: bool = False

    def __post_init__(self) -> None:
        if self.chars < 0:
            raise ValueError(f"a budget is a number of characters >= 0, got {self.chars}")

    def apply(self, ranking: Sequence[ScoredChunk]) -> list[ScoredChunk]:
        out: list[ScoredChunk] = []
        spent = 0
        for c in ranking:
            if spent + c.chars > self.chars:
                if self.skip:
                    continue
                break
            out.append(c)
            spent += c.chars
        return out

    def __str__(self) -> str:
        return f"{self.chars}c" + ("+skip" if self.skip else "")


@dataclass(frozen=True, slots=True)
class TokenBudget:
    """:class:`Budget` in cl100k tokens: ``counts`` gives each chunk's tokens by chunk id
    (:func:`token_counts`)."""

    tokens: int
    skip: bool = False
    counts: Mapping[str, int] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def apply(self, ranking: Sequence[ScoredChunk]) -> list[ScoredChunk]:
        out: list[ScoredChunk] = []
        spent = 0
        for c in ranking:
            n = self.counts[c.chunk_id]
            if spent + n > self.tokens:
                if self.skip:
                    continue
                break
            out.append(c)
            spent += n
        return out

    def __str__(self) -> str:
        return f"{self.tokens}t" + ("+skip" if self.skip else "")


def token_counts(run: Run, texts: Mapping[str, str]) -> dict[str, int]:
    """The cl100k tokens of the delivered text of every chunk ``run`` ranks."""
    from finchunk.retrieve.query.evidence_units import cl100k_tokens

    ids = {c.chunk_id for q in run.rankings.values() for c in q}
    return {i: cl100k_tokens(texts[i]) for i in ids}


Cut = int | Budget | TokenBudget


def cut(ranking: Sequence[ScoredChunk], at: Cut) -> Sequence[ScoredChunk]:
    return ranking[:at] if isinstance(at, int) else at.apply(ranking)


# --- measures --------------------------------------------------------------------------------


class Judged:
    """One question's ranking against its gold, with the rank at which each evidence item
    is first retrieved (by any of its passages) computed once per threshold and shared by
    every measure and k (coverage only grows down a ranking, so "retrieved in the top k" is
    "first retrieved at <= k")."""

    __slots__ = ("ranking", "gold", "_ranks")

    def __init__(self, ranking: Sequence[ScoredChunk], gold: QuestionGold) -> None:
        self.ranking = ranking
        self.gold = gold
        self._ranks: dict[float, list[int]] = {}

    def first_ranks(self, threshold: float) -> list[int]:
        if threshold not in self._ranks:
            ranks = first_retrieved_ranks(self.ranking, self.gold.passages, threshold)
            self._ranks[threshold] = self.gold.item_ranks(ranks)
        return self._ranks[threshold]

    def retrieved(self, at: Cut, threshold: float) -> int:
        """Evidence items retrieved by the chunks ``at`` cuts."""
        if not isinstance(at, int):
            return count_retrieved(at.apply(self.ranking), self.gold, threshold)
        return sum(1 for r in self.first_ranks(threshold) if 0 < r <= at)


class Measure(Protocol):
    def judge(self, j: Judged) -> float: ...

    def value(self, ranking: Sequence[ScoredChunk], gold: QuestionGold) -> float: ...


class _Value:
    """``value(ranking, gold)``: one question scored on its own."""

    __slots__ = ()

    def value(self, ranking: Sequence[ScoredChunk], gold: QuestionGold) -> float:
        return self.judge(Judged(ranking, gold))  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Recall(_Value):
    at: Cut = 10
    threshold: float = DEFAULT_THRESHOLD

    def judge(self, j: Judged) -> float:
        if not j.gold.evidence:
            return 0.0
        return j.retrieved(self.at, self.threshold) / j.gold.evidence

    def __str__(self) -> str:
        return f"Recall@{self.at}"


EvidenceRecall = Recall


@dataclass(frozen=True, slots=True)
class Complete(_Value):
    at: Cut = 10
    threshold: float = DEFAULT_THRESHOLD

    def judge(self, j: Judged) -> float:
        return float(
            j.gold.evidence > 0 and j.retrieved(self.at, self.threshold) == j.gold.evidence
        )

    def __str__(self) -> str:
        return f"Complete@{self.at}"


@dataclass(frozen=True, slots=True)
class Chars(_Value):
    at: Cut = 10

    def judge(self, j: Judged) -> float:
        return float(sum(c.chars for c in cut(j.ranking, self.at)))

    def __str__(self) -> str:
        return f"Chars@{self.at}"


@dataclass(frozen=True, slots=True)
class Delivered(_Value):
    at: Cut = 10

    def judge(self, j: Judged) -> float:
        return float(len(cut(j.ranking, self.at)))

    def __str__(self) -> str:
        return f"Delivered@{self.at}"


def _pages(ranking: Iterable[ScoredChunk]) -> set[tuple[str, int]]:
    return {(c.doc_id, p) for c in ranking for p in c.pages}


@dataclass(frozen=True, slots=True)
class PageHit(_Value):
    at: Cut = 10

    def judge(self, j: Judged) -> float:
        return float(bool(j.gold.pages & _pages(cut(j.ranking, self.at))))

    def __str__(self) -> str:
        return f"PageHit@{self.at}"


@dataclass(frozen=True, slots=True)
class PageRecall(_Value):
    at: Cut = 10

    def judge(self, j: Judged) -> float:
        if not j.gold.pages:
            return 0.0
        return len(j.gold.pages & _pages(cut(j.ranking, self.at))) / len(j.gold.pages)

    def __str__(self) -> str:
        return f"PageRecall@{self.at}"


@dataclass(frozen=True, slots=True)
class NDCG(_Value):
    at: int = 10
    threshold: float = DEFAULT_THRESHOLD

    def judge(self, j: Judged) -> float:
        if not j.gold.evidence:
            return 0.0
        ranks = j.first_ranks(self.threshold)
        dcg = sum(1.0 / math.log2(r + 1) for r in ranks if 0 < r <= self.at)
        ideal = sum(1.0 / math.log2(i + 2) for i in range(min(self.at, j.gold.evidence)))
        return dcg / ideal

    def __str__(self) -> str:
        return f"nDCG@{self.at}"


@dataclass(frozen=True, slots=True)
class RR(_Value):
    at: int = 10
    threshold: float = DEFAULT_THRESHOLD

    def judge(self, j: Judged) -> float:
        ranks = [r for r in j.first_ranks(self.threshold) if 0 < r <= self.at]
        return 1.0 / min(ranks) if ranks else 0.0

    def __str__(self) -> str:
        return f"RR@{self.at}"


MRR = RR


# --- scoring a run ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Scores:
    """Per measure, per question (in the gold set's order), and which questions the run
    lacked (scored as empty rankings)."""

    per_query: Mapping[Measure, Mapping[str, float]]
    missing: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        frozen = {m: MappingProxyType(dict(v)) for m, v in self.per_query.items()}
        object.__setattr__(self, "per_query", MappingProxyType(frozen))

    def mean(self, measure: Measure, questions: Iterable[str] | None = None) -> float:
        """Mean over all questions (or ``questions``); 0.0 when there are none."""
        values = self.per_query[measure]
        chosen = [values[q] for q in questions] if questions is not None else list(values.values())
        return fmean(chosen) if chosen else 0.0


def score(run: Run, gold: GoldSet, measures: Sequence[Measure]) -> Scores:
    """Every measure for every question of ``gold``."""
    per: dict[Measure, dict[str, float]] = {m: {} for m in measures}
    missing = []
    for g in gold:
        if g.id not in run:
            missing.append(g.id)
        judged = Judged(run.get(g.id), g)
        for m in measures:
            per[m][g.id] = m.judge(judged)
    return Scores(per, tuple(missing))


# --- comparing two runs ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Comparison:
    """B against A on one measure over the same questions: mean difference (B − A), a
    paired-bootstrap 95 % interval on it, and per-question wins, losses and ties of B."""

    measure: str
    questions: int
    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    wins: int
    losses: int
    ties: int

    @property
    def within_noise(self) -> bool:
        """The interval holds 0: this many questions cannot tell A and B apart."""
        return self.low <= 0.0 <= self.high

    def as_dict(self) -> dict[str, float | int | str | bool]:
        return {
            "measure": self.measure,
            "questions": self.questions,
            "mean_a": round(self.mean_a, 4),
            "mean_b": round(self.mean_b, 4),
            "difference": round(self.difference, 4),
            "ci95": [round(self.low, 4), round(self.high, 4)],
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
            "within_noise": self.within_noise,
        }


def compare(
    a: Mapping[str, float],
    b: Mapping[str, float],
    measure: str = "",
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> Comparison:
    """Paired bootstrap over the questions both hold (seeded: the same input, the same
    interval)."""
    qids = [q for q in a if q in b]
    va = np.array([a[q] for q in qids], dtype=np.float64)
    vb = np.array([b[q] for q in qids], dtype=np.float64)
    d = vb - va
    n = len(qids)
    if n == 0:
        return Comparison(measure, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0)
    rng = np.random.default_rng(seed)
    # resamples drawn in batches (the same stream as one draw): memory stays ~8 MB
    batch = max(1, (1 << 20) // n)
    means = np.concatenate(
        [
            d[rng.integers(0, n, size=(min(batch, resamples - i), n))].mean(axis=1)
            for i in range(0, resamples, batch)
        ]
    )
    low, high = np.percentile(means, [2.5, 97.5])
    return Comparison(
        measure,
        n,
        float(va.mean()),
        float(vb.mean()),
        float(d.mean()),
        float(low),
        float(high),
        int((d > 0).sum()),
        int((d < 0).sum()),
        int((d == 0).sum()),
    )
