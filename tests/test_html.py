"""SEC HTML parser rules, each on a small hand-written filing fragment."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchunk.errors import ParseError
from finchunk.model import Document, ElementKind
from finchunk.parse.html import parse_html, parse_html_file
from finchunk.parse.html_meta import parse_date

H, T, TAB, NOTE, LIST = (
    ElementKind.HEADING,
    ElementKind.TEXT,
    ElementKind.TABLE,
    ElementKind.NOTE,
    ElementKind.LIST,
)
BOLD = '<div><span style="font-weight:700">{}</span></div>'
PARA = "<div><span>{}</span></div>"
PB = '<hr style="page-break-after:always"/>'


def doc(body: str, doc_id: str = "t") -> Document:
    return parse_html(f"<html><body>{body}</body></html>", doc_id)


def texts(d: Document, kind: ElementKind | None = None) -> list[str]:
    return [d.element_text(e) for e in d.elements if kind is None or e.kind is kind]


def check_spans(d: Document) -> None:
    prev = 0
    for e in d.elements:
        assert 0 <= prev <= e.start < e.end <= len(d.text)
        t = d.element_text(e)
        assert t == t.strip() and t
        prev = e.end
    if d.pages:
        assert d.pages[0][0] == 0 and d.pages[-1][1] == len(d.text)
        for (_, e1), (s2, _) in zip(d.pages, d.pages[1:], strict=False):
            assert e1 == s2


# -- headings and sections ----------------------------------------------------------------
FILING = (
    BOLD.format("PART II")
    + BOLD.format("Item 7. Management’s Discussion and Analysis")
    + PARA.format("We sell phones.")
    + BOLD.format("Segment Operating Performance")
    + PARA.format("Americas grew.")
    + BOLD.format("Item 8. Financial Statements and Supplementary Data")
)


def test_part_item_and_subheading_levels_and_sections() -> None:
    d = doc(FILING)
    check_spans(d)
    heads = [(d.element_text(e), e.level) for e in d.elements if e.kind is H]
    assert heads == [
        ("PART II", 1),
        ("Item 7. Management’s Discussion and Analysis", 2),
        ("Segment Operating Performance", 3),
        ("Item 8. Financial Statements and Supplementary Data", 2),
    ]
    americas = next(e for e in d.elements if d.element_text(e) == "Americas grew.")
    assert americas.section == (
        "PART II",
        "Item 7. Management’s Discussion and Analysis",
        "Segment Operating Performance",
    )
    item8 = [e for e in d.elements if e.kind is H][-1]
    assert item8.section == ("PART II", "Item 8. Financial Statements and Supplementary Data")


def test_headings_sit_on_their_own_lines_blocks_split_by_blank_lines() -> None:
    d = doc(FILING)
    assert d.text.startswith("PART II\n\nItem 7. Management’s Discussion and Analysis\n\nWe sell")
    for e in d.elements:
        assert d.text[e.start - 2 : e.start] in ("", "\n\n")


def test_item_number_and_title_in_separate_blocks_merge() -> None:
    d = doc(BOLD.format("Item 1A.") + BOLD.format("Risk Factors") + PARA.format("Risky."))
    assert texts(d, H) == ["Item 1A. Risk Factors"]


def test_item_in_a_layout_table_row_is_a_heading() -> None:
    row = "<table><tr><td><b>ITEM 7.</b></td><td><b>MANAGEMENT'S DISCUSSION</b></td></tr></table>"
    d = doc(row + PARA.format("Text."))
    assert texts(d, H) == ["ITEM 7. MANAGEMENT'S DISCUSSION"]
    assert d.elements[0].level == 2


def test_sentences_mentioning_items_are_not_headings() -> None:
    d = doc(
        PARA.format("Item 7 of this report discusses results in detail for readers.")
        + BOLD.format("None.")
        + BOLD.format("None")
        + BOLD.format("☒ ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)")
        + BOLD.format("For the transition period from ____ to ____")
        + BOLD.format("This bold sentence is long enough to be prose, and it ends with a period.")
    )
    assert texts(d, H) == []


def test_headings_inside_a_numbered_note_are_one_level_down() -> None:
    d = doc(
        BOLD.format("Item 8. Financial Statements")
        + BOLD.format("10. Accounts Receivable")
        + BOLD.format("Allowance for Credit Losses")
        + PARA.format("Text.")
        + BOLD.format("Note 11 – Leases")
        + BOLD.format("Lease Costs")
    )
    levels = [(d.element_text(e), e.level) for e in d.elements if e.kind is H]
    assert levels == [
        ("Item 8. Financial Statements", 2),
        ("10. Accounts Receivable", 3),
        ("Allowance for Credit Losses", 4),
        ("Note 11 – Leases", 3),
        ("Lease Costs", 4),
    ]


def test_h_tags_are_headings() -> None:
    d = doc("<h2>Liquidity and Capital Resources</h2><p>Cash is king.</p>")
    assert texts(d, H) == ["Liquidity and Capital Resources"]


# -- tables -------------------------------------------------------------------------------
STATEMENT = """
<table>
<tr><td></td><td colspan="6">Years ended</td></tr>
<tr><td></td><td></td><td colspan="2">2024</td><td></td><td colspan="2">2023</td></tr>
<tr><td>Net sales</td><td></td><td>$</td><td>391,035</td><td></td><td>$</td><td>383,285</td></tr>
<tr><td>Other income/(expense)</td><td></td><td>(</td><td>269</td><td>)</td>
    <td>(</td><td>565</td><td>)</td></tr>
<tr><td>Gross margin</td><td></td><td></td><td>46.2</td><td>%</td>
    <td></td><td>44.1</td><td>%</td></tr>
</table>
"""


def test_data_table_is_markdown_with_symbols_merged_and_no_spacer_columns() -> None:
    d = doc(BOLD.format("CONSOLIDATED STATEMENTS OF OPERATIONS") + STATEMENT)
    check_spans(d)
    (table,) = texts(d, TAB)
    lines = table.split("\n")
    assert lines[0] == "|  | Years ended 2024 | Years ended 2023 |"  # stacked headers merged
    assert lines[1] == "| --- | --- | --- |"
    assert "| Net sales | $391,035 | $383,285 |" in lines
    assert "| Other income/(expense) | (269) | (565) |" in lines
    assert "| Gross margin | 46.2% | 44.1% |" in lines
    assert all(line.count("|") == 4 for line in lines)


def test_pipes_in_cells_are_escaped() -> None:
    d = doc("<table><tr><td>a|b</td><td>1</td></tr><tr><td>c</td><td>2</td></tr></table>")
    assert texts(d, TAB) == ["| a\\|b | 1 |\n| --- | --- |\n| c | 2 |"]


def test_bullet_table_is_a_list_and_prose_grid_is_text() -> None:
    bullets = "".join(
        f"<table><tr><td>•</td><td>{t}</td></tr></table>" for t in ("First risk.", "Second.")
    )
    prose = "<table><tr><td>One long paragraph of layout text in a single cell.</td></tr></table>"
    d = doc(bullets + prose)
    assert texts(d, LIST) == ["- First risk.\n- Second."]
    assert texts(d, T) == ["One long paragraph of layout text in a single cell."]


def test_ul_li_is_a_list() -> None:
    d = doc("<ul><li>alpha</li><li>beta</li></ul><p>after</p>")
    assert texts(d, LIST) == ["- alpha\n- beta"]


def test_nested_tables_are_read_as_layout() -> None:
    inner = "<table><tr><td>Revenue</td><td>10</td></tr><tr><td>Cost</td><td>4</td></tr></table>"
    d = doc(f"<table><tr><td><p>Intro text.</p>{inner}</td><td>Side note.</td></tr></table>")
    check_spans(d)
    assert "Intro text." in texts(d, T)
    assert texts(d, TAB) == ["| Revenue | 10 |\n| --- | --- |\n| Cost | 4 |"]
    assert "Side note." in d.text


def test_ten_thousand_row_table() -> None:
    rows = "".join(f"<tr><td>Row {i}</td><td>{i}</td></tr>" for i in range(10_000))
    d = doc(f"<table>{rows}</table>")
    (table,) = texts(d, TAB)
    assert table.count("\n") == 10_000  # header, separator, 9,999 rows
    assert table.endswith("| Row 9999 | 9999 |")


# -- table of contents ------------------------------------------------------------------
TOC = """
<table>
<tr><td><a href="#p1">Part I</a></td><td></td></tr>
<tr><td><a href="#i1">Item 1.</a></td><td><a href="#i1">Business</a></td><td>3</td></tr>
<tr><td><a href="#i1a">Item 1A.</a></td><td><a href="#i1a">Risk Factors</a></td><td>9</td></tr>
</table>
"""


def test_toc_table_is_dropped_and_body_headings_kept() -> None:
    body = (
        '<div id="p1"></div>'
        + BOLD.format("PART I")
        + '<div id="i1"></div>'
        + BOLD.format("Item 1. Business")
        + PARA.format("We make things.")
        + '<div id="i1a"></div>'
        + BOLD.format("Item 1A. Risk Factors")
    )
    d = doc(TOC + body)
    assert texts(d, H) == ["PART I", "Item 1. Business", "Item 1A. Risk Factors"]
    assert texts(d, TAB) == []


def test_item_printed_only_in_the_toc_is_placed_at_its_link_target() -> None:
    body = (
        '<div id="p1"></div><div id="i1"></div>'
        + PARA.format("Balance sheet follows.")
        + '<div id="i1a"></div>'
        + BOLD.format("Item 1A. Risk Factors")
    )
    d = doc(TOC + body)
    heads = [(d.element_text(e), e.level) for e in d.elements if e.kind is H]
    assert heads == [("Part I", 1), ("Item 1. Business", 2), ("Item 1A. Risk Factors", 2)]


# -- hidden content, inline XBRL, metadata ---------------------------------------------
IXBRL = """<html><body>
<div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:DocumentFiscalYearFocus" contextRef="c">2024</ix:nonNumeric>
<ix:nonNumeric name="dei:DocumentFiscalPeriodFocus" contextRef="c">FY</ix:nonNumeric>
<ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="c">0000320193</ix:nonNumeric>
</ix:hidden><ix:resources><xbrli:context id="c"><xbrli:entity>
<xbrli:identifier scheme="http://www.sec.gov/CIK">HIDDENCIK</xbrli:identifier>
</xbrli:entity></xbrli:context></ix:resources></ix:header></div>
<div>FORM <ix:nonNumeric name="dei:DocumentType" contextRef="c">10-K</ix:nonNumeric></div>
<div>For the fiscal year ended <ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="c">
September 28, 2024</ix:nonNumeric></div>
<div><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="c">Apple Inc.</ix:nonNumeric></div>
<div>Net loss was $(<ix:nonFraction name="us-gaap:NetIncomeLoss" sign="-" scale="6"
  decimals="-6" contextRef="c">1,234</ix:nonFraction>) million.</div>
<div style="display: none">secret text</div>
</body></html>"""


def test_ix_header_and_display_none_are_skipped_nonfraction_kept_as_displayed() -> None:
    d = parse_html(IXBRL, "aapl")
    assert "HIDDENCIK" not in d.text and "secret" not in d.text and "FY" not in d.text
    assert "Net loss was $(1,234) million." in texts(d, T)


def test_dei_metadata_and_title() -> None:
    d = parse_html(IXBRL, "aapl")
    assert d.metadata == {
        "issuer": "Apple Inc.",
        "cik": "320193",
        "form": "10-K",
        "doc_type": "10-K",
        "period_end": "2024-09-28",
        "fiscal_year": "2024",
        "year": "2024",  # the canonical name chunk records use
        "fiscal_period": "FY",
        "language": "en",
    }
    assert d.title == "Apple Inc. > 10-K 2024-09-28"


def test_cover_page_metadata_for_old_html() -> None:
    d = doc(
        "<P ALIGN=center><B>FORM 10-K</B></P><P>FOR THE FISCAL YEAR ENDED JUNE 30, 1999</P>"
        "<P><B>MEDICIS PHARMACEUTICAL CORPORATION</B></P>"
        "<P>(Exact name of registrant as specified in its charter)</P>"
    )
    assert d.metadata["issuer"] == "MEDICIS PHARMACEUTICAL CORPORATION"
    assert d.metadata["form"] == "10-K" and d.metadata["period_end"] == "1999-06-30"
    assert d.metadata["fiscal_year"] == d.metadata["year"] == "1999"
    assert d.metadata["fiscal_period"] == "FY"


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("September 28, 2024", "2024-09-28"),
        ("Sept. 28, 2024", "2024-09-28"),
        ("28 September 2024", "2024-09-28"),
        ("20000401", "2000-04-01"),
        ("12/31/2024", "2024-12-31"),
        ("no date", None),
    ],
)
def test_parse_date(text: str, iso: str | None) -> None:
    assert parse_date(text) == iso


# -- notes ------------------------------------------------------------------------------
def test_table_footnotes_are_notes_cited_by_the_table() -> None:
    table = (
        "<table><tr><td></td><td>2024</td></tr>"
        "<tr><td>Services (1)</td><td>96,169</td></tr>"
        "<tr><td>Total (2)</td><td>100</td></tr></table>"
    )
    d = doc(
        table
        + PARA.format("(1) Services include amortization.")
        + PARA.format("(2) Totals may not foot.")
        + PARA.format("Running text again.")
        + PARA.format("(1) an enumerated clause of prose, not a note of the table above.")
    )
    notes = [e for e in d.elements if e.kind is NOTE]
    assert [n.mark for n in notes] == ["1", "2"]
    table_el = next(e for e in d.elements if e.kind is TAB)
    assert table_el.cites == ("1", "2")


def test_note_rows_at_the_foot_of_a_table_become_notes() -> None:
    d = doc(
        "<table><tr><td></td><td>2024</td></tr><tr><td>Revenue (1)</td><td>5</td></tr>"
        '<tr><td colspan="2">(1) Revenue excludes a thing that is explained here.</td></tr>'
        "</table>"
    )
    assert texts(d, NOTE) == ["(1) Revenue excludes a thing that is explained here."]
    assert next(e for e in d.elements if e.kind is TAB).cites == ("1",)


def test_superscript_marks_define_and_cite_notes() -> None:
    d = doc(
        "<p>Revenue grew<sup>1</sup> strongly.</p>"
        '<p><span style="vertical-align:super">1</span> Excluding currency effects.</p>'
    )
    cite, note = d.elements
    assert d.element_text(cite) == "Revenue grew(1) strongly."
    assert cite.cites == ("1",)
    assert note.kind is NOTE and note.mark == "1"
    assert d.element_text(note) == "(1) Excluding currency effects."


# -- pages and furniture -----------------------------------------------------------------
def test_pages_from_page_breaks_and_page_furniture_dropped() -> None:
    words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]
    pages = []
    for n, w in enumerate(words, 1):
        pages.append(
            PARA.format("Acme Corp | 2024 Form 10-K")
            + PARA.format(f"{w} is the body text of this page.")
            + PARA.format(str(n))
        )
    d = doc(PB.join(pages))
    check_spans(d)
    assert texts(d) == [f"{w} is the body text of this page." for w in words]
    assert [e.page for e in d.elements] == [1, 2, 3, 4, 5]
    assert len(d.pages) == 5
    assert d.page_at(d.elements[3].start) == 4


def test_paragraph_cut_by_a_page_break_is_rejoined() -> None:
    d = doc(PARA.format("The Company sells") + PB + PARA.format("phones and services."))
    assert texts(d) == ["The Company sells phones and services."]
    assert d.elements[0].page == 1 and len(d.pages) == 2
    assert d.page_at(d.text.index("phones")) == 2 and d.page_at(0) == 1


def test_no_page_breaks_means_no_pages() -> None:
    d = doc(PARA.format("One page."))
    assert d.pages == () and d.elements[0].page is None


def test_pagebreak_comments_count_as_breaks() -> None:
    d = doc("<P>First page text.</P><!-- PAGEBREAK --><P>Second page text.</P>")
    assert [e.page for e in d.elements] == [1, 2]


# -- SGML submissions ---------------------------------------------------------------------
SGML_TEXT = """<SEC-DOCUMENT>0000912057-00-023442.txt : 20000512
<SEC-HEADER>0000912057-00-023442.hdr.sgml : 20000512
CONFORMED SUBMISSION TYPE:	10-Q
CONFORMED PERIOD OF REPORT:	20000401
	COMPANY DATA:
		COMPANY CONFORMED NAME:			APPLE COMPUTER INC
		CENTRAL INDEX KEY:			0000320193
</SEC-HEADER>
<DOCUMENT>
<TYPE>10-Q
<TEXT>
<PAGE>
                                    FORM 10-Q

PART I. FINANCIAL INFORMATION

ITEM 1. FINANCIAL STATEMENTS

<TABLE>
<CAPTION>
                                   April 1, 2000    March 27, 1999
<S>                                <C>              <C>
Net sales                          $  1,945         $  1,530
Cost of sales                         1,396            1,127
</TABLE>

                                       2
<PAGE>
ITEM 2. MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS
        OF OPERATIONS

Net sales rose in the second quarter
of fiscal 2000.
</TEXT>
</DOCUMENT>
<DOCUMENT>
<TYPE>EX-27
<TEXT>
ITEM 9. NOT THE MAIN DOCUMENT
</TEXT>
</DOCUMENT>
</SEC-DOCUMENT>
"""


def test_plain_text_sgml_submission() -> None:
    d = parse_html(SGML_TEXT, "aapl-2000")
    check_spans(d)
    assert d.metadata["issuer"] == "APPLE COMPUTER INC" and d.metadata["cik"] == "320193"
    assert d.metadata["form"] == "10-Q" and d.metadata["period_end"] == "2000-04-01"
    assert d.title == "APPLE COMPUTER INC > 10-Q 2000-04-01"
    assert [(t, e.level) for t, e in zip(texts(d), d.elements, strict=True) if e.kind is H][1:] == [
        ("PART I. FINANCIAL INFORMATION", 1),
        ("ITEM 1. FINANCIAL STATEMENTS", 2),
        (
            "ITEM 2. MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS"
            " OF OPERATIONS",
            2,
        ),
    ]
    (table,) = texts(d, TAB)
    assert "| Net sales | $ 1,945 | $ 1,530 |" in table
    assert "Net sales rose in the second quarter of fiscal 2000." in texts(d, T)
    assert "NOT THE MAIN DOCUMENT" not in d.text
    assert "\n2\n" not in d.text  # the page number before <PAGE> is furniture


def test_sgml_submission_with_html_document() -> None:
    sub = (
        "<SEC-DOCUMENT>x\n<SEC-HEADER>\nCONFORMED SUBMISSION TYPE:\t10-K\n"
        "COMPANY CONFORMED NAME:\tACME CORP\n</SEC-HEADER>\n<DOCUMENT>\n<TYPE>10-K\n<TEXT>\n"
        "<html><body><p><b>Item 1. Business</b></p><p>We make anvils.</p></body></html>\n"
        "</TEXT>\n</DOCUMENT>\n</SEC-DOCUMENT>"
    )
    d = parse_html(sub, "acme")
    assert texts(d) == ["Item 1. Business", "We make anvils."]
    assert d.metadata["issuer"] == "ACME CORP"


# -- bad input ------------------------------------------------------------------------------
def test_truncated_html_still_parses() -> None:
    d = parse_html("<html><body><div><b>Item 1. Business</b></div><div>We make thi", "t")
    assert texts(d) == ["Item 1. Business", "We make thi"]


def test_windows_1252_bytes_are_decoded(tmp_path: Path) -> None:
    p = tmp_path / "old.htm"
    p.write_bytes(b"<html><body><p>Management\x92s report \x96 1999</p></body></html>")
    d = parse_html_file(p)
    assert texts(d) == ["Management’s report – 1999"]
    assert d.id == "old" and d.source == str(p)


def test_latin1_label_is_read_as_windows_1252(tmp_path: Path) -> None:
    p = tmp_path / "old.htm"
    p.write_bytes(
        b'<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
        b"</head><body><p>Company\x92s \x93quoted\x94 caf\xe9</p></body></html>"
    )
    assert texts(parse_html_file(p)) == ["Company’s “quoted” café"]


def test_empty_body_is_a_parse_error_naming_the_file(tmp_path: Path) -> None:
    p = tmp_path / "empty.htm"
    p.write_bytes(b"<html><head><title>x</title></head><body>  </body></html>")
    with pytest.raises(ParseError, match="empty.htm"):
        parse_html_file(p)
    p.write_bytes(b"")
    with pytest.raises(ParseError, match="empty.htm"):
        parse_html_file(p)


def test_binary_and_missing_files_are_parse_errors(tmp_path: Path) -> None:
    p = tmp_path / "bin.htm"
    p.write_bytes(b"%PDF-1.4\x00\x01\x02")
    with pytest.raises(ParseError, match=r"bin.htm \(at 8\)"):
        parse_html_file(p)
    with pytest.raises(ParseError, match="missing.htm"):
        parse_html_file(tmp_path / "missing.htm")


def test_deeply_nested_markup_does_not_overflow() -> None:
    d = doc("<div>" * 3000 + "deep text" + "</div>" * 3000 + "<p>after</p>")
    assert "deep text" in d.text and "after" in d.text


def test_same_input_same_output() -> None:
    a, b = doc(FILING + STATEMENT), doc(FILING + STATEMENT)
    assert a.text == b.text and a.elements == b.elements


# -- property: spans are consistent for any mix of blocks ---------------------------------
_BLOCKS = st.sampled_from(
    [
        BOLD.format("Item 2. Properties"),
        BOLD.format("PART I"),
        BOLD.format("Liquidity"),
        PARA.format("Plain words here."),
        PARA.format("(1) A note."),
        PARA.format("7"),
        PB,
        STATEMENT,
        "<ul><li>a</li><li>b</li></ul>",
        "<table><tr><td>•</td><td>bullet</td></tr></table>",
        "<p>x<sup>2</sup> y</p>",
        "<div style='display:none'>hidden</div>",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_BLOCKS, min_size=1, max_size=25))
def test_element_spans_ordered_and_inside_text(parts: list[str]) -> None:
    body = "".join(parts) + PARA.format("End.")
    d = doc(body)
    check_spans(d)
    for e in d.elements:
        if e.kind is H:
            assert e.section[-1] == d.element_text(e)
    assert "hidden" not in d.text
