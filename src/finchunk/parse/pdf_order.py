"""A page's columns, and reading order where pdfium's stream order interleaves them.

pdfium gives a page's lines in the order the PDF's content stream draws them, which is the
reading order on almost every page (all but 2 of 390 glossy annual-report pages measured).
The exception is a two-column page whose producer drew the text row by row across both
columns: its lines then alternate between two x-ranges while the stream only moves down the
page. :func:`reading_order` keeps the stream order except there, where it reads each column
box in turn (left, then right), each in stream order, between the full-width lines that
separate them. A table whose cells alternate between a left and a right column (an exhibit
index, a list of officers) moves back up at each row's right cell: kept as it is.

:func:`page_columns` finds the columns of a page from its lines alone: two columns when
enough text lines lie wholly on each side of the page's middle and each side's lines share
a left margin; one column (the page's text box) otherwise. Headings use it to judge a line's
position in its own column (:mod:`finchunk.parse.pdf_headings`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from finchunk.parse.pdf_layout import Line

#: Lines wholly in one column needed on each side, sharing that column's left margin.
MIN_COLUMN_LINES = 5
#: A column line: a text line this long at least (a table cell or page number is not one).
MIN_COLUMN_CHARS = 15
#: How far (points) left edges may differ and still share a margin.
MARGIN_SLACK = 2.0
#: Stream order is replaced only when the column lines change side this often (the share
#: of column lines that follow a line of the other column).
ALTERNATION = 0.4
#: ... and the stream moves back up the page this often at most (furniture drawn out of turn).
MAX_UPS = 2


@dataclass(frozen=True, slots=True)
class Columns:
    """A page's text box (``left``..``right``) and, on a two-column page, the x where the
    right column starts (``split``, 0 on a one-column page)."""

    left: float = 0.0
    right: float = 0.0
    split: float = 0.0
    #: The right edge of the left column (two columns only).
    gutter: float = 0.0

    def side(self, line: Line) -> int:
        """0: the left column (or the page's one column), 1: the right column, -1: a line
        across both."""
        if not self.split:
            return 0
        if line.x1 <= self.gutter + MARGIN_SLACK:
            return 0
        if line.x0 >= self.split - MARGIN_SLACK:
            return 1
        return -1

    def box(self, line: Line) -> tuple[float, float]:
        """The left and right edges of the column ``line`` sits in (the page's text box for
        a line across both columns)."""
        side = self.side(line) if self.split else 0
        if side == 0 and self.split:
            return self.left, self.gutter
        if side == 1:
            return self.split, self.right
        return self.left, self.right


NO_COLUMNS = Columns()


def _margin(xs: list[float]) -> tuple[float, int]:
    """The most shared left edge of ``xs`` and how many share it (within the slack)."""
    if not xs:
        return 0.0, 0
    counts = Counter(round(x / MARGIN_SLACK) for x in xs)
    key, n = counts.most_common(1)[0]
    n += counts.get(key - 1, 0) + counts.get(key + 1, 0)
    return key * MARGIN_SLACK, n


def page_columns(lines: Sequence[Line], skip: Collection[int] = ()) -> Columns:
    """The page's text box, split in two where it is set in two columns."""
    placed = [ln for i, ln in enumerate(lines) if i not in skip and ln.x1 > 0]
    if not placed:
        return NO_COLUMNS
    left = min(ln.x0 for ln in placed)
    right = max(ln.x1 for ln in placed)
    mid = (left + right) / 2
    text = [ln for ln in placed if ln.nums < 2 and len(ln.text) >= MIN_COLUMN_CHARS]
    lefts = [ln for ln in text if ln.x1 <= mid]
    rights = [ln for ln in text if ln.x0 >= mid]
    if len(lefts) < MIN_COLUMN_LINES or len(rights) < MIN_COLUMN_LINES:
        return Columns(left, right)
    lm, ln_ = _margin([ln.x0 for ln in lefts])
    rm, rn = _margin([ln.x0 for ln in rights])
    if ln_ < MIN_COLUMN_LINES or rn < MIN_COLUMN_LINES:
        return Columns(left, right)
    split = min(ln.x0 for ln in rights if abs(ln.x0 - rm) <= 2 * MARGIN_SLACK)
    gutter = max(ln.x1 for ln in lefts)
    return Columns(left, right, split, gutter)


def reading_order(lines: list[Line]) -> list[Line]:
    """``lines`` in stream order, unless the page's two columns alternate line by line and
    the stream never moves back up the page: then, between lines across both columns, the
    left column's lines come first and the right column's after them, each in stream
    order."""
    cols = page_columns(lines)
    if not cols.split:
        return lines
    sides = [cols.side(ln) for ln in lines]
    col = [
        (s, ln)
        for s, ln in zip(sides, lines, strict=True)
        if s >= 0 and ln.nums < 2 and len(ln.text) >= MIN_COLUMN_CHARS
    ]
    pairs = list(zip(col, col[1:], strict=False))
    changes = sum(a[0] != b[0] for a, b in pairs)
    if changes < MIN_COLUMN_LINES or changes < ALTERNATION * len(col):
        return lines
    # Drawn row by row, the stream only moves down the page (a running head or page number
    # drawn out of turn aside); a table's cells (a row's left cell, then its right cell,
    # level with it) and columns drawn in turn move back up.
    if any(not ln.y for _, ln in col):
        return lines
    ups = sum(
        b.y > a.y + 0.5 * max(a.size, 1.0)
        for a, b in zip(lines, lines[1:], strict=False)
        if a.y and b.y
    )
    if ups > MAX_UPS:
        return lines
    out: list[Line] = []
    run: list[int] = []

    def flush() -> None:
        out.extend(lines[k] for k in run if sides[k] == 0)
        out.extend(lines[k] for k in run if sides[k] == 1)
        run.clear()

    for k, s in enumerate(sides):
        if s < 0:
            flush()
            out.append(lines[k])
        else:
            run.append(k)
    flush()
    return out
