"""``finchunk demo``: its numbers equal ``finchunk eval`` on the files it wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from finchunk.cli import app

SMALL = ["--issuers", "2", "--years", "1", "--funds", "2", "--notes", "1", "--seed", "3"]


def test_demo_report_equals_eval_on_its_files(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    runner = CliRunner()
    result = runner.invoke(app, ["demo", "--out", str(out), *SMALL])
    assert result.exit_code == 0, result.output
    for name in (
        "documents.parquet",
        "passages.parquet",
        "questions.csv",
        "report.md",
        "recall_vs_chars.png",
        "recall_by_type.png",
        "recall_vs_budget.png",
        "eval-report.json",
    ):
        assert (out / name).is_file(), name
    evaluated = tmp_path / "eval.json"
    result = runner.invoke(
        app,
        [
            "eval",
            "--docs",
            str(out / "documents.parquet"),
            "--passages",
            str(out / "passages.parquet"),
            "--questions",
            str(out / "questions.csv"),
            "--header",
            "both",  # the demo compares header off and on; eval's default is on
            "--budget",
            "500,800,1200,2000,2400,4000",  # the demo's budget curve
            "-o",
            str(evaluated),
        ],
    )
    assert result.exit_code == 0, result.output
    demo_report = json.loads((out / "eval-report.json").read_text(encoding="utf-8"))
    eval_report = json.loads(evaluated.read_text(encoding="utf-8"))
    assert demo_report == eval_report
    # The tables in report.md show exactly those numbers.
    md = (out / "report.md").read_text(encoding="utf-8")
    for row in eval_report["results"]:
        if row["k"] in (3, 5):
            header = "on" if row["header"] else "off"
            pattern = rf"\| {row['strategy']} \| {header} \| {row['k']} \| {row['recall']:.3f} \|"
            assert re.search(pattern, md), pattern


def test_generate_writes_the_lesson_files(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["generate", "-o", str(tmp_path), *SMALL])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "questions.csv").read_text(encoding="utf-8").startswith("id_pregunta,")
