"""PDF tables rebuilt as rows × columns (finchunk.parse.pdf_table): a generated statement
with stacked segment-over-year headers, ``$`` and ")" set apart, a wrapped row label, and a
page break it runs on over; synthetic lines for the rules one by one."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.model import Document, ElementKind
from finchunk.parse.pdf import parse_pdf_file
from finchunk.parse.pdf_layout import Line
from finchunk.parse.pdf_table import rebuild, table_text

from .pdf_fixtures import STATEMENT_COLUMNS, STATEMENT_PAGE_1, STATEMENT_PAGE_2, write_statement
from .test_chunk_properties import _check_nothing_lost, _check_spans_and_body

_PATH = Path(__file__).resolve().parents[1] / "bench" / "pdf_structure.py"
_spec = importlib.util.spec_from_file_location("pdf_structure_bench_tables", _PATH)
ps = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = ps
_spec.loader.exec_module(ps)


@pytest.fixture(scope="module")
def statement(tmp_path_factory: pytest.TempPathFactory) -> Document:
    return parse_pdf_file(write_statement(tmp_path_factory.mktemp("pdf") / "statement.pdf"))


def _pipe_rows(text: str) -> list[list[str]]:
    rows = [ln for ln in text.splitlines() if ln.startswith("|") and not ln.startswith("| ---")]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows]


def _cell(text: str) -> str:
    """A source cell as the table writes it: ``$``, ``%`` and ``)`` joined to the number."""
    return text.replace("$ ", "$").replace(" %", "%")


def test_statement_is_one_table_of_rows_and_columns(statement: Document) -> None:
    (table,) = [e for e in statement.elements if e.kind is ElementKind.TABLE]
    text = statement.element_text(table)
    # The units line is the caption, kept above the Markdown table.
    assert text.startswith("(In millions, except percentages)\n| ")
    rows = _pipe_rows(text)
    # Stacked headers (segment over year) read per column, as the HTML parser writes them.
    assert rows[0] == ["", *STATEMENT_COLUMNS]
    expected = [
        [label.replace("|", " "), *(map(_cell, cells) if cells else [""] * 4)]
        for label, cells in [*STATEMENT_PAGE_1, *STATEMENT_PAGE_2]
    ]
    assert rows[1:] == expected
    # The wrapped label is one row's label; the note mark stays in its label.
    assert [
        "Selling, general and administrative expenses, including amortization of intangibles",
        "1,012",
        "987",
        "120",
        "115",
    ] in rows
    assert rows[6][0] == "Research and development (1)"


def test_table_continued_on_the_next_page_is_joined(statement: Document) -> None:
    (table,) = [e for e in statement.elements if e.kind is ElementKind.TABLE]
    text = statement.element_text(table)
    assert table.page == 1 and statement.page_at(table.end - 1) == 2
    # Page 2 starts where its rows start; its repeated header rows are not written again.
    assert statement.text[statement.pages[1][0] :].startswith("| Operating income | $829 |")
    assert text.count("Products 2023") == 1
    # The note below the second part is cited by the table.
    assert table.cites == ("1",)
    assert [e.mark for e in statement.elements if e.kind is ElementKind.NOTE] == ["1"]


def test_bench_reads_the_table_with_the_html_rules(statement: Document) -> None:
    reading = ps.reading_of_document(statement)
    (grid,) = reading.tables
    rows = len(STATEMENT_PAGE_1) + len(STATEMENT_PAGE_2) + 1
    assert ps.shape(grid) == (rows, 5)


def test_slices_exact_and_nothing_lost(statement: Document) -> None:
    for e in statement.elements:
        s, t = statement.pages[e.page - 1]
        assert s <= e.start < t, e  # an element starts on its page (a table may run on)
        assert statement.text[e.start : e.end] == statement.element_text(e)
    for label, cells in [*STATEMENT_PAGE_1, *STATEMENT_PAGE_2]:
        for word in label.replace("|", " ").split():
            assert word in statement.text
        for c in cells:
            assert _cell(c) in statement.text
    for size in (120, 300, 2000):
        for chunker in (
            Fixed(size=size, overlap=size // 10),
            Recursive(size=size),
            Structure(size=size),
            Structure(size=size, split_tables=True),
            ByTitle(size=size),
        ):
            chunks = chunker.chunk(statement)
            _check_spans_and_body(statement, chunks)
            _check_nothing_lost(statement, chunks)


def test_long_table_splits_into_row_groups_with_its_header(statement: Document) -> None:
    chunks = [
        c
        for c in Structure(size=400, split_tables=True).chunk(statement)
        if "| Net" in c.body or "| Income" in c.body or "| Gross" in c.body
    ]
    assert len(chunks) >= 3
    for c in chunks:
        assert "|  | Products 2023 | Products 2022 | Services 2023 | Services 2022 |" in c.body
    whole = Structure(size=4000).chunk(statement)
    (table_chunk,) = [c for c in whole if "| Net sales |" in c.body]
    assert "| Net income | $619 |" in table_chunk.body  # kept whole when it fits


# --- the rules on synthetic lines (x in points, y grows upwards) -------------------------


def _line(text: str, words: list[tuple[float, float]], y: float) -> Line:
    return Line(text, 0, False, 10.0, words[0][0], words[-1][1], 0.0, y, tuple(words))


def _cols(*cells: tuple[str, float]) -> tuple[str, list[tuple[float, float]]]:
    """Words right-aligned at the given right edges (6 points a character)."""
    text = " ".join(t for t, _ in cells)
    return text, [(x - 6 * len(t), x) for t, x in cells]


def test_rules_on_synthetic_lines() -> None:
    lines = [
        _line("Years ended December 31", [(300, 330), (332, 360), (362, 410), (412, 424)], 700),
        _line(*_cols(("2024", 400), ("2023", 480)), y=688),
        # A label wrapped above its numbers, the numbers top-aligned on its first line.
        _line(
            "Adjustment for net losses realized and",
            [(50, 110), (112, 124), (126, 140), (142, 172), (174, 220), (222, 240)],
            676,
        ),
        _line(*_cols(("(571)", 400), ("(87)", 480)), y=676),
        _line("included in net income", [(50, 90), (92, 104), (106, 124), (126, 160)], 664),
        _line(*_cols(("Total", 90), ("$", 355), ("1,094", 400), ("—", 480)), y=652),
        _line(
            *_cols(("Balance,", 100), ("December", 150), ("31", 165), ("5", 400), ("6", 480)), y=640
        ),
    ]
    ((first, last, r),) = rebuild(lines)
    assert (first, last) == (0, len(lines) - 1) and r is not None
    assert r.captions == []
    text, breaks = table_text([r])
    assert breaks == []
    assert _pipe_rows(text) == [
        ["", "Years ended December 31 2024", "Years ended December 31 2023"],
        ["Adjustment for net losses realized and included in net income", "(571)", "(87)"],
        ["Total", "$1,094", "—"],
        ["Balance, December 31", "5", "6"],
    ]


def test_continued_part_after_a_running_title_is_joined() -> None:
    from finchunk.parse.pdf_layout import Block
    from finchunk.parse.pdf_table import plan_tables

    def page(labels: list[str], y: float) -> list[Line]:
        return [
            _line(*_cols((label, 40 + 6 * len(label)), ("1,000", 400), ("(2)", 480)), y=y - 12 * n)
            for n, label in enumerate(labels)
        ]

    first = page(["Revenue", "Costs", "Profit"], 700)
    title = Line("Notes to the Financial Statements (continued)", 0, False, 10.0, 50, 300, 0, 760)
    second = [title, *page(["Taxes", "Total"], 700)]
    blocks = [
        [Block(ElementKind.TABLE, 0, 2)],
        [Block(ElementKind.TEXT, 0, 0), Block(ElementKind.TABLE, 1, 2)],
    ]
    plan = plan_tables([first, second], blocks)
    assert plan.later == {(1, 1)} and plan.goes_on == {(0, 0): (1, 1)}
    text, breaks = table_text(plan.parts[(0, 0)])
    assert [r[0] for r in _pipe_rows(text)] == ["Revenue", "Costs", "Profit", "Taxes", "Total"]
    assert text[breaks[0] :].startswith("| Taxes | 1,000 | (2) |")
