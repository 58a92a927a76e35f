"""The one report of ``finchunk eval`` and ``finchunk bench financebench``
(:mod:`finchunk.evaluate.report`): rows laid out as tables and lines, rich-free."""

from __future__ import annotations

from finchunk.evaluate.report import (
    ReportTable,
    bench_shown,
    chunk_row,
    eval_shown,
    markdown_table,
    rows_table,
)

CORPUS = {"documents": 2, "passages": 3, "questions": 4, "answerable": 4}
VERSUS = {
    "a": "structure+header/bm25",
    "b": "fixed+header/bm25",
    "measure": "Recall@5",
    "mean_a": 0.9073,
    "mean_b": 0.8488,
    "wins": 1,
    "losses": 18,
    "within_noise": False,
}


def _tables(shown: list) -> dict[str, ReportTable]:
    return {t.title: t for t in shown if isinstance(t, ReportTable)}


def test_eval_shows_each_variant_against_the_first_as_bench_does() -> None:
    row = {"strategy": "structure", "header": True, "retriever": "bm25", "k": 5}
    report = {
        "corpus": CORPUS,
        "results": [{**row, "recall": 0.5, "chars": 900.0}],
        "by_type": [],
        "chunks": [chunk_row({"strategy": "structure", "header": True}, ["ab", "abcd"])],
        "comparisons": [VERSUS],
    }
    tables = _tables(eval_shown(report))
    versus = tables["Against structure+header/bm25, per question (~: 95 % interval holds 0)"]
    assert versus.columns == ("variant", "Recall@5", "better/worse")
    assert versus.rows == (("fixed+header/bm25", "0.907 → 0.849", "+1/−18"),)
    assert tables["Chunks"].rows == (("structure +header", "2", "3"),)
    assert tables["Recall@k (chars delivered)"].long is not None  # shown when narrow


def test_bench_lines_and_tables_in_order() -> None:
    report = {
        "documents": 1,
        "pages": 2,
        "questions": 3,
        "skipped": 0,
        "alignment": {"aligned": 3, "quotes": 3, "on_page": 3, "fuzzy": 0, "unaligned_ids": []},
        "results": [],
        "chunks": [{"strategy": "base256", "header": False, "count": 9, "mean_chars": 900.0}],
        "wall_s": 1.5,
    }
    shown = bench_shown(report)
    assert shown[0].startswith("FinanceBench: 1 filings (2 pages), 3 questions")
    assert shown[-1] == "wall time: 1.5 s"
    assert _tables(shown)["Chunks"].columns == ("strategy", "count", "mean chars")


def test_rows_as_markdown_and_as_a_long_table() -> None:
    rows = [{"variant": "fixed", "recall": 0.5, "chars": 1234.5}]
    assert markdown_table(rows).splitlines() == [
        "| variant | recall | chars |",
        "|---|---|---|",
        "| fixed | 0.500 | 1,234.5 |",
    ]
    t = rows_table("1. Strategies", rows, ("variant",))
    assert t.right == (False, True, True)
    assert t.long is not None and t.long.rows == (
        ("fixed", "recall", "0.500"),
        ("fixed", "chars", "1,234.5"),
    )
