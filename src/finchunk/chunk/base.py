"""What every chunking strategy shares: the context header (:mod:`finchunk.chunk.header`)
and the document body.

The body of a document is its text minus furniture (page headers, footers, page numbers)
and a leading byte-order mark. Character-window strategies (fixed, recursive, tokens) run
over the body as one virtual string; :class:`BodyText` maps virtual ranges back to spans of
``Document.text``, so a window that crosses a page footer becomes a chunk of two spans.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Protocol

from finchunk.chunk.header import context_header
from finchunk.model import Chunk, ChunkKind, Document, ElementKind, Span


class Chunker(Protocol):
    """A chunking strategy: a typed, immutable config with a ``chunk`` method."""

    header: bool

    @property
    def name(self) -> str: ...

    def chunk(self, doc: Document) -> list[Chunk]: ...


def trim_span(text: str, start: int, end: int) -> Span:
    """Shrink ``[start, end)`` so that it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def make_chunk(
    doc: Document, spans: Sequence[Span], *, header: bool, section: tuple[str, ...], kind: ChunkKind
) -> Chunk:
    head = context_header(doc, section) if header else ""
    return Chunk.build(doc, spans, section=section, header=head, kind=kind)


class BodyText:
    """The document body as one virtual string, with a map back to real spans."""

    __slots__ = ("text", "_vstarts", "_segments")

    def __init__(self, doc: Document) -> None:
        segments = _body_segments(doc)
        self._segments = segments
        self._vstarts: list[int] = []
        pos = 0
        for s, e in segments:
            self._vstarts.append(pos)
            pos += e - s
        if len(segments) == 1:
            s, e = segments[0]
            self.text = doc.text[s:e]
        else:
            self.text = "".join(doc.text[s:e] for s, e in segments)

    def to_spans(self, vstart: int, vend: int) -> list[Span]:
        """Real spans of ``Document.text`` covered by the virtual range ``[vstart, vend)``."""
        out: list[Span] = []
        i = max(bisect_right(self._vstarts, vstart) - 1, 0)
        while i < len(self._segments) and self._vstarts[i] < vend:
            seg_s, seg_e = self._segments[i]
            v0 = self._vstarts[i]
            s = seg_s + max(vstart - v0, 0)
            e = seg_s + min(vend - v0, seg_e - seg_s)
            if e > s:
                out.append((s, e))
            i += 1
        return out


def _body_segments(doc: Document) -> list[Span]:
    start = 1 if doc.text.startswith("\ufeff") else 0
    furniture = sorted(e.span for e in doc.elements if e.kind is ElementKind.FURNITURE)
    segments: list[Span] = []
    pos = start
    for s, e in furniture:
        if s > pos:
            segments.append((pos, s))
        pos = max(pos, e)
    if pos < len(doc.text) or not segments:
        segments.append((pos, len(doc.text)))
    return segments


def window_chunks(
    doc: Document,
    body: BodyText,
    ranges: Sequence[Span],
    *,
    header: bool,
    kind: ChunkKind = ChunkKind.WINDOW,
) -> list[Chunk]:
    """Chunks from virtual ranges: trimmed of whitespace, empty ones dropped.

    The section of a window chunk is the one in force at the chunk's first character.
    """
    out: list[Chunk] = []
    outline = doc.outline
    for vs, ve in ranges:
        spans = [trim_span(doc.text, s, e) for s, e in body.to_spans(vs, ve)]
        spans = [(s, e) for s, e in spans if e > s]
        if not spans:
            continue
        section = outline.section_at(spans[0][0])
        out.append(make_chunk(doc, spans, header=header, section=section, kind=kind))
    return out
