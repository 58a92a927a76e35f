"""Structure-aware chunking: sections, whole tables, lists, and the notes that qualify them.

Rules, for documents of any source (Markdown, HTML, PDF elements):

* headings are not chunks; they set the section (and the context header);
* a table is always one whole chunk, with the spans of the notes it cites;
* a list is kept whole when it fits in ``size``, otherwise split like a long paragraph;
* consecutive paragraphs of one section merge up to ``size``; a paragraph that cites notes
  carries them (extra spans) when paragraph and notes fit in ``size`` together;
* a note that some chunk carries is not packed again where it stands; a note no chunk can
  carry stays in place and opens a chunk (the paragraphs after it may join it), so notes
  to the accounts are not diluted by their neighbours and nothing is lost;
* ``index_notes_alone=True`` also gives every note a chunk of its own.

The source size of a chunk (the sum of its span lengths) never exceeds ``size``, except for
tables, which are never cut.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from finchunk.chunk.base import make_chunk, trim_span
from finchunk.chunk.pack import Run
from finchunk.chunk.recursive import recursive_ranges
from finchunk.errors import InputError
from finchunk.model import Chunk, ChunkKind, Document, Element, ElementKind

_PACKED = frozenset({ElementKind.TEXT, ElementKind.LIST, ElementKind.NOTE})


class NoteLookup:
    """Mark → the note that an element citing it means: the nearest note with that mark
    after the element (filings define "(1)" again under every table), else the nearest
    one before it."""

    def __init__(self, elements: tuple[Element, ...]) -> None:
        self._by_mark: dict[str, list[int]] = {}
        for i, e in enumerate(elements):
            if e.kind is ElementKind.NOTE and e.mark is not None:
                self._by_mark.setdefault(e.mark, []).append(i)

    def resolve(self, mark: str, citing: int) -> int | None:
        places = self._by_mark.get(mark)
        if not places:
            return None
        k = bisect_right(places, citing)
        return places[k] if k < len(places) else places[-1]


@dataclass(frozen=True, slots=True)
class Structure:
    size: int = 800
    header: bool = False
    index_notes_alone: bool = False

    def __post_init__(self) -> None:
        if self.size < 1:
            raise InputError(f"structure: size must be positive, got {self.size}")

    @property
    def name(self) -> str:
        return "structure"

    def _plan_notes(self, doc: Document) -> dict[int, list[int]]:
        """Element index → indexes of the notes it will carry."""
        elements = doc.elements
        lookup = NoteLookup(elements)
        plan: dict[int, list[int]] = {}
        for i, e in enumerate(elements):
            if not e.cites or e.kind in (ElementKind.NOTE, ElementKind.HEADING):
                continue
            found = (lookup.resolve(m, i) for m in e.cites)
            notes = list(dict.fromkeys(n for n in found if n is not None and n != i))
            if not notes:
                continue
            if (
                e.kind is ElementKind.TABLE
                or len(e) + sum(len(elements[n]) for n in notes) <= self.size
            ):
                plan[i] = notes
        return plan

    def chunk(self, doc: Document) -> list[Chunk]:
        elements = doc.elements
        plan = self._plan_notes(doc)
        carried = {n for notes in plan.values() for n in notes}
        out: list[Chunk] = []
        run = Run(doc, self.header)
        for i, e in enumerate(elements):
            if e.kind is ElementKind.HEADING or e.kind is ElementKind.FURNITURE:
                run.flush(out)
                continue
            if e.kind is ElementKind.NOTE and self.index_notes_alone:
                run.flush(out)
                self._split_long(doc, e, out)
                continue
            if e.kind is ElementKind.NOTE and i in carried:
                continue
            if e.kind is ElementKind.TABLE:
                run.flush(out)
                self._emit_whole(doc, i, e, plan.get(i, []), out)
                continue
            if e.kind not in _PACKED:
                run.flush(out)
                self._emit_whole(doc, i, e, [], out)
                continue
            self._pack(doc, run, i, e, plan.get(i, []), out)
        run.flush(out)
        return out

    def _emit_whole(
        self, doc: Document, i: int, e: Element, notes: list[int], out: list[Chunk]
    ) -> None:
        run = Run(doc, self.header)
        run.add(i, e)
        for n in notes:
            run.attach(n, doc.elements[n])
        run.flush(out)

    def _pack(
        self, doc: Document, run: Run, i: int, e: Element, notes: list[int], out: list[Chunk]
    ) -> None:
        if len(e) > self.size:
            run.flush(out)
            self._split_long(doc, e, out)
            return
        cost = run.cost(i, e) + run.note_cost(notes, doc.elements)
        opens = e.kind is ElementKind.NOTE  # a note is a topic of its own, like a sub-heading
        if not run.empty() and (opens or run.section != e.section or run.size + cost > self.size):
            run.flush(out)
        run.add(i, e)
        for n in notes:
            run.attach(n, doc.elements[n])

    def _split_long(self, doc: Document, e: Element, out: list[Chunk]) -> None:
        """An element on its own: one chunk, or recursive pieces when longer than ``size``."""
        for s, t in recursive_ranges(doc.text, e.start, e.end, self.size):
            s, t = trim_span(doc.text, s, t)
            if t > s:
                out.append(
                    make_chunk(
                        doc,
                        [(s, t)],
                        header=self.header,
                        section=e.section,
                        kind=ChunkKind(e.kind.value),
                    )
                )
