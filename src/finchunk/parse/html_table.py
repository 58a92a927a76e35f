"""Tables of SEC filings: data or layout, and data tables as compact Markdown rows.

EDGAR tables put ``$``, ``(`` and ``)``/``%`` in cells of their own and pad columns with
empty spacer cells. :func:`compact_grid` merges the symbols into the value they belong to
and keeps only the columns that hold a value; :func:`classify` tells a data table from
page layout (a grid of prose, a bulleted list drawn as a table, a table of contents).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from enum import StrEnum
from typing import TYPE_CHECKING

from finchunk.parse.sec_patterns import BULLET_RE, ITEM_OR_PART_START, PAGE_NUMBER_RE

if TYPE_CHECKING:  # the module stays light: the Word and Excel readers write tables with it
    from finchunk.parse.html_raw import Cell

_BEFORE = re.compile(r"(?:\$|\(|\(\$|\$\(|€|£|¥|US\$|C\$|R\$)")
_AFTER = re.compile(r"(?:\)|%|\)%|%\)|\)\s*%)")
_MAX_HEADER_ROWS = 4


class TableKind(StrEnum):
    DATA = "data"
    LAYOUT = "layout"
    LIST = "list"
    TOC = "toc"
    EMPTY = "empty"


def compact_grid(rows: list[list[Cell]]) -> list[list[str]]:
    """Rows of cell texts with symbols merged and spacer columns dropped.

    Each cell sits at its grid column (colspans add up). A column is kept when a
    single-column cell holds text there; a spanning cell lands on the first kept column
    it covers (or, covering none, on its own start column, which is then kept).
    """
    placed: list[list[tuple[int, int, str]]] = []
    for row in rows:
        cells: list[list] = []
        col = 0
        for cell in row:
            cells.append([col, cell.colspan, cell.text])
            col += cell.colspan
        merge_symbols(cells)
        placed.append([(c0, span, text) for c0, span, text in cells if text])
    used = {c0 for row in placed for c0, span, _ in row if span == 1}
    for row in placed:
        for c0, span, _ in row:
            if span > 1 and not any(c in used for c in range(c0, c0 + span)):
                used.add(c0)
    cols = sorted(used)
    placed = [row for row in placed if row]
    head = _header_rows(placed, cols)
    out: list[list[str]] = [_merged_header(placed[:head], cols)] if head else []
    for row in placed[head:]:
        line = [""] * len(cols)
        for c0, _span, text in row:
            i = bisect_left(cols, c0)
            if i >= len(cols):
                i = len(cols) - 1
            line[i] = f"{line[i]} {text}" if line[i] else text
        out.append(line)
    return out


def _header_rows(placed: list[list[tuple[int, int, str]]], cols: list[int]) -> int:
    """How many leading rows are column headers stacked over each other ("Years ended"
    over the years): rows with nothing in the label column; 0 unless two or more."""
    n = 0
    for row in placed[:_MAX_HEADER_ROWS]:
        if any(bisect_left(cols, c0) == 0 for c0, _, _ in row):
            break
        n += 1
    return n if 2 <= n < len(placed) else 0


def _merged_header(rows: list[list[tuple[int, int, str]]], cols: list[int]) -> list[str]:
    """One header row: each column reads its stacked headers top-down, a spanning header
    ("Years ended") repeated over every column it spans."""
    parts: list[list[str]] = [[] for _ in cols]
    for row in rows:
        for c0, span, text in row:
            lo, hi = bisect_left(cols, c0), bisect_left(cols, c0 + span)
            for i in range(lo, hi) if hi > lo else (min(lo, len(cols) - 1),):
                parts[i].append(text)
    return [" ".join(p) for p in parts]


def merge_symbols(cells: list[list]) -> None:
    """Fold ``$``/``(`` into the next non-empty cell and ``)``/``%`` into the previous."""
    for i, cell in enumerate(cells):
        text = cell[2]
        if not text or len(text) > 4:
            continue
        if _BEFORE.fullmatch(text):
            nxt = next((c for c in cells[i + 1 :] if c[2]), None)
            if nxt is not None and not _BEFORE.fullmatch(nxt[2]):
                nxt[2] = text + nxt[2]
                cell[2] = ""
        elif _AFTER.fullmatch(text):
            prev = next((c for c in reversed(cells[:i]) if c[2]), None)
            if prev is not None:
                prev[2] = prev[2] + text.replace(" ", "")
                cell[2] = ""


def classify(rows: list[list[Cell]], grid: list[list[str]]) -> TableKind:
    """What a table is for, from its cells and its compacted grid."""
    if not grid:
        return TableKind.EMPTY
    if _is_toc(rows, grid):
        return TableKind.TOC
    counts = [sum(1 for c in row if c) for row in grid]
    if max(counts) <= 1:
        return TableKind.LAYOUT
    if all(n <= 2 for n in counts) and all(_bullet_row(row) for row in grid):
        return TableKind.LIST
    if len(grid) == 1:
        return TableKind.LAYOUT
    texts = [c for row in grid for c in row if c]
    if sum(len(t) for t in texts) / len(texts) > 120 and len(grid) <= 3:
        return TableKind.LAYOUT
    return TableKind.DATA


def _bullet_row(row: list[str]) -> bool:
    first = next((c for c in row if c), "")
    return BULLET_RE.fullmatch(first) is not None


def _is_toc(rows: list[list[Cell]], grid: list[list[str]]) -> bool:
    linked = sum(1 for row in rows if any(c.linked for c in row))
    n = len(grid)
    if linked >= 3 and linked >= 0.4 * n:
        return True
    paged = 0
    for row in grid:
        filled = [c for c in row if c]
        if (
            len(filled) >= 2
            and PAGE_NUMBER_RE.fullmatch(filled[-1])
            and ITEM_OR_PART_START.match(filled[0])
        ):
            paged += 1
    return paged >= 3 and paged >= 0.4 * n


def markdown_rows(grid: list[list[str]]) -> list[str]:
    """A pipe table: the first row, a separator line, then one line per row."""
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in grid]
    sep = "| " + " | ".join("---" for _ in grid[0]) + " |"
    return [lines[0], sep, *lines[1:]]
