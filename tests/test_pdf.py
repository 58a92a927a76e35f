"""PDF → elements with pages: small PDFs written with fpdf2, and two FinanceBench filings."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.errors import ParseError
from finchunk.model import Document, ElementKind
from finchunk.parse import load
from finchunk.parse.pdf import parse_pdf_file
from finchunk.parse.pdf_layout import (
    Line,
    furniture,
    join_split_labels,
    page_blocks,
    trailing_numeric,
)

from .pdf_fixtures import RUNNING_HEADER, write_blank, write_encrypted, write_report, write_simple


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Document:
    path = write_report(tmp_path_factory.mktemp("pdf") / "acme.pdf")
    return parse_pdf_file(path)


def _kinds(doc: Document, kind: ElementKind) -> list[str]:
    return [doc.element_text(e) for e in doc.elements if e.kind is kind]


def test_pages_and_offsets(report: Document) -> None:
    assert report.id == "acme"
    assert len(report.pages) == 3
    starts = [s for s, _ in report.pages]
    assert starts == sorted(starts) and report.pages[0][0] == 0
    assert report.pages[-1][1] == len(report.text)
    for e in report.elements:
        s, t = report.pages[e.page - 1]
        assert s <= e.start < e.end <= t, e
        assert report.page_at(e.start) == e.page
    assert "\r" not in report.text


def test_headings_and_sections(report: Document) -> None:
    heads = [
        (report.element_text(e), e.level) for e in report.elements if e.kind is ElementKind.HEADING
    ]
    assert ("PART I", 1) in heads and ("PART II", 1) in heads
    assert ("Item 1. Business", 2) in heads and ("Item 8. Financial Statements", 2) in heads
    item8 = next(e for e in report.elements if report.element_text(e).startswith("The financial"))
    assert item8.section == ("PART II", "Item 8. Financial Statements")


def test_table_is_one_element_with_its_note(report: Document) -> None:
    tables = [e for e in report.elements if e.kind is ElementKind.TABLE]
    assert len(tables) == 1
    text = report.element_text(tables[0])
    # Typed as text (the numbers do not line up): each row's numbers fill the last columns.
    assert text.startswith("| (Millions) | 2023 | 2022 | 2021 |\n| --- | --- | --- | --- |\n")
    assert "| Net sales | $5,363 | $4,869 | $5,058 |" in text
    assert "| Selling, general and administrative (1) | 1,012 | 987 | 954 |" in text
    assert "| Operating expenses |  |  |  |" in text  # a label line between rows is a row
    assert tables[0].page == 2
    notes = [e for e in report.elements if e.kind is ElementKind.NOTE]
    assert [n.mark for n in notes] == ["1"]
    assert tables[0].cites == ("1",)
    chunks = Structure().chunk(report)
    table_chunk = next(c for c in chunks if "| Net sales | $5,363 |" in c.body)
    assert "restructuring charges" in table_chunk.body and len(table_chunk.spans) == 2


def test_list_and_paragraphs(report: Document) -> None:
    lists = _kinds(report, ElementKind.LIST)
    assert len(lists) == 1 and lists[0].count("\u00b7") == 3
    assert "Employees" not in lists[0]
    paras = _kinds(report, ElementKind.TEXT)
    assert any(p.startswith("ACME Corp makes anvils") and p.endswith("1949.") for p in paras)


def test_furniture_is_skipped_by_chunkers(report: Document) -> None:
    furn = _kinds(report, ElementKind.FURNITURE)
    assert furn.count(RUNNING_HEADER) == 3
    assert {"1", "2", "3"} <= set(furn)
    for chunker in (Fixed(size=200, overlap=20), Recursive(size=300), Structure(), ByTitle()):
        for c in chunker.chunk(report):
            assert RUNNING_HEADER not in c.body
            assert c.pages and all(1 <= p <= 3 for p in c.pages)


def test_nothing_lost_but_furniture(report: Document) -> None:
    covered = [False] * len(report.text)
    for c in Fixed(size=150, overlap=0).chunk(report):
        for s, e in c.spans:
            covered[s:e] = [True] * (e - s)
    furn = {
        i for e in report.elements if e.kind is ElementKind.FURNITURE for i in range(e.start, e.end)
    }
    missing = [
        i
        for i, ch in enumerate(report.text)
        if not ch.isspace() and not covered[i] and i not in furn
    ]
    assert missing == []


def test_deterministic(tmp_path: Path) -> None:
    path = write_report(tmp_path / "a.pdf")
    a, b = parse_pdf_file(path), parse_pdf_file(path)
    assert a.text == b.text and a.elements == b.elements and a.pages == b.pages


def test_load_dispatches_pdf(tmp_path: Path) -> None:
    path = write_simple(tmp_path / "one.pdf", [["Hello world, a first page."]])
    doc = load(path)
    assert doc.text == "Hello world, a first page." and doc.pages == ((0, len(doc.text)),)
    assert doc.elements[0].page == 1


def test_encrypted_pdf_is_a_clear_error(tmp_path: Path) -> None:
    path = write_encrypted(tmp_path / "secret.pdf")
    with pytest.raises(ParseError, match="encrypted") as err:
        parse_pdf_file(path)
    assert "secret.pdf" in str(err.value)


@pytest.mark.parametrize("payload", [b"not a pdf at all", b"%PDF-1.7\n1 0 obj\n<<"])
def test_broken_pdf_is_a_clear_error(tmp_path: Path, payload: bytes) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(payload)
    with pytest.raises(ParseError, match="broken.pdf"):
        parse_pdf_file(path)


def test_image_only_pdf_is_a_one_line_error(tmp_path: Path) -> None:
    path = write_blank(tmp_path / "scan.pdf")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no Python warning is printed either
        with pytest.raises(ParseError, match=r"scan\.pdf: no text layer"):
            parse_pdf_file(path)


def test_trailing_numeric_cells() -> None:
    assert trailing_numeric("Net income $ 5,363 $ 4,869 $ 5,058") == 3
    assert trailing_numeric("Gain on sale (545) (586) (111)") == 3
    assert trailing_numeric("Other — net 120 — 76") == 3
    assert trailing_numeric("Sales rose 5% in 2018 compared with 2017") == 1
    assert trailing_numeric("Years ended December 31") == 1


def test_furniture_rule_needs_repetition() -> None:
    words = ["alpha", "beta", "gamma", "delta"]
    pages = [
        [
            Line("Header"),
            Line(f"{w} opens."),
            Line("Same middle line."),
            Line(f"{w} closes."),
            Line(str(i + 1)),
        ]
        for i, w in enumerate(words)
    ]
    marks = furniture(pages)
    assert all(m == {0, 4} for m in marks)
    blocks = page_blocks(pages[0], marks[0])
    kinds = [b.kind for b in blocks]
    assert kinds[0] is kinds[-1] is ElementKind.FURNITURE
    assert set(kinds[1:-1]) == {ElementKind.TEXT}


def test_toc_page_has_no_headings() -> None:
    lines = [
        Line("PART I", bold=True),
        Line("Item 1. Business 4", bold=True, nums=1),
        Line("Item 1A. Risk Factors 10", bold=True, nums=1),
        Line("Item 7. Management's Discussion 25", bold=True, nums=1),
    ]
    assert all(b.kind is not ElementKind.HEADING for b in page_blocks(lines, set()))


# --- two FinanceBench filings --------------------------------------------------------------


@pytest.fixture(scope="module")
def mmm_2018(shared_data: Path) -> Document:
    return parse_pdf_file(shared_data / "financebench" / "pdfs" / "3M_2018_10K.pdf")


def test_real_10k_items_found(mmm_2018: Document) -> None:
    heads = [
        mmm_2018.element_text(e)
        for e in mmm_2018.elements
        if e.kind is ElementKind.HEADING and e.level == 2
    ]
    for item in ("1", "1A", "2", "3", "5", "7", "7A", "8", "9A"):
        assert any(h.startswith(f"Item {item}.") for h in heads), item
    # The table of contents (page 2) gives no headings.
    assert not [e for e in mmm_2018.elements if e.kind is ElementKind.HEADING and e.page == 2]


def test_real_cash_flow_statement_is_one_table(mmm_2018: Document) -> None:
    # FinanceBench: evidence_page_num 59 (0-based) → page 60; the page footer reads "60".
    page = [e for e in mmm_2018.elements if e.page == 60]
    tables = [e for e in page if e.kind is ElementKind.TABLE]
    assert len(tables) == 1
    text = mmm_2018.element_text(tables[0])
    # The statement's title is a heading of its own: it sets the table's section path.
    heads = [mmm_2018.element_text(e) for e in page if e.kind is ElementKind.HEADING]
    assert heads == ["Consolidated Statement of Cash Flows"]
    assert tables[0].section[-1] == "Consolidated Statement of Cash Flows"
    item8 = "Item 8. Financial Statements and Supplementary Data"
    assert tables[0].section[:2] == ("PART II", item8)
    for row in (
        "Net income including noncontrolling",
        "| Purchases of property, plant and equipment (PP&E) | (1,577) | (1,373) | (1,420) |",
        "| Cash and cash equivalents at end of period | $2,853 | $3,053 | $2,398 |",
    ):
        assert row in text
    # Rows × columns: the caption line, the years as the header row, a label-only row.
    assert text.startswith(
        "Years ended December 31\n| (Millions) | 2018 | 2017 | 2016 |\n| --- | --- | --- | --- |\n"
        "| Cash Flows from Operating Activities |  |  |  |\n"
    )
    furn = [mmm_2018.element_text(e) for e in page if e.kind is ElementKind.FURNITURE]
    assert "60" in furn and "Table of Contents" in furn


def test_real_earnings_release(shared_data: Path) -> None:
    doc = parse_pdf_file(shared_data / "financebench" / "pdfs" / "AMCOR_2023Q4_EARNINGS.pdf")
    assert len(doc.pages) == 14
    assert sum(e.kind is ElementKind.TABLE for e in doc.elements) >= 5
    assert all(
        doc.pages[e.page - 1][0] <= e.start < e.end <= doc.pages[e.page - 1][1]
        for e in doc.elements
    )


def test_real_evidence_aligns_on_its_page(mmm_2018: Document, shared_data: Path) -> None:
    from finchunk.datasets.financebench import load_financebench
    from finchunk.evaluate.align import QuoteIndex

    fb = load_financebench(shared_data / "financebench")
    index = QuoteIndex(mmm_2018.text)
    evidence = [e for q in fb.questions for e in q.evidence if e.doc_name == "3M_2018_10K"]
    assert len(evidence) >= 2
    for ev in evidence:
        # Aligned as the FinanceBench evaluation aligns (fuzzy on its page): a statement's
        # header now reads column by column ("December 31, 2018"), not in print order.
        found = index.align(ev.text, mmm_2018.pages[ev.page - 1], fuzzy=True)
        assert found is not None and found.score >= 0.9, ev.page
        s, e = found.span
        assert mmm_2018.page_at(s) == mmm_2018.page_at(e - 1) == ev.page


def test_item_label_split_over_lines_is_rejoined() -> None:
    lines = [
        Line("Item", bold=True),
        Line("1A."),
        Line("Risk Factors", bold=True),
        Line("Items sold grew."),
        Line("Part"),
        Line("of the growth came late."),
    ]
    joined = join_split_labels(lines)
    assert [ln.text for ln in joined] == [
        "Item 1A.",
        "Risk Factors",
        "Items sold grew.",
        "Part",
        "of the growth came late.",
    ]
    blocks = page_blocks(joined, set())
    assert blocks[0].kind is ElementKind.HEADING and blocks[0].level == 2
