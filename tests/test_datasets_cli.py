"""``finchunk generate`` (cli.datasets.sample_command) through typer's test runner."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from finchunk.cli.datasets import sample_command
from finchunk.datasets import SampleConfig, generate, read_lesson_files


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("sample")(sample_command)
    app.command("noop")(lambda: None)  # two commands, so "sample" is addressed by name
    return app


def test_sample_command_writes_the_generated_corpus(tmp_path) -> None:
    out = tmp_path / "corpus"
    args = ["sample", "--out", str(out), "--issuers", "2", "--years", "1", "--funds", "1"]
    result = CliRunner().invoke(_app(), [*args, "--notes", "1", "--seed", "9"])
    assert result.exit_code == 0, result.output
    assert "questions.csv" in result.output
    back = read_lesson_files(out)
    assert back == generate(SampleConfig(issuers=2, years=1, funds=1, notes=1, seed=9))


def test_sample_command_rejects_a_bad_size(tmp_path) -> None:
    result = CliRunner().invoke(_app(), ["sample", "--out", str(tmp_path), "--issuers", "-3"])
    assert result.exit_code == 2
    assert "issuers must be an integer >= 0" in result.output
