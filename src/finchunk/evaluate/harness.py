"""``finchunk eval``: variants → runs → measures → the report.

A :class:`Variant` is a chunker, a retriever and what gets indexed. :func:`run_variant`
chunks the corpus with it and ranks every answerable question (:func:`finchunk.evaluate.
runs.rank`); :func:`evaluate_runs` scores the runs (:mod:`finchunk.evaluate.measures`) and
lays out the rows of the report: recall, complete, chars, nDCG and MRR by k; recall by
question type; chunk counts; and each variant against the first, with wins, losses and a
bootstrap interval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from finchunk.chunk import Chunker
from finchunk.errors import InputError
from finchunk.evaluate.answers import answer_found
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
    count_retrieved,
    score,
)
from finchunk.evaluate.report import PerQuery, chunk_row, comparison_row, means, run_budget_rows
from finchunk.evaluate.runs import Query, Run, rank
from finchunk.evaluate.scope import Scope
from finchunk.model import Chunk, Document
from finchunk.parallel import chunk_documents
from finchunk.retrieve.kinds import DEFAULT_EMBEDDER, FilterStatistics
from finchunk.retrieve.lexical.bm25 import BM25Params
from finchunk.retrieve.neural.dense import Embedder
from finchunk.retrieve.query.deliver import AS_RANKED, Delivery
from finchunk.retrieve.query.filters import AutoFilterPolicy
from finchunk.retrieve.query.retriever import RetrieverOptions

IndexText = Callable[[Chunk], str]
Tick = Callable[[], None]


@dataclass(frozen=True)
class Variant:
    """One configuration under test: a chunker, a retriever (a name the retriever factory
    knows: ``bm25``, ``dense``, ``hybrid``, ``bm25/dense@50`` …), how chunks are indexed.
    Dense retrieval embeds with ``embedder`` (see :mod:`finchunk.retrieve.neural.dense`); BM25
    with ``bm25`` (parameters and text pipeline)."""

    strategy: str
    chunker: Chunker
    retriever: str = "bm25"
    index_text: IndexText | None = None  # default: chunk.text
    embedder: str | Embedder = DEFAULT_EMBEDDER
    bm25: BM25Params = BM25Params()
    reranker: str | None = None  # the ``model`` reranker's model (a folder or URL#MODEL)

    @property
    def header(self) -> bool:
        return bool(self.chunker.header)

    @property
    def name(self) -> str:
        return f"{self.strategy}{'+header' if self.header else ''}/{self.retriever}"


@dataclass(frozen=True)
class EvalSettings:
    """How every variant is run and scored.

    ``scope``/``auto_filter``: which documents a question searches; ``pad``: rankings
    filled to k as the lesson's BM25 delivers; ``delivery``: distinct pages or documents, a
    slot per entity, a delivery budget (:mod:`finchunk.retrieve.query.deliver`); ``budgets``:
    character budgets to score every run at, stopping at the first chunk that does not fit
    and packing (skipping it), in ``report["budgets"]`` (``budget_tokens``: the same in
    cl100k tokens, rows with ``"unit": "tokens"``); ``filter_policy``: which fields
    and years the automatic filter uses (default: every field, every year named);
    ``filter_statistics``: whether a question the filter narrows is scored with the
    statistics of the documents kept (an index of their own, the default) or the corpus's.
    """

    scope: Scope = Scope.CORPUS
    auto_filter: bool = False
    pad: bool = True
    delivery: Delivery = AS_RANKED
    threshold: float = DEFAULT_THRESHOLD
    budgets: tuple[int, ...] = ()
    filter_policy: AutoFilterPolicy | None = None
    filter_statistics: FilterStatistics = FilterStatistics.KEPT
    evidence: bool = True  # score evidence delivery at every budget too
    budget_tokens: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise InputError(f"--threshold must be in (0, 1], got {self.threshold}")
        if any(b < 1 for b in self.budgets):
            raise InputError(f"budgets must be positive numbers of characters: {self.budgets}")
        if any(b < 1 for b in self.budget_tokens):
            raise InputError(f"budgets must be positive numbers of tokens: {self.budget_tokens}")

    def depth(self, ks: Sequence[int]) -> int:
        """How deep runs rank: the largest k, deeper when budgets are scored."""
        return max(max(ks), BUDGET_DEPTH) if self.budgets or self.budget_tokens else max(ks)


#: Rank depth when budgets are scored (enough chunks to fill any sensible context budget).
BUDGET_DEPTH = 50


@dataclass(frozen=True)
class VariantRun:
    """A variant's chunks, their delivered (= indexed) texts, and its run."""

    variant: Variant
    chunks: tuple[Chunk, ...]
    texts: tuple[str, ...]
    run: Run


def chunk_corpus(corpus: Corpus, chunker: Chunker) -> list[Chunk]:
    """Every document's chunks, in order (on a cluster when one is active:
    :mod:`finchunk.parallel`)."""
    return chunk_documents(corpus.documents, chunker)


def queries(
    corpus: Corpus,
    scope: Scope = Scope.CORPUS,
    auto_filter: bool = False,
    per_entity: bool = False,
    policy: AutoFilterPolicy | None = None,
    statistics: FilterStatistics = FilterStatistics.KEPT,
) -> list[Query]:
    """One query per answerable question: its own documents with ``scope=DOCUMENT``, the
    documents its text names with ``auto_filter`` (the two combine; ``policy``: which
    fields and years the filter uses, default all fields and every year named); with
    ``per_entity``, the documents of each issuer it names.

    A question narrowed to some documents, by its scope or by the filter, is scored with
    ``statistics``: by default those documents' own (an index of them alone), as a filtered
    search scores them and as a filing searched alone would be; ``INDEX`` only masks the
    other documents out of the corpus's index."""
    named = _Named(corpus, policy or AutoFilterPolicy()) if auto_filter or per_entity else None
    out = []
    for q in corpus.answerable:
        docs: set[str] | None = None
        if scope is Scope.DOCUMENT and q.doc_ids:
            docs = set(q.doc_ids)
        found = named.documents(q.text) if named and auto_filter else None
        if found is not None:
            docs = found if docs is None else docs & found
        entities = named.entities(q.text) if named and per_entity else ()
        isolated = docs is not None and statistics is not FilterStatistics.INDEX
        kept = None if docs is None else tuple(sorted(docs))
        # the plan decides with ``statistics`` (auto: their own up to KEPT_LIMIT chunks)
        out.append(Query(q.id, q.text, kept, isolated, entities, statistics))
    return out


class _Named:
    """What a question's text names among the corpus's documents (issuer, ticker, year,
    type), through the documents' metadata."""

    def __init__(self, corpus: Corpus, policy: AutoFilterPolicy) -> None:
        from finchunk.retrieve.query.filters import MetadataIndex
        from finchunk.text.metadata import canonical_metadata

        self.ids = [d.id for d in corpus.documents]
        self.index = MetadataIndex([canonical_metadata(d.metadata) for d in corpus.documents])
        self.policy = policy

    def _ids(self, keep: np.ndarray) -> tuple[str, ...]:
        return tuple(d for d, k in zip(self.ids, keep.tolist(), strict=True) if k)

    def documents(self, question: str) -> set[str] | None:
        """The documents the automatic filter keeps; None when it names nothing."""
        found = self.index.relax(self.index.auto_filters(question, self.policy))
        return set(self._ids(self.index.mask(found))) if found else None

    def entities(self, question: str) -> tuple[tuple[str, ...], ...]:
        """The documents of each issuer the question names (issuers with documents)."""
        from finchunk.retrieve.query.filters import Filter

        issuers = self.index.mentions(question).issuers
        groups = (self._ids(self.index.mask([Filter("issuer", i)])) for i in issuers)
        return tuple(g for g in groups if g)


def run_variant(
    corpus: Corpus,
    variant: Variant,
    k: int,
    settings: EvalSettings = EvalSettings(),
    on_question: Tick | None = None,
    filter_policy: AutoFilterPolicy | None = None,
) -> VariantRun:
    """Chunk the corpus with ``variant`` and rank the top ``k`` chunks of every question."""
    chunks = tuple(chunk_corpus(corpus, variant.chunker))
    to_text = variant.index_text
    texts = tuple(to_text(c) if to_text else c.text for c in chunks)
    s = settings
    run = rank(
        queries(
            corpus,
            s.scope,
            s.auto_filter,
            s.delivery.per_entity,
            s.filter_policy,
            s.filter_statistics,
        ),
        chunks,
        variant.retriever,
        k,
        texts=texts,
        options=RetrieverOptions(
            embedder=variant.embedder, bm25=variant.bm25, reranker=variant.reranker
        ),
        documents=corpus.documents,
        name=variant.name,
        params={"strategy": variant.strategy, "header": variant.header, "scope": s.scope.value},
        pad=s.pad,
        delivery=s.delivery,
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
        results.append({**keys, "k": k, **means(s, by_key), "questions": len(gold)})
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


def corpus_row(corpus: Corpus) -> dict[str, int]:
    return {
        "documents": len(corpus.documents),
        "passages": len(corpus.passages),
        "questions": len(corpus.questions),
        "answerable": len(corpus.answerable),
    }


def recall_per_query(vr: VariantRun, gold: GoldSet, k: int, threshold: float) -> list[float]:
    """Recall@k per question: all the comparisons need of a run once it is scored."""
    m = Recall(k, threshold)
    return score(vr.run, gold, [m]).per_query[m]


def comparison_rows(
    per_query: Sequence[tuple[str, list[float]]], k: int, threshold: float
) -> list[dict[str, Any]]:
    """Each variant (name, Recall@k per question) against the first
    (:func:`~finchunk.evaluate.report.comparison_row`)."""
    if len(per_query) < 2:
        return []
    label = str(Recall(k, threshold))
    (base_name, base), rows = per_query[0], []
    for name, values in per_query[1:]:
        rows.append(comparison_row({}, base_name, name, base, values, label))
    return rows


def budget_rows(
    vr: VariantRun, gold: GoldSet, settings: EvalSettings, evidence: EvidenceRun | None = None
) -> list[dict[str, Any]]:
    """:func:`~finchunk.evaluate.report.run_budget_rows` of a variant's run."""
    texts = dict(zip((c.id for c in vr.chunks), vr.texts, strict=True))
    rows = run_budget_rows(
        vr.run, texts, gold, settings.budgets, settings.threshold, evidence, settings.budget_tokens
    )
    return [{**_variant_keys(vr.variant), **r} for r in rows]


class EvidenceRun:
    """Evidence delivery over a run's rankings, scored at a budget: the units of a corpus
    are cut and indexed once, each question's delivery is kept per budget."""

    def __init__(
        self,
        documents: Mapping[str, Document],
        texts: Mapping[str, str],
        answers: Mapping[str, str],
        threshold: float = DEFAULT_THRESHOLD,
        entities: Mapping[str, Sequence[Sequence[str]]] | None = None,
    ) -> None:
        """``texts``/``answers``: each question's text and gold answer (by id; an empty
        answer: unknown); ``entities``: per question, the documents of each issuer it names
        (a slot each)."""
        from finchunk.retrieve.query.evidence_units import UnitCache, UnitIndex

        self.documents = documents
        self.texts = texts
        self.answers = {q: a for q, a in answers.items() if a}
        self.cache = UnitCache(self.documents)
        self.index = UnitIndex(self.cache)
        self.threshold = threshold
        self.entities = entities or {}

    @classmethod
    def of_corpus(cls, corpus: Corpus, threshold: float, per_entity: bool = True) -> EvidenceRun:
        named = _Named(corpus, AutoFilterPolicy()) if per_entity else None
        return cls(
            {d.id: d for d in corpus.documents},
            {q.id: q.text for q in corpus.questions},
            {q.id: q.answer for q in corpus.questions},
            threshold,
            {q.id: named.entities(q.text) for q in corpus.answerable} if named else None,
        )

    def delivered(self, run: Run, qid: str, budget: int, tokens: bool = False) -> Any:
        """Evidence for the question within ``budget`` (cl100k tokens with ``tokens``); a
        question naming several issuers gets a slot per issuer (its ranking split by their
        documents, taking turns)."""
        from finchunk.retrieve.query.evidence import deliver_evidence
        from finchunk.retrieve.query.evidence_units import Hit, split_by_entity
        from finchunk.retrieve.query.need import information_need

        hits = [Hit(h.doc_id, h.spans, h.score) for h in run.get(qid)]
        groups = split_by_entity(hits, self.entities.get(qid, ()))
        need = information_need(self.texts[qid]).text  # what the plan searches for
        return deliver_evidence(
            need, groups, self.documents, budget, tokens=tokens, cache=self.cache, index=self.index
        )

    def per_query(self, run: Run, gold: GoldSet, budget: int, tokens: bool = False) -> PerQuery:
        """Per question: :data:`~finchunk.evaluate.report.PerQuery`."""
        out: PerQuery = {}
        for g in gold:
            ev = self.delivered(run, g.id, budget, tokens)
            found = count_retrieved(ev.pieces, g, self.threshold)
            text = ev.text()
            answer = self.answers.get(g.id)
            out[g.id] = (
                found / g.evidence if g.evidence else 0.0,
                float(g.evidence > 0 and found == g.evidence),
                float(len(ev.pieces)),
                float(len(text)),
                answer_found(answer, text) if answer else None,
            )
        return out


def evaluate_runs(
    corpus: Corpus,
    variants: Sequence[Variant],
    ks: Sequence[int],
    settings: EvalSettings = EvalSettings(),
    on_question: Tick | None = None,
    *,
    on_run: Callable[[VariantRun], None] | None = None,
    keep_runs: bool = True,
) -> tuple[dict[str, Any], list[VariantRun]]:
    """The report ``finchunk eval --json`` writes, and the runs behind it.

    Each variant is chunked, ranked and scored in turn, then handed to ``on_run`` (e.g. to
    write its run files); with ``keep_runs=False`` it is dropped right after, so memory
    holds one variant at a time (the comparisons keep only Recall@k per question) and the
    returned list is empty."""
    gold = gold_from_corpus(corpus)
    report: dict[str, Any] = {"corpus": corpus_row(corpus), "results": [], "by_type": []}
    report["chunks"] = []
    compare_k = 5 if 5 in ks else max(ks)
    runs, per_query = [], []
    evidence: EvidenceRun | None = None
    for v in variants:
        vr = run_variant(corpus, v, settings.depth(ks), settings, on_question)
        results, by_type = result_rows(vr, gold, ks, settings.threshold)
        report["results"].extend(results)
        report["by_type"].extend(by_type)
        keys = {"strategy": v.strategy, "header": v.header}
        report["chunks"].append(chunk_row(keys, vr.texts))
        if settings.budgets or settings.budget_tokens:
            if settings.evidence and evidence is None:  # the units: cut and indexed once
                evidence = EvidenceRun.of_corpus(corpus, settings.threshold)
            report.setdefault("budgets", []).extend(budget_rows(vr, gold, settings, evidence))
        per_query.append((v.name, recall_per_query(vr, gold, compare_k, settings.threshold)))
        if on_run is not None:
            on_run(vr)
        if keep_runs:
            runs.append(vr)
        del vr
    report["comparisons"] = comparison_rows(per_query, compare_k, settings.threshold)
    return report, runs


def evaluate(
    corpus: Corpus,
    variants: Sequence[Variant],
    ks: Sequence[int],
    settings: EvalSettings = EvalSettings(),
    on_question: Tick | None = None,
) -> dict[str, Any]:
    """The report ``finchunk eval --json`` writes (one variant in memory at a time)."""
    return evaluate_runs(corpus, variants, ks, settings, on_question, keep_runs=False)[0]
