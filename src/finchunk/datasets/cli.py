"""``finchunk sample``: write a generated corpus as lesson-schema files.

Register on the root app with ``app.command("sample")(sample_command)``.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from finchunk.datasets.lesson import write_lesson_files
from finchunk.datasets.records import SampleConfig, SampleCorpus
from finchunk.datasets.sample import generate
from finchunk.errors import FinchunkError


def sample_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path(
        "finchunk-sample"
    ),
    issuers: Annotated[int, typer.Option(help="Fictitious issuers (annual reports).")] = 4,
    years: Annotated[int, typer.Option(help="Reporting years per issuer.")] = 2,
    funds: Annotated[int, typer.Option(help="UCITS ETFs (a prospectus and a KID each).")] = 5,
    notes: Annotated[int, typer.Option(help="Research notes (on the issuers in turn).")] = 3,
    seed: Annotated[int, typer.Option(help="The same seed writes the same files.")] = 0,
    last_year: Annotated[int, typer.Option(help="Latest reporting year.")] = 2023,
) -> None:
    """Generate a Spanish sample corpus: documents.parquet, passages.parquet, questions.csv."""
    console = Console()
    try:
        config = SampleConfig(issuers, years, funds, notes, seed, last_year)
    except FinchunkError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    started = time.perf_counter()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("generating documents", total=config.documents)
        corpus = generate(
            config, on_document=lambda done, _total: progress.update(task, completed=done)
        )
        progress.add_task("writing files", total=None)
        files = write_lesson_files(corpus, out)
    console.print(_summary(corpus, time.perf_counter() - started))
    for path in (files.documents, files.passages, files.questions):
        console.print(f"wrote {path}", soft_wrap=True, highlight=False)


def _summary(corpus: SampleCorpus, elapsed: float) -> Table:
    table = Table(title=f"Sample corpus ({elapsed:.2f} s)")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("documents", str(len(corpus.documents)))
    table.add_row("passages", str(len(corpus.passages)))
    table.add_row("questions", str(len(corpus.questions)))
    for kind, n in Counter(str(q.tipo_pregunta) for q in corpus.questions).items():
        table.add_row(f"  {kind}", str(n))
    return table
