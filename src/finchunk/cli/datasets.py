"""``finchunk generate`` (the sample corpus: documents, passages and questions tables) and
``finchunk demo`` (that corpus and the whole analysis). The generator, pyarrow and the
evaluation are imported when a command runs.

Register on a typer app with ``app.command("generate")(sample_command)`` and
``app.command()(demo)``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from finchunk.cli.common import (
    console,
    user_errors,
)
from finchunk.cli.progress import (
    progress_bar,
)

IssuersOpt = Annotated[int, typer.Option(help="Fictitious issuers (annual reports).")]


def sample_command(
    out: Annotated[Path, typer.Option("-o", "--out", help="Output folder.")] = Path(
        "finchunk-sample"
    ),
    issuers: IssuersOpt = 4,
    years: Annotated[int, typer.Option(help="Reporting years per issuer.")] = 2,
    funds: Annotated[int, typer.Option(help="UCITS ETFs (a prospectus and a KID each).")] = 5,
    notes: Annotated[int, typer.Option(help="Research notes (on the issuers in turn).")] = 3,
    seed: Annotated[int, typer.Option(help="The same seed writes the same files.")] = 0,
    last_year: Annotated[int, typer.Option(help="Latest reporting year.")] = 2023,
) -> None:
    """Generate a Spanish sample corpus: documents, gold passages and questions tables.

    documents.parquet (id, title, type, text and metadata), passages.parquet (the gold
    passages: document, section, type, start and end characters) and questions.csv
    (question, answer, gold passage ids, question type, answerable, document ids); column
    names in Spanish."""
    from finchunk.cli.render import sample_summary
    from finchunk.datasets import SampleConfig, generate, write_lesson_files

    with user_errors():
        config = SampleConfig(issuers, years, funds, notes, seed, last_year)
        started = time.perf_counter()
        with progress_bar() as bar:
            task = bar.add_task("generating documents", total=config.documents)
            corpus = generate(
                config, on_document=lambda done, _total: bar.update(task, completed=done)
            )
            bar.add_task("writing files", total=None)
            files = write_lesson_files(corpus, out)
        console.print(sample_summary(corpus, time.perf_counter() - started))
        for path in (files.documents, files.passages, files.questions):
            console.print(f"wrote {path}", soft_wrap=True, highlight=False)


def demo(
    out: Annotated[
        Path, typer.Option("-o", "--out", help="Folder for the corpus, report and figures.")
    ] = Path("finchunk-demo"),
    budget: Annotated[int, typer.Option(help="Character budget for sections 4 and 5.")] = 1300,
    issuers: IssuersOpt = 4,
    years: Annotated[int, typer.Option(help="Years of annual reports per issuer.")] = 2,
    funds: Annotated[int, typer.Option(help="UCITS ETFs (prospectus + KID each).")] = 5,
    notes: Annotated[int, typer.Option(help="Research notes.")] = 3,
    seed: Annotated[int, typer.Option(help="Random seed (same seed, same corpus).")] = 0,
) -> None:
    """Generate the sample corpus and run the whole analysis: tables, report.md, figures."""
    from finchunk.cli.render import section_table
    from finchunk.datasets import SampleConfig
    from finchunk.demo import (
        DemoConfig,
        demo_question_steps,
        load_demo_corpus,
        run_analysis,
        write_report,
    )

    with user_errors():
        started = time.perf_counter()
        sample = SampleConfig(issuers=issuers, years=years, funds=funds, notes=notes, seed=seed)
        cfg = DemoConfig(out=out, budget=budget, sample=sample)
        out.mkdir(parents=True, exist_ok=True)
        corpus = load_demo_corpus(cfg)
        with progress_bar() as bar:
            task = bar.add_task("evaluating", total=demo_question_steps(corpus, cfg))
            _, sections = run_analysis(corpus, cfg, lambda: bar.advance(task))
        for s in sections:
            if s.table:
                console.print(section_table(s, console))
        wall = time.perf_counter() - started
        report = write_report(out, corpus, sections, wall)
        console.print(f"report → {report} (figures beside it); {wall:.1f} s")
