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
from bisect import bisect_left
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
_DASH = re.compile(r"^(?:[$€£¥(])*[-–—]{1,3}[)%]*$")
_SYMBOL = re.compile(r"^(?:US\$|[$€£¥(]|\(\$|\$\(|[)%]|\)%|%\))$")
_YEAR = re.compile(r"^(?:19|20)\d\d[*†]?$")
#: Words a number reads on from: a month ("December 31"), a note ("Note 6").
_NAMES_NUMBER = re.compile(
    r"^\(?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?$|^\(?notes?$",
    re.IGNORECASE,
)
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


def _leads(words: list[_Word], n: int) -> bool:
    """Symbol ``n`` opens the phrase after it ("% Change")."""
    if n + 1 >= len(words):
        return False
    nxt = words[n + 1]
    close = nxt.x0 - words[n].x1 <= SAME_PHRASE * 10.0
    return close and not _VALUE.match(nxt.text) and not _SYMBOL.match(nxt.text)


def _fold_symbols(words: list[_Word]) -> list[_Word]:
    """``$``/``(`` joined to the value after them, ``)``/``%`` to the one before, by the
    HTML parser's rule (:func:`merge_symbols`) applied to each run of values and symbols
    (a "%" in "% Change" stays); a value that took a ``$`` starts where the ``$`` did (its
    right edge stays the digits')."""
    out: list[_Word] = []
    run: list[_Word] = []
    for n, w in enumerate([*words, None]):
        if w is not None and (
            _VALUE.match(w.text) or _SYMBOL.match(w.text) and not _leads(words, n)
        ):
            run.append(w)
            continue
        if len(run) > 1:
            cells = [[i, 1, v.text] for i, v in enumerate(run)]
            merge_symbols(cells)
            for i, (c, v) in enumerate(zip(cells, run, strict=True)):
                if c[2]:
                    out.append(_Word(c[2], v.x0, v.x1))
                elif i + 1 < len(run) and cells[i + 1][2].startswith(v.text + run[i + 1].text):
                    run[i + 1].x0 = min(run[i + 1].x0, v.x0)
        else:
            out.extend(run)
        run = []
        if w is not None:
            out.append(w)
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
    """Word ``k`` (a year, a note mark, a day, a note number) reads on from the label word
    before it: "December 31, 2024", "administrative (1)", "(Note 6)"."""
    if k == 0 or _is_value(words[k - 1]):
        return False
    w, prev = words[k], words[k - 1].text
    kind = _YEAR.match(w.text) or _MARK.match(w.text) or _NAMES_NUMBER.match(prev)
    return bool(kind) and w.x0 - words[k - 1].x1 < size


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
    bands.sort(key=lambda b: b.right)
    # Columns of dashes alone ("$—" where a column has no amounts this year): their own
    # column unless they sit within a column of numbers.
    tol = SAME_COLUMN * size
    dashes = sorted(
        (w.x1, w.x0, r)
        for r, row in enumerate(cells)
        for w in row
        if not _DIGIT.search(w.text)
        and _DASH.match(w.text)
        and not any(b.left - tol <= w.x1 <= b.right + tol for b in bands)
    )
    extra: list[list[tuple[float, float, int]]] = []
    for d in dashes:
        if extra and d[0] - extra[-1][-1][0] <= tol:
            extra[-1].append(d)
        else:
            extra.append([d])
    bands += [
        _Band(min(p[1] for p in g), max(p[0] for p in g), sorted(p[0] for p in g))
        for g in extra
        if len({p[2] for p in g}) >= need
    ]
    return sorted(bands, key=lambda b: b.right)


def _band_of(w: _Word, bands: list[_Band], tol: float) -> int:
    """The column a cell sits in: the first whose right edge its right edge does not pass
    (numbers end at the column's right edge; "N/A" or a dash centred in it, before)."""
    for j, b in enumerate(bands):
        if w.x1 <= b.right + tol:
            return j
    return len(bands) - 1


def _header_bands(p: _Word, bands: list[_Band]) -> list[int]:
    """Columns a header phrase heads: the run of adjacent columns it fits in (each column's
    cell running from the column before's right edge to its own; text wider than a cell
    wraps, so a wider phrase spans columns) whose centre is nearest
    its own, a run of more columns costing a little more ("Years ended December 31" centred
    over three columns, a year over one); right of the last column, the last."""
    rights = [b.right for b in bands]
    n = len(bands)
    pitch = [rights[j] - rights[j - 1] for j in range(1, n)]
    first = pitch[0] if pitch else 1.5 * (bands[0].right - bands[0].left) + 1.0
    lefts = [rights[0] - first, *rights[:-1]]
    unit = sum(pitch) / len(pitch) if pitch else first
    width = p.x1 - p.x0
    best: tuple[float, int, int] | None = None
    for a in range(n):
        for b in range(a, n):
            lo, hi = lefts[a], rights[b]
            if width > hi - lo or not lo - 0.25 * unit <= p.mid <= hi + 0.25 * unit:
                continue
            score = abs((lo + hi) / 2 - p.mid) / unit + 0.3 * (b - a)
            if best is None or score < best[0]:
                best = (score, a, b)
    if best is None:
        near = min(range(n), key=lambda j: abs((lefts[j] + rights[j]) / 2 - p.mid))
        return [near]
    return list(range(best[1], best[2] + 1))


@dataclass(slots=True)
class Rebuilt:
    """A table block as rows × columns: its caption lines, its header row (label column
    first; None without one), its body rows, its columns' right edges."""

    captions: list[str]
    header: list[list[str]]
    rows: list[list[str]]
    rights: list[float]
    size: float

    def grid(self) -> list[list[str]]:
        return _drop_empty_columns([*self.header, *self.rows])


def _drop_empty_columns(grid: list[list[str]]) -> list[list[str]]:
    keep = [j for j in range(len(grid[0])) if any(row[j] for row in grid)] if grid else []
    return [[row[j] for j in keep] for row in grid]


def _row_text(r: _Row, lines: Sequence[Line]) -> str:
    return " ".join(lines[i].text for i in r.lines)


def rebuild(lines: Sequence[Line]) -> list[tuple[int, int, Rebuilt | None]]:
    """A table block's lines as one table or more (lines ``first..last`` of the block
    each, with its grid, None when no number columns are found there): the scanner runs
    tables that sit close together into one block, and a header row below rows of numbers
    ("2025 2024" over new columns) starts a table of its own, with the caption lines
    right above it."""
    rows = _visual_rows(lines)
    cuts = [0, *_table_starts(rows), len(rows)]
    out: list[tuple[int, int, Rebuilt | None]] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        part = rows[a:b]
        first = min(i for r in part for i in r.lines)
        last = max(i for r in part for i in r.lines)
        if out and first <= out[-1][1]:  # rows of the two interleave in the stream: one table
            return [(0, len(lines) - 1, _grid(rows, lines))] if rows else []
        out.append((first, last, _grid(part, lines)))
    return out


def _table_starts(rows: list[_Row]) -> list[int]:
    """Rows where a new table starts: a header row (two years or more and no other value)
    after two rows of numbers or more,
    moved up over the header and caption rows (no values) right above it."""
    starts: list[int] = []
    data = 0
    for k, r in enumerate(rows):
        values = [w for w in r.words if _is_data(w)]
        if values:
            data += 1
            continue
        if data < 2 or not r.words:
            continue
        if sum(bool(_YEAR.match(w.text)) for w in r.words) < 2:
            continue
        s = k
        while s - 1 > (starts[-1] if starts else 0) and k - s < 4:
            up = rows[s - 1]
            if any(_is_data(w) for w in up.words) or _row_text_words(up).endswith(":"):
                break
            s -= 1
        starts.append(s)
        data = 0
    return starts


def _row_text_words(r: _Row) -> str:
    return " ".join(w.text for w in r.words)


def _grid(rows: list[_Row], lines: Sequence[Line]) -> Rebuilt | None:
    """The grid of a table's rows, or None when no number columns are found."""
    if not rows:
        return None
    sizes = sorted(r.size for r in rows)
    size = sizes[len(sizes) // 2]
    trailing = [_trailing(r) for r in rows]
    body = next((k for k, t in enumerate(trailing) if any(map(_is_data, t))), None)
    if body is None:
        return None
    bands = _columns(trailing[body:], size)
    if not _aligned(trailing[body:], bands, size):
        return _by_text(rows, trailing, body, size, lines)
    start = bands[0].left - SAME_COLUMN * size  # where the columns begin
    labels = [_split(r, bands, start) for r in rows[body:]]
    label_left = min((x for _, _, x in labels), default=start)
    # Above the first row of numbers: caption lines, then header rows (words over columns,
    # not starting at the labels' left edge).
    head: list[int] = []
    heads: list[tuple[list[_Word], list[_Word]]] = []  # per header row: label, column phrases
    for k in range(body):
        phrases = _phrases(rows[k].words, rows[k].size)
        over = [p for p in phrases if p.x1 > start and p.x0 > label_left + 2 * size]
        if over:
            head.append(k)
            heads.append(([p for p in phrases if p not in over], over))
    if head:
        first_head = head[0]
        captions = list(range(first_head))
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
    return Rebuilt(
        captions=[_row_text(rows[k], lines) for k in captions],
        header=_header(heads, bands),
        rows=grid_rows,
        rights=[b.right for b in bands],
        size=size,
    )


def _aligned(cells: list[list[_Word]], bands: list[_Band], size: float) -> bool:
    """Whether the columns hold the numbers: nine in ten end on a column's right edges (no
    columns when the numbers run on after their labels, as typed text does)."""
    tol = SAME_COLUMN * size
    ends = sorted(x for b in bands for x in b.rights)
    nums = [w.x1 for row in cells for w in row if _DIGIT.search(w.text)]
    if not bands or not nums:
        return False
    hit = 0
    for x in nums:
        k = bisect_left(ends, x - tol)
        hit += k < len(ends) and ends[k] <= x + tol
    return hit >= 0.9 * len(nums)


def _by_text(
    rows: list[_Row], trailing: list[list[_Word]], body: int, size: float, lines: Sequence[Line]
) -> Rebuilt:
    """The grid when the numbers do not line up in columns: each row's values (the numbers
    ending it) fill the last columns, as many as the row with most; rows above the first
    number with two years or more are the header, the others its caption."""
    width = max(len(t) for t in trailing[body:])
    grid: list[tuple[str, list[str]]] = []
    header: list[list[str]] = []
    captions: list[str] = []
    for k, (r, vals) in enumerate(zip(rows, trailing, strict=True)):
        if k < body:  # a header's years read on from its label ("(Millions) 2023 2022")
            n = len(r.words)
            while n and _YEAR.match(r.words[n - 1].text):
                n -= 1
            vals = r.words[n:] if len(r.words) - n >= 2 else vals
        label = " ".join(w.text for w in r.words[: len(r.words) - len(vals)])
        cells = [""] * (width - len(vals)) + [w.text for w in vals][-width:]
        if k >= body:
            grid.append((label, cells))
        elif sum(bool(_YEAR.match(w.text)) for w in vals) >= 2:
            header.append([label, *cells])
        elif not header:
            captions.append(_row_text(r, lines))
        else:
            grid.append((_row_text(r, lines), [""] * width))
    rows_out = [[label, *cells] for label, cells in _join_wrapped(grid)]
    return Rebuilt(captions, header, rows_out, [], size)


@dataclass(slots=True)
class _Cell:
    """A header cell: its phrases, top-down (a cell's text wrapped over lines), its box and
    the last header row it reaches (header cells sit on the bottom of their row)."""

    text: str
    x0: float
    x1: float
    row: int

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2


def _header_cells(heads: list[tuple[list[_Word], list[_Word]]], bands: list[_Band]) -> list[_Cell]:
    """Phrases over the columns, a phrase joined to the one right above it when each one's
    centre lies within the other and the upper one is a cell's first line: narrower than a
    column ("June 28," over "2025"), or wider, over a header row that is not the last
    ("Three months ended" over "June 30," over the years); a wide phrase over the last
    header row spans the columns below it ("Year Ended December 31," over the years)."""
    rights = [b.right for b in bands]
    pitch = min((b - a for a, b in zip(rights, rights[1:], strict=False)), default=0.0)
    last = len(heads) - 1
    cells: list[_Cell] = []
    for k, (_, over) in enumerate(heads):
        for p in over:
            up = next(
                (
                    c
                    for c in cells
                    if c.row == k - 1 and c.x0 <= p.mid <= c.x1 and p.x0 <= c.mid <= p.x1
                ),
                None,
            )
            narrow = up is not None and (not pitch or up.x1 - up.x0 <= pitch)
            if up is None or not (narrow or k < last):
                cells.append(_Cell(p.text, p.x0, p.x1, k))
            else:
                up.text, up.row = f"{up.text} {p.text}", k
                up.x0, up.x1 = min(up.x0, p.x0), max(up.x1, p.x1)
    return cells


def _header(heads: list[tuple[list[_Word], list[_Word]]], bands: list[_Band]) -> list[list[str]]:
    """The header rows, as the HTML parser writes them: leading rows that leave the label
    column empty, two or more, merged into one (each column reading its cells top-down, a
    cell over several columns repeated over each); the rows from the first with a label
    cell ("(Dollars in millions) 2025 2024") merged into another; a lone row before that
    ("Six Months Ended June 30,") kept apart, a cell over several columns over its first."""
    cells = _header_cells(heads, bands)
    rows = sorted({c.row for c in cells} | {k for k, (lab, _) in enumerate(heads) if lab})
    labelled = [k for k in rows if heads[k][0]]
    split = next((n for n, k in enumerate(rows) if k in labelled), len(rows))
    groups = [(rows[:split], split > 1), (rows[split:], True)]
    out: list[list[str]] = []
    for keys, merged in groups:
        if not keys:
            continue
        lo, hi = keys[0], keys[-1]
        cols: list[list[str]] = [[] for _ in bands]
        for c in cells:
            if lo <= c.row <= hi:
                js = _header_bands(_Word(c.text, c.x0, c.x1), bands)
                for j in js if merged else js[:1]:
                    cols[j].append(c.text)
        label = " ".join(p.text for k in range(lo, hi + 1) for p in heads[k][0])
        out.append([label, *(" ".join(t) for t in cols)])
    return out


def _split(r: _Row, bands: list[_Band], start: float) -> tuple[str, list[str], float]:
    """A body row's label, its cells (one per column) and the label's left edge; a row
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
            cells[_band_of(w, bands, SAME_COLUMN * r.size)].append(w.text)
    right = max((w.x1 for w in label), default=0.0)
    if right > bands[0].left + SAME_COLUMN * r.size:  # a note or sentence across the table
        return " ".join(w.text for w in words), [""] * len(bands), start
    left = label[0].x0 if label else start
    return " ".join(w.text for w in label), [" ".join(c) for c in cells], left


def _join_wrapped(rows: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """A label wrapped over rows as one: two rows of which one has no values join when
    the second starts in lower case or the first ends in a connector ("and", "of", a
    comma); a label-only row ending with ":" stays a row."""
    out: list[tuple[str, list[str]]] = []
    for label, cells in rows:
        if out and label and out[-1][0]:
            prev_label, prev_cells = out[-1]
            last = prev_label.rsplit(None, 1)[-1].lower()
            runs_on = last in _CONNECTORS or prev_label.endswith(",") or label[0].islower()
            if runs_on and not prev_label.endswith(":") and not (any(cells) and any(prev_cells)):
                out[-1] = (f"{prev_label} {label}", cells if any(cells) else prev_cells)
                continue
        out.append((label, cells))
    return out


# --- continued tables and the written text --------------------------------------------------


def continues(prev: Rebuilt, nxt: Rebuilt) -> bool:
    """Whether ``nxt`` (starting a page) goes on with ``prev`` (ending the page before):
    the same number columns (right edges within two type sizes), no header of its own or
    the same one, no caption but a repeated one or a "continued" line."""
    if not prev.rights or len(prev.rights) != len(nxt.rights):
        return False
    tol = 2 * max(prev.size, nxt.size)
    if any(abs(a - b) > tol for a, b in zip(prev.rights, nxt.rights, strict=True)):
        return False
    if nxt.header and _fold(str(nxt.header)) != _fold(str(prev.header)):
        return False
    seen = {_fold(c) for c in prev.captions}
    return all(_CONTINUED.search(c) or _fold(c) in seen for c in nxt.captions)


def _fold(text: str) -> str:
    return " ".join(_CONTINUED.sub("", text).casefold().split())


def table_text(parts: Sequence[Rebuilt]) -> tuple[str, list[int]]:
    """A table (continued over ``parts``, one per page) as its caption lines and a Markdown
    table; with the offsets in that text where each later part's rows begin."""
    first = parts[0]
    rows = [*first.header, *first.rows]
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
    #: A table's first part → the notes its later parts cite.
    cites: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)


def plan_tables(pages: Sequence[Sequence[Line]], blocks: Sequence[list[Block]]) -> TablePlan:
    """Rebuild every table block (split in place where it holds tables set close together:
    :func:`rebuild`), and join a table that ends a page (nothing but page
    furniture after it) with one that starts the next page (nothing but furniture before
    it) when :func:`continues` says it goes on."""
    plan = TablePlan()
    built: dict[tuple[int, int], Rebuilt] = {}
    for p, (lines, bl) in enumerate(zip(pages, blocks, strict=True)):
        split: list[Block] = []
        for b in bl:
            if b.kind is not ElementKind.TABLE:
                split.append(b)
                continue
            parts = rebuild(lines[b.first : b.last + 1])
            for n, (lo, hi, r) in enumerate(parts):
                cites = b.cites if n == len(parts) - 1 else ()
                split.append(Block(ElementKind.TABLE, b.first + lo, b.first + hi, cites=cites))
                if r is not None:
                    built[(p, len(split) - 1)] = r
        bl[:] = split
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
            marks = plan.cites.get(first, ()) + blocks[p + 1][nxt[0]].cites
            plan.cites[first] = tuple(dict.fromkeys(marks))
    for key, r in sorted(built.items()):
        if key in plan.later:
            plan.parts[head[key]].append(r)
        else:
            plan.parts[key] = [r]
    return plan
