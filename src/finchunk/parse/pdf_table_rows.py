"""The words of a PDF table block as visual rows, and its number columns (no ML).

Lines at the same height are one row (:func:`visual_rows`); ``$``/``(`` join the value
after them and ``)``/``%`` the one before (the HTML parser's :func:`merge_symbols`, applied
to runs of values); a row's values are the numbers ending it (:func:`trailing`), a year or
note mark glued to its label excepted; the right edges of the body rows' numbers cluster
into columns (:func:`columns`). Used by :mod:`finchunk.parse.pdf_table`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from finchunk.parse.html_table import merge_symbols
from finchunk.parse.pdf_layout import Line

#: A value cell (after ``$``/``(``/``)``/``%`` joined it): a number, a dash for zero, n/m.
_VALUE = re.compile(
    r"^(?:US\$|[$€£¥(])*[-–—+]?\d[\d,]*(?:\.\d+)?(?:[)%x]|pts|bps)*[*†‡]?(?:\(\w\))?$"
    r"|^(?:[$€£¥(])*[-–—]{1,3}[)%]*$|^(?:n/?[am]|N/?[AM])$",
)
DIGIT = re.compile(r"\d")
_DASH = re.compile(r"^(?:[$€£¥(])*[-–—]{1,3}[)%]*$")
_SYMBOL = re.compile(r"^(?:US\$|[$€£¥(]|\(\$|\$\(|[)%]|\)%|%\))$")
YEAR = re.compile(r"^(?:19|20)\d\d[*†]?$")
#: Words a number reads on from: a month ("December 31"), a note ("Note 6").
_NAMES_NUMBER = re.compile(
    r"^\(?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?$|^\(?notes?$",
    re.IGNORECASE,
)
_MARK = re.compile(r"^(?:\(\w{1,2}\)|\*{1,3}|[†‡§])$")

#: Share of the type size: lines this close in height are one row; numbers' right edges
#: this close are one column; words this close are one phrase.
SAME_ROW, SAME_COLUMN, SAME_PHRASE = 0.5, 0.7, 0.8


@dataclass(slots=True)
class Word:
    text: str
    x0: float
    x1: float

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass(slots=True)
class Row:
    """One visual row: its lines (indexes into the block) and words, left to right."""

    y: float
    size: float
    lines: list[int] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)


def _line_words(ln: Line) -> list[Word]:
    parts = ln.text.split()
    if ln.words and len(ln.words) == len(parts):
        return [Word(t, a, b) for t, (a, b) in zip(parts, ln.words, strict=True)]
    # No word edges (OCR, a line too long to read): spread the words over the line.
    width = (ln.x1 - ln.x0) / max(len(ln.text), 1)
    out, pos = [], 0
    for t in parts:
        pos = ln.text.index(t, pos)
        out.append(Word(t, ln.x0 + pos * width, ln.x0 + (pos + len(t)) * width))
        pos += len(t)
    return out


def visual_rows(lines: Sequence[Line]) -> list[Row]:
    """Lines grouped into rows by height, top to bottom (pdfium's y grows upwards)."""
    ys: list[float] = []
    prev = None
    for ln in lines:  # a line without a height sits just below the one before it
        y = ln.bottom if ln.y else (prev - max(ln.size, 1.0) if prev is not None else 0.0)
        ys.append(y)
        prev = y
    order = sorted(range(len(lines)), key=lambda i: -ys[i])
    rows: list[Row] = []
    for i in order:
        ln = lines[i]
        size = ln.size or 10.0
        if rows and rows[-1].y - ys[i] <= SAME_ROW * max(size, rows[-1].size):
            rows[-1].lines.append(i)
        else:
            rows.append(Row(ys[i], size, [i]))
    for r in rows:
        r.lines.sort()
        words = sorted((w for i in r.lines for w in _line_words(lines[i])), key=lambda w: w.x0)
        r.words = _fold_symbols(words)
    return rows


def _leads(words: list[Word], n: int) -> bool:
    """Symbol ``n`` opens the phrase after it ("% Change")."""
    if n + 1 >= len(words):
        return False
    nxt = words[n + 1]
    close = nxt.x0 - words[n].x1 <= SAME_PHRASE * 10.0
    return close and not _VALUE.match(nxt.text) and not _SYMBOL.match(nxt.text)


def _fold_symbols(words: list[Word]) -> list[Word]:
    """``$``/``(`` joined to the value after them, ``)``/``%`` to the one before, by the
    HTML parser's rule (:func:`merge_symbols`) applied to each run of values and symbols
    (a "%" in "% Change" stays); a value that took a ``$`` starts where the ``$`` did (its
    right edge stays the digits')."""
    out: list[Word] = []
    run: list[Word] = []
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
                    out.append(Word(c[2], v.x0, v.x1))
                elif i + 1 < len(run) and cells[i + 1][2].startswith(v.text + run[i + 1].text):
                    run[i + 1].x0 = min(run[i + 1].x0, v.x0)
        else:
            out.extend(run)
        run = []
        if w is not None:
            out.append(w)
    return out


def phrases(words: list[Word], size: float) -> list[Word]:
    """Words closer than :data:`SAME_PHRASE` of the type size, as one phrase each."""
    out: list[Word] = []
    for w in words:
        if out and w.x0 - out[-1].x1 <= SAME_PHRASE * size:
            last = out[-1]
            out[-1] = Word(f"{last.text} {w.text}", last.x0, max(last.x1, w.x1))
        else:
            out.append(Word(w.text, w.x0, w.x1))
    return out


def is_value(w: Word) -> bool:
    return bool(_VALUE.match(w.text)) and not w.text.endswith(",")


def is_data(w: Word) -> bool:
    """A value that is no column header: a number (not a bare year), not "28," of a date."""
    return is_value(w) and bool(DIGIT.search(w.text)) and not YEAR.match(w.text)


def glued(words: list[Word], k: int, size: float) -> bool:
    """Word ``k`` (a year, a note mark, a day, a note number) reads on from the label word
    before it: "December 31, 2024", "administrative (1)", "(Note 6)"."""
    if k == 0 or is_value(words[k - 1]):
        return False
    w, prev = words[k], words[k - 1].text
    kind = YEAR.match(w.text) or _MARK.match(w.text) or _NAMES_NUMBER.match(prev)
    return bool(kind) and w.x0 - words[k - 1].x1 < size


def trailing(r: Row) -> list[Word]:
    """The values ending a row (right to left until a word that is none, or a year or mark
    glued to the label)."""
    k = len(r.words)
    while k > 0 and is_value(r.words[k - 1]) and not glued(r.words, k - 1, r.size):
        k -= 1
    return r.words[k:]


@dataclass(slots=True)
class Band:
    """One number column: its left edge (a ``$`` included) and right edges."""

    left: float
    right: float
    rights: list[float]

    @property
    def mid(self) -> float:
        return (self.left + self.right) / 2


def columns(cells: list[list[Word]], size: float) -> list[Band]:
    """Number columns from the body rows' values: right edges within
    :data:`SAME_COLUMN` of the type size are one column; a column two values of one row
    fall in is split at its widest gap; a column needs values in two rows (one when the
    table has three rows or fewer)."""
    pts = sorted(
        (w.x1, w.x0, r) for r, row in enumerate(cells) for w in row if DIGIT.search(w.text)
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
        Band(min(p[1] for p in g), max(p[0] for p in g), sorted(p[0] for p in g))
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
        if not DIGIT.search(w.text)
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
        Band(min(p[1] for p in g), max(p[0] for p in g), sorted(p[0] for p in g))
        for g in extra
        if len({p[2] for p in g}) >= need
    ]
    return sorted(bands, key=lambda b: b.right)


def band_of(w: Word, bands: list[Band], tol: float) -> int:
    """The column a cell sits in: the first whose right edge its right edge does not pass
    (numbers end at the column's right edge; "N/A" or a dash centred in it, before)."""
    for j, b in enumerate(bands):
        if w.x1 <= b.right + tol:
            return j
    return len(bands) - 1
