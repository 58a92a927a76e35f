"""Patterns of SEC filing text: the one home for every parser (HTML, SGML, PDF, Markdown).

* headings: "PART II — OTHER INFORMATION" (:data:`PART_RE`), "Item 1A. Risk Factors",
  "ITEM 7A –", "Items 10-14" (:data:`ITEM_RE`), :func:`heading_key`;
* tables of contents: "Item 7 … 45" and dot-leader lines (:func:`is_toc_line`);
* note marks: "(1)", "(a)", "*", "†", "¹" (:func:`note_re`, :func:`sup_mark`);
* page numbers: "12", "Page 3 of 9", "- 12 -", "ii", "F-12" (:data:`PAGE_NUMBER_RE`,
  :func:`page_value`);
* page furniture (running headers, footers, page numbers): :class:`FurnitureRule`.

Where formats differ (which note marks they accept, how a repeated line is counted, how
often it must recur) the difference is a parameter here, named at the caller.
Every pattern is linear: no nested quantifiers over overlapping classes, anchored or
bounded repetition only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

# --- Part / Item headings ------------------------------------------------------------------

#: "PART II", "Part I.", "PART II — OTHER INFORMATION"; group 1 the number, group 2 the title.
PART_RE = re.compile(r"^PART\s+(IV|V|I{1,3}|[1-4])\b\.?\s*[-–—:.]?\s*(.*)$", re.I | re.S)
#: "Item 7.", "ITEM 1A:", "Items 1 and 2."; group 1 the number, group 2 the title.
ITEM_RE = re.compile(
    r"^ITEMS?\s*(\d{1,2}\s?[A-D]?)\b(?:\s*(?:,|and|&|through|to|-|–)\s*\d{1,2}[A-D]?\b)*"
    r"\s*[.:\-–—]?\s*(.*)$",
    re.I | re.S,
)
#: "Item" or "Part" opening a line or a cell (a table of contents row).
ITEM_OR_PART_START = re.compile(r"^(?:item|part)\b", re.I)
#: The number line of a label split over two lines ("Item" / "1A. Risk Factors").
LABEL_NUMBER_RE = re.compile(r"^(?:\d{1,2}[a-c]?|iv|v|i{1,3})\b[.:]?", re.I)
#: A PDF line opening with an Item label: "Item" only, any letter suffix ("item 9b"). A
#: plural "ITEMS 10, 11, 12 and 13." line stays a level-3 heading in PDFs: taking it for an
#: Item (as :data:`ITEM_RE` does) would change the parsed FinanceBench output.
PDF_ITEM_RE = re.compile(r"^item\s*\d{1,2}[a-z]?\b", re.I)
#: A numbered note title: "Note 12", "NOTE 9.", "Note 3 – Revenue"; group 1 the number.
NOTE_HEADING_RE = re.compile(r"^(?i:note)\s+(\d{1,2}[a-zA-Z]?)\b\s*[.:\-–—]?\s*(?:[A-Z(]|$)")
#: A financial statement's title: "Consolidated Statements of Cash Flows", "CONSOLIDATED
#: BALANCE SHEET", "Statement of Comprehensive Income", "Consolidated Income Statement".
STATEMENT_TITLE_RE = re.compile(
    r"^(?:condensed\s+)?(?:consolidated\s+)?(?:condensed\s+)?(?:(?:group|company|parent)\s+)?"
    r"(?:statements?\s+of\s+\w|balance\s+sheets?\b|income\s+statements?\b)",
    re.I,
)
#: The other top parts of a filing's financial statements: the auditor's report, the notes,
#: management's report on internal control.
STATEMENTS_PART_RE = re.compile(
    r"^(?:report\s+of\s+independent\s+registered|notes\s+to\s+(?:the\s+)?(?:condensed\s+)?"
    r"consolidated\s+financial\s+statements$|management[’']s\s+report\s+on\s+internal)",
    re.I,
)
#: A decimal-numbered title: "1. Overview", "2.3 Revenue recognition"; group 1 the number.
NUMBERED_HEADING_RE = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+[A-Z]")
#: A row of a filing cover's securities table, never a section title.
COVER_ROW_RE = re.compile(
    r"title\s+of\s+each\s+class|trading\s+symbol|name\s+of\s+each\s+exchange", re.I
)
#: A table's period caption ("Years ended December 31", "Three months ended Year ended",
#: "At December 31", "As of June 30, 2023"): it heads columns, not a section.
PERIOD_CAPTION_RE = re.compile(
    r"^(?:for\s+the\s+)?(?:(?:fiscal\s+)?(?:years?|quarters?|periods?|weeks?)|"
    r"(?:three|six|nine|twelve|\d{1,2})\s+months?|(?:13|26|39|52|53)\s+weeks?)"
    r"\s+end(?:ed|ing)\b|^(?:at|as\s+of)\s+[A-Z][a-z]{2,8}\.?\s+\d{1,2}\b",
    re.I,
)
#: A heading line that ends in a page number ("Item 7. MD&A 45"): a TOC entry.
TRAILING_PAGE_RE = re.compile(r"\s\d{1,3}$")

_TOC_ITEM = re.compile(r"(?:part\s+[ivx]+|item\s*\d{1,2}[a-z]?)\b.*\s\d{1,3}$", re.I)
# Four dots then the number: the same lines as "a run of 4+ dots", without rescanning a run.
_TOC_LEADER = re.compile(r"\.{4}\s*\d{1,3}$")


def heading_key(text: str) -> str | None:
    """ "PART:II" or "ITEM:1A" for a Part/Item line, None otherwise."""
    m = ITEM_RE.match(text)
    if m:
        return "ITEM:" + m.group(1).replace(" ", "").upper()
    m = PART_RE.match(text)
    if m:
        return "PART:" + m.group(1).upper()
    return None


def is_toc_line(text: str) -> bool:
    """A table-of-contents line: "Item 7 … 45", "PART II 30" or "Risk Factors ...... 12"."""
    if not text[-1:].isdigit():
        return False
    return bool(_TOC_ITEM.match(text) or ("...." in text and _TOC_LEADER.search(text)))


# --- note marks ----------------------------------------------------------------------------

SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUP_TO_DIGIT = str.maketrans(SUPERSCRIPT_DIGITS, "0123456789")


def sup_mark(sup: str) -> str:
    """``'¹⁰'`` → ``'10'``: the mark a superscript run names."""
    return sup.translate(_SUP_TO_DIGIT)


def note_re(*, upper: bool, roman: bool, superscript: bool, symbols: str) -> re.Pattern[str]:
    """A footnote line: a mark, then text; group 1 the mark, group 2 the text.

    Marks: "(1)"/"(12)", "(a)" (and "(A)" with ``upper``, "(iv)" with ``roman``), "*" to
    "***", one of ``symbols`` ("†‡§"), and superscript digits "¹", "¹⁰" with ``superscript``.
    """
    letters = "[a-zA-Z]" if upper else "[a-z]"
    alts = [r"\((?:\d{1,2}|" + letters + ("|[ivx]{2,4}" if roman else "") + r")\)"]
    alts += [r"\*{1,3}", "[" + symbols + "]"]
    if superscript:
        alts.append("[" + SUPERSCRIPT_DIGITS + "]+")
    return re.compile("^(" + "|".join(alts) + r")\s*(\S.*)$", re.S)


#: HTML and SGML footnote lines: "(1) text", "(a) text", "(iv) text", "* text", "¶ text".
NOTE_RE = note_re(upper=True, roman=True, superscript=False, symbols="†‡§¶")
#: PDF footnote lines: "(1)", "(a)", "*", "†", "¹" (superscripts survive text extraction).
PDF_NOTE_RE = note_re(upper=False, roman=False, superscript=True, symbols="†‡§")
#: The text of a superscript run that is a footnote mark: "1", "(a)", "*", "†", "#".
SUP_MARK_RE = re.compile(r"\(?([0-9]{1,2}|[a-zA-Z]|[ivx]{2,4}|\*{1,3}|[†‡§¶#])\)?")
#: A note mark closing a table cell: "1,234(1)", "Revenue*".
CELL_MARK_RE = re.compile(r"\((\d{1,2}|[a-z])\)$|(\*{1,3}|[†‡§])$")
#: A mark glued to the text it opens: "(1)Includes".
GLUED_MARK_RE = re.compile(r"^(\(\w{1,3}\)|\*{1,3}|[†‡§¶])(?=[A-Z])")
#: Sub-item references after an Item number: "(a)(1)".
SUB_ITEM_RE = re.compile(r"^(?:\s*\(\w{1,3}\))+")
#: A cell that only says "this row is an item of a list": a bullet or an enumerator.
BULLET_RE = re.compile(r"(?:[•●◦▪■□○·‣\-–—o*]|\(?[0-9]{1,2}[.)]|\(?[a-z][.)]|\([ivx]{1,4}\))")

# --- page numbers --------------------------------------------------------------------------


#: A whole line (use ``fullmatch``) that is a page number: "12", "Page 12", "- 12 -",
#: "Page 3 of 9", "ii" (up to seven of i v x l c: see :func:`page_value` for well-formed
#: ones), "F-12" / "F - 12" (one or two letters), or a running footer ending in one
#: ("Apple Inc. | 2024 Form 10-K | 21").
_PAGE_CORE = r"(?:\d{1,4}|[ivxlc]{1,7}|[a-z]{1,2}\s?-\s?\d{1,3})"
_OF_N = r"\s+of\s+\d{1,4}"
# Written so that no two space runs meet ("page\s+" then "\s*" rescanned a run of spaces
# once per split: quadratic); the lines it accepts are those of
# (?:page\s+)?[-–—]?\s*CORE\s*[-–—]?(?:\s+of\s+\d{1,4})?  or  .{0,80}\|\s*\d{1,3}.
PAGE_NUMBER_RE = re.compile(
    rf"(?:page\s(?:\s*[-–—])?|[-–—])?\s*{_PAGE_CORE}(?:\s*[-–—](?:{_OF_N})?|{_OF_N}|\s*)"
    r"|.{0,80}\|\s*\d{1,3}",
    re.I,
)

# ASCII only: under re.I alone "İ" (U+0130, whose lower case is two characters) matches "i"
_ROMAN = re.compile(r"m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})", re.I | re.A)
_ROMAN_VALUE = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_NUMBER_IN = re.compile(r"(?:([a-z]{1,2})\s?-\s?)?(\d{1,4})", re.I)
_ROMAN_IN = re.compile(r"[ivxlc]{1,7}", re.I | re.A)
_OF = re.compile(r"\sof\s", re.I)


def roman_value(text: str) -> int | None:
    """ "xiv" → 14; None unless ``text`` is a well-formed Roman numeral."""
    if not text or not _ROMAN.fullmatch(text):
        return None
    vals = [_ROMAN_VALUE[ch] for ch in text.lower()]
    return sum(-v if i + 1 < len(vals) and v < vals[i + 1] else v for i, v in enumerate(vals))


def page_value(text: str) -> tuple[str, int] | None:
    """The (series, number) a page-number line prints, from its last number: "12" → ("", 12),
    "F-3" → ("F", 3), "ii" → ("roman", 2), "Page 3 of 9" → ("", 3); None for none."""
    body = _OF.split(text, maxsplit=1)[0]
    last = None
    for last in _NUMBER_IN.finditer(body):  # noqa: B007 - the last match is wanted
        pass
    if last is not None:
        return ((last.group(1) or "").upper(), int(last.group(2)))
    runs = _ROMAN_IN.findall(body)
    value = roman_value(runs[-1]) if runs else None
    return ("roman", value) if value else None


# --- page furniture ------------------------------------------------------------------------

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_MAX_NUMBERS = 8  # numbers of one edge line looked at as a running page number


def signature(text: str) -> str:
    """Digit-blind, case-blind, space-normalised form of a line ("Page 12" → "page #")."""
    return _SPACES.sub(" ", _DIGITS.sub("#", text.lower())).strip()


@dataclass(frozen=True, slots=True)
class PageEdges:
    """The lines at the edges of one page, outermost first: ``top[0]`` is the page's first
    line, ``bottom[0]`` its last."""

    top: Sequence[str] = ()
    bottom: Sequence[str] = ()
    #: How many lines the page has besides these (None: unknown). A page of edges only
    #: (``rest=0``) is never emptied by repeated lines: they are its text.
    rest: int | None = None


@dataclass(frozen=True, slots=True)
class FurnitureRule:
    """Which edge lines of a document's pages are furniture: the one furniture rule.

    A line shaped like a page number (``page_numbers`` fullmatches it) is furniture when it
    is one: with ``sequence``, a well-formed number that one at the same place within
    ``window`` pages continues (12 here, 13 on the next page), or, when fewer than
    ``min_pages`` numbers are found (too few to make a sequence), a plain number no larger
    than the page count; without ``sequence``, by shape alone.
    Any other line is furniture when it sits at the same place (top or bottom) on at least
    ``min_pages`` pages and one page in ``every``; a sentence (ending ".") must recur on one
    page in ``sentence_every``. Lines longer than ``max_chars`` never count as repeated.
    "It" is the line's :func:`signature` (digits made "#") with ``digits="blind"``; with
    ``digits="page"`` it is the line's own text (case and spaces aside), or its signature
    where its last number runs with the pages ("Acme | Annual Report | 7" on page 7,
    "... | 8" on page 8): lines that differ in other digits ("Revenue grew 3 % in 2003",
    "... 4 % in 2004") are different lines.

    ``count_by`` says what "the same place" counts: ``"place"`` the pages with it at the top,
    apart from those with it at the bottom; ``"page"`` the pages with it at either edge
    (the PDF parser's legacy rule); ``"break"`` the page breaks with it on either side,
    the bottom of one page and the top of the next counted once (the HTML parser's).
    """

    page_numbers: re.Pattern[str]
    every: int = 4
    min_pages: int = 3
    sentence_every: int = 4
    max_chars: int = 150
    sequence: bool = True
    window: int = 2
    count_by: Literal["place", "page", "break"] = "place"
    digits: Literal["blind", "page"] = "page"

    def decide(self, pages: Sequence[PageEdges]) -> list[tuple[set[int], set[int]]]:
        """Per page, the indexes into ``top`` and into ``bottom`` that are furniture."""
        shaped, numbers = self._page_numbers(pages)
        counts = self._counts(pages, shaped)
        need = max(self.min_pages, len(pages) // self.every)
        need_sentence = max(need, len(pages) // self.sentence_every)
        out: list[tuple[set[int], set[int]]] = []
        for p, edges in enumerate(pages):
            found: tuple[set[int], set[int]] = (set(), set())
            repeated: tuple[set[int], set[int]] = (set(), set())
            for k, (place, lines) in enumerate((("top", edges.top), ("bottom", edges.bottom))):
                for i, t in enumerate(lines):
                    if (p, place, i) in shaped:
                        if (p, place, i) in numbers:
                            found[k].add(i)
                        continue
                    if len(t) > self.max_chars:
                        continue  # too long to be a running header or footer
                    n = max(counts[(self._place(place), key)] for key in self._keys(p, t))
                    if n >= (need_sentence if t.rstrip().endswith(".") else need):
                        found[k].add(i)
                        repeated[k].add(i)
            whole = len(found[0]) == len(edges.top) and len(found[1]) == len(edges.bottom)
            if edges.rest == 0 and whole:
                found = (found[0] - repeated[0], found[1] - repeated[1])
            out.append(found)
        return out

    def _place(self, place: str) -> str:
        return place if self.count_by == "place" else "edge"

    def _counts(
        self, pages: Sequence[PageEdges], shaped: set[tuple[int, str, int]]
    ) -> Counter[tuple[str, str]]:
        """On how many pages (or breaks, see ``count_by``) each (place, signature) sits."""
        seen: set[tuple[int, str, str]] = set()
        for p, edges in enumerate(pages):
            for place, lines in (("top", edges.top), ("bottom", edges.bottom)):
                group = p - 1 if self.count_by == "break" and place == "top" else p
                for i, t in enumerate(lines):
                    if (p, place, i) not in shaped and len(t) <= self.max_chars:
                        for key in self._keys(p, t):
                            seen.add((group, self._place(place), key))
        return Counter((place, key) for _, place, key in seen)

    def _keys(self, page: int, text: str) -> tuple[str, ...]:
        """What a line on ``page`` is counted as (see ``digits``)."""
        if self.digits == "blind":
            return (signature(text),)
        own = _SPACES.sub(" ", text.lower()).strip()
        sig = signature(own)
        # A number minus the page index is the same on every page it runs with, wherever it
        # stands ("Acme | 7", "7 Acme Annual Report"): one key per number of the line.
        runs = [
            f"{sig}@{j}:{int(n) - page}"
            for j, n in enumerate(_DIGITS.findall(own)[:_MAX_NUMBERS])
            if len(n) <= 4
        ]
        return (own, *runs)

    def _page_numbers(
        self, pages: Sequence[PageEdges]
    ) -> tuple[set[tuple[int, str, int]], set[tuple[int, str, int]]]:
        """The edge lines shaped like page numbers, and those of them that are ones."""
        shaped: set[tuple[int, str, int]] = set()
        values: dict[tuple[int, str, int], tuple[str, int]] = {}
        for p, edges in enumerate(pages):
            for place, lines in (("top", edges.top), ("bottom", edges.bottom)):
                for i, t in enumerate(lines):
                    if self.page_numbers.fullmatch(t):
                        key = (p, place, i)
                        shaped.add(key)
                        v = page_value(t)
                        if v is not None:
                            values[key] = v
        if not self.sequence:
            return shaped, shaped
        if len(values) < self.min_pages:  # too few numbers to make a sequence
            return shaped, self._could_be_own_number(values, len(pages))
        return shaped, self._in_sequence(values)

    @staticmethod
    def _could_be_own_number(
        values: dict[tuple[int, str, int], tuple[str, int]], pages: int
    ) -> set[tuple[int, str, int]]:
        """Plain numbers no larger than the page count ("2" closing page 1 of 2); not Roman
        numerals, letters or years, which one number alone cannot tell from words."""
        return {key for key, (series, n) in values.items() if series == "" and 0 < n <= pages}

    def _in_sequence(
        self, values: dict[tuple[int, str, int], tuple[str, int]]
    ) -> set[tuple[int, str, int]]:
        """The numbers that a number on a nearby page continues (same series, same place)."""
        at: dict[tuple[int, str, str, int], None] = {}
        for (p, place, _), (series, n) in values.items():
            at[(p, place, series, n - p)] = None
        ok: set[tuple[int, str, int]] = set()
        for key, (series, n) in values.items():
            p, place, _ = key
            for d in range(1, self.window + 1):
                if (p - d, place, series, n - p) in at or (p + d, place, series, n - p) in at:
                    ok.add(key)
                    break
        return ok
