"""The header rows of a PDF table: phrases over the columns, each attached to the run of
columns it heads by where it sits, stacked rows merged as the HTML parser merges them.
Used by :mod:`finchunk.parse.pdf_table`."""

from __future__ import annotations

from dataclasses import dataclass

from finchunk.parse.pdf_table_rows import Band, Word


def _header_bands(p: Word, bands: list[Band]) -> list[int]:
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


def _header_cells(heads: list[tuple[list[Word], list[Word]]], bands: list[Band]) -> list[_Cell]:
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


def header_rows(heads: list[tuple[list[Word], list[Word]]], bands: list[Band]) -> list[list[str]]:
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
                js = _header_bands(Word(c.text, c.x0, c.x1), bands)
                for j in js if merged else js[:1]:
                    cols[j].append(c.text)
        label = " ".join(p.text for k in range(lo, hi + 1) for p in heads[k][0])
        out.append([label, *(" ".join(t) for t in cols)])
    return out
