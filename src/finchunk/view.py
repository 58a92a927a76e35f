"""The chunk map: one row per strategy (and one for canonical passages) over a document.

The page is self-contained: inline CSS and JS (``chunkmap.css`` and ``chunkmap.js`` beside
this module) and the data as one JSON blob the script reads. Each row is a track over the
document's characters, one bar per chunk span, coloured by the chunk's kind (two shades,
alternating, so neighbours stay apart); above the rows an axis in characters (and pages,
when the document has them) and the document's top two heading levels as section bands.
Dragging on the bars zooms to a range, a section in the list zooms to it, a click pins a
chunk: its details go to the side panel and the text panel scrolls to it.

Escaping: the static HTML goes through ``html.escape``; the JSON blob has ``<``, ``>`` and
``&`` as ``\\u003c`` etc., so no document text can close the ``<script>`` holding it; the
script puts text in the page only through ``textContent`` and attribute setters.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from finchunk.chunk import Strategy, make_chunker
from finchunk.errors import InputError
from finchunk.files import atomic_write_text
from finchunk.model import ChunkKind, Document, ElementKind, Span

#: Colour of each kind: (bar, bar alternate, text tint, text tint alternate). Hues differ
#: by kind; the two shades of a kind alternate between neighbouring chunks.
KIND_COLOURS: dict[str, tuple[str, str, str, str]] = {
    ChunkKind.TEXT.value: ("#6baed6", "#2171b5", "#d2e5f5", "#9fc8ea"),
    ChunkKind.WINDOW.value: ("#8c96c6", "#4a55a2", "#dfe2f3", "#b3bae4"),
    ChunkKind.TABLE.value: ("#74c476", "#238b45", "#d3efcc", "#9bd88f"),
    ChunkKind.NOTE.value: ("#e78ac3", "#ae017e", "#f8d9ec", "#eeaad4"),
    ChunkKind.LIST.value: ("#fdae6b", "#d94801", "#fde3c8", "#fbbd84"),
    ChunkKind.MIXED.value: ("#66c2a4", "#00796b", "#d2f0e6", "#95d9c3"),
    ChunkKind.HEADING.value: ("#bf9b7a", "#7f5539", "#eee2d5", "#d6bb9f"),
    "passage": ("#f2c14e", "#b8860b", "#fff0bf", "#f6d66f"),
}
KIND_MEANING = {
    "text": "prose",
    "window": "a size window (fixed, recursive, tokens)",
    "table": "a whole table (or a row group of one)",
    "note": "notes (footnotes)",
    "list": "a list",
    "mixed": "several kinds packed together",
    "heading": "a run of headings",
    "passage": "a gold passage",
}


@dataclass(frozen=True, slots=True)
class ViewOptions:
    strategies: tuple[Strategy, ...] = (Strategy.FIXED, Strategy.RECURSIVE, Strategy.STRUCTURE)
    size: int | None = None
    range: Span | None = None


@dataclass(frozen=True, slots=True)
class Piece:
    """One chunk (or passage) of a row: its id, its spans within the range, and details."""

    label: str
    section: str
    spans: tuple[Span, ...]
    kind: str = ChunkKind.TEXT.value
    header: str = ""
    pages: tuple[int, ...] = ()
    chars: int | None = None  # len(chunk.text), header included; None for passages

    @property
    def size(self) -> int:
        return sum(e - s for s, e in self.spans)


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    pieces: tuple[Piece, ...]
    unit: str = "chunks"  # or "passages"


@dataclass(frozen=True, slots=True)
class Section:
    """A heading of the top two levels: ``rank`` 1 or 2, ``[start, end)`` up to the next
    heading of the same rank or above."""

    title: str
    rank: int
    start: int
    end: int
    path: str


@dataclass(frozen=True, slots=True)
class MapCounts:
    """What a written map shows: chunks per strategy row, and the passages (None: no row)."""

    chunks: tuple[tuple[str, int], ...]
    passages: int | None = None

    def summary(self) -> str:
        text = ", ".join(f"{name}: {n:,} chunks" for name, n in self.chunks)
        return text if self.passages is None else f"{text}; passages: {self.passages:,}"


def parse_range(spec: str) -> Span:
    """``"1000:5000"`` → (1000, 5000); either side may be empty (``":5000"``)."""
    a, sep, b = spec.partition(":")
    try:
        start = int(a) if a.strip() else 0
        end = int(b) if b.strip() else -1
    except ValueError:
        raise InputError(f"--range: expected START:END in characters, got {spec!r}") from None
    if not sep or start < 0 or (end != -1 and end <= start):
        raise InputError(f"--range: expected START:END with 0 <= START < END, got {spec!r}")
    return start, end


def _clip(spans: Sequence[Span], lo: int, hi: int) -> tuple[Span, ...]:
    return tuple((max(s, lo), min(e, hi)) for s, e in spans if e > lo and s < hi)


def strategy_rows(doc: Document, opts: ViewOptions, lo: int, hi: int) -> list[Row]:
    rows = []
    for s in opts.strategies:
        chunks = make_chunker(s, size=opts.size).chunk(doc)
        pieces = []
        for c in chunks:
            spans = _clip(c.spans, lo, hi)
            if spans:
                section = " > ".join(c.section)
                kind = str(c.kind.value)
                pieces.append(Piece(c.id, section, spans, kind, c.header, c.pages, len(c.text)))
        rows.append(Row(s.value, tuple(pieces)))
    return rows


def passage_row(doc: Document, path: Path, lo: int, hi: int) -> Row:
    """Canonical passages of ``doc`` from a lesson-schema passages table."""
    from finchunk.lesson import check_passage, read_passages

    pieces = []
    for p in read_passages(path).values():
        if p.doc_id != doc.id:
            continue
        check_passage(path, p, len(doc.text))
        spans = _clip([p.span], lo, hi)
        if spans:
            pages = tuple(sorted({doc.page_at(s) or 0 for s, _ in spans} - {0}))
            pieces.append(Piece(p.id, p.section, spans, "passage", p.type, pages))
    pieces.sort(key=lambda p: p.spans[0])
    return Row("passages", tuple(pieces), unit="passages")


def major_sections(doc: Document, lo: int, hi: int) -> list[Section]:
    """Headings of the document's two top heading levels that overlap ``[lo, hi)``."""
    heads = [e for e in doc.elements if e.kind is ElementKind.HEADING]
    levels = sorted({e.level for e in heads})[:2]
    out = []
    for i, h in enumerate(heads):
        if h.level not in levels:
            continue
        end = next((n.start for n in heads[i + 1 :] if n.level <= h.level), len(doc.text))
        if end > lo and h.start < hi:
            title = " ".join((h.section[-1] if h.section else doc.element_text(h)).split())
            rank = levels.index(h.level) + 1
            out.append(Section(title, rank, max(h.start, lo), min(end, hi), " > ".join(h.section)))
    return out


def page_marks(doc: Document, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """``(page number, start, end)`` of the pages overlapping ``[lo, hi)``."""
    return [(i + 1, s, e) for i, (s, e) in enumerate(doc.pages) if e > lo and s < hi]


# --- the page --------------------------------------------------------------------------------


def _piece_json(p: Piece) -> dict[str, Any]:
    return {
        "id": p.label,
        "kind": p.kind,
        "section": p.section,
        "header": p.header,
        "spans": [list(s) for s in p.spans],
        "pages": list(p.pages),
        "chars": p.chars,
    }


def payload(doc: Document, rows: Sequence[Row], lo: int, hi: int) -> dict[str, Any]:
    """Everything the script draws. Offsets are Python ``str`` indices (code points) into
    ``doc.text``; ``astral`` lists the positions (relative to ``lo``) of characters outside
    the BMP, which JavaScript strings count twice, so the script can convert."""
    text = doc.text[lo:hi]
    return {
        "doc": {"id": doc.id, "title": doc.title, "length": len(doc.text)},
        "lo": lo,
        "hi": hi,
        "text": text,
        "astral": [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF],
        "pages": [list(p) for p in page_marks(doc, lo, hi)],
        "sections": [
            {"title": s.title, "rank": s.rank, "start": s.start, "end": s.end, "path": s.path}
            for s in major_sections(doc, lo, hi)
        ],
        "rows": [
            {"name": r.name, "unit": r.unit, "items": [_piece_json(p) for p in r.pieces]}
            for r in rows
        ],
    }


def script_json(data: Any) -> str:
    """JSON safe inside ``<script>``: ``<``, ``>`` and ``&`` as JSON escapes (and the line
    separators U+2028/U+2029, for old parsers)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(ch, esc)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _asset(name: str) -> str:
    return (files("finchunk") / name).read_text(encoding="utf-8")


def _kind_css() -> str:
    rules = []
    for kind, (bar0, bar1, tint0, tint1) in KIND_COLOURS.items():
        rules.append(
            f".k-{kind}.p0{{background:{bar0}}}.k-{kind}.p1{{background:{bar1}}}"
            f".text .k-{kind}.p0{{background:{tint0}}}.text .k-{kind}.p1{{background:{tint1}}}"
            f".text .k-{kind}.start{{border-left-color:{bar1}}}"
        )
    return "\n".join(rules)


def _legend(rows: Sequence[Row]) -> str:
    present = {p.kind for r in rows for p in r.pieces}
    items = []
    for kind, (bar0, bar1, _, _) in KIND_COLOURS.items():
        if kind in present:
            items.append(
                f'<li data-kind="{kind}"><span class="sw" style="background:linear-gradient('
                f'90deg,{bar0} 50%,{bar1} 50%)"></span><b>{kind}</b> {KIND_MEANING[kind]}</li>'
            )
    items += [
        '<li><span class="sw gap">abc</span><b>grey gap</b> characters in no chunk of the row '
        "(headings, page furniture, blank lines): grey track, grey letters in the text</li>",
        '<li><span class="sw ovsw"></span><b>dashed outline</b> characters in more than one '
        "chunk of the row (overlap; under the bars, around the text)</li>",
        '<li><span class="sw pinsw"></span><b>pinned</b> the chunk clicked: black in the bars, '
        "yellow in the text (all its spans)</li>",
        '<li><span class="sw secsw"></span><b>section bands</b> the top two heading levels; '
        "click one to zoom to it</li>",
    ]
    return (
        '<ul class="legend" id="legend"><li class="lt">Legend — two shades of a colour '
        "alternate between neighbouring chunks of one kind:</li>" + "".join(items) + "</ul>"
    )


def _header(doc: Document, rows: Sequence[Row], lo: int, hi: int) -> str:
    title = _esc(doc.title or doc.id)
    counts = " · ".join(
        f"{_esc(r.name)}: {len(r.pieces):,}" + ("" if r.unit == "passages" else " chunks")
        for r in rows
    )
    pages = f", {len(doc.pages)} pages" if doc.pages else ""
    return (
        f"<header><h1>Chunk map: {title}</h1><p>Document <code>{_esc(doc.id)}</code>, "
        f"characters {lo:,}–{hi:,} of {len(doc.text):,}{pages}. "
        f'<span class="counts">{counts}</span></p></header>'
    )


def render(doc: Document, rows: Sequence[Row], lo: int, hi: int) -> str:
    """The page: static header, legend and layout; the script draws from the data blob."""
    title = _esc(doc.title or doc.id)
    lanes = "".join(
        f'<div class="lane row" data-row="{_esc(r.name)}"><div class="name">{_esc(r.name)}'
        f'<span class="count" data-expected="{len(r.pieces)}">{len(r.pieces):,} '
        f"{'gold passages' if r.unit == 'passages' else 'chunks'}</span></div>"
        f'<div class="track" data-row-index="{i}"></div></div>'
        for i, r in enumerate(rows)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Chunk map: {title}</title><style>{_asset('chunkmap.css')}\n{_kind_css()}"
        "</style></head><body>"
        + _header(doc, rows, lo, hi)
        + _legend(rows)
        + _asset("chunkmap.html").replace("<!--LANES-->", lanes)
        + '<script type="application/json" id="chunkmap-data">'
        + script_json(payload(doc, rows, lo, hi))
        + f"</script>\n<script>{_asset('chunkmap.js')}</script></body></html>\n"
    )


def build_rows(
    doc: Document, opts: ViewOptions, passages_path: Path | None = None
) -> tuple[list[Row], int, int]:
    lo, hi = opts.range or (0, len(doc.text))
    hi = len(doc.text) if hi < 0 else min(hi, len(doc.text))
    if lo >= hi:
        raise InputError(
            f"{doc.source or doc.id}: --range {lo}:{hi} is outside the document "
            f"({len(doc.text)} characters)"
        )
    rows = strategy_rows(doc, opts, lo, hi)
    if passages_path is not None:
        rows.append(passage_row(doc, passages_path, lo, hi))
    return rows, lo, hi


def chunk_map(doc: Document, opts: ViewOptions, passages_path: Path | None = None) -> str:
    """The chunk map page as HTML text."""
    rows, lo, hi = build_rows(doc, opts, passages_path)
    return render(doc, rows, lo, hi)


def write_chunk_map(
    doc: Document, out: Path, opts: ViewOptions, passages_path: Path | None = None
) -> MapCounts:
    """Write the map; returns the chunks each strategy row shows and the passages."""
    rows, lo, hi = build_rows(doc, opts, passages_path)
    atomic_write_text(out, render(doc, rows, lo, hi))
    chunks = tuple((r.name, len(r.pieces)) for r in rows if r.unit == "chunks")
    passages = next((len(r.pieces) for r in rows if r.unit == "passages"), None)
    return MapCounts(chunks, passages)
