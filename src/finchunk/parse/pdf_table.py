"""A PDF table block → rows × columns, written as a Markdown table (no ML).

The layout scanner (:mod:`finchunk.parse.pdf_layout`) finds a table as a run of lines; this
module rebuilds its grid from where its words sit on the page (each line's bottom edge and,
for lines that may be in a table, each word's left and right edges: :attr:`Line.words`,
read by :mod:`finchunk.parse.pdf` only on pages with table rows):

* **visual rows**: lines at the same height are one row (pdfium gives a stacked header
  cell's lines, "June 28," over "2025", or a label wrapped above its numbers as lines
  of their own, in stream order);
* **symbols**: ``$``, ``(`` join the value after them, ``)``, ``%`` the one before, as the
  HTML parser folds them (:func:`finchunk.parse.html_table.merge_symbols`);
* **columns**: the right edges of the numbers in the body rows cluster into columns (the
  right edge of the last digit, so "(73)" and "12%" line up with "1,234"); a column must
  hold numbers in two rows or more (one row is enough in a table of three rows or fewer);
* **the label** of a row is what lies left of the first column; a year glued to its label
  ("December 31, 2024") stays in it, and a "(1)" note mark right after the label is part
  of it; a row whose words run on into the columns (a note spanning the table) is all label;
* **header rows**: the rows above the first row with a value that is not a year; each
  phrase over the columns (words closer than a space or so) goes to the columns whose
  centres it covers, else the one it overlaps most, else the nearest ("Years ended
  December 31" over three columns, a year over one); a column's header reads its phrases
  top-down (one header row, as the HTML parser merges stacked header rows); words left of
  the columns on a header row are the label column's header; label-only lines above the
  header are the table's caption, kept above the Markdown table as lines of their own;
* **wrapped labels**: a label-only row whose next row starts in lower case, or that ends
  in "and", "of", a comma …, joins that row ("Adjustment for net losses realized and" /
  "included in net income (571) (87)"); a label-only row ending with ":" stays a row of
  its own ("Operating activities:");
* **continued tables**: a table that ends a page (nothing but page furniture after it) and
  one that starts the next (nothing but furniture before it) with the same columns are
  one table (:func:`continues`); the second's header row and caption are dropped when
  they repeat the first's (or say "continued").

A block without number columns (no rows with two numbers, OCR'd lines without word edges
and still no columns) is written as its lines, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from finchunk.model import ElementKind
from finchunk.parse.html_table import markdown_rows, merge_symbols
from finchunk.parse.pdf_layout import Block, Line

#: A value cell (after ``$``/``(``/``)``/``%`` joined it): a number, a dash for zero, n/m.
_VALUE = re.compile(
    r"^(?:US\$|[$€£¥(])*[-–—+]?\d[\d,]*(?:\.\d+)?(?:[)%x]|pts|bps)*[*†‡]?(?:\(\w\))?$"
    r"|^(?:[$€£¥(])*[-–—]{1,3}[)%]*$|^(?:n/?[am]|N/?[AM])$",
)
_DIGIT = re.compile(r"\d")
_YEAR = re.compile(r"^(?:19|20)\d\d[*†]?$")
_MARK = re.compile(r"^(?:\(\w{1,2}\)|\*{1,3}|[†‡§])$")
_CONTINUED = re.compile(r"\bcontinued\b|\(cont(?:['’]d|\.)\)", re.IGNORECASE)
_CONNECTORS = frozenset(
    {"and", "of", "the", "for", "in", "to", "on", "from", "or", "with", "by", "&", "-", "–"}
)

#: Lines within this many lines above a page's first table row may be its caption or header.
REACH = 16
#: A line longer than this, without a number, is prose: its words' edges are not read.
MAX_LABEL = 90
#: Share of the type size: lines this close in height are one row; numbers' right edges
#: this close are one column; words this close are one phrase.
SAME_ROW, SAME_COLUMN, SAME_PHRASE = 0.5, 0.7, 0.8


def table_candidates(lines: Sequence[Line]) -> list[int]:
    """Indexes of the lines of a page whose words' edges are worth reading: on a page with
    two or more table rows (two numbers or more), the lines from a little above the first
    row to just below the last that hold a number or are short."""
    rows = [i for i, ln in enumerate(lines) if ln.nums >= 2]
    if len(rows) < 2:
        return []
    lo, hi = max(0, rows[0] - REACH), min(len(lines), rows[-1] + 3)
    return [i for i in range(lo, hi) if lines[i].nums >= 1 or len(lines[i].text) <= MAX_LABEL]


# --- rows and words ------------------------------------------------------------------------


@dataclass(slots=True)
class _Word:
    text: str
    x0: float
    x1: float

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass(slots=True)
class _Row:
    """One visual row: its lines (indexes into the block) and words, left to right."""

    y: float
    size: float
    lines: list[int] = field(default_factory=list)
    words: list[_Word] = field(default_factory=list)


def _line_words(ln: Line) -> list[_Word]:
    parts = ln.text.split()
    if ln.words and len(ln.words) == len(parts):
        return [_Word(t, a, b) for t, (a, b) in zip(parts, ln.words, strict=True)]
    # No word edges (OCR, a line too long to read): spread the words over the line.
    width = (ln.x1 - ln.x0) / max(len(ln.text), 1)
    out, pos = [], 0
    for t in parts:
        pos = ln.text.index(t, pos)
        out.append(_Word(t, ln.x0 + pos * width, ln.x0 + (pos + len(t)) * width))
        pos += len(t)
    return out


def _visual_rows(lines: Sequence[Line]) -> list[_Row]:
    """Lines grouped into rows by height, top to bottom (pdfium's y grows upwards)."""
    ys: list[float] = []
    prev = None
    for ln in lines:  # a line without a height sits just below the one before it
        y = ln.y if ln.y else (prev - max(ln.size, 1.0) if prev is not None else 0.0)
        ys.append(y)
        prev = y
    order = sorted(range(len(lines)), key=lambda i: -ys[i])
    rows: list[_Row] = []
    for i in order:
        ln = lines[i]
        size = ln.size or 10.0
        if rows and rows[-1].y - ys[i] <= SAME_ROW * max(size, rows[-1].size):
            rows[-1].lines.append(i)
        else:
            rows.append(_Row(ys[i], size, [i]))
    for r in rows:
        r.lines.sort()
        words = sorted((w for i in r.lines for w in _line_words(lines[i])), key=lambda w: w.x0)
        r.words = _fold_symbols(words)
    return rows


def _fold_symbols(words: list[_Word]) -> list[_Word]:
    """``$``/``(`` joined to the word after them, ``)``/``%`` to the one before, by the HTML
    parser's rule; a word that took a ``$`` starts where the ``$`` did (its right edge stays
    the digits')."""
    cells = [[i, 1, w.text] for i, w in enumerate(words)]
    merge_symbols(cells)
    out: list[_Word] = []
    for i, (c, w) in enumerate(zip(cells, words, strict=True)):
        if c[2]:
            out.append(_Word(c[2], w.x0, w.x1))
        elif i + 1 < len(words) and cells[i + 1][2].startswith(w.text + words[i + 1].text):
            words[i + 1].x0 = min(words[i + 1].x0, w.x0)
    return out


def _phrases(words: list[_Word], size: float) -> list[_Word]:
    """Words closer than :data:`SAME_PHRASE` of the type size, as one phrase each."""
    out: list[_Word] = []
    for w in words:
        if out and w.x0 - out[-1].x1 <= SAME_PHRASE * size:
            last = out[-1]
            out[-1] = _Word(f"{last.text} {w.text}", last.x0, max(last.x1, w.x1))
        else:
            out.append(_Word(w.text, w.x0, w.x1))
    return out


def _is_value(w: _Word) -> bool:
    return bool(_VALUE.match(w.text)) and not w.text.endswith(",")


def _is_data(w: _Word) -> bool:
    """A value that is no column header: a number (not a bare year), not "28," of a date."""
    return _is_value(w) and bool(_DIGIT.search(w.text)) and not _YEAR.match(w.text)


def _glued(words: list[_Word], k: int, size: float) -> bool:
    """Word ``k`` (a year, a note mark) reads on from the label word before it: "December
    31, 2024", "administrative (1)"."""
    if k == 0 or _is_value(words[k - 1]):
        return False
    w = words[k]
    return bool(_YEAR.match(w.text) or _MARK.match(w.text)) and w.x0 - words[k - 1].x1 < size


def _trailing(r: _Row) -> list[_Word]:
    """The values ending a row (right to left until a word that is none, or a year or mark
    glued to the label)."""
    k = len(r.words)
    while k > 0 and _is_value(r.words[k - 1]) and not _glued(r.words, k - 1, r.size):
        k -= 1
    return r.words[k:]


@dataclass(slots=True)
class _Band:
    """One number column: its left edge (a ``$`` included) and right edges."""

    left: float
    right: float
    rights: list[float]

    @property
    def mid(self) -> float:
        return (self.left + self.right) / 2


def _columns(cells: list[list[_Word]], size: float) -> list[_Band]:
    """Number columns from the body rows' values: right edges within
    :data:`SAME_COLUMN` of the type size are one column; a column two values of one row
    fall in is split at its widest gap; a column needs values in two rows (one when the
    table has three rows or fewer)."""
    pts = sorted(
        (w.x1, w.x0, r) for r, row in enumerate(cells) for w in row if _DIGIT.search(w.text)
    )
    if not pts:
        return []
    groups: list[list[tuple[float, float, int]]] = [[pts[0]]]
    for p in pts[1:]:
        if p[0] - groups[-1][-1][0] > SAME_COLUMN * size:
            groups.append([p])
        else:
            groups[-1].append(p)
    done: list[list[tuple[float, float, int]]] = []
    while groups:
        g = groups.pop()
        rows = [p[2] for p in g]
        if len(set(rows)) == len(rows) or len(g) < 2:
            done.append(g)
            continue
        gaps = [g[i + 1][0] - g[i][0] for i in range(len(g) - 1)]
        cut = gaps.index(max(gaps)) + 1
        if max(gaps) <= 0:
            done.append(g)
            continue
        groups += [g[:cut], g[cut:]]
    need = 1 if len(cells) <= 3 else 2
    bands = [
        _Band(min(p[1] for p in g), max(p[0] for p in g), sorted(p[0] for p in g))
        for g in done
        if len({p[2] for p in g}) >= need
    ]
    return sorted(bands, key=lambda b: b.right)


def _band_of(w: _Word, bands: list[_Band]) -> int:
    """The column a word sits in: the one its right edge falls in, else the nearest."""
    best, dist = 0, float("inf")
    for j, b in enumerate(bands):
        d = max(b.left - w.x1, w.x1 - b.right, 0.0)
        if d < dist:
            best, dist = j, d
    return best


def _header_bands(p: _Word, bands: list[_Band]) -> list[int]:
    """Columns a header phrase heads: those whose centre it covers, else the one it
    overlaps most, else the nearest."""
    covered = [j for j, b in enumerate(bands) if p.x0 - 1 <= b.mid <= p.x1 + 1]
    if covered:
        return covered
    overlaps = [min(p.x1, b.right) - max(p.x0, b.left) for b in bands]
    best = max(range(len(bands)), key=lambda j: overlaps[j])
    if overlaps[best] > 0:
        return [best]
    return [min(range(len(bands)), key=lambda j: abs(bands[j].mid - p.mid))]


@dataclass(slots=True)
class Rebuilt:
    """A table block as rows × columns: its caption lines, its header row (label column
    first; None without one), its body rows, its columns' right edges."""

    captions: list[str]
    header: list[str] | None
    rows: list[list[str]]
    rights: list[float]
    size: float

    def grid(self) -> list[list[str]]:
        return _drop_empty_columns([self.header, *self.rows] if self.header else self.rows)


def _drop_empty_columns(grid: list[list[str]]) -> list[list[str]]:
    keep = [j for j in range(len(grid[0])) if any(row[j] for row in grid)] if grid else []
    return [[row[j] for j in keep] for row in grid]


def _row_text(r: _Row, lines: Sequence[Line]) -> str:
    return " ".join(lines[i].text for i in r.lines)


def rebuild(lines: Sequence[Line]) -> Rebuilt | None:
    """The grid of a table block's lines, or None when no number columns are found."""
    rows = _visual_rows(lines)
    if not rows:
        return None
    sizes = sorted(r.size for r in rows)
    size = sizes[len(sizes) // 2]
    trailing = [_trailing(r) for r in rows]
    body = next((k for k, t in enumerate(trailing) if any(map(_is_data, t))), None)
    if body is None:
        return None
    bands = _columns(trailing[body:], size)
    if not bands:
        return None
    start = bands[0].left - SAME_COLUMN * size  # where the columns begin
    labels = [_split(r, bands, start) for r in rows[body:]]
    label_right = max((x for _, _, x in labels), default=start)
    # Above the first row of numbers: caption lines, then header rows (words over columns).
    head: list[int] = []
    cols_head: list[list[str]] = [[] for _ in bands]
    label_head: list[str] = []
    for k in range(body):
        phrases = _phrases(rows[k].words, rows[k].size)
        over = [p for p in phrases if p.x1 > start and p.x0 >= label_right - 1]
        if not over:
            continue
        head.append(k)
        for p in phrases:
            if p in over:
                for j in _header_bands(p, bands):
                    cols_head[j].append(p.text)
            else:
                label_head.append(p.text)
    if head:
        first_head = head[0]
        captions = [k for k in range(first_head)]
        lead = [k for k in range(first_head, body) if k not in head]
    else:
        first = body
        while first > 0 and _row_text(rows[first - 1], lines).endswith(":"):
            first -= 1
        captions, lead = list(range(first)), list(range(first, body))
    out_rows: list[tuple[str, list[str]]] = []
    for k in lead:
        out_rows.append((_row_text(rows[k], lines), [""] * len(bands)))
    for label, cells, _ in labels:
        out_rows.append((label, cells))
    grid_rows = [[label, *cells] for label, cells in _join_wrapped(out_rows)]
    header = [" ".join(label_head), *(" ".join(c) for c in cols_head)] if head else None
    return Rebuilt(
        captions=[_row_text(rows[k], lines) for k in captions],
        header=header,
        rows=grid_rows,
        rights=[b.right for b in bands],
        size=size,
    )


def _split(r: _Row, bands: list[_Band], start: float) -> tuple[str, list[str], float]:
    """A body row's label, its cells (one per column) and the label's right edge; a row
    whose words run from the label on into the columns is all label."""
    cells: list[list[str]] = [[] for _ in bands]
    label: list[_Word] = []
    words = r.words
    prev_label = False
    for k, w in enumerate(words):
        in_cols = w.x0 >= start or (_is_value(w) and w.x1 >= bands[0].left)
        prev_label = not in_cols or (prev_label and _glued(words, k, r.size))
        if prev_label:
            label.append(w)
        else:
            cells[_band_of(w, bands)].append(w.text)
    right = max((w.x1 for w in label), default=0.0)
    if right > bands[0].left + SAME_COLUMN * r.size:  # a note or sentence across the table
        return " ".join(w.text for w in words), [""] * len(bands), 0.0
    return " ".join(w.text for w in label), [" ".join(c) for c in cells], right


def _join_wrapped(rows: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """A label wrapped over rows as one: a label-only row joins the next when the next
    starts in lower case or this one ends in a connector ("and", "of", ","); a label-only
    row starting in lower case joins the row before."""
    out: list[tuple[str, list[str]]] = []
    for label, cells in rows:
        if out and label:
            prev_label, prev_cells = out[-1]
            prev_empty, empty = not any(prev_cells), not any(cells)
            last = prev_label.rsplit(None, 1)[-1].lower() if prev_label else ""
            runs_on = last in _CONNECTORS or prev_label.endswith(",")
            if (
                prev_empty
                and prev_label
                and not prev_label.endswith(":")
                and (label[0].islower() or runs_on)
            ):
                out[-1] = (f"{prev_label} {label}", cells)
                continue
            if empty and label[0].islower() and not prev_empty and prev_label:
                out[-1] = (f"{prev_label} {label}", prev_cells)
                continue
        out.append((label, cells))
    return out


# --- continued tables and the written text --------------------------------------------------


def continues(prev: Rebuilt, nxt: Rebuilt) -> bool:
    """Whether ``nxt`` (starting a page) goes on with ``prev`` (ending the page before):
    the same number columns (right edges within two type sizes), no header of its own or
    the same one, no caption but a repeated one or a "continued" line."""
    if len(prev.rights) != len(nxt.rights):
        return False
    tol = 2 * max(prev.size, nxt.size)
    if any(abs(a - b) > tol for a, b in zip(prev.rights, nxt.rights, strict=True)):
        return False
    if nxt.header is not None and prev.header is not None:
        if _fold(" ".join(nxt.header)) != _fold(" ".join(prev.header)):
            return False
    elif nxt.header is not None:
        return False
    seen = {_fold(c) for c in prev.captions}
    return all(_CONTINUED.search(c) or _fold(c) in seen for c in nxt.captions)


def _fold(text: str) -> str:
    return " ".join(_CONTINUED.sub("", text).casefold().split())


def table_text(parts: Sequence[Rebuilt]) -> tuple[str, list[int]]:
    """A table (continued over ``parts``, one per page) as its caption lines and a Markdown
    table; with the offsets in that text where each later part's rows begin."""
    first = parts[0]
    rows = [*([first.header] if first.header else []), *first.rows]
    starts: list[int] = []
    for p in parts[1:]:
        starts.append(len(rows))
        rows.extend(p.rows)
    grid = _drop_empty_columns(rows)
    md = markdown_rows(grid)
    text_lines = [*first.captions, *md]
    offsets = []
    pos = 0
    line_at: list[int] = []
    for t in text_lines:
        line_at.append(pos)
        pos += len(t) + 1
    for g in starts:
        k = len(first.captions) + g + (1 if g >= 1 else 0)  # the separator follows row 0
        offsets.append(line_at[k] if k < len(line_at) else pos - 1)
    return "\n".join(text_lines), offsets


@dataclass(slots=True)
class TablePlan:
    """The tables of a document rebuilt: (page index, block index) of a table's first part
    → its parts (one per page); the blocks that are later parts (written with the first);
    each part that goes on onto the next page → the block there that continues it."""

    parts: dict[tuple[int, int], list[Rebuilt]] = field(default_factory=dict)
    later: set[tuple[int, int]] = field(default_factory=set)
    goes_on: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)


def plan_tables(pages: Sequence[Sequence[Line]], blocks: Sequence[Sequence[Block]]) -> TablePlan:
    """Rebuild every table block, and join a table that ends a page (nothing but page
    furniture after it) with one that starts the next page (nothing but furniture before
    it) when :func:`continues` says it goes on."""
    plan = TablePlan()
    built: dict[tuple[int, int], Rebuilt] = {}
    for p, (lines, bl) in enumerate(zip(pages, blocks, strict=True)):
        for k, b in enumerate(bl):
            if b.kind is ElementKind.TABLE:
                r = rebuild(lines[b.first : b.last + 1])
                if r is not None:
                    built[(p, k)] = r
    head: dict[tuple[int, int], tuple[int, int]] = {}
    for p in range(len(blocks) - 1):
        body = [k for k, b in enumerate(blocks[p]) if b.kind is not ElementKind.FURNITURE]
        nxt = [k for k, b in enumerate(blocks[p + 1]) if b.kind is not ElementKind.FURNITURE]
        if not body or not nxt:
            continue
        a, b = (p, body[-1]), (p + 1, nxt[0])
        if a in built and b in built and continues(built[a], built[b]):
            first = head.get(a, a)
            head[b] = first
            plan.later.add(b)
            plan.goes_on[a] = b
    for key, r in sorted(built.items()):
        if key in plan.later:
            plan.parts[head[key]].append(r)
        else:
            plan.parts[key] = [r]
    return plan
