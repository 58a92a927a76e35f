"""The packer both element strategies use: accumulate elements into a chunk under a budget.

Neighbouring elements that follow each other in the document share one span (the text
between them is whitespace), so a chunk of three paragraphs is one span and its body is
exactly the source; attached notes from elsewhere add spans of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from finchunk.chunk.base import make_chunk
from finchunk.model import Chunk, ChunkKind, Document, Element, Span, chunk_kind

_MIXED = ChunkKind.MIXED
#: A chunk body shorter than this (characters) takes in the heading right above it.
TINY = 20


@dataclass(slots=True)
class Run:
    """The chunk being filled: its main spans, the notes attached to it, its size."""

    doc: Document
    header: bool
    spans: list[Span] = field(default_factory=list)
    notes: list[int] = field(default_factory=list)  # element indexes of attached notes
    size: int = 0
    section: tuple[str, ...] = ()
    kind: ChunkKind | None = None  # of what it packed so far: one kind, or MIXED
    _last_index: int = -2
    #: The heading right above (its element index and span), set by the caller: a chunk
    #: too short to stand alone ("None." under "Item 3. Legal Proceedings") takes it in.
    heading: tuple[int, Span] | None = None
    _lead: int | None = None

    def empty(self) -> bool:
        return not self.spans

    def cost(self, index: int, element: Element) -> int:
        """Characters ``element`` adds: with the whitespace before it when it joins a span."""
        if self.spans and index == self._last_index + 1:
            return element.end - self.spans[-1][1]
        return len(element)

    def add(self, index: int, element: Element, kind: ChunkKind | None = None) -> None:
        """Pack ``element``; ``kind`` counts it as another kind (a table's lead-in is part
        of a table chunk)."""
        spans = self.spans
        if not spans:
            self.section = element.section
            h = self.heading
            self._lead = h[1][0] if h is not None and h[0] == index - 1 else None
        # The cost (``cost``) and the span update in one test: this runs per element.
        if spans and index == self._last_index + 1:
            self.size += element.end - spans[-1][1]
            spans[-1] = (spans[-1][0], element.end)
        else:
            self.size += element.end - element.start
            spans.append((element.start, element.end))
        self._last_index = index
        kind = kind or chunk_kind(element.kind)
        if self.kind is None:
            self.kind = kind
        elif kind is not self.kind:
            self.kind = _MIXED

    def attach(self, note_index: int, note: Element) -> None:
        if note_index not in self.notes:
            self.notes.append(note_index)
            self.size += len(note)

    def note_cost(self, note_indexes: Sequence[int], elements: tuple[Element, ...]) -> int:
        return sum(len(elements[i]) for i in note_indexes if i not in self.notes)

    def flush(self, out: list[Chunk]) -> None:
        if not self.spans:
            return
        spans = self.spans
        if self._lead is not None and self.size < TINY and self.kind is not ChunkKind.TABLE:
            spans[0] = (self._lead, spans[0][1])
            self.kind = _MIXED
        if self.notes:
            elements = self.doc.elements
            spans += [elements[i].span for i in sorted(self.notes)]
        kind = self.kind or _MIXED
        out.append(make_chunk(self.doc, spans, header=self.header, section=self.section, kind=kind))
        self.spans, self.notes, self.size = [], [], 0
        self.kind = None
        self._last_index = -2
        self._lead = None
