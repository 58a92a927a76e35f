"""The ``finchunk`` command line. Each command group lives beside the code it drives."""

from __future__ import annotations

import typer

from finchunk.facts.cli import app as facts_app

app = typer.Typer(
    help="finchunk: chunk financial documents, retrieve, and measure recall against gold passages.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(facts_app, name="facts")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
