"""The SEC parser on every real HTML/iXBRL/SGML filing in ../shared/data/edgar."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from finchunk.model import Document, ElementKind
from finchunk.parse.html import parse_html_file
from finchunk.parse.sec_patterns import heading_key
from tests.conftest import shared_data_dir

H = ElementKind.HEADING


def _filings() -> list[str]:
    root = shared_data_dir()
    if root is None:
        return ["(no shared data)"]
    edgar = root / "edgar"
    files = sorted(edgar.glob("*/*.htm*")) + sorted(edgar.glob("*/*.txt"))
    return [str(p.relative_to(edgar)) for p in files]


@cache
def _parse(path: str) -> Document:
    return parse_html_file(path)


@pytest.fixture(params=_filings())
def filing(request: pytest.FixtureRequest, shared_data: Path) -> tuple[Path, Document]:
    path = shared_data / "edgar" / request.param
    return path, _parse(str(path))


def _keys(d: Document) -> list[str]:
    return [k for e in d.elements if e.kind is H and (k := heading_key(d.element_text(e)))]


def test_spans_inside_text_ordered_and_non_overlapping(filing: tuple[Path, Document]) -> None:
    _, d = filing
    assert d.elements
    prev = 0
    for e in d.elements:
        assert prev <= e.start < e.end <= len(d.text)
        assert d.element_text(e).strip() == d.element_text(e)
        prev = e.end
    if d.pages:
        assert d.pages[0][0] == 0 and d.pages[-1][1] == len(d.text)
        assert all(
            a[1] == b[0] and a[0] <= a[1] for a, b in zip(d.pages, d.pages[1:], strict=False)
        )
        assert all(e.page is not None and 1 <= e.page <= len(d.pages) for e in d.elements)


def test_metadata_and_title(filing: tuple[Path, Document]) -> None:
    path, d = filing
    m = d.metadata
    assert m["form"] in ("10-K", "10-Q") and m["doc_type"] == m["form"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", m["period_end"])
    assert m["issuer"] and m["language"] == "en"
    assert d.title == f"{m['issuer']} > {m['form']} {m['period_end']}"
    if "ix:header" in path.read_text(encoding="utf-8", errors="replace")[:400_000]:
        assert m["cik"].isdigit() and m["fiscal_year"].isdigit() and m["fiscal_period"]


def test_parts_and_items_are_headings(filing: tuple[Path, Document]) -> None:
    _, d = filing
    keys = set(_keys(d))
    assert {"PART:I", "PART:II"} <= keys
    if d.metadata["form"] == "10-K":
        expected = {"ITEM:1", "ITEM:7", "ITEM:8"}
        if d.metadata["period_end"] >= "2006":  # Item 1A (risk factors) exists since 2005
            expected.add("ITEM:1A")
    else:
        expected = {"ITEM:1", "ITEM:2"}
    assert expected <= keys, sorted(expected - keys)


def test_item_headings_sit_under_their_part(filing: tuple[Path, Document]) -> None:
    _, d = filing
    for e in d.elements:
        if e.kind is H and e.level == 2 and heading_key(d.element_text(e)):
            assert e.section[-1] == d.element_text(e)
            if len(e.section) == 2:
                assert heading_key(e.section[0]).startswith("PART:")


def test_financial_statements_are_tables(filing: tuple[Path, Document]) -> None:
    _, d = filing
    tables = [d.element_text(e) for e in d.elements if e.kind is ElementKind.TABLE]
    balance = [t for t in tables if re.search(r"total assets", t, re.I)]
    if not balance:
        # Item 8 incorporated by reference (WFC 2024, Medicis 1999): it says so.
        item8 = [e for e in d.elements if e.section[1:2] and heading_key(e.section[1]) == "ITEM:8"]
        said = " ".join(d.element_text(e) for e in item8)
        assert re.search(r"incorporated|annual report", said, re.I), "no balance sheet table"
    else:
        row = next(line for line in balance[0].split("\n") if re.search("total assets", line, re.I))
        assert row.startswith("| ") and re.search(r"\d", row)


def test_no_inline_xbrl_header_text(filing: tuple[Path, Document]) -> None:
    path, d = filing
    raw = path.read_text(encoding="utf-8", errors="replace")
    ids = set(re.findall(r"<xbrli:identifier[^>]*>\s*([^<\s]+)\s*<", raw))
    for ident in ids:
        assert ident not in d.text
    assert "xbrli:" not in d.text and "ix:header" not in d.text


def test_no_table_of_contents_before_part_one(filing: tuple[Path, Document]) -> None:
    _, d = filing
    keys = _keys(d)
    first_part = keys.index("PART:I")
    assert not any(k.startswith("ITEM:") for k in keys[:first_part])
