"""PDF layout: headings by type size, weight and numbering, table headers kept in their
table, statement titles and notes as sections, cover metadata, short context headers."""

from __future__ import annotations

from pathlib import Path

import pytest

from finchunk.chunk import Structure
from finchunk.chunk.header import MAX_HEADER, fit_header, shorten
from finchunk.model import Document, ElementKind
from finchunk.parse.html_meta import fiscal_year, issuer_from_text, join_capitals
from finchunk.parse.pdf import mend_splits, parse_pdf_file
from finchunk.parse.pdf_headings import Style, heading_level
from finchunk.parse.pdf_layout import Line, page_blocks
from finchunk.parse.pdf_meta import producer_artefact, running_name

from .pdf_fixtures import GLOSSY_BODY, GLOSSY_FOOTER, GLOSSY_ROWS, write_glossy


@pytest.fixture(scope="module")
def glossy(tmp_path_factory: pytest.TempPathFactory) -> Document:
    return parse_pdf_file(write_glossy(tmp_path_factory.mktemp("pdf") / "report.pdf"))


def _heads(doc: Document) -> list[tuple[str, int]]:
    return [(doc.element_text(e), e.level) for e in doc.elements if e.kind is ElementKind.HEADING]


def test_headings_ranked_by_size_then_bold_then_numbering(glossy: Document) -> None:
    heads = dict(_heads(glossy))
    # Non-bold page titles in large type are headings, the largest on top.
    assert heads["Strategic Report"] < heads["Our markets"] < heads["Demand in 2023"]
    assert heads["Financial Review"] == heads["Strategic Report"]
    # Two consecutive bold headings stay two (the second replaces the first).
    assert heads["Regional outlook"] == heads["Demand in 2023"]
    # A decimal number nests under its parent.
    assert heads["1.2 Revenue recognition"] == heads["1 Overview"] + 1
    para = next(e for e in glossy.elements if glossy.element_text(e).startswith("service"))
    assert para.section == (
        "Strategic Report",
        "Our markets",
        "1 Overview",
        "1.2 Revenue recognition",
    )


def test_table_headers_stay_in_the_table(glossy: Document) -> None:
    heads = [t for t, _ in _heads(glossy)]
    assert not any("CLASS" in h or "Title of each class" in h for h in heads)
    (table,) = [e for e in glossy.elements if e.kind is ElementKind.TABLE]
    text = glossy.element_text(table)
    # One header row over the number columns (a header right-aligned over two columns
    # heads the one it ends over), then the rows.
    assert text.startswith("|  | 2023 | CLASS A 2022 | CLASS B 2023 |\n| --- | --- | --- | --- |\n")
    assert "\n| Net income | 1,200 | 1,100 | 300 |\n" in text
    # The statement title is the table's section, and the note below is no part of it.
    assert table.section == ("Consolidated Statement of Cash Flows",)
    assert "NOTE 9" not in text
    note = next(e for e in glossy.elements if glossy.element_text(e).startswith("NOTE 9."))
    assert note.kind is ElementKind.HEADING and note.level == 3


def test_nothing_lost_and_slices_exact(glossy: Document) -> None:
    for line in [*GLOSSY_BODY, GLOSSY_FOOTER, *(label for label, _ in GLOSSY_ROWS)]:
        assert line in glossy.text
    for e in glossy.elements:
        s, t = glossy.pages[e.page - 1]
        assert s <= e.start < e.end <= t
        assert glossy.text[e.start : e.end].strip() == glossy.element_text(e).strip()


def test_issuer_from_the_running_footer(glossy: Document) -> None:
    assert glossy.metadata["issuer"] == "Example Group plc"
    assert glossy.title == "Example Group plc"  # fpdf2 writes no Title


def test_headers_are_short() -> None:
    long = "Management's Discussion and Analysis of Financial Condition and Results of Operations"
    header = fit_header("3M | 10-K | FY 2018", ["PART II", long, long + " continued", long])
    assert len(header) <= MAX_HEADER
    # The outer titles go first; the chunk's own (innermost) section stays whole.
    assert header.startswith("3M | 10-K | FY 2018 > ") and header.endswith(" > " + long)
    cut = fit_header("3M | 10-K | FY 2018", [long + " " + long])
    assert len(cut) <= MAX_HEADER and cut.endswith(" Operations…")  # cut at a word's end
    assert shorten("Item 7. Management's Discussion", 22) == "Item 7. Management's…"
    assert shorten("Item 7. Management's Discussion", 20) == "Item 7.…"


def test_heading_level_rules() -> None:
    style = Style(10.0, (24.0, 16.0))
    assert heading_level(Line("PART II", bold=True, size=10)) == 1
    assert heading_level(Line("Item 7. MD&A", bold=True, size=10)) == 2
    assert heading_level(Line("NOTE 9. INCOME TAXES", size=10), style) == 3
    assert heading_level(Line("Consolidated Balance Sheets", bold=True, size=10), style) == 3
    assert heading_level(Line("Years ended December 31", bold=True, size=10), style) is None
    assert heading_level(Line("Title of each class Trading Symbol", bold=True), style) is None
    assert heading_level(Line("Overview", size=24), style) == 4
    assert heading_level(Line("Overview", size=10), style) is None  # body size, not bold


def test_bold_words_over_number_columns_are_the_tables_header() -> None:
    lines = [
        Line("Results by class", bold=True, size=10, x0=50, x1=150),
        Line("CLASS A CLASS B", bold=True, size=10, x0=330, x1=480),
        Line("Net sales 1,200 3,400", 2, size=10, x0=50, x1=480, numx=320),
        Line("Net income 200 400", 2, size=10, x0=50, x1=480, numx=320),
    ]
    blocks = page_blocks(lines, set(), Style(10.0))
    assert [b.kind for b in blocks] == [ElementKind.TABLE]  # the bold stub line joins too


class _Probe:
    """Boxes of a line set in 10-unit glyphs; spaces at ``tight`` have no gap."""

    def __init__(self, text: str, tight: set[int]) -> None:
        self.text, self.tight = text, tight

    def generated(self, i: int) -> bool:
        return self.text[i] == " "

    def box(self, i: int) -> tuple[float, float]:
        x = 10.0 * i - sum(10.0 for k in self.tight if k < i)
        return x, x + 9.5


def test_split_words_and_lost_ligatures_mended() -> None:
    text = "could be adversely af ected by the Busines s of others"
    tight = {text.index("af ") + 2, text.index("s s") + 1}
    mended = mend_splits(text, 0, _Probe(text, tight), 10.0)  # type: ignore[arg-type]
    assert mended == "could be adversely affected by the Business of others"
    # A real word space (a gap as wide as a glyph) is left alone, even between fragments.
    assert mend_splits(text, 0, _Probe(text, set()), 10.0) == text  # type: ignore[arg-type]


def test_metadata_patterns() -> None:
    class T:
        def __init__(self, text: str) -> None:
            self.text = text

    line = "PURCHASE, N.Y. - April 25, 2023 - PepsiCo, Inc. (NASDAQ: PEP) today reported"
    assert issuer_from_text([T(line)]) == "PepsiCo, Inc."
    assert issuer_from_text([T("Amcor reports fiscal 2023 results")]) == "Amcor"
    assert running_name([GLOSSY_FOOTER + " | 4", GLOSSY_FOOTER + " | 5"]) == "Example Group plc"
    assert join_capitals("MGM R ESORTS I NTERNATIONAL") == "MGM RESORTS INTERNATIONAL"
    assert fiscal_year("2023-01-01") == "2022" and fiscal_year("2023-01-28") == "2023"
    for title in ("Microsoft Word - R1", "0000004962-23-000006", "EDGAR PDF", "q4_2023.pdf"):
        assert producer_artefact(title), title
    assert not producer_artefact("Ulta Beauty Announces Fourth Quarter Fiscal 2022 Results")


def test_tiny_text_joins_its_heading(tmp_path: Path) -> None:
    from .pdf_fixtures import write_simple

    path = write_simple(
        tmp_path / "t.pdf",
        [["Item 3. Legal Proceedings", "None.", "Item 4. Mine Safety Disclosures", "None."]],
    )
    doc = parse_pdf_file(path)
    chunks = Structure(header=True).chunk(doc)
    assert all(len(c.body) >= 20 for c in chunks)
    assert chunks[0].body.startswith("Item 3. Legal Proceedings")
