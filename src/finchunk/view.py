"""The chunk map: one row per strategy (and one for canonical passages) over a document.

Each row is a track over the document's characters with one bar per chunk span, chunks in
alternating shades; under it, the text itself with the same shading. Hovering a chunk lights
up all its spans (a table and the notes it carries) and shows its id, section and size.
Every piece of document text, and every id or section shown, goes through ``html.escape``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from finchunk.chunk import Strategy, make_chunker
from finchunk.errors import InputError
from finchunk.model import Document, Span


@dataclass(frozen=True, slots=True)
class ViewOptions:
    strategies: tuple[Strategy, ...] = (Strategy.FIXED, Strategy.RECURSIVE, Strategy.STRUCTURE)
    size: int | None = None
    range: Span | None = None


@dataclass(frozen=True, slots=True)
class Piece:
    """One chunk (or passage) of a row: a label for hover and its spans."""

    label: str
    section: str
    spans: tuple[Span, ...]

    @property
    def size(self) -> int:
        return sum(e - s for s, e in self.spans)


@dataclass(frozen=True, slots=True)
class Row:
    name: str
    pieces: tuple[Piece, ...]


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
                pieces.append(Piece(c.id, " > ".join(c.section), spans))
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
            pieces.append(Piece(p.id, p.section, spans))
    pieces.sort(key=lambda p: p.spans[0])
    return Row("passages", tuple(pieces))


# --- HTML ----------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
.row{margin:1.2em 0}.row h2{font-size:1em;margin:.2em 0}
.track{position:relative;height:28px;background:#f3f3f3;border:1px solid #ccc}
.seg{position:absolute;top:0;bottom:0;min-width:1px}
.s0{background:#9ecae1}.s1{background:#3182bd}.ov{outline:1px dashed #d62728}
.text .s0{background:#deebf7}.text .s1{background:#c6dbef}
.text{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px;max-height:30em;
overflow:auto;border:1px solid #ddd;padding:.5em}
.hl{background:#fdae6b!important}
"""

_JS = """
for (const row of document.querySelectorAll('.row')) {
  const ids = new Set();
  for (const el of row.querySelectorAll('.track [data-chunk]')) ids.add(el.dataset.chunk);
  row.querySelector('.count').dataset.rendered = String(ids.size);
}
document.addEventListener('mouseover', (ev) => {
  for (const el of document.querySelectorAll('.hl')) el.classList.remove('hl');
  const hit = ev.target.closest('[data-chunk]');
  if (!hit) return;
  const row = hit.closest('.row');
  for (const el of row.querySelectorAll('[data-chunk="' + hit.dataset.chunk + '"]'))
    el.classList.add('hl');
});
"""


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _tooltip(p: Piece) -> str:
    spans = ", ".join(f"{s}:{e}" for s, e in p.spans)
    return _esc(f"{p.label}\n{p.section or '(no section)'}\n{p.size} chars · spans {spans}")


def _track(row: Row, lo: int, hi: int) -> str:
    width = max(hi - lo, 1)
    bars = []
    for i, p in enumerate(row.pieces):
        for s, e in p.spans:
            left, w = 100 * (s - lo) / width, 100 * (e - s) / width
            bars.append(
                f'<div class="seg s{i % 2}" data-chunk="{i}" title="{_tooltip(p)}" '
                f'style="left:{left:.4f}%;width:{w:.4f}%"></div>'
            )
    return '<div class="track">' + "".join(bars) + "</div>"


def _segments(row: Row, lo: int, hi: int) -> list[tuple[int, int, list[int]]]:
    """The text range cut at every span edge, each piece with the chunks covering it."""
    events: dict[int, list[tuple[int, int]]] = {lo: [], hi: []}
    for i, p in enumerate(row.pieces):
        for s, e in p.spans:
            events.setdefault(s, []).append((1, i))
            events.setdefault(e, []).append((-1, i))
    active: dict[int, int] = {}
    cuts = sorted(events)
    out = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        for delta, i in events[a]:
            active[i] = active.get(i, 0) + delta
            if active[i] == 0:
                del active[i]
        out.append((a, b, sorted(active)))
    return out


def _text(doc: Document, row: Row, lo: int, hi: int) -> str:
    parts = []
    for a, b, chunks in _segments(row, lo, hi):
        t = _esc(doc.text[a:b])
        if not chunks:
            parts.append(t)
            continue
        i = chunks[0]
        ov = " ov" if len(chunks) > 1 else ""
        parts.append(
            f'<span class="s{i % 2}{ov}" data-chunk="{i}" title="{_tooltip(row.pieces[i])}">'
            f"{t}</span>"
        )
    return '<div class="text">' + "".join(parts) + "</div>"


def render(doc: Document, rows: Sequence[Row], lo: int, hi: int) -> str:
    title = _esc(doc.title or doc.id)
    body = [
        f"<h1>Chunk map: {title}</h1>",
        f"<p>Document <code>{_esc(doc.id)}</code>, characters {lo}–{hi} of {len(doc.text)}. "
        "Hover a chunk to see its id, section and size; its spans light up together.</p>",
    ]
    for r in rows:
        n = len(r.pieces)
        body.append(
            f'<section class="row" data-row="{_esc(r.name)}"><h2>{_esc(r.name)}: '
            f'<span class="count" data-expected="{n}">{n} chunks</span></h2>'
            f"{_track(r, lo, hi)}<details><summary>text</summary>{_text(doc, r, lo, hi)}"
            "</details></section>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Chunk map: {title}</title><style>{_CSS}</style></head><body>"
        + "\n".join(body)
        + f"<script>{_JS}</script></body></html>\n"
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
) -> int:
    """Write the map; returns how many chunks its rows show in all."""
    rows, lo, hi = build_rows(doc, opts, passages_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(doc, rows, lo, hi), encoding="utf-8")
    return sum(len(r.pieces) for r in rows)
