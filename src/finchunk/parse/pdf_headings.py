"""Headings of a PDF's lines, without ML: which lines are section titles, and at what level.

The document's type sizes are ranked once (:func:`document_style`: the body size, the larger
sizes title-like lines use, titles repeated on many pages); each line is then judged alone
(:func:`heading_level`): "PART I" (level 1) and "Item 7." (level 2) in bold, capitals or a
heading size; statement titles and "NOTE 9." (level 3); other title-like lines set in a
heading size (ranked over the document: larger sizes on top) or in bold at body size (below
them); "1.2 Title" nests by its depth. Not headings: period captions ("Years ended December
31"), cover-table rows, bold sentences, address lines, bold type smaller than the body's,
titles repeated atop many pages. Then each line among its neighbours on the page
(:func:`page_levels`): a table's column header and the stub beside it, a label between a
table's header and its rows, a run-in label ending in a colon, a line off its column's
margin and not centred are no headings; :func:`heading_continues` joins a title wrapped
over lines. Columns come from :mod:`finchunk.parse.pdf_order`; which lines are a table's
header, and table-of-contents pages, from :mod:`finchunk.parse.pdf_layout`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from finchunk.parse.pdf_order import NO_COLUMNS, Columns
from finchunk.parse.sec_patterns import (
    COVER_ROW_RE,
    ITEM_RE,
    NOTE_HEADING_RE,
    NUMBERED_HEADING_RE,
    PART_RE,
    PDF_ITEM_RE,
    PERIOD_CAPTION_RE,
    STATEMENT_TITLE_RE,
    STATEMENTS_PART_RE,
)

if TYPE_CHECKING:
    from finchunk.parse.pdf_layout import Line

#: A postal code, tax number or telephone number: a cover's address block, not a title.
_ADDRESS = re.compile(r"\b\d{5}(?:-\d{4})?\b|\b\d{2}-\d{7}\b|\(\d{3}\)\s*\d{3}-\d{4}")
#: A sentence: six words or more, ending with a full stop (not a heading; ends a table).
SENTENCE = re.compile(r"^(?:\S+\s+){5,}\S*[a-z)”’]\.$")


class HeadingRank(Enum):
    PART = 1
    ITEM = 2
    OTHER = 3


@dataclass(frozen=True, slots=True)
class Style:
    """The document's type sizes: its body text's, and the larger sizes its title-like lines
    use, largest first (at most :data:`MAX_TIERS`; smaller ones share the last)."""

    body: float = 0.0
    tiers: tuple[float, ...] = ()
    #: Title-like lines set on many pages (a company name over each statement, "Notes to
    #: the Financial Statements" atop each page of notes): running titles, not sections.
    repeated: frozenset[str] = frozenset()

    def tier(self, size: float) -> int | None:
        """The rank of a heading size (0: the largest), None for body-size text."""
        if not self.tiers or size < self.body * BIG:
            return None
        for n, t in enumerate(self.tiers):
            if size >= t * 0.97:
                return n
        return len(self.tiers) - 1


#: A line this many times the body size, or larger, is set in a heading size.
BIG = 1.15
MAX_TIERS = 4
#: Heading levels: Part 1, Item 2, statement titles and numbered notes 3, then the sizes
#: (largest first), then body-size bold.
PART_LEVEL, ITEM_LEVEL, TOP_LEVEL, SIZE_LEVEL = 1, 2, 3, 4


def _size_key(size: float) -> float:
    return round(size * 2) / 2


def document_style(pages: Sequence[Sequence[Line]], skips: Sequence[Collection[int]] = ()) -> Style:
    """Body size (the size most characters are set in) and heading tiers, over the document;
    running titles: title-like lines in bold or a heading size among the first
    :data:`TOP_LINES` lines (furniture, per page in ``skips``, not counted) of
    :data:`REPEATED_PAGES` pages or more (a section title that recurs mid-page,
    "Automotive" under each topic, stays a heading)."""
    chars: dict[float, int] = {}
    for lines in pages:
        for ln in lines:
            if ln.size > 0:
                k = _size_key(ln.size)
                chars[k] = chars.get(k, 0) + len(ln.text)
    if not chars:
        return Style()
    body = max(chars, key=lambda k: (chars[k], -k))
    big: set[float] = set()
    seen: dict[str, set[int]] = {}
    for p, lines in enumerate(pages):
        skip = skips[p] if p < len(skips) else ()
        top = 0
        for i, ln in enumerate(lines):
            if i in skip:
                continue
            top += 1
            short = ln.nums < 2 and len(ln.text) <= 100
            if not short or not is_title_like(ln.text, single=True):
                continue
            if ln.size >= body * BIG:
                big.add(_size_key(ln.size))
            if top <= TOP_LINES and (ln.bold or ln.size >= body * BIG):
                seen.setdefault(ln.text.casefold(), set()).add(p)
    tiers = sorted(big, reverse=True)[:MAX_TIERS]
    repeated = frozenset(t for t, on in seen.items() if len(on) >= REPEATED_PAGES)
    return Style(body, tuple(tiers), repeated)


#: A title-like line atop this many pages or more is a running title ...
REPEATED_PAGES = 4
#: ... atop: among a page's first lines (its running head and page number aside).
TOP_LINES = 3
#: Bold text set smaller than this share of the body size is a table's or a note's, not a
#: section title (Part, Item, notes and statement titles aside).
SMALL = 0.9


NO_STYLE = Style()


def heading_rank(line: Line, style: Style = NO_STYLE) -> HeadingRank | None:
    """The heading rank of a line, or None when it is not a heading."""
    level = heading_level(line, style)
    if level is None:
        return None
    return HeadingRank(min(level, HeadingRank.OTHER.value))


def heading_level(line: Line, style: Style = NO_STYLE) -> int | None:
    """The heading level of a line (see :data:`PART_LEVEL`), or None when it is no heading:
    Part and Item lines in bold, capitals or a heading size; statement titles and numbered
    notes ("NOTE 9.") in bold or a heading size (notes also in capitals); other title-like
    lines in bold or a heading size, ranked by size, body-size bold last; a decimal number
    ("2.3 Revenue") nests by its depth. Not headings: bold lines in type smaller than the
    body's, period captions, cover-table rows, bold sentences, addresses, running titles."""
    t = line.text
    if line.nums >= 2 or len(t) > 120:
        return None
    tier = style.tier(line.size)
    styled = line.bold or tier is not None
    caps = t[:4].isupper()
    if PART_RE.match(t) and len(t) <= 80 and (styled or caps):
        return PART_LEVEL
    if PDF_ITEM_RE.match(t) and (styled or caps):
        return ITEM_LEVEL
    if COVER_ROW_RE.search(t) or PERIOD_CAPTION_RE.match(t):
        return None
    if NOTE_HEADING_RE.match(t) and (styled or caps) and len(t) <= 100:
        return TOP_LEVEL
    if not styled or len(t) > 100 or not is_title_like(t, single=True):
        return None
    if tier is None and SENTENCE.match(t):
        return None  # a bold sentence ("The price of our stock is subject to volatility.")
    if _ADDRESS.search(t) or t.casefold() in style.repeated:
        return None
    if tier is None and 0 < line.size < style.body * SMALL:
        return None  # "Unpaid / Principal / Balance" over a column, in the table's type
    if STATEMENT_TITLE_RE.match(t) or STATEMENTS_PART_RE.match(t):
        return TOP_LEVEL
    level = SIZE_LEVEL + (len(style.tiers) if tier is None else tier)
    m = NUMBERED_HEADING_RE.match(t)
    if m:
        level += m.group(1).count(".")
    return level


def label_only(text: str) -> bool:
    """A Part or Item label without its title ("PART II", "Item 7."): the title follows."""
    m = PART_RE.match(text) or ITEM_RE.match(text)
    return bool(m) and not m.group(2).strip()


#: A title that starts with a number: "1.2 Revenue", "2025 Outlook", "10b5-1 Trading Plans".
LEADING_NUMBER_RE = re.compile(r"^\d[\dA-Za-z./-]{0,7}\s+[A-Z]")


def is_title_like(t: str, single: bool = False) -> bool:
    if not (t[0].isupper() or t[0] in '“"' or (t[0].isdigit() and LEADING_NUMBER_RE.match(t))):
        return False
    if t.endswith((",", ";")):
        return False
    if " " in t.strip():
        return True
    return single and sum(ch.isalpha() for ch in t) >= 3 and t[-1].isalnum()


def offside(ln: Line, left: float, right: float) -> bool:
    """A line that starts well right of the page's text and is not centred on it: a
    column's header or a cell, never a section title (those sit at the margin or mid-page)."""
    width = right - left
    if width <= 0 or ln.x1 <= 0:
        return False
    centre = (ln.x0 + ln.x1) / 2 - (left + right) / 2
    return ln.x0 > left + 0.25 * width and abs(centre) > CENTRED * width


# --- a line among its neighbours ----------------------------------------------------------


def page_levels(
    lines: Sequence[Line],
    skip: Collection[int],
    header: list[bool],
    next_row: Sequence[int],
    style: Style = NO_STYLE,
    cols: Columns = NO_COLUMNS,
) -> list[int | None]:
    """The heading level of each line of a page (None: no heading), given which lines are
    a table's column header (``header``, completed here with the stub lines beside one) and
    where each line's next table row is (``next_row``, -1: none before prose). A Part,
    Item, note or statement title is a heading even over number columns; other headings
    are not: a bold line level with a column header beside it (its stub), a line between a
    table's column header and its rows, a line ending in a colon right over rows or a list
    (a run-in label), a line off its column's margin and not centred."""
    level: list[int | None] = [None] * len(lines)
    for i, ln in enumerate(lines):
        if i in skip:
            continue
        lv = heading_level(ln, style)
        if header[i] and (lv is None or lv > TOP_LEVEL):
            continue
        header[i] = header[i] and lv is None
        level[i] = lv
    for i in range(len(lines) - 2, -1, -1):
        lv = level[i]
        if lv is not None and lv > TOP_LEVEL and header[i + 1] and _beside(lines[i], lines[i + 1]):
            level[i], header[i] = None, True
    for i, ln in enumerate(lines):
        lv = level[i]
        if lv is not None and _label(ln) and not _set_apart(lines, skip, i, cols):
            level[i] = None  # "Recourse debt:" over rows, "Fiscal Year:" over a list
            continue
        if lv is None or lv < TOP_LEVEL or (lv == TOP_LEVEL and NOTE_HEADING_RE.match(ln.text)):
            continue
        if lv > TOP_LEVEL and i > 0 and header[i - 1] and 0 <= next_row[i] - i <= 2:
            level[i] = None  # "Assets" between "2024 2023" and the balance sheet's rows
        elif offside(ln, *cols.box(ln)):
            level[i] = None
    return level


def _label(ln: Line) -> bool:
    """A line ending in a colon (not a bare "Item 7:"): a run-in label, unless set apart."""
    return ln.text.endswith(":") and not label_only(ln.text)


def _set_apart(lines: Sequence[Line], skip: Collection[int], i: int, cols: Columns) -> bool:
    """Whether the line after ``i`` is prose (no table row, not bold, and running most of
    its column's width; 60 characters or more without the layout), or
    lies further below than a line's height: a title's colon ("Cash Flows from Operating
    Activities:" over its table), not a row label's ("Deferred tax assets:" over rows)."""
    j = i + 1
    if j >= len(lines) or j in skip:
        return False
    a, b = lines[i], lines[j]
    if a.y and b.y and a.y - b.y > LINE_GAP * max(a.size, 1.0):
        return True
    if b.nums >= 2 or b.bold:
        return False
    left, right = cols.box(b)
    if b.x1 > b.x0 and right > left:
        return b.x1 - b.x0 >= PROSE * (right - left)
    return len(b.text) >= PROSE * 100


def _beside(a: Line, b: Line) -> bool:
    """Whether ``a`` sits level with ``b`` (a stub beside a column header), or may: the
    layout does not say where the lines are."""
    if not a.y or not b.y:
        return True
    return abs(a.y - b.y) < 0.5 * max(a.size, b.size, 1.0)


#: Words a wrapped title line ends in, or its next line starts with: the title goes on.
CONNECTORS = frozenset(
    {"and", "of", "the", "for", "in", "to", "on", "&", "-", "–", "or", "with"}
    | {"AND", "OF", "THE", "FOR", "IN", "TO", "ON", "OR", "WITH"}
)
#: A centred line's middle lies within this share of its column's width of the column's.
CENTRED = 0.04
#: Prose: a line running this share of its column's width or more.
PROSE = 0.6
#: A title's next line starts this many times its type size below it, or less (lines
#: further apart are two titles).
LINE_GAP = 1.5


def heading_continues(
    a: Line, b: Line, level_b: int | None, cols: Columns = NO_COLUMNS, width: int = 0
) -> bool:
    """Whether line ``b`` goes on heading line ``a``: the title of a bare Part or Item label
    set like it (both centred, or neither), or the wrapped rest of a title in the same style:
    ``a`` ends in a comma or a connector, ``b`` starts with a connector or in lower case, or
    ``b``'s first word would not have fitted on ``a``'s line in its column (without the
    layout: ``a`` is long). A sub-heading, in another style, after a full title or further
    down than a line's height, stays a heading of its own."""
    if level_b in (PART_LEVEL, ITEM_LEVEL) or b.nums >= 2:
        return False
    if label_only(a.text):
        return level_b is not None and _centred(a, cols) == _centred(b, cols)
    if a.text.endswith((".", ":")) or a.bold != b.bold:
        return False
    if a.size and b.size and abs(a.size - b.size) > 0.5:
        return False
    if level_b is None and not (a.bold or a.text.isupper() and b.text.isupper()):
        return False
    if a.y and b.y and a.y - b.y > LINE_GAP * max(a.size, 1.0):
        return False  # a gap between them: two titles
    if a.text.endswith(",") or b.text[0].islower():
        return True
    if a.text.rsplit(None, 1)[-1].lower() in CONNECTORS or b.text.split(None, 1)[0] in CONNECTORS:
        return True
    if a.x1 > 0 and b.x1 > b.x0:
        word = (len(b.text.split(None, 1)[0]) + 1) * (b.x1 - b.x0) / len(b.text)
        left, right = cols.box(a)
        if abs(a.x0 - b.x0) > 2 and _centred(a, cols) and _centred(b, cols):
            # centred lines (not sharing a left edge): full when they span the column
            return a.x1 - a.x0 + word > right - left
        return a.x1 + word > right
    return width > 0 and len(a.text) >= 0.6 * width


def _centred(ln: Line, cols: Columns) -> bool:
    """Set mid-column (loosely: within a tenth of the width), as a title's wrapped lines."""
    left, right = cols.box(ln)
    width = right - left
    if width <= 0 or ln.x1 <= 0:
        return False
    return ln.x0 > left + 0.1 * width and abs((ln.x0 + ln.x1 - left - right) / 2) < 0.1 * width
