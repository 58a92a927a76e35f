"""``finchunk chunk`` (documents → chunk JSONL) and ``finchunk eval`` (recall of chunking
strategies against gold passages). Parsers, tables and the evaluation are imported when a
command runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from finchunk.chunk import Strategy
from finchunk.cli.common import (
    DOCS_HELP,
    K_HELP,
    PASSAGES_HELP,
    QUESTIONS_HELP,
    RERANK_HELP,
    BM25BOpt,
    BM25K1Opt,
    BM25PrefixOpt,
    DaskOpt,
    DistinctOpt,
    EmbedderOpt,
    HeaderMode,
    HeaderOpt,
    OnErrorOpt,
    OverlapOpt,
    RerankerOpt,
    SizeOpt,
    StrategyOpt,
    bm25_params,
    console,
    err_console,
    parallel_on,
    parse_ks,
    print_warning,
    report_skipped,
    report_unsupported,
    resolve_on_error,
    user_errors,
)
from finchunk.cli.progress import (
    progress_bar,
    watched_embedder,
)
from finchunk.errors import InputError
from finchunk.evaluate.options import eval_corpus, eval_settings, eval_variants
from finchunk.evaluate.scope import Scope
from finchunk.files import check_output
from finchunk.retrieve.kinds import DEFAULT_EMBEDDER, Distinct, FilterStatistics

if TYPE_CHECKING:
    from finchunk.evaluate.corpus import Corpus
    from finchunk.evaluate.harness import EvalSettings, Variant

DEFAULT_STRATEGIES = "fixed,recursive,structure,bytitle"


def chunk(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Documents to chunk (Markdown, HTML, SGML .txt, PDF, .docx, .xlsx), or "
            "folders of them (searched recursively, as index does)."
        ),
    ],
    out: Annotated[
        Path, typer.Option("-o", "--out", help="Output JSONL (one chunk a line), or .parquet.")
    ],
    strategy: StrategyOpt = Strategy.STRUCTURE,
    size: SizeOpt = None,
    overlap: OverlapOpt = None,
    header: HeaderOpt = True,
    on_error: OnErrorOpt = None,
) -> None:
    """Chunk documents into chunk records (JSONL, or Parquet when -o ends with .parquet):
    id, doc_id, spans, section, page, pages, header, text, kind, metadata.

    A document's id is its file name without the suffix; under a folder, its path relative
    to the folder (reports/2024/acme), and NAME.meta.json beside it adds metadata, as in
    index."""
    from finchunk.chunk import make_chunker
    from finchunk.records import write_chunks
    from finchunk.retrieve.index.build import file_sources

    skipped: list[tuple[str, str]] = []
    with user_errors():
        check_output(out)  # before any work, not after it
        mode, exit_on_skip = resolve_on_error(on_error, files)
        chunker = make_chunker(strategy, size=size, overlap=overlap, header=header)
        unsupported: list[tuple[str, str]] = []
        sources = file_sources(files, unsupported)
        report_unsupported(unsupported)
        try:
            n = write_chunks(out, _records(sources, chunker, mode, skipped))
        finally:
            report_skipped(skipped, False)
        console.print(f"{n} chunks from {len(sources) - len(skipped)} file(s) → {out}")
    if skipped and exit_on_skip:
        raise typer.Exit(1)


def _records(sources: list[Any], chunker: Any, mode: Any, skipped: list[tuple[str, str]]):
    """Chunk records of each source that can be read (the others are added to ``skipped``,
    or raise, as ``mode`` says)."""
    from finchunk.records import document_records
    from finchunk.retrieve.index.config import load_or_skip

    for src in sources:
        warned: list[tuple[str, str]] = []
        doc = load_or_skip(src, mode, skipped, warned)
        for source, warning in warned:
            print_warning(source, warning)
        if doc is not None:
            yield from document_records(doc, chunker.chunk(doc))


def _watched(variants: list[Variant], bar: Any) -> list[Variant]:
    """The variants, those that embed with their passage embeddings shown on ``bar`` (one
    watched embedder per model, shared: a model is loaded once)."""
    from dataclasses import replace

    from finchunk.retrieve.query.retriever import named_needs_embedder

    watched: dict[str, Any] = {}
    out = []
    for v in variants:
        if isinstance(v.embedder, str) and named_needs_embedder(v.retriever):
            if v.embedder not in watched:
                watched[v.embedder] = watched_embedder(bar, v.embedder)
            v = replace(v, embedder=watched[v.embedder])
        out.append(v)
    return out


def _ranked_report(
    corpus: Corpus,
    variants: list[Variant],
    ks: list[int],
    settings: EvalSettings,
    run_out: Path | None,
    as_json: bool = False,
) -> dict[str, Any]:
    """The report, with a progress bar that advances once per question and variant; each
    variant's run written to ``run_out`` (TREC and JSONL) when given (said on stderr when
    stdout is the JSON report)."""
    from finchunk.evaluate.harness import VariantRun, evaluate_runs
    from finchunk.evaluate.runs import write_run_files

    def write(vr: VariantRun) -> None:  # each run goes to disk as soon as it is scored
        if run_out is not None:
            write_run_files(vr.run, run_out)

    with progress_bar() as bar:
        task = bar.add_task("ranking", total=len(variants) * len(corpus.answerable))
        variants = _watched(variants, bar)
        report, _ = evaluate_runs(
            corpus, variants, ks, settings, lambda: bar.advance(task), on_run=write, keep_runs=False
        )
    if run_out is not None:
        (err_console if as_json else console).print(
            f"runs → {run_out}/ ({len(variants)} runs, .trec and .jsonl)"
        )
    return report


def _show_report(report: dict[str, Any], out: Path | None, as_json: bool) -> None:
    """The tables on stdout, or (``--json``) the report as JSON on stdout and the notes on
    stderr; the report written to ``out`` when given."""
    from finchunk.cli.render import print_alignment, print_eval_tables
    from finchunk.files import json_text, write_json
    from finchunk.retrieve.query.retriever import fusion_warnings

    said = err_console if as_json else console
    if as_json:
        typer.echo(json_text(report))
    else:
        if "alignment" in report:
            print_alignment(console, report["alignment"])
        print_eval_tables(console, report)
    for line in fusion_warnings(report["results"]):
        said.print(f"[yellow]note:[/] {line}")
    if out:
        write_json(out, report)
        said.print(f"report → {out}")


QuestionsOpt = Annotated[Path | None, typer.Option(help=QUESTIONS_HELP)]
FilesOpt = Annotated[
    Path | None, typer.Option(help="Folder the JSONL's doc paths are relative to.")
]
HeaderModeOpt = Annotated[HeaderMode, typer.Option(help="Context header: on, off or both.")]
ScopeOpt = Annotated[
    Scope, typer.Option(help="corpus: one index; document: each question's own documents.")
]
RetrieversOpt = Annotated[
    str,
    typer.Option(
        help="Comma list of retrievers: auto (what search runs on an index without vectors, "
        "question by question), bm25, bm25-lesson, bm25-words, bm25-rm3, dense, hybrid "
        f"(RRF), hybrid-cc (convex fusion; dense ones need the dense extra), or {RERANK_HELP}."
    ),
]
AutoFilterOpt = Annotated[bool, typer.Option(help="Search only the documents each question names.")]
FilterStatisticsOpt = Annotated[
    FilterStatistics,
    typer.Option(
        help="BM25 statistics of a question narrowed to some documents (--scope document, "
        "--auto-filter): kept (an index of those documents) or index (the whole corpus's; "
        "the others are only masked out); auto is kept here."
    ),
]
OutOpt = Annotated[
    Path | None, typer.Option("-o", "--out", help="Write the report as JSON to this file.")
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print the report as JSON on stdout (no tables).")
]
PerEntityOpt = Annotated[
    bool,
    typer.Option(
        "--per-entity/--no-per-entity",
        help="A question naming several issuers gets their best chunks in turn.",
    ),
]
BudgetOpt = Annotated[
    str | None,
    typer.Option(
        help="Character budgets to score at, e.g. 1200 or 800,1200,2000: whole chunks "
        "(stop, pack) and evidence delivery (finer units, a header once per section)."
    ),
]
RunOutOpt = Annotated[
    Path | None,
    typer.Option(help="Folder for each variant's run: what every question got (TREC, JSONL)."),
]
PadOpt = Annotated[
    bool,
    typer.Option(
        "--pad/--no-pad",
        help="Fill rankings shorter than k with unranked chunks, as the lesson's BM25 does.",
    ),
]

RepresentOpt = Annotated[
    str,
    typer.Option(
        help="Comma list of index representations: text (the chunk), naive (header + first "
        "two sentences; a table's caption and header rows)."
    ),
]
SplitTablesOpt = Annotated[
    bool,
    typer.Option(
        "--split-tables/--whole-tables",
        help="Structure: tables longer than the size as row groups carrying the header rows.",
    ),
]


def eval_cmd(
    docs: Annotated[Path | None, typer.Option(help=DOCS_HELP)] = None,
    passages: Annotated[Path | None, typer.Option(help=PASSAGES_HELP)] = None,
    questions: QuestionsOpt = None,
    files: FilesOpt = None,
    strategies: Annotated[str, typer.Option(help="Comma list.")] = DEFAULT_STRATEGIES,
    header: HeaderModeOpt = HeaderMode.ON,
    k: Annotated[str, typer.Option("-k", help=K_HELP + ".")] = "1-10",
    scope: ScopeOpt = Scope.CORPUS,
    threshold: Annotated[float, typer.Option(help="Coverage for a passage to count.")] = 0.5,
    retriever: RetrieversOpt = "bm25",
    embedder: EmbedderOpt = DEFAULT_EMBEDDER,
    reranker: RerankerOpt = None,
    auto_filter: AutoFilterOpt = False,
    filter_statistics: FilterStatisticsOpt = FilterStatistics.KEPT,
    pad: PadOpt = True,
    distinct: DistinctOpt = Distinct.NONE,
    per_entity: PerEntityOpt = False,
    budget: BudgetOpt = None,
    represent: RepresentOpt = "text",
    split_tables: SplitTablesOpt = False,
    bm25_k1: BM25K1Opt = None,
    bm25_b: BM25BOpt = None,
    bm25_prefix: BM25PrefixOpt = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
    run_out: RunOutOpt = None,
    dask: DaskOpt = None,
) -> None:
    """Score chunking strategies against gold passages: recall@k, complete, characters,
    nDCG and MRR; each variant against the first with a bootstrap interval. --dask chunks
    and embeds on a Dask cluster (the report is the same)."""
    with user_errors():
        if questions is None:
            raise InputError("--questions is required")
        if out is not None:
            check_output(out)
        corpus, alignment = eval_corpus(docs, passages, questions, files)
        ks = parse_ks(k)
        params = bm25_params(bm25_k1, bm25_b, bm25_prefix)
        variants = eval_variants(
            strategies, header, retriever, embedder, represent, split_tables, params, reranker
        )
        settings = eval_settings(
            threshold, scope, auto_filter, pad, distinct, per_entity, budget, filter_statistics
        )
        with parallel_on(dask):
            report = _ranked_report(corpus, variants, ks, settings, run_out, as_json)
        if alignment is not None:
            report["alignment"] = alignment
        _show_report(report, out, as_json)
