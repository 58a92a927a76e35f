"""The SEC patterns module: Part/Item headings, note marks, page numbers, furniture."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from finchunk.parse import sec_patterns as sp
from finchunk.parse.sec_patterns import (
    CELL_MARK_RE,
    GLUED_MARK_RE,
    ITEM_RE,
    NOTE_RE,
    PAGE_NUMBER_RE,
    PART_RE,
    PDF_ITEM_RE,
    PDF_NOTE_RE,
    SUP_MARK_RE,
    FurnitureRule,
    PageEdges,
    heading_key,
    is_toc_line,
    page_value,
    roman_value,
    signature,
    sup_mark,
)

# --- Part / Item ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("PART I", "PART:I"),
        ("Part II.", "PART:II"),
        ("PART II — OTHER INFORMATION", "PART:II"),
        ("PART III: Governance", "PART:III"),
        ("Part IV", "PART:IV"),
        ("PART V", "PART:V"),
        ("Part 2 - Other Information", "PART:2"),
        ("Item 1.", "ITEM:1"),
        ("Item 1A.", "ITEM:1A"),
        ("ITEM 1B. UNRESOLVED STAFF COMMENTS", "ITEM:1B"),
        ("Item 1C. Cybersecurity", "ITEM:1C"),
        ("ITEM 7A –", "ITEM:7A"),
        ("ITEM 7A – QUANTITATIVE AND QUALITATIVE DISCLOSURES", "ITEM:7A"),
        ("Item 9A: Controls and Procedures", "ITEM:9A"),
        ("Item 9B", "ITEM:9B"),
        ("Item 1 A. Risk Factors", "ITEM:1A"),
        ("Items 10-14", "ITEM:10"),
        ("Items 1 and 2.", "ITEM:1"),
        ("ITEMS 10, 11, 12 and 13. DIRECTORS", "ITEM:10"),
        ("Item 15. Exhibits", "ITEM:15"),
    ],
)
def test_heading_key(text: str, key: str) -> None:
    assert heading_key(text) == key


@pytest.mark.parametrize(
    "text", ["Partners capital", "PART VI", "Participation", "Itemized list", "The Item 7", ""]
)
def test_not_a_heading(text: str) -> None:
    assert heading_key(text) is None


def test_title_groups() -> None:
    m = PART_RE.match("PART II — OTHER INFORMATION")
    assert m is not None and m.group(2) == "OTHER INFORMATION"
    m = ITEM_RE.match("Item 7. Management's Discussion")
    assert m is not None and m.group(1) == "7" and m.group(2) == "Management's Discussion"
    m = ITEM_RE.match("Items 10-14")
    assert m is not None and m.group(2) == ""


def test_pdf_item_form() -> None:
    assert PDF_ITEM_RE.match("item 9b. Other Information")
    assert PDF_ITEM_RE.match("Item 1E")
    assert not PDF_ITEM_RE.match("ITEMS 10, 11, 12 and 13.")  # kept as before: see the module


def test_toc_lines() -> None:
    assert is_toc_line("Item 7. Management's Discussion and Analysis 45")
    assert is_toc_line("PART II 30")
    assert is_toc_line("Risk Factors ........ 12")
    assert not is_toc_line("Item 7. Management's Discussion and Analysis")
    assert not is_toc_line("Revenue grew 12")
    assert not is_toc_line("")


# --- note marks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mark"),
    [
        ("(1) Includes stock-based compensation.", "(1)"),
        ("(12) Net of tax.", "(12)"),
        ("(a) Restated.", "(a)"),
        ("(B) Unaudited.", "(B)"),
        ("(iv) Other.", "(iv)"),
        ("* Less than 1%.", "*"),
        ("** Not meaningful.", "**"),
        ("† Acquired in 2023.", "†"),
        ("¶ See above.", "¶"),
    ],
)
def test_note_lines(text: str, mark: str) -> None:
    m = NOTE_RE.match(text)
    assert m is not None and m.group(1) == mark


def test_note_needs_text() -> None:
    assert NOTE_RE.match("(1)") is None
    assert NOTE_RE.match("(123) too long") is None
    assert NOTE_RE.match("Revenue (1)") is None


def test_pdf_note_forms() -> None:
    m = PDF_NOTE_RE.match("¹ Excludes discontinued operations")
    assert m is not None and sup_mark(m.group(1)) == "1"
    m = PDF_NOTE_RE.match("¹⁰Net")
    assert m is not None and sup_mark(m.group(1)) == "10"
    assert PDF_NOTE_RE.match("(a) Restated")
    assert PDF_NOTE_RE.match("(A) Restated") is None  # PDF forms: lower-case letters only
    assert NOTE_RE.match("¹ Excludes") is None  # HTML marks superscripts from <sup>


def test_inline_marks() -> None:
    assert SUP_MARK_RE.fullmatch("(1)") and SUP_MARK_RE.fullmatch("†")
    assert SUP_MARK_RE.fullmatch("**") and not SUP_MARK_RE.fullmatch("123")
    m = CELL_MARK_RE.search("1,234(1)")
    assert m is not None and m.group(1) == "1"
    m = CELL_MARK_RE.search("Revenue*")
    assert m is not None and m.group(2) == "*"
    assert GLUED_MARK_RE.sub(r"\1 ", "(1)Includes") == "(1) Includes"


# --- page numbers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("12", ("", 12)),
        ("Page 12", ("", 12)),
        ("- 12 -", ("", 12)),
        ("— 7 —", ("", 7)),
        ("Page 3 of 9", ("", 3)),
        ("ii", ("roman", 2)),
        ("xiv", ("roman", 14)),
        ("F-12", ("F", 12)),
        ("F - 12", ("F", 12)),
        ("A-1", ("A", 1)),
        ("Apple Inc. | 2024 Form 10-K | 21", ("", 21)),
    ],
)
def test_page_numbers(text: str, value: tuple[str, int]) -> None:
    assert PAGE_NUMBER_RE.fullmatch(text)
    assert page_value(text) == value


@pytest.mark.parametrize("text", ["Revenue", "12345", "Item 7", "Page", "12 34", "- -"])
def test_not_page_numbers(text: str) -> None:
    assert PAGE_NUMBER_RE.fullmatch(text) is None


def test_roman_values() -> None:
    assert roman_value("iv") == 4 and roman_value("XC") == 90 and roman_value("mcmxc") == 1990
    # Shaped like a numeral (letters of i v x l c) but not a well-formed one.
    assert roman_value("civil") is None and roman_value("ill") is None
    assert page_value("Civil") is None
    # re.I alone matches "İ" (U+0130) as "i", and its lower case is "i" + U+0307: no numeral
    # (found by bench/fuzz.py pdf_layout)
    assert roman_value("\u0130") is None and roman_value("x\u0130") is None
    assert page_value("\u0130\u0130") is None and page_value("\u212a") is None


def test_signature() -> None:
    assert signature("Apple Inc. | 2024 Form 10-K | 21") == "apple inc. | # form #-k | #"
    assert signature("  Page   12 ") == "page #"


# --- furniture -----------------------------------------------------------------------------


_WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "pi",
    "rho",
]


def _bottoms(lines: list[str]) -> list[PageEdges]:
    return [PageEdges(top=[f"{_WORDS[i]} opens."], bottom=[t]) for i, t in enumerate(lines)]


def test_header_differing_in_digits_is_furniture() -> None:
    pages = [
        PageEdges(top=[f"Acme Corp | Q{n % 4 + 1} {2020 + n} Report", f"{_WORDS[n]} opens."])
        for n in range(6)
    ]
    decided = FurnitureRule(PAGE_NUMBER_RE).decide(pages)
    assert all(top == {0} for top, _ in decided)


def test_repeated_text_must_be_at_the_same_place() -> None:
    head = "Acme Corp annual report 2024"
    pages = [PageEdges(top=[head]), PageEdges(top=[head]), PageEdges(bottom=[head])]
    pages += [PageEdges(bottom=[head]), PageEdges(top=["Other"]), PageEdges(top=["More"])]
    by_place = FurnitureRule(PAGE_NUMBER_RE).decide(pages)
    assert all(not top and not bottom for top, bottom in by_place)
    # The PDF parser's legacy counting takes either edge of a page as the same place.
    by_page = FurnitureRule(PAGE_NUMBER_RE, sequence=False, count_by="page").decide(pages)
    assert [bool(t or b) for t, b in by_page] == [True] * 4 + [False] * 2


def test_repetition_needs_many_pages() -> None:
    pages = [PageEdges(top=["Acme Corp"]), PageEdges(top=["Acme Corp"])]
    pages += [PageEdges(top=[w]) for w in _WORDS[:10]]
    rule = FurnitureRule(PAGE_NUMBER_RE)
    assert not any(top for top, _ in rule.decide(pages))
    assert all(top == {0} for top, _ in rule.decide(pages[:2] + [pages[0]]))


def test_repeated_sentence_needs_a_quarter_of_pages() -> None:
    pages = [PageEdges(top=["Not applicable."]) for _ in range(3)]
    pages += [PageEdges(top=[w]) for w in _WORDS] + [PageEdges(top=["omega"])]
    rule = FurnitureRule(PAGE_NUMBER_RE, every=10, sentence_every=4)
    assert not any(top for top, _ in rule.decide(pages))
    pages = [PageEdges(top=["Acme Corp"]) for _ in range(3)] + pages[3:]
    assert sum(bool(top) for top, _ in rule.decide(pages)) == 3


def test_page_numbers_in_sequence_are_furniture() -> None:
    decided = FurnitureRule(PAGE_NUMBER_RE).decide(_bottoms(["11", "12", "13", "14"]))
    assert all(bottom == {0} for _, bottom in decided)
    decided = FurnitureRule(PAGE_NUMBER_RE).decide(_bottoms(["F-1", "F-2", "ii", "iii"]))
    assert all(bottom == {0} for _, bottom in decided)


@pytest.mark.parametrize("odd", ["2019", "Civil"])
def test_out_of_sequence_is_not_a_page_number(odd: str) -> None:
    decided = FurnitureRule(PAGE_NUMBER_RE).decide(_bottoms(["11", "12", odd, "14", "15"]))
    assert [bool(b) for _, b in decided] == [True, True, False, True, True]


def test_lone_number_is_not_a_page_number() -> None:
    decided = FurnitureRule(PAGE_NUMBER_RE).decide(_bottoms(["Text", "7", "More", "Other"]))
    assert not any(b for _, b in decided)


def test_legacy_shape_only_page_numbers() -> None:
    rule = FurnitureRule(PAGE_NUMBER_RE, sequence=False)
    decided = rule.decide(_bottoms(["11", "12", "2019", "Civil", "Revenue"]))
    assert [bool(b) for _, b in decided] == [True, True, True, True, False]


def test_count_by_break() -> None:
    # The bottom of one page and the top of the next are one page break: counted once.
    foot = "Acme Corp"
    pages = [PageEdges(bottom=[foot]), PageEdges(top=[foot], bottom=[foot]), PageEdges(top=[foot])]
    rule = FurnitureRule(PAGE_NUMBER_RE, sequence=False, count_by="break")
    assert not any(t or b for t, b in rule.decide(pages))
    pages = [*pages, PageEdges(bottom=[foot])]
    assert all(t or b for t, b in rule.decide(pages))


# --- linear time ---------------------------------------------------------------------------

_MB = 1_000_000
_ADVERSARIAL = [
    " " * _MB,
    "12" + " " * _MB + "x",
    "page" + " " * _MB + "x",
    "12" + " " * (_MB // 2) + "-" + " " * (_MB // 2) + "x",
    "1 of" + " " * _MB + "x",
    "." * _MB + "x1",
    "...." + " " * _MB + "x",
    "Item 1" + ", 1" * (_MB // 3) + "x",
    "PART " + " " * _MB,
    "1" * _MB + "x",
    "(" * _MB,
    "(1)" + " " * _MB,
    "*" * _MB + "x",
    "|" * _MB + "x",
    "¹" * _MB + " ",
    "a - " * (_MB // 4),
    "civil " * (_MB // 6),
    "x" * _MB + " 12",
]
_PATTERNS = {k: v for k, v in vars(sp).items() if isinstance(v, re.Pattern)}
_WHOLE_LINE = {"PAGE_NUMBER_RE", "SUP_MARK_RE", "BULLET_RE", "_ROMAN"}


#: Seconds a linear pass over 1 MB must beat. Linear code takes well under a second here even
#: on a loaded machine; a quadratic pattern takes minutes at this size, so a generous bound
#: tells them apart without failing when the machine is busy.
_LINEAR_BOUND = 5.0


def _timed(fn: Callable[[str], object], text: str) -> float:
    t = time.perf_counter()
    fn(text)
    return time.perf_counter() - t


@pytest.mark.parametrize("name", sorted(_PATTERNS))
def test_patterns_are_linear(name: str) -> None:
    pat = _PATTERNS[name]
    # Whole-line patterns are used with fullmatch, the rest with match and search.
    methods = [pat.fullmatch] if name in _WHOLE_LINE else [pat.match, pat.search]
    for text in _ADVERSARIAL:
        for fn in methods:
            assert _timed(fn, text) < _LINEAR_BOUND, (name, fn.__name__, text[:12])


@pytest.mark.parametrize("fn", [heading_key, is_toc_line, page_value, signature, sup_mark])
def test_functions_are_linear(fn: Callable[[str], object]) -> None:
    for text in _ADVERSARIAL:
        assert _timed(fn, text) < _LINEAR_BOUND, (fn.__name__, text[:12])


def test_furniture_rule_is_linear() -> None:
    rule = FurnitureRule(PAGE_NUMBER_RE)
    pages = [PageEdges(top=[text], bottom=[text]) for text in _ADVERSARIAL[1:4]]
    t = time.perf_counter()
    rule.decide(pages)
    assert time.perf_counter() - t < _LINEAR_BOUND
