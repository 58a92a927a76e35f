"""``finchunk bench …``: benchmarks on public data sets (registered by the root CLI).

``finchunk bench financebench --data DIR [--strategies a,b] [--scope document,corpus,filtered]
[--retriever bm25,bm25-words,bm25-fin,dense,hybrid,hybrid-cc,bm25/dense@50] [--header on|off|both]
[-k 1-10] [--bm25-k1 0.9] [--bm25-b 0.5] [--bm25-prefix 4] [-o REPORT.json | --json]
[--run-out DIR]``

``--retrievers``, ``--k`` and ``--json FILE`` are the deprecated spellings (one release).

The benchmark code (numpy, the PDF parser) is imported when the command runs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from finchunk.cli.common import (
    JSON_FILE_ALIAS,
    K_ALIAS,
    K_HELP,
    RERANK_HELP,
    RETRIEVERS_ALIAS,
    App,
    BM25BOpt,
    BM25K1Opt,
    BM25PrefixOpt,
    BudgetTokensOpt,
    DaskOpt,
    DistinctOpt,
    EmbedderOpt,
    HeaderMode,
    RerankerOpt,
    aliased,
    bm25_params,
    budget_list,
    parallel_on,
    parse_ks,
    parse_list,
    user_errors,
)
from finchunk.cli.progress import (
    progress_bar,
    watched_embedder,
)
from finchunk.retrieve.kinds import DEFAULT_EMBEDDER, Distinct, FilterStatistics

if TYPE_CHECKING:
    from finchunk.evaluate.financebench import BenchConfig

app = App(help="Benchmarks on public data sets.", no_args_is_help=True)
#: Every FinanceBench strategy (``FBStrategy``) and the benchmark's default retrievers
#: (``DEFAULT_RETRIEVERS``), spelled out so that ``--help`` need not import the benchmark; a
#: test checks them against the benchmark's own.
ALL_STRATEGIES = "base128,base256,base512,recursive1024,bytitle,structure"
DEFAULT_RETRIEVERS = "bm25,bm25-words,bm25-fin"


@app.callback()
def bench() -> None:
    """Benchmarks on public data sets."""


def _config(
    strategies: str,
    scope: str,
    retrievers: str,
    header: HeaderMode,
    k: str,
    embedder: str = DEFAULT_EMBEDDER,
    pad: bool = True,
    bm25: tuple[float | None, float | None, int | None] = (None, None, None),
    filter_statistics: FilterStatistics = FilterStatistics.KEPT,
    distinct: Distinct = Distinct.NONE,
    reranker: str | None = None,
    budgets: str | None = None,
    budget_tokens: str | None = None,
) -> BenchConfig:
    from finchunk.evaluate.financebench import (
        BenchConfig,
        parse_bench_retriever,
        parse_scope,
        parse_strategy,
    )
    from finchunk.retrieve.query.deliver import Delivery
    from finchunk.retrieve.query.retriever import RetrieverOptions

    return BenchConfig(
        strategies=tuple(parse_list(strategies, parse_strategy, "--strategies")),
        scopes=tuple(dict.fromkeys(parse_list(scope, parse_scope, "--scope"))),
        ks=tuple(parse_ks(k)),
        headers=tuple(header.values()),
        retrievers=tuple(
            dict.fromkeys(parse_list(retrievers, parse_bench_retriever, "--retriever"))
        ),
        options=RetrieverOptions(embedder=embedder, bm25=bm25_params(*bm25), reranker=reranker),
        pad=pad,
        filter_statistics=filter_statistics,
        delivery=Delivery(distinct),
        budgets=budget_list(budgets, "--budget"),
        budget_tokens=budget_list(budget_tokens, "--budget-tokens"),
    )


def _run(data: Path, config: BenchConfig, run_out: Path | None, dask: str | None) -> dict:
    """The benchmark's report, with progress bars for parsing and ranking; every run written
    to ``run_out`` (TREC and JSONL) when given."""
    from dataclasses import replace

    from finchunk.datasets.financebench import load_financebench
    from finchunk.evaluate.financebench import Progress, run_benchmark
    from finchunk.evaluate.runs import write_run_files
    from finchunk.retrieve.query.retriever import named_needs_embedder

    fb = load_financebench(data)
    started = time.perf_counter()
    variants = len(config.strategies) * len(config.headers) * len(config.retrievers)
    with parallel_on(dask), progress_bar() as bar:
        parsing = bar.add_task("parsing PDFs", total=len(fb.documents))
        ranking = bar.add_task("ranking", total=variants * len(config.scopes))
        if any(named_needs_embedder(r) for r in config.retrievers):
            watched = watched_embedder(bar, config.options.embedder)
            config = replace(config, options=replace(config.options, embedder=watched))
        ticks = Progress(
            parsed=lambda: bar.advance(parsing),
            ranked=lambda: bar.advance(ranking),
            run=(lambda run: write_run_files(run, run_out)) if run_out else None,
        )
        report = run_benchmark(fb, config, ticks)
    report["wall_s"] = round(time.perf_counter() - started, 1)
    return report


StrategiesOpt = Annotated[str, typer.Option(help="Comma list of strategies.")]
ScopesOpt = Annotated[str, typer.Option(help="Comma list: document, corpus, filtered.")]
RetrieversOpt = Annotated[
    str,
    typer.Option(
        "--retriever",
        help="Comma list of retrievers: auto (what search would run, question by "
        "question), bm25, bm25-lesson, bm25-words, bm25-rm3, "
        f"bm25-fin (tuned on this benchmark), dense, hybrid (RRF), hybrid-cc (convex "
        f"fusion), or {RERANK_HELP}.",
    ),
]
# Off by default, measured (bench/header.py): in the paper's per-filing setting the header
# costs base256 page accuracy@10 (bm25 50.4 → 48.1, bm25-words 62.8 → 57.4); over one
# index of all filings it gains 2.4 to 7.0 points. --header on|both to see it.
HeaderModeOpt = Annotated[HeaderMode, typer.Option(help="Context header: on, off or both.")]
PadOpt = Annotated[
    bool,
    typer.Option(
        "--pad/--no-pad",
        help="Fill rankings shorter than k with unranked chunks, as the lesson's BM25 does.",
    ),
]
FilterStatisticsOpt = Annotated[
    FilterStatistics,
    typer.Option(
        help="BM25 statistics of the filtered scope: kept (an index of the filings kept) "
        "or index (all filings'; the filter only masks); auto is kept here."
    ),
]
BudgetOpt = Annotated[
    str | None,
    typer.Option(
        help="Character budgets to score at, e.g. 1200 or 800,1200,2400: whole chunks "
        "(stop, pack) and evidence delivery over the same ranking."
    ),
]
OutOpt = Annotated[
    Path | None, typer.Option("-o", "--out", help="Write the report as JSON to this file.")
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print the report as JSON on stdout (no tables).")
]
RunOutOpt = Annotated[
    Path | None,
    typer.Option(help="Folder for every run: what each question got (TREC and JSONL)."),
]


@app.command("financebench", cls=aliased(K_ALIAS, RETRIEVERS_ALIAS, JSON_FILE_ALIAS))
def financebench(
    data: Annotated[Path, typer.Option(help="FinanceBench folder (JSONL files and pdfs/).")],
    strategies: StrategiesOpt = ALL_STRATEGIES,
    scope: ScopesOpt = "document,corpus,filtered",
    retriever: RetrieversOpt = DEFAULT_RETRIEVERS,
    header: HeaderModeOpt = HeaderMode.OFF,
    k: Annotated[str, typer.Option("-k", help=K_HELP + ".")] = "1-10",
    embedder: EmbedderOpt = DEFAULT_EMBEDDER,
    reranker: RerankerOpt = None,
    pad: PadOpt = True,
    filter_statistics: FilterStatisticsOpt = FilterStatistics.KEPT,
    distinct: DistinctOpt = Distinct.NONE,
    budget: BudgetOpt = None,
    budget_tokens: BudgetTokensOpt = None,
    bm25_k1: BM25K1Opt = None,
    bm25_b: BM25BOpt = None,
    bm25_prefix: BM25PrefixOpt = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
    run_out: RunOutOpt = None,
    dask: DaskOpt = None,
) -> None:
    """Page accuracy of chunking strategies on FinanceBench, next to the paper's Table 4.
    --dask chunks and embeds on a Dask cluster (the report is the same)."""
    with user_errors():
        from finchunk.files import check_output

        if out is not None:
            check_output(out)

        from finchunk.cli.render import show_report
        from finchunk.evaluate.report import bench_shown
        from finchunk.retrieve.query.retriever import fusion_warnings

        bm25 = (bm25_k1, bm25_b, bm25_prefix)
        config = _config(
            strategies, scope, retriever, header, k, embedder, pad, bm25, filter_statistics,
            distinct, reranker, budget, budget_tokens,
        )  # fmt: skip
        report = _run(data, config, run_out, dask)
        setting = ("strategy", "header", "scope", "k")
        notes = fusion_warnings(report["results"], "page_accuracy", setting)
        ran = [f"runs → {run_out}/ (.trec and .jsonl per variant and scope)"] if run_out else []
        show_report(report, [] if as_json else bench_shown(report), out, as_json, notes, ran)
