"""PDF headings by size, weight, numbering and position; two-column reading order; running
heads and page numbers as furniture. Every PDF is written here with fpdf2, so what it holds
is known: the headings (and their levels), the columns' lines, the running heads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fpdf import FPDF

from finchunk.model import Document, ElementKind
from finchunk.parse.pdf import parse_pdf_file
from finchunk.parse.pdf_headings import heading_continues
from finchunk.parse.pdf_layout import Line
from finchunk.parse.pdf_order import page_columns, reading_order

BODY = [
    "The group sells valves, pumps and meters to utilities and refineries in forty countries.",
    "Revenue grew in every region, helped by price increases and higher service volumes.",
    "Margins improved as freight and energy costs eased during the second half of the year.",
]
LEFT = [f"Left column line {i} says revenue grew in region {i}." for i in range(10)]
RIGHT = [f"Right column line {i} says costs fell in plant {i}." for i in range(10)]
HEAD = "Example Group plc | Annual Report 2023"
SECTIONS = ["Group", "Europe", "Americas", "Asia", "Services"]


def _pdf() -> FPDF:
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    return pdf


def _line(pdf: FPDF, text: str, *, size: float = 10, bold: bool = False) -> None:
    pdf.set_font("Helvetica", style="B" if bold else "", size=size)
    pdf.cell(0, size * 0.5, text, new_x="LMARGIN", new_y="NEXT")


def _body(pdf: FPDF, lines: list[str] = BODY) -> None:
    for t in lines:
        _line(pdf, t)
    pdf.ln(3)


def write_ranked(path: Path) -> Path:
    """Headings at three levels by size (20 pt, 14 pt, bold at the body's 10 pt), numbered
    bold headings nesting by depth, a title wrapped over two lines, a run-in label, bold
    column headers in the table's small type, and a topic title ("Services") that recurs
    mid-page on four pages: a heading each time, not a running title."""
    pdf = _pdf()
    for n in range(4):
        pdf.add_page()
        pdf.set_y(20)
        _line(pdf, f"Chapter {'ABCD'[n]} Review", size=20)
        _body(pdf)
        _line(pdf, "Regional performance", size=14)
        _body(pdf)
        _line(pdf, "Services", bold=True)
        _body(pdf)
        if n == 0:
            _line(pdf, "2 Financial position", bold=True)
            _body(pdf, BODY[:2])
            _line(pdf, "2.1 Borrowings and the facilities the group", bold=True)
            _line(pdf, "has drawn", bold=True)
            _body(pdf, BODY[1:])
            _line(pdf, "Cash flows from operations:", bold=True)
            _body(pdf, BODY[:1])
            _line(pdf, "Recourse debt:", bold=True)
            _line(pdf, "Senior notes due 2031 800 750")
            pdf.set_font("Helvetica", style="B", size=7)
            pdf.set_x(120)
            pdf.cell(30, 4, "Unpaid", new_x="LMARGIN", new_y="NEXT")
            pdf.set_x(120)
            pdf.cell(30, 4, "Principal", new_x="LMARGIN", new_y="NEXT")
            for label in ("Term loan", "Revolving facility"):
                _line(pdf, f"{label} 1,200 1,150", size=7)
    pdf.output(str(path))
    return path


def write_columns(path: Path, *, interleaved: bool) -> Path:
    """One page: a full-width title, then two columns of ten lines each. ``interleaved``
    draws them row by row across both columns (the right column half a line lower, as
    when its paragraphs are spaced apart), else the left column and then the right."""
    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=16)
    pdf.text(15, 20, "Strategic Report")
    pdf.set_font("Helvetica", style="B", size=10)
    pdf.text(110, 31, "Outlook")
    pdf.set_font("Helvetica", size=9)
    rows = range(len(LEFT))
    if interleaved:
        for i in rows:
            pdf.text(15, 40 + 5 * i, LEFT[i])
            pdf.text(110, 42.5 + 5 * i, RIGHT[i])
    else:
        for i in rows:
            pdf.text(15, 40 + 5 * i, LEFT[i])
        for i in rows:
            pdf.text(110, 42.5 + 5 * i, RIGHT[i])
    pdf.output(str(path))
    return path


def write_running(path: Path, pages: int = 5) -> Path:
    """Pages with a running head (bold, title-like, the same on each page), a footer with the
    page number ("Page n of N"), a section heading and body text."""
    pdf = _pdf()
    for n in range(1, pages + 1):
        pdf.add_page()
        pdf.set_y(10)
        _line(pdf, HEAD, size=8, bold=True)
        pdf.ln(6)
        _line(pdf, f"{SECTIONS[n - 1]} Results", size=14)
        _body(pdf)
        pdf.set_y(-15)
        pdf.set_font("Helvetica", size=8)
        pdf.cell(0, 5, f"Page {n} of {pages}", align="C")
    pdf.output(str(path))
    return path


def _heads(doc: Document) -> dict[str, int]:
    return {
        " ".join(doc.element_text(e).split()): e.level
        for e in doc.elements
        if e.kind is ElementKind.HEADING
    }


def _invariants(doc: Document, expected: list[str]) -> None:
    """Elements tile the text in order, each a slice of it; every written line is present
    (a table row's words in order, its cells written as a Markdown row)."""
    last = 0
    for e in doc.elements:
        assert last <= e.start <= e.end <= len(doc.text)
        assert doc.element_text(e) == doc.text[e.start : e.end]
        last = e.end
    for s, e in doc.pages:
        assert 0 <= s <= e <= len(doc.text)
    words = [w for w in doc.text.split() if w not in ("|", "---")]  # tables as Markdown rows
    for t in expected:
        assert " ".join(w for w in t.split() if w != "|") in " ".join(words), t


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pdfheads")


def test_headings_ranked_by_size_weight_and_numbering(folder: Path) -> None:
    doc = parse_pdf_file(write_ranked(folder / "ranked.pdf"))
    heads = _heads(doc)
    assert heads["Chapter A Review"] < heads["Regional performance"] < heads["Services"]
    assert heads["2.1 Borrowings and the facilities the group has drawn"] == (
        heads["2 Financial position"] + 1
    )
    # The topic title recurring mid-page on every page is a heading on each.
    services = [e for e in doc.elements if doc.element_text(e) == "Services"]
    assert len(services) == 4 and all(e.kind is ElementKind.HEADING for e in services)
    # A title ending in a colon over prose is a heading; a run-in label over rows is not;
    # nor are bold column headers in small type.
    assert heads["Cash flows from operations:"] == heads["Services"]
    assert "Recourse debt:" not in heads
    assert not {"Unpaid", "Principal"} & set(heads)
    sub = next(e for e in doc.elements if doc.element_text(e).startswith("2.1"))
    para = doc.elements[doc.elements.index(sub) + 1]
    assert para.kind is ElementKind.TEXT and para.section == (
        "Chapter A Review",
        "Regional performance",
        "2 Financial position",
        "2.1 Borrowings and the facilities the group has drawn",
    )
    _invariants(doc, [*BODY, "Recourse debt:", "Unpaid", "Term loan 1,200 1,150"])
    senior = next(e for e in doc.elements if "Senior notes" in doc.element_text(e))
    assert senior.section[-1] == "Cash flows from operations"


def test_interleaved_columns_read_column_by_column(folder: Path) -> None:
    doc = parse_pdf_file(write_columns(folder / "inter.pdf", interleaved=True))
    text = doc.text
    at = [text.index(t) for t in [*LEFT, "Outlook", *RIGHT]]
    assert at == sorted(at)  # every left line, then the right column's title and lines
    assert text.index("Strategic Report") < at[0]
    assert _heads(doc).get("Outlook") is not None  # a heading in the right column
    _invariants(doc, [*LEFT, *RIGHT])


def test_column_order_already_right_is_kept(folder: Path) -> None:
    path = write_columns(folder / "cols.pdf", interleaved=False)
    doc = parse_pdf_file(path)
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        stream = [
            " ".join(t.split())
            for t in re.split(r"[\r\n]+", pdf[0].get_textpage().get_text_range())
            if t.strip()
        ]
    finally:
        pdf.close()
    lines = [" ".join(t.split()) for t in doc.text.split("\n") if t.strip()]
    assert lines == stream  # pdfium's stream order, unchanged
    assert lines.index(LEFT[-1]) < lines.index(RIGHT[0])
    _invariants(doc, [*LEFT, *RIGHT])


def _ln(text: str, x0: float, x1: float, y: float) -> Line:
    return Line(text, 0, False, 9.0, x0, x1, 0.0, y)


def test_reading_order_only_where_lines_alternate() -> None:
    left = [_ln(f"left column text line number {i}", 40, 250, 700 - 12 * i) for i in range(8)]
    right = [_ln(f"right column text line number {i}", 310, 550, 694 - 12 * i) for i in range(8)]
    title = _ln("A title across the whole page width here", 40, 550, 760)
    mixed = [title] + [ln for pair in zip(left, right, strict=True) for ln in pair]
    assert reading_order(mixed) == [title, *left, *right]
    ordered = [title, *left, *right]
    assert reading_order(ordered) == ordered
    one = [_ln(f"one column line {i} of prose text", 40, 550, 700 - 12 * i) for i in range(9)]
    assert reading_order(one) == one
    # A table whose rows hold a left and a right text cell (an exhibit index): each row's
    # right cell is level with its left one, so the stream moves back up: kept as it is.
    table = []
    for r in range(8):
        y = 700 - 30 * r
        table += [
            _ln(f"Exhibit {r} description of the agreement", 40, 250, y),
            _ln("continued on a second line of the cell", 60, 250, y - 12),
            _ln(f"Form 8-K filed in the year 20{10 + r}", 310, 550, y),
        ]
    assert reading_order(table) == table
    cols = page_columns(mixed)
    assert cols.split and cols.box(right[0])[0] == pytest.approx(310)
    assert not page_columns(one).split


def test_running_heads_and_page_numbers_are_furniture(folder: Path) -> None:
    doc = parse_pdf_file(write_running(folder / "running.pdf"))
    furniture = [doc.element_text(e) for e in doc.elements if e.kind is ElementKind.FURNITURE]
    assert furniture.count(HEAD) == 5
    assert sum(bool(re.fullmatch(r"Page \d of 5", t)) for t in furniture) == 5
    heads = _heads(doc)
    assert HEAD not in heads and set(heads) == {f"{s} Results" for s in SECTIONS}
    for e in doc.elements:
        if e.kind is not ElementKind.FURNITURE:
            assert HEAD not in e.section
    _invariants(doc, [HEAD, *BODY])


def test_wrapped_titles_and_separate_titles() -> None:
    a = Line("ITEM 5. MARKET FOR REGISTRANT'S", 0, True, 13.4, 34.7, 273.5, 0.0, 684.4)
    b = Line("COMMON EQUITY, RELATED", 0, True, 13.4, 101.0, 266.1, 0.0, 672.4)
    cols = page_columns([_ln("x" * 40, 33.8, 291, 700 - i) for i in range(6)])
    assert heading_continues(a, b, 5, cols)  # "COMMON" would not fit on the line above
    far = Line("INFORMATION ABOUT OUR OFFICERS", 0, True, 13.4, 33.8, 328.2, 0.0, 646.1)
    full = Line("ITEM 10. DIRECTORS AND GOVERNANCE", 0, True, 13.4, 34.7, 288.0, 0.0, 672.4)
    assert not heading_continues(full, far, 5, cols)  # two line heights below: a new title
    short = Line("Note 8. Business Combinations", 0, True, 10.0, 34.0, 180.0, 0.0, 600.0)
    sub = Line("Acquisitions in the year", 0, True, 10.0, 34.0, 150.0, 0.0, 588.0)
    assert not heading_continues(short, sub, 7, cols)  # it would have fitted: a sub-title
