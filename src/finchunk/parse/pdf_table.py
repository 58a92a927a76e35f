"""A PDF table block → rows × columns, written as a Markdown table (no ML).

The layout scanner (:mod:`finchunk.parse.pdf_layout`) finds a table as a run of lines; this
module rebuilds its grid from where its words sit on the page (each line's bottom edge and,
for lines that may be in a table, each word's left and right edges: :attr:`Line.words`,
read by :mod:`finchunk.parse.pdf` only on pages with table rows, :func:`table_candidates`):

* **rows and columns** (:mod:`finchunk.parse.pdf_table_rows`): lines at the same height are
  one row (pdfium gives a stacked header cell's lines, "June 28," over "2025", or a label
  wrapped above its numbers as lines of their own); ``$``/``(`` join the value after them,
  ``)``/``%`` the one before, as the HTML parser folds them; the right edges of the body
  rows' numbers (of their last digit) cluster into columns;
* **the label** of a row is what lies left of the first column; a year, day or note mark
  glued to it stays in it ("December 31, 2024", "administrative (1)"); a row whose words
  run on into the columns (a note across the table) is all label;
* **header rows** (:mod:`finchunk.parse.pdf_table_head`): the rows above the first row
  with a value that is not a year whose phrases sit over the columns; a phrase heads the
  run of columns it fits in and is centred on ("Years ended December 31" over three
  columns, a year over one); stacked rows merge as the HTML parser merges them; words at
  the labels' left on a header row are the label column's header; label-only lines above
  the header are the caption, kept above the Markdown table as lines of their own;
* **wrapped labels**: a label-only row joins the next when that starts in lower case or
  it ends in "and", "of", a comma … ("Adjustment for net losses realized and" / "included
  in net income"); a label-only row ending with ":" stays a row ("Operating activities:");
* **typed tables**: when the numbers do not line up (nine in ten on a column's edges),
  each row's numbers fill the last columns, as many as the widest row;
* **tables set close together** in one block are split at a new header row of years
  (:func:`rebuild`); **continued tables**: a table that ends a page (nothing but page
  furniture after it) and one that starts the next (nothing but furniture before it) with
  the same columns are one table (:func:`continues`, :func:`plan_tables`); the second's
  header and caption are dropped when they repeat the first's (or say "continued").

The grid is written with the HTML parser's writer (:func:`markdown_rows`), so the bench and
the chunkers read PDF and HTML tables alike. A block without number columns is written as
its lines, as before.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

from finchunk.model import ElementKind
from finchunk.parse.html_table import markdown_rows
from finchunk.parse.pdf_layout import Block, Line
from finchunk.parse.pdf_table_head import header_rows
from finchunk.parse.pdf_table_rows import (
    DIGIT,
    SAME_COLUMN,
    YEAR,
    Band,
    Row,
    Word,
    band_of,
    columns,
    glued,
    is_data,
    is_value,
    phrases,
    trailing,
    visual_rows,
)

_CONTINUED = re.compile(r"\bcontinued\b|\(cont(?:['’]d|\.)\)", re.IGNORECASE)
_CONNECTORS = frozenset(
    {"and", "of", "the", "for", "in", "to", "on", "from", "or", "with", "by", "&", "-", "–"}
)

#: Lines within this many lines above a page's first table row may be its caption or header.
REACH = 16
#: A line longer than this, without a number, is prose: its words' edges are not read.
MAX_LABEL = 90


def table_candidates(lines: Sequence[Line]) -> list[int]:
    """Indexes of the lines of a page whose words' edges are worth reading: on a page with
    two or more table rows (two numbers or more), the lines from a little above the first
    row to just below the last that hold a number or are short."""
    rows = [i for i, ln in enumerate(lines) if ln.nums >= 2]
    if len(rows) < 2:
        return []
    lo, hi = max(0, rows[0] - REACH), min(len(lines), rows[-1] + 3)
    return [i for i in range(lo, hi) if lines[i].nums >= 1 or len(lines[i].text) <= MAX_LABEL]


@dataclass(slots=True)
class Rebuilt:
    """A table block as rows × columns: its caption lines, its header rows (label column
    first), its body rows, its columns' right edges, the lines below its last values."""

    captions: list[str]
    header: list[list[str]]
    rows: list[list[str]]
    rights: list[float]
    size: float
    #: Lines after the last row of values (sentences below the table), written below it.
    tail: list[str] = field(default_factory=list)

    def grid(self) -> list[list[str]]:
        return _drop_empty_columns([*self.header, *self.rows])


def _drop_empty_columns(grid: list[list[str]]) -> list[list[str]]:
    keep = [j for j in range(len(grid[0])) if any(row[j] for row in grid)] if grid else []
    return [[row[j] for j in keep] for row in grid]


def _row_text(r: Row, lines: Sequence[Line]) -> str:
    return " ".join(lines[i].text for i in r.lines)


def rebuild(lines: Sequence[Line]) -> list[tuple[int, int, Rebuilt | None]]:
    """A table block's lines as one table or more (lines ``first..last`` of the block
    each, with its grid, None when no number columns are found there): the scanner runs
    tables that sit close together into one block, and a header row below rows of numbers
    ("2025 2024" over new columns) starts a table of its own, with the caption lines
    right above it."""
    rows = visual_rows(lines)
    if not rows:
        return []
    cuts = [0, *sorted(set(_table_starts(rows)) | set(_column_change(rows))), len(rows)]
    out: list[tuple[int, int, Rebuilt | None]] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        part = rows[a:b]
        first = min(i for r in part for i in r.lines)
        last = max(i for r in part for i in r.lines)
        if out and first <= out[-1][1]:  # rows of the two interleave in the stream: one table
            return [(0, len(lines) - 1, _grid(rows, lines))] if rows else []
        out.append((first, last, _grid(part, lines)))
    return out


def _table_starts(rows: list[Row]) -> list[int]:
    """Rows where a new table starts: a header row (two years or more and no other value)
    after two rows of numbers or more,
    moved up over the header and caption rows (no values) right above it."""
    starts: list[int] = []
    data = 0
    for k, r in enumerate(rows):
        values = [w for w in r.words if is_data(w)]
        if values:
            data += 1
            continue
        if data < 2 or not r.words:
            continue
        if sum(bool(YEAR.match(w.text)) for w in r.words) < 2:
            continue
        s = k
        while s - 1 > (starts[-1] if starts else 0) and k - s < 4:
            up = rows[s - 1]
            if any(is_data(w) for w in up.words) or _row_text_words(up).endswith(":"):
                break
            s -= 1
        starts.append(s)
        data = 0
    return starts


def _column_change(rows: list[Row]) -> list[int]:
    """Where the rows of numbers move to other columns (two tables of other layouts, a
    table of percentages below one of amounts): the first row from which no row uses a
    column the rows above used, two rows of numbers or more on each side; moved up over
    the label rows right above it ("Gross margin percentage:")."""
    sizes = sorted(r.size for r in rows)
    size = sizes[len(sizes) // 2]
    tails = [trailing(r) for r in rows]
    data = [k for k, t in enumerate(tails) if any(map(is_data, t))]
    if len(data) < 4:
        return []
    bands = columns([tails[k] for k in data], size)
    if len(bands) < 2:
        return []
    tol = SAME_COLUMN * size
    used = [
        {j for w in tails[k] if DIGIT.search(w.text) for j in _bands_at(w.x1, bands, tol)}
        for k in data
    ]
    for n in range(2, len(data) - 1):
        above = set().union(*used[:n])
        if above and not above & set().union(*used[n:]):
            s = data[n]
            while s - 1 > data[n - 1] and data[n] - s < 3:
                s -= 1
            return [s]
    return []


def _bands_at(x: float, bands: list[Band], tol: float) -> list[int]:
    return [j for j, b in enumerate(bands) if any(abs(x - r) <= tol for r in b.rights)]


def _row_text_words(r: Row) -> str:
    return " ".join(w.text for w in r.words)


def _grid(rows: list[Row], lines: Sequence[Line]) -> Rebuilt | None:
    """The grid of a table's rows, or None when no number columns are found."""
    if not rows:
        return None
    sizes = sorted(r.size for r in rows)
    size = sizes[len(sizes) // 2]
    tails = [trailing(r) for r in rows]
    body = next((k for k, t in enumerate(tails) if any(map(is_data, t))), None)
    if body is None:
        return None
    bands = columns(tails[body:], size)
    if not _aligned(tails[body:], bands, size):
        return _by_text(rows, tails, body, size, lines)
    start = bands[0].left - SAME_COLUMN * size  # where the columns begin
    labels = [_split(r, bands, start) for r in rows[body:]]
    label_left = min((x for _, _, x in labels), default=start)
    # Above the first row of numbers: caption lines, then header rows (words over columns,
    # not starting at the labels' left edge).
    head: list[int] = []
    heads: list[tuple[list[Word], list[Word]]] = []  # per header row: label, column phrases
    for k in range(body):
        found = phrases(rows[k].words, rows[k].size)
        over = [p for p in found if p.x1 > start and p.x0 > label_left + 2 * size]
        if over:
            head.append(k)
            heads.append(([p for p in found if p not in over], over))
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
    n = len(grid_rows) - _tail(grid_rows)
    return Rebuilt(
        captions=[_row_text(rows[k], lines) for k in captions],
        header=header_rows(heads, bands),
        rows=grid_rows[:n],
        rights=[b.right for b in bands],
        size=size,
        tail=[row[0] for row in grid_rows[n:]],
    )


def _aligned(cells: list[list[Word]], bands: list[Band], size: float) -> bool:
    """Whether the columns hold the numbers: nine in ten end on a column's right edges (no
    columns when the numbers run on after their labels, as typed text does)."""
    tol = SAME_COLUMN * size
    ends = sorted(x for b in bands for x in b.rights)
    nums = [w.x1 for row in cells for w in row if DIGIT.search(w.text)]
    if not bands or not nums:
        return False
    hit = 0
    for x in nums:
        k = bisect_left(ends, x - tol)
        hit += k < len(ends) and ends[k] <= x + tol
    return hit >= 0.9 * len(nums)


def _by_text(
    rows: list[Row], tails: list[list[Word]], body: int, size: float, lines: Sequence[Line]
) -> Rebuilt:
    """The grid when the numbers do not line up in columns: each row's values (the numbers
    ending it) fill the last columns, as many as the row with most; rows above the first
    number with two years or more are the header, the others its caption."""
    width = max(len(t) for t in tails[body:])
    grid: list[tuple[str, list[str]]] = []
    header: list[list[str]] = []
    captions: list[str] = []
    for k, (r, vals) in enumerate(zip(rows, tails, strict=True)):
        if k < body:  # a header's years read on from its label ("(Millions) 2023 2022")
            n = len(r.words)
            while n and YEAR.match(r.words[n - 1].text):
                n -= 1
            vals = r.words[n:] if len(r.words) - n >= 2 else vals
        label = " ".join(w.text for w in r.words[: len(r.words) - len(vals)])
        cells = [""] * (width - len(vals)) + [w.text for w in vals][-width:]
        if k >= body:
            grid.append((label, cells))
        elif sum(bool(YEAR.match(w.text)) for w in vals) >= 2:
            header.append([label, *cells])
        elif not header:
            captions.append(_row_text(r, lines))
        else:
            grid.append((_row_text(r, lines), [""] * width))
    rows_out = [[label, *cells] for label, cells in _join_wrapped(grid)]
    return Rebuilt(captions, header, rows_out, [], size)


def _split(r: Row, bands: list[Band], start: float) -> tuple[str, list[str], float]:
    """A body row's label, its cells (one per column) and the label's left edge; a row
    whose words run from the label on into the columns is all label."""
    cells: list[list[str]] = [[] for _ in bands]
    label: list[Word] = []
    words = r.words
    prev_label = False
    for k, w in enumerate(words):
        in_cols = w.x0 >= start or (is_value(w) and w.x1 >= bands[0].left)
        prev_label = not in_cols or (prev_label and glued(words, k, r.size))
        if prev_label:
            label.append(w)
        else:
            cells[band_of(w, bands, SAME_COLUMN * r.size)].append(w.text)
    right = max((w.x1 for w in label), default=0.0)
    if right > bands[0].left + SAME_COLUMN * r.size:  # a note or sentence across the table
        return " ".join(w.text for w in words), [""] * len(bands), start
    left = label[0].x0 if label else start
    return " ".join(w.text for w in label), [" ".join(c) for c in cells], left


def _join_wrapped(rows: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """A label wrapped over rows as one: two rows of which one has no values join when
    the second starts in lower case or the first ends in a connector ("and", "of", a
    comma), and a row of values without a label joins the label-only row above it (the
    numbers set beside a label's middle line); a label-only row ending with ":" stays a
    row."""
    out: list[tuple[str, list[str]]] = []
    for label, cells in rows:
        if out and out[-1][0]:
            prev_label, prev_cells = out[-1]
            last = prev_label.rsplit(None, 1)[-1].lower()
            first = next((ch for ch in label if ch.isalpha()), "")
            runs_on = last in _CONNECTORS or prev_label.endswith(",") or first.islower()
            if not label:
                runs_on = any(cells)
            if runs_on and not prev_label.endswith(":") and not (any(cells) and any(prev_cells)):
                joined = f"{prev_label} {label}" if label else prev_label
                out[-1] = (joined, cells if any(cells) else prev_cells)
                continue
        out.append((label, cells))
    return out


def _tail(rows: list[list[str]]) -> int:
    """How many rows end the table without values (a sentence after it, a page number):
    they are written below the Markdown table as lines."""
    n = len(rows)
    while n > 1 and not any(rows[n - 1][1:]):
        n -= 1
    return len(rows) - n


# --- continued tables and the written text --------------------------------------------------


def continues(prev: Rebuilt, nxt: Rebuilt) -> bool:
    """Whether ``nxt`` (starting a page) goes on with ``prev`` (ending the page before):
    the same number columns (right edges within two type sizes), no header of its own or
    the same one, no caption but a repeated one or a "continued" line."""
    if not prev.rights or prev.tail or len(prev.rights) != len(nxt.rights):
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
    text_lines = [*first.captions, *md, *parts[-1].tail]
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


def _running_title(lines: Sequence[Line], b: Block) -> bool:
    """A short line saying the page goes on ("Notes to Financial Statements (continued)")."""
    text = " ".join(ln.text for ln in lines[b.first : b.last + 1])
    return b.kind is not ElementKind.TABLE and len(text) <= 150 and bool(_CONTINUED.search(text))


def plan_tables(pages: Sequence[Sequence[Line]], blocks: Sequence[list[Block]]) -> TablePlan:
    """Rebuild every table block (split in place where it holds tables set close together:
    :func:`rebuild`), and join a table that ends a page (nothing but page furniture after
    it) with one that starts the next page (nothing but furniture or a "(continued)" line
    before it) when :func:`continues` says it goes on."""
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
        nxt = [
            k
            for k, b in enumerate(blocks[p + 1])
            if b.kind is not ElementKind.FURNITURE and not _running_title(pages[p + 1], b)
        ]
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
