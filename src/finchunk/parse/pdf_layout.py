"""Page lines → blocks (headings, tables, notes, lists, paragraphs, furniture), without ML.

Works on the lines pypdfium2 extracts (one text line per visual line; table rows stay on one
line, cells separated by spaces), plus one bit per line from the fonts: bold. Rules:

* furniture: the top and bottom lines of a page that repeat (digits ignored) on many pages,
  and page numbers ("12", "F-7", "Page 3 of 9", "ii") at the top or bottom of a page;
* table: a run of lines where rows ending in two or more numeric cells dominate; label lines
  between rows stay in the table; short caption lines right above it (a statement's title,
  "Years ended December 31") join it;
* notes: lines starting "(1)", "(a)", "*", "†" or a superscript, right below a table; the
  table cites their marks;
* headings: "PART I" (level 1) and "Item 7." (level 2) lines in bold or capitals, and other
  short bold lines (level 3); none on table-of-contents pages;
* lists: runs of bulleted items; paragraphs: the remaining lines, split after a line that
  ends a sentence well short of the page's text width.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from finchunk.model import ElementKind
from finchunk.parse.sec_patterns import (
    LABEL_NUMBER_RE,
    PAGE_NUMBER_RE,
    PART_RE,
    PDF_ITEM_RE,
    PDF_NOTE_RE,
    FurnitureRule,
    PageEdges,
    is_toc_line,
    sup_mark,
)

# --- line features -------------------------------------------------------------------------

_NUM_CELL = re.compile(r"^\(?[-–—]?\$?\(?\d[\d,]*(?:\.\d+)?\)?%?\)?[*†]?$|^[-–—]{1,3}$|^n/?m$")
_SKIP_CELL = frozenset({"$", "%", "€", "£", "x", "pts", "bps"})
_LIST = re.compile(r"^[•·●◦▪■□➢►▶○\uf0b7\uf0a7\uf0d8\uf076\uf0fc](?:\s|$)")
_CLOSERS = '"”’)'
_TERMINALS = frozenset(".!?:;")
#: Headers and footers: the same text at the same edge (top, or bottom) of a quarter of the
#: pages, digits counting unless they run with the pages; page numbers: the shape of one,
#: continued by a number on a page nearby (so "2019" or "Civil" ending a page stays text).
_FURNITURE = FurnitureRule(
    PAGE_NUMBER_RE,
    every=4,
    sentence_every=4,
    max_chars=150,
    sequence=True,
    count_by="place",
    digits="page",
)


def trailing_numeric(text: str) -> int:
    """How many numeric cells end the line ("Net income $ 5,363 $ 4,869" → 2)."""
    n = 0
    for tok in reversed(text.split()):
        if tok in _SKIP_CELL:
            continue
        if _NUM_CELL.match(tok):
            n += 1
        else:
            break
    return n


def ends_sentence(text: str) -> bool:
    """The line ends with . ! ? : or ; (closing quotes and brackets aside)."""
    t = text.rstrip(_CLOSERS)
    return bool(t) and t[-1] in _TERMINALS


def heading_candidate(text: str, nums: int) -> bool:
    """Cheap test deciding whether the font of a line is worth looking up."""
    return 1 < len(text) <= 120 and nums < 2 and (text[0].isalpha() or text[0] in '“"(')


@dataclass(frozen=True, slots=True)
class Line:
    """One extracted line: normalised text, trailing numeric cells, bold font."""

    text: str
    nums: int = 0
    bold: bool = False


_LABEL_WORD = frozenset({"item", "part"})


def join_split_labels(lines: list[Line]) -> list[Line]:
    """Rejoin "Item" / "1A. Risk Factors" when a PDF puts each word on a line of its own."""
    if not any(ln.text.lower() in _LABEL_WORD for ln in lines):
        return lines
    out: list[Line] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.text.lower() in _LABEL_WORD and i + 1 < len(lines):
            nxt = lines[i + 1]
            if LABEL_NUMBER_RE.match(nxt.text):
                text = f"{ln.text} {nxt.text}"
                out.append(Line(text, trailing_numeric(text), ln.bold))
                i += 2
                continue
        out.append(ln)
        i += 1
    return out


# --- blocks --------------------------------------------------------------------------------


class HeadingRank(Enum):
    PART = 1
    ITEM = 2
    OTHER = 3


@dataclass(frozen=True, slots=True)
class Block:
    """Lines ``first..last`` (inclusive) of one page, of one element kind."""

    kind: ElementKind
    first: int
    last: int
    level: int = 0
    mark: str | None = None
    cites: tuple[str, ...] = ()


def _edges(n: int, depth: int = 2) -> PageEdges:
    """Line indexes of a page's first and last ``depth`` lines, outermost first."""
    k = min(depth, n)
    return PageEdges(range(k), range(n - 1, n - 1 - k, -1))


def furniture(pages: Sequence[Sequence[Line]]) -> list[set[int]]:
    """Per page, the indexes of its header/footer lines and page numbers (the first and
    last two lines of each page are looked at; :data:`_FURNITURE` decides)."""
    where = [_edges(len(lines)) for lines in pages]
    edges = [
        PageEdges(
            [ln[i].text for i in w.top],
            [ln[i].text for i in w.bottom],
            rest=len(ln) - len(set(w.top) | set(w.bottom)),
        )
        for ln, w in zip(pages, where, strict=True)
    ]
    out: list[set[int]] = []
    for w, (in_top, in_bottom) in zip(where, _FURNITURE.decide(edges), strict=True):
        out.append({w.top[i] for i in in_top} | {w.bottom[i] for i in in_bottom})
    return out


def is_toc_page(lines: Sequence[Line]) -> bool:
    """A table-of-contents page: three or more "Item 7 … 45" or dot-leader lines."""
    hits = 0
    for ln in lines:
        if is_toc_line(ln.text):
            hits += 1
            if hits >= 3:
                return True
    return False


def heading_rank(line: Line) -> HeadingRank | None:
    """The heading rank of a line, or None when it is not a heading."""
    t = line.text
    if line.nums >= 2 or len(t) > 120:
        return None
    if PART_RE.match(t) and len(t) <= 80 and (line.bold or t[:4].isupper()):
        return HeadingRank.PART
    if PDF_ITEM_RE.match(t) and (line.bold or t[:4].isupper()):
        return HeadingRank.ITEM
    if line.bold and len(t) <= 100 and _is_title_like(t):
        return HeadingRank.OTHER
    return None


def _is_title_like(t: str) -> bool:
    return (t[0].isupper() or t[0] in '“"') and " " in t.strip() and not t.endswith(",")


class _Scanner:
    """Groups one page's lines into blocks; ``lines`` excludes nothing (furniture is marked)."""

    def __init__(self, lines: Sequence[Line], skip: set[int], toc: bool) -> None:
        self.lines = lines
        self.skip = skip
        self.toc = toc
        widths = sorted(len(ln.text) for i, ln in enumerate(lines) if i not in skip)
        self.width = widths[int(len(widths) * 0.9)] if widths else 0
        self.in_table = [False] * len(lines)
        self.tables: dict[int, int] = {}  # first line → last line
        self._find_tables()

    # tables ---------------------------------------------------------------------------

    def _is_row(self, i: int) -> bool:
        return i not in self.skip and self.lines[i].nums >= 2

    def _row_within(self, i: int, reach: int) -> bool:
        return any(self._is_row(j) for j in range(i, min(i + reach, len(self.lines))))

    def _find_tables(self) -> None:
        i, n = 0, len(self.lines)
        while i < n:
            if not self._is_row(i):
                i += 1
                continue
            last, rows, j = i, 1, i + 1
            while j < n and j not in self.skip:
                ln = self.lines[j]
                if self._is_row(j):
                    last, rows = j, rows + 1
                elif ln.nums == 1 and len(ln.text) <= 100:
                    last = j
                elif (
                    len(ln.text) <= 120
                    and not _LIST.match(ln.text)
                    and self._row_within(j + 1, 3)
                    and heading_rank(ln) not in (HeadingRank.PART, HeadingRank.ITEM)
                ):
                    pass  # a label line between rows
                else:
                    break
                j += 1
            if rows >= 2:
                first = self._caption_start(i)
                self.tables[first] = last
                for k in range(first, last + 1):
                    self.in_table[k] = True
                i = last + 1
            else:
                i += 1

    def _caption_start(self, i: int) -> int:
        """Short title lines right above a table join it (up to four)."""
        first = i
        while first > 0 and i - first < 4:
            k = first - 1
            if k in self.skip or self.in_table[k]:
                break
            t = self.lines[k].text
            if len(t) > 80 or ends_sentence(t) or _LIST.match(t):
                break
            if heading_rank(self.lines[k]) in (HeadingRank.PART, HeadingRank.ITEM):
                break
            first = k
        return first

    # paragraphs -----------------------------------------------------------------------

    def _ends_paragraph(self, i: int) -> bool:
        t = self.lines[i].text
        return bool(ends_sentence(t)) and len(t) < 0.8 * self.width

    def _plain(self, i: int) -> bool:
        """A line that can continue a paragraph, list item or note."""
        if i in self.skip or self.in_table[i]:
            return False
        ln = self.lines[i]
        return not _LIST.match(ln.text) and (self.toc or heading_rank(ln) is None)

    def _run_end(self, i: int) -> int:
        """Last line of the paragraph starting at ``i``."""
        j = i
        while not self._ends_paragraph(j) and j + 1 < len(self.lines) and self._plain(j + 1):
            j += 1
        return j

    # blocks ---------------------------------------------------------------------------

    def blocks(self) -> list[Block]:
        out: list[Block] = []
        i, n = 0, len(self.lines)
        last_table: Block | None = None
        notes: list[str] = []
        while i < n:
            if i in self.skip:
                out.append(Block(ElementKind.FURNITURE, i, i))
                i += 1
                continue
            if i in self.tables:
                last = self.tables[i]
                out.append(Block(ElementKind.TABLE, i, last))
                last_table, notes = out[-1], []
                i = last + 1
                i = self._notes(i, out, notes)
                if notes:
                    idx = out.index(last_table)
                    out[idx] = Block(
                        ElementKind.TABLE,
                        last_table.first,
                        last_table.last,
                        cites=tuple(dict.fromkeys(notes)),
                    )
                continue
            i = self._block(i, out)
        return out

    def _notes(self, i: int, out: list[Block], marks: list[str]) -> int:
        while i < len(self.lines) and i not in self.skip and not self.in_table[i]:
            m = PDF_NOTE_RE.match(self.lines[i].text)
            if not m:
                break
            mark = sup_mark(m.group(1).strip("()"))
            j = i
            while (
                not self._ends_paragraph(j)
                and j + 1 < len(self.lines)
                and self._plain(j + 1)
                and not PDF_NOTE_RE.match(self.lines[j + 1].text)
            ):
                j += 1
            out.append(Block(ElementKind.NOTE, i, j, mark=mark))
            marks.append(mark)
            i = j + 1
        return i

    def _block(self, i: int, out: list[Block]) -> int:
        ln = self.lines[i]
        rank = None if self.toc else heading_rank(ln)
        if rank is not None:
            j = i
            while j + 1 < len(self.lines) and self._heading_continues(j, j + 1):
                j += 1
            out.append(Block(ElementKind.HEADING, i, j, level=rank.value))
            return j + 1
        if _LIST.match(ln.text):
            j = self._list_end(i)
            out.append(Block(ElementKind.LIST, i, j))
            return j + 1
        j = self._run_end(i)
        out.append(Block(ElementKind.TEXT, i, j))
        return j + 1

    def _heading_continues(self, j: int, k: int) -> bool:
        if k in self.skip or self.in_table[k] or self.lines[j].text.endswith((".", ":")):
            return False
        return heading_rank(self.lines[k]) is HeadingRank.OTHER

    def _list_end(self, i: int) -> int:
        """Last line of the list starting at ``i``: items, and the lines that wrap them."""
        j = i
        n = len(self.lines)
        while j + 1 < n and j + 1 not in self.skip and not self.in_table[j + 1]:
            cur = self.lines[j].text
            wraps = len(cur) <= 2 or len(cur) >= 0.8 * self.width
            if _LIST.match(self.lines[j + 1].text) or (wraps and self._plain(j + 1)):
                j += 1
            else:
                break
        return j


def page_blocks(lines: Sequence[Line], skip: set[int]) -> list[Block]:
    """The blocks of one page, in reading order, covering every line exactly once."""
    return _Scanner(lines, skip, is_toc_page(lines)).blocks()
