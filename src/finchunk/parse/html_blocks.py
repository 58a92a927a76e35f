"""From raw blocks to readable blocks: tables resolved, page furniture dropped.

Data tables become :class:`DataTable` (Markdown lines plus the note marks their cells
cite, with note rows at their foot split off as paragraphs); layout tables are read as
paragraphs; tables of contents are dropped. Page numbers and running headers/footers
next to page breaks are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from finchunk.parse.html_raw import Anchor, Block, Cell, Para, RawTable
from finchunk.parse.html_table import TableKind, classify, compact_grid, markdown_rows
from finchunk.parse.sec_patterns import (
    BULLET_RE,
    CELL_MARK_RE,
    NOTE_RE,
    PAGE_NUMBER_RE,
    FurnitureRule,
    PageEdges,
    heading_key,
)

_GLYPHS = "•●◦▪■□○·‣"
_FURNITURE_MAX = 120
#: A line repeated next to 3 page breaks and a tenth of them is furniture (a sentence: a
#: quarter), digits counting unless they run with the pages; page numbers: the shape of one,
#: continued by a number next to a break nearby.
FURNITURE = FurnitureRule(
    PAGE_NUMBER_RE,
    every=10,
    sentence_every=4,
    max_chars=_FURNITURE_MAX,
    sequence=True,
    count_by="break",
    digits="page",
)
_SENTENCE_END = frozenset('.!?:;"”)')


@dataclass(slots=True)
class DataTable:
    lines: list[str]
    page: int
    marks: tuple[str, ...] = ()


Item = Para | DataTable


def resolve_tables(blocks: list[Block]) -> list[Item]:
    """Replace each raw table by a data table, its paragraphs, or nothing (a TOC).

    The Part/Item rows of a dropped table of contents are kept by their link target:
    where the body lacks a heading for a listed Item at that target, the TOC's label is
    put there as a heading (some 10-Qs print "Item 1." only in the TOC).
    """
    out: list[Block | Item] = []
    toc: dict[str, list[str]] = {}
    for b in blocks:
        if isinstance(b, RawTable):
            grid = compact_grid(b.rows)
            kind = classify(b.rows, grid)
            if kind is TableKind.TOC:
                _toc_entries(b.rows, toc)
            else:
                out.extend(_resolve(b, grid, kind))
        else:
            out.append(b)
    return _place_toc_headings(out, toc)


def _toc_entries(rows: list[list[Cell]], toc: dict[str, list[str]]) -> None:
    pending: list[str] = []
    for row in rows:
        texts = [t for t in (c.text for c in row) if t]
        if len(texts) > 1 and PAGE_NUMBER_RE.fullmatch(texts[-1]):
            texts.pop()
        label = " ".join(texts)
        if not texts or len(label) > 200 or heading_key(label) is None:
            continue
        pending.append(label)
        href = _row_target(row)
        if href:
            toc.setdefault(href, []).extend(pending)
            pending = []


def _row_target(row: list[Cell]) -> str | None:
    """The link target most cells of a TOC row agree on (ties: the rightmost, the page
    number's link; the "Item 1." cell's link is the one filers get wrong)."""
    hrefs = [c.href for c in row if c.href]
    if not hrefs:
        return None
    return max(reversed(hrefs), key=hrefs.count)


def _place_toc_headings(items: list[Block | Item], toc: dict[str, list[str]]) -> list[Item]:
    out: list[Item] = []
    seen: set[str] = set()  # the current Part and the Items seen since it began
    for i, it in enumerate(items):
        if isinstance(it, Anchor):
            labels = toc.get(it.id)
            if labels:
                near = items[i + 1 : i + 5]
                present = seen | {heading_key(p.text) for p in near if isinstance(p, Para)}
                for label in labels:
                    key = heading_key(label)
                    if key not in present:
                        out.append(Para(text=label, bold=1.0, page=it.page))
                        _see(seen, key)
        elif not isinstance(it, RawTable):
            if isinstance(it, Para) and len(it.text) <= 200:
                _see(seen, heading_key(it.text))
            out.append(it)
    return out


def _see(seen: set[str], key: str | None) -> None:
    if key is None:
        return
    if key.startswith("PART:"):
        seen.clear()
    seen.add(key)


def _resolve(t: RawTable, grid: list[list[str]], kind: TableKind) -> list[Item]:
    if kind is TableKind.DATA:
        return _data_table(t, grid)
    if kind is TableKind.LAYOUT:
        return _layout_paras(t.rows)
    if kind is TableKind.LIST:
        return _list_paras(t.rows)
    return []


def _data_table(t: RawTable, grid: list[list[str]]) -> list[Item]:
    notes: list[Para] = []
    while len(grid) > 2:
        filled = [c for c in grid[-1] if c]
        if len(filled) != 1 or not NOTE_RE.match(filled[0]) or len(filled[0]) < 20:
            break
        notes.append(Para(text=filled[0], page=t.page))
        grid.pop()
    notes.reverse()
    keep = [j for j in range(len(grid[0])) if any(row[j] for row in grid)]
    grid = [[row[j] for j in keep] for row in grid]
    marks: dict[str, None] = {}
    for row in grid:
        for cell in row:
            m = CELL_MARK_RE.search(cell)
            if m:
                marks[m.group(1) or m.group(2)] = None
    for row in t.rows:
        for cell in row:
            for p in cell.paras:
                for mk in p.marks:
                    marks[mk] = None
    return [DataTable(lines=markdown_rows(grid), page=t.page, marks=tuple(marks)), *notes]


def merge_paras(paras: list[Para]) -> Para:
    """One paragraph from several (cells of a layout row): texts joined by a space."""
    if len(paras) == 1:
        return paras[0]
    total = sum(len(p.text) for p in paras) or 1
    return Para(
        text=" ".join(p.text for p in paras),
        bold=sum(p.bold * len(p.text) for p in paras) / total,
        page=paras[0].page,
        lead_mark=paras[0].lead_mark,
        marks=tuple(m for p in paras for m in p.marks),
        list_item=any(p.list_item for p in paras),
        htag=max(p.htag for p in paras),
        linked=sum(p.linked * len(p.text) for p in paras) / total,
    )


def _layout_paras(rows: list[list[Cell]]) -> list[Item]:
    out: list[Item] = []
    for row in rows:
        cells = [c for c in row if c.paras]
        if not cells:
            continue
        if len(cells) > 1 and all(len(c.paras) == 1 for c in cells):
            out.append(merge_paras([c.paras[0] for c in cells]))
            continue
        paras = [p for c in cells for p in c.paras]
        if len(cells) > 1 and len(cells[0].paras) == 1 and BULLET_RE.fullmatch(paras[0].text):
            head = merge_paras(paras[:2])
            head.list_item = True
            paras = [head, *paras[2:]]
        out.extend(paras)
    return out


def _list_paras(rows: list[list[Cell]]) -> list[Item]:
    out: list[Item] = []
    for row in rows:
        paras = [p for c in row for p in c.paras]
        if not paras:
            continue
        p = merge_paras(paras)
        p.list_item = True
        out.append(p)
    return out


# -- page furniture -------------------------------------------------------------------
def drop_furniture(items: list[Item], passes: int = 3) -> list[Item]:
    """Drop page furniture; repeat while a pass drops something (headers run deep)."""
    for _ in range(passes):
        kept = _drop_furniture_once(items)
        if len(kept) == len(items):
            break
        items = kept
    return items


def _drop_furniture_once(items: list[Item]) -> list[Item]:
    """Drop page numbers and running headers/footers found next to page breaks.

    The short paragraphs just before and after each break are a page's edges (the first
    page's top is the cover: not looked at); :data:`FURNITURE` decides which are furniture.
    """
    pages = _pages(items)
    if len(pages) < 2:
        return items
    edges: list[PageEdges] = []
    where: list[tuple[list[int], list[int]]] = []
    for n, (first, last) in enumerate(pages):
        top = _short_run(items, first, 1) if n else []
        bottom = _short_run(items, last, -1)
        where.append((top, bottom))
        rest = last - first + 1 - len(set(top) | set(bottom))
        edges.append(PageEdges(_texts(items, top), _texts(items, bottom), rest=rest))
    drop: set[int] = set()
    for (top, bottom), (in_top, in_bottom) in zip(where, FURNITURE.decide(edges), strict=True):
        drop.update(top[i] for i in in_top)
        drop.update(bottom[i] for i in in_bottom)
    return [it for i, it in enumerate(items) if i not in drop]


def join_split_paragraphs(items: list[Item]) -> list[Item]:
    """Rejoin a paragraph a page break cut in two: the part before the break stops
    mid-sentence and the part after starts in lower case."""
    out: list[Item] = []
    for it in items:
        prev = out[-1] if out else None
        if (
            isinstance(it, Para)
            and isinstance(prev, Para)
            and prev.page != it.page
            and it.text[:1].islower()
            and prev.text[-1:] not in _SENTENCE_END
            and prev.bold < 0.5
            and it.bold < 0.5
            and not (prev.list_item or it.list_item or it.lead_mark)
        ):
            joined = merge_paras([prev, it])
            joined.list_item = False
            shift = len(prev.text) + 1
            joined.page_breaks = (
                *prev.page_breaks,
                (shift, it.page),
                *((off + shift, pg) for off, pg in it.page_breaks),
            )
            out[-1] = joined
        else:
            out.append(it)
    return out


def _pages(items: list[Item]) -> list[tuple[int, int]]:
    """The (first, last) item indexes of each page, in order."""
    out: list[tuple[int, int]] = []
    first = 0
    for i in range(1, len(items) + 1):
        if i == len(items) or items[i].page != items[first].page:
            out.append((first, i - 1))
            first = i
    return out


def _texts(items: list[Item], indexes: list[int]) -> list[str]:
    return [it.text for i in indexes if isinstance(it := items[i], Para)]


def _short_run(items: list[Item], start: int, step: int) -> list[int]:
    out: list[int] = []
    page = items[start].page
    i = start
    while 0 <= i < len(items) and len(out) < 3:
        it = items[i]
        if not isinstance(it, Para) or it.page != page or len(it.text) > _FURNITURE_MAX:
            break
        out.append(i)
        i += step
    return out


def bullet_text(p: Para) -> str:
    """A list item's line: a bullet glyph becomes "- ", an enumerator stays."""
    text = p.text
    if text[:1] in _GLYPHS or text[:2] in ("- ", "– ", "— "):
        return "- " + text[1:].lstrip()
    return text if not p.list_item or BULLET_RE.fullmatch(text.split(" ", 1)[0]) else "- " + text


def is_glyph_bullet(text: str) -> bool:
    return text[:1] in _GLYPHS
