"""The FinanceBench benchmark: page accuracy of chunking strategies, as in the paper's Table 4.

Pipeline: parse every PDF once (cached in-process) → align each evidence quote on its gold
page → for each strategy, chunk every filing once → rank with BM25 under each scope →
score page accuracy, page recall, evidence recall and characters delivered at each k.

Scopes: ``document`` (each question searches its own filing, with an index per filing: the
paper's setting), ``corpus`` (one index over all filings), ``filtered`` (the same index,
restricted to the filings whose company and year the question names, see
:mod:`finchunk.retrieve.mentions`).

A chunk is *on* a page when any of its spans touches that page (``Chunk.pages``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from statistics import fmean
from typing import Any

import numpy as np

from finchunk.chunk import ByTitle, Chunker, Structure
from finchunk.chunk.overlap import RecursiveOverlap
from finchunk.chunk.tokens import Tokens
from finchunk.datasets.financebench import FBQuestion, FinanceBench
from finchunk.errors import InputError
from finchunk.evaluate.align import QuoteIndex
from finchunk.evaluate.fin_terms import expand_query
from finchunk.evaluate.metrics import DEFAULT_THRESHOLD, GoldPassage, count_retrieved
from finchunk.evaluate.stem import words_only
from finchunk.model import Chunk, Document
from finchunk.parse.pdf import parse_pdf_file
from finchunk.retrieve.bm25 import BM25Index
from finchunk.retrieve.mentions import ISSUER_KINDS, YEAR_KINDS, Issuer, MentionFinder, YearPolicy

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


class FBRetriever(StrEnum):
    BM25 = "bm25"  # finchunk's BM25 as it is
    BM25_WORDS = "bm25-words"  # the same over plural-folded words, numbers dropped
    BM25_FIN = "bm25-fin"  # bm25-words, queries expanded with financial line items

    def prepare(self, text: str) -> str:
        """A chunk text as indexed."""
        return text if self is FBRetriever.BM25 else words_only(text)

    def query(self, question: str) -> str:
        """A question as searched."""
        if self is FBRetriever.BM25_FIN:
            question = expand_query(question)
        return self.prepare(question)


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
    return Structure(size=800, header=header)


def parse_strategy(name: str) -> FBStrategy:
    try:
        return FBStrategy(name.strip().lower())
    except ValueError:
        choices = ", ".join(s.value for s in FBStrategy)
        raise InputError(
            f"--strategies: unknown strategy {name!r}; choose from {choices}"
        ) from None


def parse_scope(name: str) -> FBScope:
    try:
        return FBScope(name.strip().lower())
    except ValueError:
        choices = ", ".join(s.value for s in FBScope)
        raise InputError(f"--scope: unknown scope {name!r}; choose from {choices}") from None


# --- documents and gold --------------------------------------------------------------------


def parse_documents(fb: FinanceBench, tick: Tick | None = None) -> dict[str, Document]:
    """Every filing of the benchmark, parsed once; titles from the document information."""
    out: dict[str, Document] = {}
    for d in fb.corpus():
        doc = parse_pdf_file(d.path, doc_id=d.name)
        out[d.name] = replace(doc, title=d.title)
        if tick:
            tick()
    return out


@dataclass(frozen=True, slots=True)
class Gold:
    pages: frozenset[tuple[str, int]]  # (doc name, 1-based page)
    passages: tuple[GoldPassage, ...]  # aligned evidence
    evidence: int  # evidence items, aligned or not


@dataclass
class Alignment:
    quotes: int = 0
    aligned: int = 0
    on_page: int = 0
    fuzzy: int = 0
    unaligned_ids: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "quotes": self.quotes,
            "aligned": self.aligned,
            "on_page": self.on_page,
            "fuzzy": self.fuzzy,
            "unaligned_ids": self.unaligned_ids,
        }


def align_gold(
    questions: Sequence[FBQuestion], docs: dict[str, Document]
) -> tuple[dict[str, Gold], Alignment]:
    """Gold pages and aligned evidence spans; quotes are looked for on their page first."""
    indexes = {name: QuoteIndex(doc.text) for name, doc in docs.items()}
    report = Alignment()
    gold: dict[str, Gold] = {}
    for q in questions:
        passages = []
        for n, ev in enumerate(q.evidence):
            report.quotes += 1
            doc = docs[ev.doc_name]
            page = doc.pages[ev.page - 1] if 0 < ev.page <= len(doc.pages) else None
            found = indexes[ev.doc_name].align(ev.text, page, fuzzy=True) if page else None
            if found is None:
                found = indexes[ev.doc_name].align(ev.text)
            else:
                report.on_page += 1
            if found is None:
                report.unaligned_ids.append(f"{q.id}#{n}")
                continue
            report.aligned += 1
            report.fuzzy += not found.exact
            passages.append(GoldPassage(ev.doc_name, found.span))
        pages = frozenset((ev.doc_name, ev.page) for ev in q.evidence)
        gold[q.id] = Gold(pages, tuple(passages), len(q.evidence))
    return gold, report


# --- ranking -------------------------------------------------------------------------------


@dataclass
class Chunked:
    strategy: FBStrategy
    header: bool
    chunks: list[Chunk]
    by_doc: dict[str, np.ndarray]  # doc name → indexes into chunks


def chunk_all(
    docs: dict[str, Document], chunker: Chunker
) -> tuple[list[Chunk], dict[str, np.ndarray]]:
    chunks: list[Chunk] = []
    by_doc: dict[str, np.ndarray] = {}
    for name in sorted(docs):
        part = chunker.chunk(docs[name])
        by_doc[name] = np.arange(len(chunks), len(chunks) + len(part))
        chunks.extend(part)
    return chunks, by_doc


def rank_document(
    c: Chunked,
    texts: Sequence[str],
    questions: Sequence[FBQuestion],
    k: int,
    retriever: FBRetriever,
) -> dict[str, list[int]]:
    """Per-filing indexes: each question searches its own filing."""
    out: dict[str, list[int]] = {}
    indexes: dict[str, BM25Index] = {}
    for q in questions:
        idx = c.by_doc[q.doc_name]
        if q.doc_name not in indexes:
            indexes[q.doc_name] = BM25Index([texts[i] for i in idx])
        hits = indexes[q.doc_name].search(retriever.query(q.question), k)
        out[q.id] = [int(idx[i]) for i, _ in hits]
    return out


def rank_shared(
    c: Chunked,
    index: BM25Index,
    questions: Sequence[FBQuestion],
    k: int,
    retriever: FBRetriever,
    plans: dict[str, FilterPlan] | None,
) -> dict[str, list[int]]:
    """One index over every filing; ``plans`` restrict each question to some filings and
    search for what the filter left of the question."""
    out: dict[str, list[int]] = {}
    for q in questions:
        mask, query = None, q.question
        if plans is not None:
            plan = plans[q.id]
            mask = np.zeros(len(c.chunks), dtype=bool)
            for name in plan.filings:
                if name in c.by_doc:
                    mask[c.by_doc[name]] = True
            query = plan.query
        out[q.id] = [i for i, _ in index.search(retriever.query(query), k, mask)]
    return out


@dataclass(frozen=True, slots=True)
class FilterPlan:
    """For the filtered scope: the filings a question names, and what is left to search for."""

    filings: tuple[str, ...]
    query: str


def filtered_filings(fb: FinanceBench, questions: Sequence[FBQuestion]) -> dict[str, FilterPlan]:
    """The filings each question names, among the benchmark's filings: those of the companies
    it names (all companies when none), of the latest year it names (a report for year N also
    shows N-1 and N-2), else of any year it names that is a filing year, else of every year.
    A filing's name before its year ("AMERICANWATERWORKS_2020_10K") is one more company alias.
    """
    filings = sorted(fb.corpus(), key=lambda d: d.name)
    finder = MentionFinder(
        Issuer(d.company, aliases=(re.split(r"_\d", d.name, maxsplit=1)[0],)) for d in filings
    )
    plans = {}
    for q in questions:
        found = finder.find(q.question, YearPolicy.LATEST)
        pool = [d for d in filings if not found.issuers or d.company in found.issuers]
        kept = (
            [d for d in pool if d.period in found.years]
            or [d for d in pool if d.period in found.named_years]
            or pool
        )
        query = found.residual(ISSUER_KINDS | YEAR_KINDS)
        plans[q.id] = FilterPlan(tuple(d.name for d in kept), query)
    return plans


# --- scoring -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Score:
    page_hit: bool
    page_recall: float
    evidence_recall: float
    chars: int


def score_question(top: Sequence[Chunk], gold: Gold) -> Score:
    pages = {(c.doc_id, p) for c in top for p in c.pages}
    hit_pages = len(gold.pages & pages)
    # Unaligned evidence stays in the denominator (gold.evidence): it counts as a miss.
    hits = count_retrieved(top, gold.passages, EVIDENCE_COVERAGE)
    return Score(
        page_hit=hit_pages > 0,
        page_recall=hit_pages / len(gold.pages) if gold.pages else 0.0,
        evidence_recall=hits / gold.evidence if gold.evidence else 0.0,
        chars=sum(len(c.text) for c in top),
    )


def result_rows(
    c: Chunked,
    retriever: FBRetriever,
    scope: FBScope,
    ranking: dict[str, list[int]],
    gold: dict[str, Gold],
    ks: Sequence[int],
) -> list[dict[str, Any]]:
    rows = []
    for k in ks:
        scores = [score_question([c.chunks[i] for i in ranking[q][:k]], gold[q]) for q in ranking]
        rows.append(
            {
                "strategy": c.strategy.value,
                "header": c.header,
                "retriever": retriever.value,
                "scope": scope.value,
                "k": k,
                "page_accuracy": round(fmean(s.page_hit for s in scores), 4) if scores else 0.0,
                "page_recall": round(fmean(s.page_recall for s in scores), 4) if scores else 0.0,
                "evidence_recall": round(fmean(s.evidence_recall for s in scores), 4)
                if scores
                else 0.0,
                "chars": round(fmean(s.chars for s in scores), 1) if scores else 0.0,
            }
        )
    return rows


@dataclass(frozen=True)
class BenchConfig:
    strategies: tuple[FBStrategy, ...] = DEFAULT_STRATEGIES
    scopes: tuple[FBScope, ...] = tuple(FBScope)
    ks: tuple[int, ...] = tuple(range(1, 11))
    headers: tuple[bool, ...] = (False,)
    retrievers: tuple[FBRetriever, ...] = tuple(FBRetriever)


@dataclass
class Progress:
    """Callbacks the CLI wires to progress bars (all optional)."""

    parsed: Tick | None = None
    ranked: Tick | None = None


def run_benchmark(
    fb: FinanceBench,
    config: BenchConfig,
    progress: Progress | None = None,
    docs: dict[str, Document] | None = None,
) -> dict[str, Any]:
    """The report ``finchunk bench financebench --json`` writes."""
    prog = progress or Progress()
    docs = docs if docs is not None else parse_documents(fb, prog.parsed)
    questions = list(fb.questions)
    gold, alignment = align_gold(questions, docs)
    allowed = filtered_filings(fb, questions) if FBScope.FILTERED in config.scopes else None
    report: dict[str, Any] = {
        "documents": len(docs),
        "questions": len(questions),
        "skipped": len(fb.skipped),
        "pages": sum(len(d.pages) for d in docs.values()),
        "alignment": alignment.as_dict(),
        "filter": filter_row(questions, allowed),
        "results": [],
        "chunks": [],
    }
    for strategy in config.strategies:
        for header in config.headers:
            chunks, by_doc = chunk_all(docs, make_strategy(strategy, header))
            c = Chunked(strategy, header, chunks, by_doc)
            report["chunks"].append(chunk_row(c))
            for retriever in config.retrievers:
                rows = rank_variant(c, retriever, questions, gold, allowed, config, prog)
                report["results"].extend(rows)
    return report


def rank_variant(
    c: Chunked,
    retriever: FBRetriever,
    questions: Sequence[FBQuestion],
    gold: dict[str, Gold],
    allowed: dict[str, FilterPlan] | None,
    config: BenchConfig,
    prog: Progress,
) -> list[dict[str, Any]]:
    """Rows of one chunking × retriever under every scope of ``config``."""
    texts = [retriever.prepare(ch.text) for ch in c.chunks]
    shared = BM25Index(texts) if set(config.scopes) - {FBScope.DOCUMENT} else None
    rows: list[dict[str, Any]] = []
    max_k = max(config.ks)
    for scope in config.scopes:
        if scope is FBScope.DOCUMENT or shared is None:
            ranking = rank_document(c, texts, questions, max_k, retriever)
        else:
            only = allowed if scope is FBScope.FILTERED else None
            ranking = rank_shared(c, shared, questions, max_k, retriever, only)
        rows.extend(result_rows(c, retriever, scope, ranking, gold, config.ks))
        if prog.ranked:
            prog.ranked()
    return rows


def chunk_row(c: Chunked) -> dict[str, Any]:
    n = len(c.chunks)
    mean = fmean(len(ch.text) for ch in c.chunks) if n else 0.0
    return {
        "strategy": c.strategy.value,
        "header": c.header,
        "count": n,
        "mean_chars": round(mean, 1),
    }


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
