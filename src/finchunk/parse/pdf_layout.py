"""Page lines → blocks (headings, tables, notes, lists, paragraphs, furniture), without ML.

Works on the lines pypdfium2 extracts (one text line per visual line; table rows stay on one
line, cells separated by spaces), with what the layout says of each line: its type size, its
left and right edges, where a table row's number columns start, and bold. Rules:

* furniture: the top and bottom lines of a page that repeat (digits ignored) on many pages,
  and page numbers ("12", "F-7", "Page 3 of 9", "ii") at the top or bottom of a page;
* table: a run of lines where rows ending in two or more numeric cells dominate; label lines
  between rows stay in the table; short caption lines right above it and its column
  headers (lines whose words sit over its number columns, and a bold stub line beside
  them) join it; a Part, Item, numbered note, statement title, large-type heading or a
  sentence ends it (its rows × columns: :mod:`finchunk.parse.pdf_table`);
* notes: lines starting "(1)", "(a)", "*", "†" or a superscript, right below a table; the
  table cites their marks;
* headings (:mod:`finchunk.parse.pdf_headings`): "PART I" (level 1) and "Item 7." (level 2) in bold,
  capitals or a heading size; statement titles and "NOTE 9." (level 3); other title-like
  lines set in a heading size (ranked over the document: larger sizes on top) or in bold
  at body size (below them); "1.2 Title" nests by its depth. Not headings: table column
  headers, period captions ("Years ended December 31"), cover-table rows, bold sentences,
  address lines, lines off the margin and not centred, titles repeated on many pages;
  none on table-of-contents pages;
* a text block shorter than 20 characters joins the text, list or table next to it;
* lists: runs of bulleted items; paragraphs: the remaining lines, split after a line that
  ends a sentence well short of the page's text width.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from finchunk.model import ElementKind
from finchunk.parse.pdf_headings import (
    LEADING_NUMBER_RE,
    NO_STYLE,
    SENTENCE,
    TOP_LEVEL,
    Style,
    heading_continues,
    page_levels,
)
from finchunk.parse.pdf_order import page_columns
from finchunk.parse.sec_patterns import (
    LABEL_NUMBER_RE,
    PAGE_NUMBER_RE,
    PDF_NOTE_RE,
    FurnitureRule,
    PageEdges,
    is_toc_line,
    sup_mark,
)

# --- line features -------------------------------------------------------------------------

_NUM_CELL = re.compile(
    r"^\(?[-–—]?\$?\(?\d[\d,]*(?:\.\d+)?\)?%?\)?[*†]?$|^[-–—]{1,3}$|^(?i:n/?[am])$"
)
_TOKEN = re.compile(r"\S+")
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
    if not 1 < len(text) <= 120 or nums >= 2:
        return False
    return text[0].isalpha() or text[0] in '“"(' or bool(LEADING_NUMBER_RE.match(text))


@dataclass(frozen=True, slots=True)
class Line:
    """One extracted line: normalised text, trailing numeric cells, bold font; from the
    layout (0 when unknown): the font size, the left and right edges of its text, the
    left edge of its first number column (a table row's), the top of its first character
    (points up from the page's foot; its bottom is :attr:`bottom`), and for lines that may
    sit in a table, each word's left and right edges (``text.split()`` order; read by
    :mod:`finchunk.parse.pdf_table`)."""

    text: str
    nums: int = 0
    bold: bool = False
    size: float = 0.0
    x0: float = 0.0
    x1: float = 0.0
    numx: float = 0.0
    y: float = 0.0
    words: tuple[tuple[float, float], ...] = ()

    @property
    def bottom(self) -> float:
        """The bottom of the first character's box (its height is :attr:`size`); 0 unknown."""
        return self.y - self.size if self.y else 0.0


def numeric_start(text: str, nums: int) -> int:
    """Where the trailing run of numeric cells (with their "$" and "%" cells) begins."""
    if nums < 1:
        return -1
    toks = [(m.start(), m.group()) for m in _TOKEN.finditer(text)]
    k, seen = len(toks), 0
    while k > 0 and seen < nums:
        k -= 1
        if toks[k][1] not in _SKIP_CELL:
            seen += 1
    while k > 0 and toks[k - 1][1] in _SKIP_CELL:
        k -= 1
    return toks[k][0]


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


class _Scanner:
    """Groups one page's lines into blocks; ``lines`` excludes nothing (furniture is marked)."""

    def __init__(
        self, lines: Sequence[Line], skip: set[int], toc: bool, style: Style = NO_STYLE
    ) -> None:
        self.lines = lines
        self.skip = skip
        self.toc = toc
        widths = sorted(len(ln.text) for i, ln in enumerate(lines) if i not in skip)
        self.width = widths[int(len(widths) * 0.9)] if widths else 0
        self.next_row = self._next_rows()
        #: Lines of a table's header: over its number columns, or a bold stub line right
        #: above them ("(Dollars in millions)" beside "Net Income / Per Diluted Share").
        self.header = [self._column_header(i) for i in range(len(lines))]
        self.cols = page_columns(lines, skip)
        self.level: list[int | None] = (
            [None] * len(lines)
            if toc
            else page_levels(lines, skip, self.header, self.next_row, style, self.cols)
        )
        self.in_table = [False] * len(lines)
        self.tables: dict[int, int] = {}  # first line → last line
        self._find_tables()

    def _next_rows(self) -> list[int]:
        """Per line, the next table row below it before any prose line, or -1."""
        out = [-1] * len(self.lines)
        nxt = -1
        for i in range(len(self.lines) - 1, -1, -1):
            out[i] = nxt
            ln = self.lines[i]
            if i in self.skip:
                continue
            if ln.nums >= 2:
                nxt = i
            elif self.width and len(ln.text) >= 0.7 * self.width and not ln.bold:
                nxt = -1
        return out

    def _column_header(self, i: int) -> bool:
        """A line whose words sit over the number columns of the table row below it
        ("CLASS A CLASS B", "Per Diluted", "Years ended December 31"): the table's header."""
        ln, j = self.lines[i], self.next_row[i]
        if ln.x1 <= 0 or ln.nums >= 2 or j < 0 or j - i > 40:
            return False
        row = self.lines[j]
        return row.numx > 0 and ln.x0 >= row.numx - max(ln.size, row.size, 1.0)

    def _breaks_table(self, i: int) -> bool:
        """A heading no table runs through: Part, Item, a note, a statement title, a line
        in a heading size, or a bold line over another table's column header or over
        prose (a bold line between rows is a row group's label)."""
        level = self.level[i]
        if level is None:
            return False
        if level <= TOP_LEVEL or not self.lines[i].bold:
            return True
        j = i + 1
        if j >= len(self.lines) or j in self.skip:
            return False
        nxt = self.lines[j]
        prose = nxt.nums < 2 and not nxt.bold and len(nxt.text) >= 0.8 * self.width
        return self.header[j] or prose

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
                elif self._breaks_table(j) or self._prose(j):
                    break
                elif ln.nums == 1 and len(ln.text) <= 100:
                    last = j
                elif (
                    len(ln.text) <= 120 and not _LIST.match(ln.text) and self._row_within(j + 1, 3)
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

    def _prose(self, i: int) -> bool:
        """A sentence of the text around a table, not a row label: six words or more ending
        with a full stop ("Adjustments to reconcile net income …:" is a row label)."""
        return bool(SENTENCE.match(self.lines[i].text))

    def _caption_start(self, i: int) -> int:
        """Short lines right above a table join it (up to four, besides its column
        headers), row labels ending with ":" among them ("ASSETS:", a bold "Cash flows from
        operating activities:"); a heading stays out (a statement's title sets the section
        path instead). The rows' grid is rebuilt by :mod:`finchunk.parse.pdf_table`."""
        first, extra = i, 0
        while first > 0:
            k = first - 1
            if k in self.skip or self.in_table[k]:
                break
            ln = self.lines[k]
            if not self.header[k]:
                if extra >= 4:
                    break
                extra += 1
            t = ln.text
            row_label = t.endswith(":") and len(t.split()) <= 6  # "Net sales:", "ASSETS:"
            if len(t) > 80 or (ends_sentence(t) and not row_label) or _LIST.match(t):
                break
            if self.level[k] is not None and (self._breaks_table(k) or not row_label):
                break  # a bold row label ("Cash flows from operating activities:") joins
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
        return not _LIST.match(self.lines[i].text) and self.level[i] is None

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
        return _merge_tiny(out, self.lines)

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
        level = self.level[i]
        if level is not None:
            j = i
            while j + 1 < len(self.lines) and j - i < 5 and self._heading_continues(j, j + 1):
                j += 1
            out.append(Block(ElementKind.HEADING, i, j, level=level))
            return j + 1
        if _LIST.match(ln.text):
            j = self._list_end(i)
            out.append(Block(ElementKind.LIST, i, j))
            return j + 1
        j = self._run_end(i)
        out.append(Block(ElementKind.TEXT, i, j))
        return j + 1

    def _heading_continues(self, j: int, k: int) -> bool:
        """Whether line ``k`` goes on heading line ``j`` (:func:`heading_continues`)."""
        if k in self.skip or self.in_table[k] or self.header[k]:
            return False
        a, b = self.lines[j], self.lines[k]
        return heading_continues(a, b, self.level[k], self.cols, self.width)

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


#: A text block shorter than this (characters) joins a neighbouring text, list or table.
TINY = 20
_JOINS = frozenset({ElementKind.TEXT, ElementKind.LIST, ElementKind.TABLE})


def _merge_tiny(blocks: list[Block], lines: Sequence[Line]) -> list[Block]:
    """Text blocks too short to read alone ("low", "to Present", "Europe,") join the block
    before them, else the one after, when that is text, a list or a table next to them."""
    out: list[Block] = []
    for n, b in enumerate(blocks):
        tiny = b.kind is ElementKind.TEXT and (
            sum(len(lines[k].text) for k in range(b.first, b.last + 1)) < TINY
        )
        if tiny and out and out[-1].kind in _JOINS and out[-1].last + 1 == b.first:
            out[-1] = _extend(out[-1], out[-1].first, b.last)
            continue
        nxt = blocks[n + 1] if n + 1 < len(blocks) else None
        if tiny and nxt is not None and nxt.kind in _JOINS and b.last + 1 == nxt.first:
            blocks[n + 1] = _extend(nxt, b.first, nxt.last)
            continue
        out.append(b)
    return out


def _extend(b: Block, first: int, last: int) -> Block:
    return Block(b.kind, first, last, b.level, b.mark, b.cites)


def page_blocks(lines: Sequence[Line], skip: set[int], style: Style = NO_STYLE) -> list[Block]:
    """The blocks of one page, in reading order, covering every line exactly once."""
    return _Scanner(lines, skip, is_toc_page(lines), style).blocks()
