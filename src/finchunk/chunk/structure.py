"""Structure-aware chunking: sections, whole tables, lists, and the notes that qualify them.

Rules, for documents of any source (Markdown, HTML, PDF elements):

* headings are not chunks; they set the section (and the context header); in a PDF, a
  table and a chunk shorter than 20 characters take in the heading right above them;
* a table is one chunk, with the spans of the notes it cites and (``table_context``) the
  lead-in sentence and caption directly above it (:mod:`finchunk.chunk.tablectx`); with
  ``split_tables`` a table unit longer than ``size`` becomes groups of whole rows, each later
  group carrying the table's head (lead-in, caption, column-header rows) as an extra span;
* a list is kept whole when it fits in ``size``, otherwise split like a long paragraph;
* consecutive paragraphs of one section merge up to ``size``; a paragraph that cites notes
  carries them (extra spans) when paragraph and notes fit in ``size`` together;
* a note that some chunk carries is not packed again where it stands; a note no chunk can
  carry stays in place and opens a chunk (the paragraphs after it may join it), so notes
  to the accounts are not diluted by their neighbours and nothing is lost;
* ``index_notes_alone=True`` also gives every note a chunk of its own.

The source size of a chunk (the sum of its span lengths) never exceeds ``size``, except for
table chunks (a whole table, or a row group whose single row and head exceed it).

``size=None`` (the default) takes the size chosen for the document's source kind
(:data:`finchunk.chunk.source.STRUCTURE_SIZES`: Markdown, SEC filings, PDF).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from finchunk.chunk.base import make_chunk, trim_span
from finchunk.chunk.pack import TINY, Run
from finchunk.chunk.recursive import recursive_ranges
from finchunk.chunk.source import SourceKind, source_kind, structure_size
from finchunk.chunk.tablectx import cites_mark, header_rows_end, row_groups, table_unit_start
from finchunk.collector import collector_paused
from finchunk.errors import InputError
from finchunk.model import Chunk, ChunkKind, Document, Element, ElementKind, Span, chunk_kind

_PACKED = frozenset({ElementKind.TEXT, ElementKind.LIST, ElementKind.NOTE})
# The members as module constants: ``ElementKind.NOTE`` is an attribute lookup through the
# enum's metaclass (0.1 us on CPython 3.11, a global 0.02 us), paid per element below.
_HEADING, _TEXT, _TABLE, _NOTE, _LIST, _FURNITURE = (
    ElementKind.HEADING,
    ElementKind.TEXT,
    ElementKind.TABLE,
    ElementKind.NOTE,
    ElementKind.LIST,
    ElementKind.FURNITURE,
)


class NoteLookup:
    """Mark → the note that an element citing it means: the nearest note with that mark
    after the element (filings define "(1)" again under every table), else the nearest
    one before it."""

    def __init__(self, elements: tuple[Element, ...]) -> None:
        self._by_mark: dict[str, list[int]] = {}
        for i, e in enumerate(elements):
            if e.kind is _NOTE and e.mark is not None:
                self._by_mark.setdefault(e.mark, []).append(i)

    def resolve(self, mark: str, citing: int) -> int | None:
        places = self._by_mark.get(mark)
        if not places:
            return None
        k = bisect_right(places, citing)
        return places[k] if k < len(places) else places[-1]


@dataclass(frozen=True, slots=True)
class Structure:
    size: int | None = None
    header: bool = False
    index_notes_alone: bool = False
    table_context: bool = True
    split_tables: bool = False

    def __post_init__(self) -> None:
        if self.size is not None and self.size < 1:
            raise InputError(f"structure: size must be positive, got {self.size}")

    @property
    def name(self) -> str:
        return "structure"

    def size_for(self, doc: Document) -> int:
        """The size limit for ``doc``: ``size``, else its source kind's default."""
        return self.size if self.size is not None else structure_size(doc)

    @collector_paused
    def chunk(self, doc: Document) -> list[Chunk]:
        return _Pass(self, doc).run()


class _Pass:
    """One document through :class:`Structure`: the plans (notes carried, table units),
    then the elements in order."""

    def __init__(self, cfg: Structure, doc: Document) -> None:
        self.cfg, self.doc, self.size = cfg, doc, cfg.size_for(doc)
        self.plan = self._plan_notes()
        self.carried = {n for notes in self.plan.values() for n in notes}
        self.units = self._plan_tables() if cfg.table_context else {}
        self.taken = {j for t, f in self.units.items() for j in range(f, t)}
        # A PDF's chunk too short to stand alone ("None." under "Item 3. Legal Proceedings")
        # takes in the heading above it (pack.TINY); other sources keep headings out.
        self.lead = source_kind(doc) is SourceKind.PDF

    def _plan_notes(self) -> dict[int, list[int]]:
        """Element index → indexes of the notes it will carry."""
        elements = self.doc.elements
        lookup = NoteLookup(elements)
        plan: dict[int, list[int]] = {}
        for i, e in enumerate(elements):
            if not e.cites or e.kind in (_NOTE, _HEADING):
                continue
            found = (lookup.resolve(m, i) for m in e.cites)
            notes = list(dict.fromkeys(n for n in found if n is not None and n != i))
            if not notes:
                continue
            if e.kind is _TABLE or len(e) + sum(len(elements[n]) for n in notes) <= self.size:
                plan[i] = notes
        return plan

    def _plan_tables(self) -> dict[int, int]:
        """Table index → first element of its unit, for tables that take a lead-in or
        caption."""
        units: dict[int, int] = {}
        for i, e in enumerate(self.doc.elements):
            if e.kind is _TABLE:
                first = table_unit_start(self.doc, i)
                if first < i:
                    units[i] = first
        return units

    def run(self) -> list[Chunk]:
        doc, cfg = self.doc, self.cfg
        out: list[Chunk] = []
        run = Run(doc, cfg.header)
        taken, carried, plan = self.taken, self.carried, self.plan
        for i, e in enumerate(doc.elements):
            kind = e.kind
            if i in taken:
                continue
            if kind is _TEXT or kind is _LIST:  # most elements: packed (see below)
                self._pack(run, i, e, plan.get(i, ()), out)
                continue
            if kind is _HEADING or kind is _FURNITURE:
                run.flush(out)
                if kind is _HEADING and self.lead:
                    run.heading = (i, e.span)
                continue
            if kind is _NOTE and cfg.index_notes_alone:
                run.flush(out)
                self._split_long(e, out)
                continue
            if kind is _NOTE and i in carried:
                continue
            if kind is _TABLE:
                run.flush(out)
                self._emit_table(i, e, out)
                continue
            if kind not in _PACKED:
                run.flush(out)
                self._emit_whole(i, e, [], out)
                continue
            self._pack(run, i, e, plan.get(i, ()), out)
        run.flush(out)
        return self._absorb_tiny(out) if self.lead else out

    def _absorb_tiny(self, chunks: list[Chunk]) -> list[Chunk]:
        """A PDF chunk still under :data:`TINY` characters (a company name over a statement,
        a label alone on its page) joins the chunk after it on its page, where the two fit
        in the size (or that one is a table), else the one before."""
        out: list[Chunk] = []
        i, n = 0, len(chunks)
        while i < n:
            c = chunks[i]
            if len(c.body) >= TINY or c.kind is ChunkKind.TABLE:
                out.append(c)
                i += 1
                continue
            nxt = chunks[i + 1] if i + 1 < n else None
            if nxt is not None and self._joins(c, nxt):
                spans = [*c.spans, *(sp for sp in nxt.spans if sp not in c.spans)]
                kind = ChunkKind.TABLE if nxt.kind is ChunkKind.TABLE else ChunkKind.MIXED
                out.append(self._chunk(spans, nxt.section, kind))
                i += 2
                continue
            prev = out[-1] if out else None
            if prev is not None and prev.kind is not ChunkKind.TABLE and self._joins(prev, c):
                spans = [*prev.spans, *(sp for sp in c.spans if sp not in prev.spans)]
                out[-1] = self._chunk(spans, prev.section, ChunkKind.MIXED)
            else:
                out.append(c)
            i += 1
        return out

    def _joins(self, a: Chunk, b: Chunk) -> bool:
        """Whether chunks ``a`` then ``b`` (one of them tiny) may become one."""
        if a.pages[-1:] != b.pages[:1]:
            return False
        size = sum(e - s for s, e in (*a.spans, *b.spans))
        return size <= self.size or ChunkKind.TABLE in (a.kind, b.kind)

    def _emit_table(self, i: int, e: Element, out: list[Chunk]) -> None:
        first = self.units.get(i, i)
        notes = self.plan.get(i, [])
        long = e.end - self.doc.elements[first].start > self.size
        if self.cfg.split_tables and long and self._emit_row_groups(first, e, notes, out):
            return
        run = Run(self.doc, self.cfg.header)
        for j in range(first, i + 1):
            run.add(j, self.doc.elements[j], ChunkKind.TABLE)
        above = self.doc.elements[first - 1] if first > 0 else None
        if self.lead and above is not None and above.kind is _HEADING and above.page == e.page:
            # A PDF table's title ("Consolidated Statement of Cash Flows") is a heading: it
            # sets the section, and its words stay with the table as its caption did.
            run.spans[0] = (above.start, run.spans[0][1])
        for n in notes:
            run.attach(n, self.doc.elements[n])
        run.flush(out)

    def _emit_whole(self, i: int, e: Element, notes: list[int], out: list[Chunk]) -> None:
        run = Run(self.doc, self.cfg.header)
        run.add(i, e)
        for n in notes:
            run.attach(n, self.doc.elements[n])
        run.flush(out)

    def _emit_row_groups(self, first: int, e: Element, notes: list[int], out: list[Chunk]) -> bool:
        """A long table as row groups, each later one with the head as its first span;
        False (emit it whole) when even the column-header rows take half the size."""
        doc = self.doc
        unit_start = doc.elements[first].start
        head: Span = (unit_start, header_rows_end(doc, e))
        if 2 * (head[1] - head[0]) > self.size:
            head = (e.start, head[1])  # the lead-in stays with the first group only
            if 2 * (head[1] - head[0]) > self.size:
                return False
        groups = row_groups(doc, unit_start, head, e, self.size)
        homes = _note_homes(doc, notes, groups)
        for g, span in enumerate(groups):
            spans = [span] if g == 0 else [head, span]
            spans += [doc.elements[n].span for n in notes if g in homes[n]]
            out.append(self._chunk(spans, e.section, ChunkKind.TABLE))
        return True

    def _chunk(self, spans: list[Span], section: tuple[str, ...], kind: ChunkKind) -> Chunk:
        return make_chunk(self.doc, spans, header=self.cfg.header, section=section, kind=kind)

    def _pack(self, run: Run, i: int, e: Element, notes: Sequence[int], out: list[Chunk]) -> None:
        if e.end - e.start > self.size:
            run.flush(out)
            self._split_long(e, out)
            return
        if run.spans:  # not empty: flush it unless ``e`` joins it
            cost = run.cost(i, e)
            if notes:
                cost += run.note_cost(notes, self.doc.elements)
            opens = e.kind is _NOTE  # a note is a topic of its own, like a sub-heading
            if opens or run.section != e.section or run.size + cost > self.size:
                run.flush(out)
        run.add(i, e)
        for n in notes:
            run.attach(n, self.doc.elements[n])

    def _split_long(self, e: Element, out: list[Chunk]) -> None:
        """An element on its own: one chunk, or recursive pieces when longer than ``size``."""
        text, kind = self.doc.text, chunk_kind(e.kind)
        for s, t in recursive_ranges(text, e.start, e.end, self.size):
            s, t = trim_span(text, s, t)
            if t > s:
                out.append(self._chunk([(s, t)], e.section, kind))


def _note_homes(doc: Document, notes: list[int], groups: list[Span]) -> dict[int, set[int]]:
    """Row groups that carry each note: those whose text cites its mark, else the last."""
    homes: dict[int, set[int]] = {}
    for n in notes:
        mark = doc.elements[n].mark or ""
        found = {g for g, sp in enumerate(groups) if mark and cites_mark(doc.slice(sp), mark)}
        homes[n] = found or {len(groups) - 1}
    return homes
