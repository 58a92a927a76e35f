"""``finchunk bench …``: benchmarks on public data sets (registered by the root CLI).

``finchunk bench financebench --data DIR [--strategies a,b] [--scope document,corpus,filtered]
[--retrievers bm25,bm25-words,bm25-fin] [--header on|off|both] [--k 1-10] [--json OUT]``
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from finchunk.cli_common import (
    HeaderMode,
    parse_ks,
    parse_list,
    progress_bar,
    user_errors,
    write_json,
)
from finchunk.evaluate.financebench import (
    DEFAULT_RETRIEVERS,
    PAPER_TABLE4,
    BenchConfig,
    FBScope,
    FBStrategy,
    parse_bench_retriever,
    parse_scope,
    parse_strategy,
)
from finchunk.evaluate.financebench import (
    Progress as BenchProgress,
)

app = typer.Typer(
    help="Benchmarks on public data sets.", no_args_is_help=True, add_completion=False
)
console = Console()


@app.callback()
def bench() -> None:
    """Benchmarks on public data sets."""


@app.command("financebench")
def financebench(
    data: Annotated[Path, typer.Option(help="FinanceBench folder (JSONL files and pdfs/).")],
    strategies: Annotated[str, typer.Option(help="Comma list of strategies.")] = ",".join(
        s.value for s in FBStrategy
    ),
    scope: Annotated[str, typer.Option(help="Comma list: document, corpus, filtered.")] = (
        "document,corpus,filtered"
    ),
    retrievers: Annotated[
        str,
        typer.Option(
            help="Comma list of retrievers: bm25, bm25-words, bm25-fin (tuned on this "
            "benchmark), dense, hybrid, or FIRST/RERANKER@DEPTH (bm25/dense@50)."
        ),
    ] = ",".join(DEFAULT_RETRIEVERS),
    header: Annotated[HeaderMode, typer.Option(help="Context header: on, off or both.")] = (
        HeaderMode.OFF
    ),
    k: Annotated[str, typer.Option("--k", help="k values: 1-10 or 5,10.")] = "1-10",
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the report as JSON.")] = (
        None
    ),
) -> None:
    """Page accuracy of chunking strategies on FinanceBench, next to the paper's Table 4."""
    with user_errors():
        from finchunk.datasets.financebench import load_financebench
        from finchunk.evaluate.financebench import run_benchmark

        config = BenchConfig(
            strategies=tuple(parse_list(strategies, parse_strategy, "--strategies")),
            scopes=tuple(dict.fromkeys(parse_list(scope, parse_scope, "--scope"))),
            ks=tuple(parse_ks(k)),
            headers=tuple(header.values()),
            retrievers=tuple(
                dict.fromkeys(parse_list(retrievers, parse_bench_retriever, "--retrievers"))
            ),
        )
        fb = load_financebench(data)
        started = time.perf_counter()
        variants = len(config.strategies) * len(config.headers) * len(config.retrievers)
        with progress_bar() as bar:
            parsing = bar.add_task("parsing PDFs", total=len(fb.documents))
            ranking = bar.add_task("ranking", total=variants * len(config.scopes))
            report = run_benchmark(
                fb,
                config,
                BenchProgress(
                    parsed=lambda: bar.advance(parsing), ranked=lambda: bar.advance(ranking)
                ),
            )
        report["wall_s"] = round(time.perf_counter() - started, 1)
        print_report(console, report)
        if json_out:
            write_json(json_out, report)
            console.print(f"report → {json_out}")


def _pick_ks(ks: set[int]) -> tuple[int, int]:
    """The two k shown: 5 and 10 when measured, else the smallest and the largest."""
    return (5 if 5 in ks else min(ks)), (10 if 10 in ks else max(ks))


def results_table(report: dict[str, Any], scope: str) -> Table | None:
    rows = [r for r in report["results"] if r["scope"] == scope]
    if not rows:
        return None
    lo, hi = _pick_ks({r["k"] for r in rows})
    t = Table(title=f"FinanceBench, scope={scope}")
    for col in (
        "strategy",
        "retriever",
        f"acc@{lo}",
        f"acc@{hi}",
        f"pages@{hi}",
        f"evid@{hi}",
        f"chars@{hi}",
        "paper@10",
    ):
        t.add_column(col, justify="left" if col in ("strategy", "retriever") else "right")
    grid: dict[tuple[str, bool, str], dict[int, dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        grid[(r["strategy"], r["header"], r["retriever"])][r["k"]] = r
    for (strategy, header, retriever), by_k in grid.items():
        paper = PAPER_TABLE4.get(strategy)
        ref = f"{paper[1]:.2f} %" if paper and scope == "document" else ""
        a, b = by_k[lo], by_k[hi]
        t.add_row(
            strategy + (" +header" if header else ""),
            retriever,
            _pct(a["page_accuracy"]),
            _pct(b["page_accuracy"]),
            _pct(b["page_recall"]),
            _pct(b["evidence_recall"]),
            f"{b['chars']:.0f}",
            ref,
        )
    return t


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def print_report(out: Console, report: dict[str, Any]) -> None:
    a = report["alignment"]
    out.print(
        f"FinanceBench: {report['documents']} filings ({report['pages']} pages), "
        f"{report['questions']} questions, {report['skipped']} skipped (PDF missing); "
        f"evidence aligned {a['aligned']}/{a['quotes']} ({a['on_page']} on their gold page, "
        f"{a['fuzzy']} fuzzy)"
    )
    if a["unaligned_ids"]:
        out.print(f"unaligned evidence: {', '.join(a['unaligned_ids'])}")
    if report.get("filter"):
        f = report["filter"]
        out.print(
            f"filtered scope: own filing kept for {100 * f['own_filing_kept']:.1f} % of "
            f"questions, {f['mean_filings']} filings searched on average"
        )
    for scope in FBScope:
        table = results_table(report, scope.value)
        if table is not None:
            out.print(table)
    out.print(
        "acc: page accuracy (a top-k chunk on a gold page); pages: gold pages hit; evid: "
        "evidence covered >= 50 %; chars: characters delivered. paper@10: Table 4 of "
        "arXiv:2402.05131 (page accuracy@10, per-document index; "
        + ", ".join(f"{name} {acc:.2f} %" for name, acc in PAPER_TABLE4.values())
        + "; bytitle is compared with the paper's best element variant)."
    )
    chunks = Table(title="Chunks")
    for col in ("strategy", "count", "mean chars"):
        chunks.add_column(col, justify="left" if col == "strategy" else "right")
    for r in report["chunks"]:
        head = " +header" if r["header"] else ""
        chunks.add_row(f"{r['strategy']}{head}", str(r["count"]), f"{r['mean_chars']:.0f}")
    out.print(chunks)
    if "wall_s" in report:
        out.print(f"wall time: {report['wall_s']} s")
