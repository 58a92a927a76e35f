"""The FinanceBench benchmark: page accuracy of chunking strategies, as in the paper's Table 4.

Pipeline: parse every PDF once (cached in-process) → align each evidence quote on its gold
page (the gold set) → for each strategy, chunk every filing once → rank with each retriever
the factory knows (``bm25``, ``bm25-words``, ``bm25-fin``, ``dense``, ``hybrid``,
``bm25/dense@50`` …) under each scope, one run each → score page accuracy, page recall,
evidence recall, characters delivered, nDCG and MRR at each k.

Scopes: ``document`` (each question searches its own filing, with an index per filing: the
paper's setting), ``corpus`` (one index over all filings), ``filtered`` (the same index,
restricted to the filings whose company and year the question names, see
:mod:`finchunk.retrieve.query.mentions`).

A chunk is *on* a page when any of its spans touches that page (``Chunk.pages``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from statistics import fmean
from typing import Any

from finchunk.chunk import ByTitle, Chunker, Structure
from finchunk.chunk.overlap import RecursiveOverlap
from finchunk.chunk.tokens import Tokens
from finchunk.datasets.financebench import FBDocument, FBQuestion, FinanceBench
from finchunk.errors import InputError
from finchunk.evaluate.financebench_gold import align_gold, describe_documents, parse_documents
from finchunk.evaluate.gold import GoldSet
from finchunk.evaluate.harness import BUDGET_DEPTH
from finchunk.evaluate.measures import (
    DEFAULT_THRESHOLD,
    NDCG,
    RR,
    Chars,
    EvidenceRecall,
    Measure,
    PageHit,
    PageRecall,
    score,
)
from finchunk.evaluate.report import chunk_row, comparison_row, means, run_budget_rows
from finchunk.evaluate.runs import Query, Run, rank
from finchunk.model import Chunk, Document
from finchunk.parallel import chunk_documents
from finchunk.retrieve.kinds import FilterStatistics
from finchunk.retrieve.query.cards import DocumentMap
from finchunk.retrieve.query.deliver import AS_RANKED, Delivery
from finchunk.retrieve.query.filters import AutoFilterPolicy, FilterField
from finchunk.retrieve.query.mentions import (
    ISSUER_KINDS,
    YEAR_KINDS,
    Issuer,
    MentionFinder,
    MentionKind,
    Mentions,
    YearPolicy,
)
from finchunk.retrieve.query.retriever import (
    RetrieverKind,
    RetrieverOptions,
    RetrieverSpec,
    parse_named,
    parse_retriever,
    tuned_on_benchmark,
)
from finchunk.retrieve.query.texts import InMemoryTexts

Tick = Callable[[], None]
#: Share of an evidence passage the top-k chunks must cover for it to count as retrieved.
EVIDENCE_COVERAGE = DEFAULT_THRESHOLD


class FBStrategy(StrEnum):
    BASE128 = "base128"  # the paper's token baselines
    BASE256 = "base256"
    BASE512 = "base512"
    RECURSIVE1024 = "recursive1024"  # FinanceBench's baseline: 1,024 characters, overlap 30
    BYTITLE = "bytitle"  # the paper's element chunking, 2,048 characters
    STRUCTURE = "structure"


DEFAULT_STRATEGIES = tuple(FBStrategy)
#: bm25 as it is; bm25-words: plural-folded words, numbers dropped; bm25-fin: bm25-words
#: with queries expanded by financial line items (written after looking at FinanceBench
#: failures: its figures are tuned on this benchmark).
DEFAULT_RETRIEVERS = (RetrieverKind.BM25, RetrieverKind.BM25_WORDS, RetrieverKind.BM25_FIN)


class FBScope(StrEnum):
    DOCUMENT = "document"
    CORPUS = "corpus"
    FILTERED = "filtered"


#: The paper's Table 4: page accuracy at top-10, per-document index (arXiv:2402.05131).
PAPER_TABLE4: dict[str, tuple[str, float]] = {
    FBStrategy.BASE128: ("Base 128", 72.34),
    FBStrategy.BASE256: ("Base 256", 73.05),
    FBStrategy.BASE512: ("Base 512", 68.09),
    FBStrategy.BYTITLE: ("best element variant", 67.38),
}


def make_strategy(strategy: FBStrategy, header: bool = False) -> Chunker:
    if strategy is FBStrategy.BASE128:
        return Tokens(size=128, header=header)
    if strategy is FBStrategy.BASE256:
        return Tokens(size=256, header=header)
    if strategy is FBStrategy.BASE512:
        return Tokens(size=512, header=header)
    if strategy is FBStrategy.RECURSIVE1024:
        return RecursiveOverlap(size=1024, overlap=30, header=header)
    if strategy is FBStrategy.BYTITLE:
        return ByTitle(size=2048, header=header)
    return Structure(header=header)  # the PDF size (finchunk.chunk.source)


def parse_strategy(name: str) -> FBStrategy:
    try:
        return FBStrategy(name.strip().lower())
    except ValueError:
        choices = ", ".join(s.value for s in FBStrategy)
        raise InputError(
            f"--strategies: unknown strategy {name!r}; choose from {choices}"
        ) from None


def parse_bench_retriever(name: str) -> RetrieverSpec | str:
    """A retriever, or ``auto`` (each question ranked by what ``search`` would choose)."""
    try:
        return parse_named(name)
    except InputError as exc:
        raise InputError(f"--retrievers: {exc}") from None


def parse_scope(name: str) -> FBScope:
    try:
        return FBScope(name.strip().lower())
    except ValueError:
        choices = ", ".join(s.value for s in FBScope)
        raise InputError(f"--scope: unknown scope {name!r}; choose from {choices}") from None


# --- ranking -------------------------------------------------------------------------------


@dataclass
class Chunked:
    strategy: FBStrategy
    header: bool
    chunks: list[Chunk]

    @property
    def name(self) -> str:
        return f"{self.strategy.value}{'+header' if self.header else ''}"


def chunk_all(docs: dict[str, Document], chunker: Chunker) -> list[Chunk]:
    """Every filing's chunks, filings in name order (on a cluster when one is active)."""
    return chunk_documents([docs[name] for name in sorted(docs)], chunker)


def scope_queries(
    scope: FBScope,
    questions: Sequence[FBQuestion],
    plans: dict[str, FilterPlan] | None,
    statistics: FilterStatistics = FilterStatistics.KEPT,
) -> list[Query]:
    """``document``: each question's own filing, with an index of its own (the paper's
    setting); ``corpus``: every filing; ``filtered``: the filings the question names,
    scored with ``statistics`` (by default an index of those filings, as ``eval
    --auto-filter`` does), for the whole question."""
    if scope is FBScope.DOCUMENT:
        return [Query(q.id, q.question, (q.doc_name,), isolated=True) for q in questions]
    if scope is FBScope.CORPUS or plans is None:
        return [Query(q.id, q.question) for q in questions]
    isolated = statistics is not FilterStatistics.INDEX  # the plan decides with statistics
    return [
        Query(q.id, q.question, plans[q.id].filings, isolated, statistics=statistics)
        for q in questions
    ]


@dataclass(frozen=True, slots=True)
class FilterPlan:
    """For the filtered scope: the filings a question names, and what is left of the
    question without the issuers and years it names (``query``; the search itself uses the
    whole question: with the kept filings' statistics the names weigh little, and searching
    the residue lost questions on FinanceBench, see ``bench/README.md``)."""

    filings: tuple[str, ...]
    query: str


#: The filtered scope's filter until measured otherwise: the companies named, the latest year.
FB_FILTER = AutoFilterPolicy(frozenset({FilterField.ISSUER, FilterField.YEAR}), YearPolicy.LATEST)


def filtered_filings(
    fb: FinanceBench, questions: Sequence[FBQuestion], policy: AutoFilterPolicy = FB_FILTER
) -> dict[str, FilterPlan]:
    """The filings each question names, among the benchmark's filings, on the policy's
    fields: those of the companies it names (all companies when none); of the document
    types it names (all when none or none of those); of the years the policy counts (a
    report for year N also shows N-1 and N-2), else of any year it names that is a filing
    year, else of every year. A filing's name before its year
    ("AMERICANWATERWORKS_2020_10K") is one more company alias. What is left of the question
    (less the issuers and years named) is kept in the plan.
    """
    filings = sorted(fb.corpus(), key=lambda d: d.name)
    finder = MentionFinder(
        (Issuer(d.company, aliases=(re.split(r"_\d", d.name, maxsplit=1)[0],)) for d in filings),
        doc_types={d.doc_type for d in filings},
    )
    plans = {}
    for q in questions:
        found = finder.find(q.question, policy.years)
        kept = _kept(filings, found, policy.fields)
        query = found.residual(ISSUER_KINDS | YEAR_KINDS)
        plans[q.id] = FilterPlan(tuple(d.name for d in kept), query)
    return plans


def _kept(
    filings: list[FBDocument], found: Mentions, fields: frozenset[FilterField]
) -> list[FBDocument]:
    pool = filings
    if FilterField.ISSUER in fields and found.issuers:
        pool = [d for d in pool if d.company in found.issuers]
    types = found.values(MentionKind.DOC_TYPE)
    if FilterField.DOC_TYPE in fields and types:
        pool = [d for d in pool if d.doc_type in types] or pool
    if FilterField.YEAR not in fields:
        return pool
    return (
        [d for d in pool if d.period in found.years]
        or [d for d in pool if d.period in found.named_years]
        or pool
    )


# --- scoring -------------------------------------------------------------------------------


def measures_at(k: int) -> dict[str, Measure]:
    """The measures of a results row, by report key."""
    return {
        "page_accuracy": PageHit(k),
        "page_recall": PageRecall(k),
        "evidence_recall": EvidenceRecall(k, EVIDENCE_COVERAGE),
        "chars": Chars(k),
        "ndcg": NDCG(k, EVIDENCE_COVERAGE),
        "mrr": RR(k, EVIDENCE_COVERAGE),
    }


#: Per question, page accuracy (1 or 0) of one variant at one k: what comparisons pair.
PerQuestion = Mapping[str, float]


def result_rows(
    c: Chunked,
    retriever: RetrieverSpec | str,
    scope: FBScope,
    run: Run,
    gold: GoldSet,
    ks: Sequence[int],
    hits: dict[int, PerQuestion] | None = None,
) -> list[dict[str, Any]]:
    """The report rows of one run, a row per k; ``hits`` (if given) receives each k's page
    accuracy per question."""
    rows = []
    for k in ks:
        by_key = measures_at(k)
        s = score(run, gold, list(by_key.values()))
        if hits is not None:
            hits[k] = s.per_query[by_key["page_accuracy"]]
        keys = _keys(c, retriever, scope)
        tuned = tuned_on_benchmark(retriever)
        rows.append({**keys, "k": k, "tuned_on_benchmark": tuned, **means(s, by_key)})
    return rows


@dataclass(frozen=True)
class BenchConfig:
    strategies: tuple[FBStrategy, ...] = DEFAULT_STRATEGIES
    scopes: tuple[FBScope, ...] = tuple(FBScope)
    ks: tuple[int, ...] = tuple(range(1, 11))
    headers: tuple[bool, ...] = (False,)
    retrievers: tuple[RetrieverSpec | str, ...] = tuple(
        parse_retriever(r) for r in DEFAULT_RETRIEVERS
    )
    options: RetrieverOptions = field(default_factory=RetrieverOptions)
    #: The filtered scope's filter (fields and year policy).
    filter: AutoFilterPolicy = FB_FILTER
    #: BM25 statistics of the filtered scope: the kept filings' own (default) or the corpus's.
    filter_statistics: FilterStatistics = FilterStatistics.KEPT
    #: Fill rankings shorter than k with unranked chunks in order (the lesson's BM25 does).
    pad: bool = True
    #: Distinct pages or documents, a slot per entity, a budget
    #: (:mod:`finchunk.retrieve.query.deliver`).
    delivery: Delivery = AS_RANKED
    #: Character budgets to score every run at (whole chunks stopping or packing, and
    #: evidence delivery: :func:`finchunk.evaluate.report.run_budget_rows`).
    budgets: tuple[int, ...] = ()
    #: The same in cl100k tokens.
    budget_tokens: tuple[int, ...] = ()

    @property
    def scores_budgets(self) -> bool:
        return bool(self.budgets or self.budget_tokens)


@dataclass
class Progress:
    """Callbacks the CLI wires to progress bars (all optional); ``run`` receives every run
    as it is made (to write it out)."""

    parsed: Tick | None = None
    ranked: Tick | None = None
    run: Callable[[Run], None] | None = None


def run_benchmark(
    fb: FinanceBench,
    config: BenchConfig,
    progress: Progress | None = None,
    docs: dict[str, Document] | None = None,
) -> dict[str, Any]:
    """The report ``finchunk bench financebench --json`` writes."""
    prog = progress or Progress()
    docs = describe_documents(fb, docs) if docs is not None else parse_documents(fb, prog.parsed)
    questions = list(fb.questions)
    gold, alignment = align_gold(questions, docs)
    filtered = FBScope.FILTERED in config.scopes
    allowed = filtered_filings(fb, questions, config.filter) if filtered else None
    report: dict[str, Any] = {
        "documents": len(docs),
        "questions": len(questions),
        "skipped": len(fb.skipped),
        "pages": sum(len(d.pages) for d in docs.values()),
        "alignment": alignment.as_dict(),
        "filter": filter_row(questions, allowed),
        "distinct": config.delivery.distinct.value,
        "results": [],
        "chunks": [],
        "comparisons": [],
    }
    evidence: Any = None
    if config.scores_budgets:
        from finchunk.evaluate.harness import EvidenceRun

        report["budgets"] = []
        evidence = EvidenceRun(
            docs, {q.id: q.question for q in questions}, {q.id: q.answer for q in questions}
        )
    for strategy in config.strategies:
        for header in config.headers:
            c = Chunked(strategy, header, chunk_all(docs, make_strategy(strategy, header)))
            report["chunks"].append(chunk_row(_keys(c), (ch.text for ch in c.chunks)))
            source = chunk_source(c.chunks, docs)
            per: dict[str, dict[FBScope, dict[int, PerQuestion]]] = {}
            for retriever in config.retrievers:
                hits = per.setdefault(str(retriever), {})
                runs: list[tuple[FBScope, Run]] = []
                rows = rank_variant(
                    c, source, retriever, questions, gold, allowed, config, prog, hits, runs
                )
                if config.scores_budgets:
                    more = budget_rows(c, retriever, runs, gold, config, evidence)
                    report["budgets"].extend(more)
                report["results"].extend(rows)
            report["comparisons"].extend(comparison_rows(c, per, comparison_ks(config.ks)))
    return report


def comparison_ks(ks: Sequence[int]) -> tuple[int, ...]:
    """The ks retrievers are compared at: 5 and 10 where run, else the largest."""
    chosen = tuple(k for k in (5, 10) if k in ks)
    return chosen or (max(ks),)


def comparison_rows(
    c: Chunked, per: Mapping[str, Mapping[FBScope, Mapping[int, PerQuestion]]], ks: Sequence[int]
) -> list[dict[str, Any]]:
    """Each retriever against the first one run, per scope and k: page accuracy, questions
    better and worse, and whether a paired bootstrap's 95 % interval holds 0."""
    if len(per) < 2:
        return []
    (base, base_hits), rows = next(iter(per.items())), []
    for name, hits in list(per.items())[1:]:
        for scope, by_k in hits.items():
            for k in ks:
                if k in by_k and k in base_hits.get(scope, {}):
                    keys = {**_keys(c), "scope": scope.value, "k": k}
                    a = base_hits[scope][k]
                    rows.append(comparison_row(keys, base, name, a, by_k[k], str(PageHit(k))))
    return rows


def chunk_source(chunks: Sequence[Chunk], docs: dict[str, Document]) -> InMemoryTexts:
    """The chunks' texts as a source that knows each one's filing and the filings' cards."""
    doc_map = DocumentMap.of([ch.doc_id for ch in chunks], docs)
    return InMemoryTexts([ch.text for ch in chunks], doc_map)


def rank_variant(
    c: Chunked,
    source: InMemoryTexts,
    retriever: RetrieverSpec | str,
    questions: Sequence[FBQuestion],
    gold: GoldSet,
    allowed: dict[str, FilterPlan] | None,
    config: BenchConfig,
    prog: Progress,
    hits: dict[FBScope, dict[int, PerQuestion]] | None = None,
    runs: list[tuple[FBScope, Run]] | None = None,
) -> list[dict[str, Any]]:
    """Rows of one chunking × retriever under every scope of ``config``; one run each.
    ``hits`` (if given) receives each scope's page accuracy per question and k, ``runs``
    each scope's run."""
    rows: list[dict[str, Any]] = []
    for scope in config.scopes:
        run = rank(
            scope_queries(scope, questions, allowed, config.filter_statistics),
            c.chunks,
            retriever,
            max(*config.ks, BUDGET_DEPTH) if config.scores_budgets else max(config.ks),
            source=source,
            options=config.options,
            name=f"{c.name}/{retriever}/{scope.value}",
            params={"strategy": c.strategy.value, "header": c.header, "scope": scope.value},
            pad=config.pad,
            delivery=config.delivery,
        )
        per_k = None if hits is None else hits.setdefault(scope, {})
        rows.extend(result_rows(c, retriever, scope, run, gold, config.ks, per_k))
        if runs is not None:
            runs.append((scope, run))
        if prog.run:
            prog.run(run)
        if prog.ranked:
            prog.ranked()
    return rows


def budget_rows(
    c: Chunked,
    retriever: RetrieverSpec | str,
    runs: Sequence[tuple[FBScope, Run]],
    gold: GoldSet,
    config: BenchConfig,
    evidence: Any,
) -> list[dict[str, Any]]:
    """Each scope's run scored at every budget of ``config`` (whole chunks stopping or
    packing, and evidence delivery over the same ranking)."""
    texts = {ch.id: ch.text for ch in c.chunks}
    out = []
    for scope, run in runs:
        rows = run_budget_rows(
            run, texts, gold, config.budgets, evidence=evidence, budget_tokens=config.budget_tokens
        )
        out.extend({**_keys(c, retriever, scope), **r} for r in rows)
    return out


def _keys(
    c: Chunked, retriever: RetrieverSpec | str | None = None, scope: FBScope | None = None
) -> dict[str, Any]:
    """What names a row: strategy and header, then retriever and scope when given."""
    keys: dict[str, Any] = {"strategy": c.strategy.value, "header": c.header}
    if retriever is not None:
        keys["retriever"] = str(retriever)
    if scope is not None:
        keys["scope"] = scope.value
    return keys


def filter_row(
    questions: Sequence[FBQuestion], allowed: dict[str, FilterPlan] | None
) -> dict[str, Any] | None:
    """How well the filtered scope's filing detection did: own filing kept, filings kept."""
    if allowed is None or not questions:
        return None
    kept = [q.doc_name in allowed[q.id].filings for q in questions]
    return {
        "own_filing_kept": round(fmean(kept), 4),
        "mean_filings": round(fmean(len(allowed[q.id].filings) for q in questions), 2),
    }
