"""Document priors and automatic filters for shared indexes, measured (filled in below).

Usage (from the repository root, data in ../shared or /work/shared)::

    PYTHONPATH=src python bench/priors.py dev        # demo + EDGAR dev set: tune weights
    PYTHONPATH=src python bench/priors.py fb         # FinanceBench (parse cached in /tmp)

Every row: before → after and how many questions got better / worse (paired, per question,
:func:`finchunk.evaluate.measures.compare`).

RESULTS
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from finchunk.chunk import make_chunker
from finchunk.datasets import SampleConfig, generate, write_lesson_files
from finchunk.datasets.financebench import load_financebench
from finchunk.evaluate.corpus import Corpus, read_corpus
from finchunk.evaluate.financebench import (
    FBScope,
    FBStrategy,
    align_gold,
    chunk_all,
    chunk_source,
    describe_documents,
    filtered_filings,
    make_strategy,
    parse_documents,
    scope_queries,
)
from finchunk.evaluate.gold import GoldSet, gold_from_corpus
from finchunk.evaluate.harness import chunk_corpus, queries
from finchunk.evaluate.measures import Measure, PageHit, Recall, compare, score
from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions
from finchunk.evaluate.runs import Query, Run, rank
from finchunk.retrieve.cards import DocumentMap
from finchunk.retrieve.filters import AutoFilterPolicy, FilterField
from finchunk.retrieve.mentions import YearPolicy
from finchunk.retrieve.priors import PriorParams
from finchunk.retrieve.retriever import InMemoryTexts, RetrieverOptions

ROOT = Path(__file__).resolve().parent.parent
SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", Path("/work/shared/data")) if p.is_dir()),
    Path("/work/shared/data"),
)
CACHE = Path("/tmp")
ISSUER = frozenset({FilterField.ISSUER})
FILTERS = {
    "issuer": AutoFilterPolicy(ISSUER, YearPolicy.LATEST),
    "issuer+type": AutoFilterPolicy(ISSUER | {FilterField.DOC_TYPE}, YearPolicy.LATEST),
    "issuer+year(latest)": AutoFilterPolicy(ISSUER | {FilterField.YEAR}, YearPolicy.LATEST),
    "issuer+year(latest-and-prior)": AutoFilterPolicy(
        ISSUER | {FilterField.YEAR}, YearPolicy.LATEST_AND_PRIOR
    ),
    "issuer+year(latest-and-next)": AutoFilterPolicy(
        ISSUER | {FilterField.YEAR}, YearPolicy.LATEST_AND_NEXT
    ),
    "issuer+type+year(latest-and-prior)": AutoFilterPolicy(
        frozenset(FilterField), YearPolicy.LATEST_AND_PRIOR
    ),
    "all(any year)": AutoFilterPolicy(),
}


@dataclass(frozen=True)
class Setting:
    """One corpus chunked one way: its chunks, a shared source, the gold, the measure."""

    name: str
    chunks: Sequence
    source: InMemoryTexts
    gold: GoldSet
    measures: tuple[Measure, ...]


def _row(label: str, base: Run, run: Run, s: Setting) -> str:
    a = score(base, s.gold, s.measures).per_query
    b = score(run, s.gold, s.measures).per_query
    cells = []
    for m in s.measures:
        c = compare(a[m], b[m], str(m))
        noise = "~" if c.within_noise else ""
        cells.append(f"{c.mean_a:.3f}→{c.mean_b:.3f} +{c.wins}/-{c.losses}{noise}")
    return f"| {s.name} | {label} | " + " | ".join(cells) + " |"


def _rank(s: Setting, qs: list[Query], retriever: str, k: int, prior: PriorParams) -> Run:
    opts = RetrieverOptions(prior=prior)
    return rank(qs, s.chunks, retriever, k, source=s.source, options=opts, pad=True)


# --- development data ---------------------------------------------------------------------


def demo_corpus() -> Corpus:
    out = CACHE / "pri-demo-corpus"
    if not (out / "questions.csv").is_file():
        write_lesson_files(generate(SampleConfig()), out)
    return read_corpus(out / "documents.parquet", out / "passages.parquet", out / "questions.csv")


def edgar_corpus() -> Corpus:
    path = CACHE / "pri-edgar.pkl"
    if path.is_file():
        return pickle.loads(path.read_bytes())
    qs = read_quote_questions(ROOT / "devsets" / "edgar_dev.jsonl")
    corpus = build_quote_corpus(qs, SHARED / "edgar").corpus
    path.write_bytes(pickle.dumps(corpus))
    return corpus


def dev_setting(name: str, corpus: Corpus, strategy: str, header: bool) -> Setting:
    chunks = chunk_corpus(corpus, make_chunker(strategy, header=header))
    docs = DocumentMap.of([c.doc_id for c in chunks], corpus.documents)
    source = InMemoryTexts([c.text for c in chunks], docs)
    tag = f"{name} {strategy}{'+h' if header else ''}"
    return Setting(tag, chunks, source, gold_from_corpus(corpus), (Recall(5),))


def dev(retrievers: Sequence[str], grid: Grid) -> list[str]:
    lines = []
    for name, corpus in (("demo", demo_corpus()), ("edgar", edgar_corpus())):
        for strategy in ("structure", "bytitle"):
            for header in (False, True):
                s = dev_setting(name, corpus, strategy, header)
                lines += dev_rows(s, corpus, retrievers, grid)
                print("\n".join(lines[-20:]), flush=True)
    return lines


@dataclass(frozen=True)
class Grid:
    weights: tuple[float, ...]
    documents: tuple[int, ...]
    named: tuple[float, ...]


def dev_rows(s: Setting, corpus: Corpus, retrievers: Sequence[str], grid: Grid) -> list[str]:
    qs = queries(corpus)
    out = []
    for r in retrievers:
        base = _rank(s, qs, r, 5, PriorParams())
        for n in grid.named:
            for w in grid.weights:
                p = PriorParams(weight=w, named=n)
                label = f"{r}-prior w={w} named={n}"
                out.append(_row(label, base, _rank(s, qs, f"{r}-prior", 5, p), s))
            for m in grid.documents:
                p = PriorParams(documents=m, named=n)
                label = f"{r}-docs m={m} named={n}"
                out.append(_row(label, base, _rank(s, qs, f"{r}-docs", 5, p), s))
        for fname, policy in FILTERS.items():
            fq = queries(corpus, auto_filter=True, policy=policy)
            out.append(_row(f"{r} filter {fname}", base, _rank(s, fq, r, 5, PriorParams()), s))
    return out


# --- FinanceBench ---------------------------------------------------------------------------


def fb_docs():
    fb = load_financebench(SHARED / "financebench")
    path = CACHE / "pri-fbdocs.pkl"
    if path.is_file():
        docs = pickle.loads(path.read_bytes())
    else:
        docs = parse_documents(fb)
        path.write_bytes(pickle.dumps(docs))
    return fb, describe_documents(fb, docs)


def fb(retrievers: Sequence[str], prior: PriorParams, strategies: Sequence[str]) -> list[str]:
    bench, docs = fb_docs()
    questions = list(bench.questions)
    gold, _ = align_gold(questions, docs)
    corpus_q = scope_queries(FBScope.CORPUS, questions, None)
    plans = {n: filtered_filings(bench, questions, p) for n, p in FILTERS.items()}
    lines = []
    for strategy in strategies:
        for header in (False, True):
            chunks = chunk_all(docs, make_strategy(FBStrategy(strategy), header))
            tag = f"fb {strategy}{'+h' if header else ''}"
            measures = (PageHit(5), PageHit(10))
            s = Setting(tag, chunks, chunk_source(chunks, docs), gold, measures)
            lines += fb_rows(s, retrievers, prior, corpus_q, plans, questions)
            print("\n".join(lines[-12:]), flush=True)
    return lines


def fb_rows(s, retrievers, prior, corpus_q, plans, questions) -> list[str]:
    out = []
    k = 10
    for r in retrievers:
        base = _rank(s, corpus_q, r, k, prior)
        for mode in ("prior", "docs"):
            out.append(_row(f"{r}-{mode}", base, _rank(s, corpus_q, f"{r}-{mode}", k, prior), s))
        for fname, plan in plans.items():
            fq = scope_queries(FBScope.FILTERED, questions, plan)
            for name in (r, f"{r}-prior"):
                run = _rank(s, fq, name, k, prior)
                out.append(_row(f"{name} filter {fname}", base, run, s))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("part", choices=("dev", "fb"))
    ap.add_argument("--retrievers", default="bm25,bm25-words")
    ap.add_argument("--strategies", default="bytitle,base256")
    ap.add_argument("--weights", default="0.5,1,2", help="dev: fused weights to try")
    ap.add_argument("--documents", default="1,3", help="dev: two-stage documents to try")
    ap.add_argument("--nameds", default="0,1", help="dev: named-issuer weights to try")
    ap.add_argument("--weight", type=float, default=PriorParams().weight)
    ap.add_argument("--m", type=int, default=PriorParams().documents)
    ap.add_argument("--named", type=float, default=PriorParams().named)
    a = ap.parse_args(argv)
    retrievers = a.retrievers.split(",")
    if a.part == "dev":
        grid = Grid(
            tuple(float(w) for w in a.weights.split(",")),
            tuple(int(m) for m in a.documents.split(",")),
            tuple(float(n) for n in a.nameds.split(",")),
        )
        lines = dev(retrievers, grid)
    else:
        lines = fb(retrievers, PriorParams(a.weight, a.m, a.named), a.strategies.split(","))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
