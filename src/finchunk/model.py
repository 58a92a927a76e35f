"""The data model: documents, the elements parsers find in them, and chunks.

The contract, everywhere in finchunk: a span is a ``(start, end)`` pair of Python ``str``
indices into ``Document.text``, and ``doc.text[start:end]`` is the source of that span.
Parsers never rewrite ``Document.text`` after computing offsets; chunkers only pack elements.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import cached_property
from typing import Any

Span = tuple[int, int]


class ElementKind(StrEnum):
    """What a parser found at a span."""

    HEADING = "heading"
    TEXT = "text"
    TABLE = "table"
    NOTE = "note"
    LIST = "list"
    #: Page headers, footers and page numbers: kept in the text, skipped by chunkers.
    FURNITURE = "furniture"


class ChunkKind(StrEnum):
    """What a chunk holds: one kind of element, several (``mixed``), or a size window.

    Structure-aware chunkers emit the kind of the elements they pack (``heading`` only from
    ``bytitle``'s runs of headings; furniture is never chunked); window chunkers (fixed,
    overlap, recursive, tokens) emit ``window``.
    """

    HEADING = "heading"
    TEXT = "text"
    TABLE = "table"
    NOTE = "note"
    LIST = "list"
    MIXED = "mixed"
    WINDOW = "window"


_CHUNK_KINDS = {k: ChunkKind(k.value) for k in ElementKind if k is not ElementKind.FURNITURE}


def chunk_kind(kind: ElementKind) -> ChunkKind:
    """The chunk kind of elements of ``kind`` (a dict lookup: ``ChunkKind(kind.value)``
    costs a microsecond per element). Furniture has none: ValueError, as from the enum."""
    found = _CHUNK_KINDS.get(kind)
    return found if found is not None else ChunkKind(kind.value)


@dataclass(frozen=True, slots=True)
class Element:
    """One block of a document.

    ``section`` is the path of heading texts above the element; for a heading it is the
    path of the section the heading opens (its parents, then itself). ``cites`` are the
    note marks the element cites (only marks whose note exists in the document), ``mark``
    the mark a note defines, ``page`` the 1-based page it starts on (None when the
    format has no pages).
    """

    kind: ElementKind
    start: int
    end: int
    level: int = 0
    section: tuple[str, ...] = ()
    cites: tuple[str, ...] = ()
    mark: str | None = None
    page: int | None = None

    @property
    def span(self) -> Span:
        return (self.start, self.end)

    def __len__(self) -> int:
        return self.end - self.start


def _slot_setters(cls: type) -> tuple[Any, ...]:
    """The ``__set__`` of each field's slot descriptor of a frozen, slotted dataclass, in
    field order: what its fast constructors below use."""
    return tuple(cls.__dict__[f.name].__set__ for f in fields(cls))


_new = object.__new__
_ELEMENT_SLOTS = _slot_setters(Element)


def new_element(
    kind: ElementKind,
    start: int,
    end: int,
    level: int,
    section: tuple[str, ...],
    cites: tuple[str, ...],
    mark: str | None,
    page: int | None = None,
) -> Element:
    """``Element(kind, start, end, level, section, cites, mark, page)``, the same object at
    about half the cost, for the parsers' per-block loops: a frozen dataclass's ``__init__``
    sets each field through ``object.__setattr__`` (CPython 3.11: 1.4 us an element), this
    sets the slots directly (0.75 us). A field added to ``Element`` makes the unpacking
    below fail loudly; ``tests/test_model.py`` compares both constructors."""
    s_kind, s_start, s_end, s_level, s_section, s_cites, s_mark, s_page = _ELEMENT_SLOTS
    e = _new(Element)
    s_kind(e, kind)
    s_start(e, start)
    s_end(e, end)
    s_level(e, level)
    s_section(e, section)
    s_cites(e, cites)
    s_mark(e, mark)
    s_page(e, page)
    return e


@dataclass(frozen=True, eq=False)
class Document:
    """A parsed document. ``text`` is the canonical text all offsets index into.

    For Markdown it is exactly the input (CRLF, BOM and tabs stay where they are); for
    HTML and PDF it is the parser's canonical rendering. ``pages`` holds the span of each
    page, in order, when the format has pages (page ``i + 1`` is ``pages[i]``).
    """

    id: str
    text: str
    title: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    elements: tuple[Element, ...] = ()
    pages: tuple[Span, ...] = ()
    source: str | None = None

    def slice(self, span: Span) -> str:
        return self.text[span[0] : span[1]]

    def element_text(self, element: Element) -> str:
        return self.text[element.start : element.end]

    def page_at(self, offset: int) -> int | None:
        """1-based page holding ``offset`` (bisect over page starts), None without pages."""
        if not self.pages:
            return None
        i = bisect_right(self._page_starts, offset) - 1
        return max(i, 0) + 1

    @cached_property
    def _page_starts(self) -> list[int]:
        return [p[0] for p in self.pages]

    @cached_property
    def outline(self) -> Outline:
        """Section lookup for this document's headings (built once)."""
        return Outline(self.elements)


class Outline:
    """Section lookup by offset in O(log n): bisect over the start offsets of headings."""

    __slots__ = ("_starts", "_paths")

    def __init__(self, elements: Iterable[Element]) -> None:
        heads = [e for e in elements if e.kind is ElementKind.HEADING]
        self._starts = [e.start for e in heads]
        self._paths = [e.section for e in heads]

    def section_at(self, offset: int) -> tuple[str, ...]:
        """The section path in force at ``offset`` (the last heading starting at or before it)."""
        i = bisect_right(self._starts, offset) - 1
        return self._paths[i] if i >= 0 else ()


_blake2b = hashlib.blake2b


def chunk_id(doc_id: str, spans: Sequence[Span], header: str) -> str:
    """Deterministic chunk id: the document id and a digest of the spans and header (of
    ``"doc_id|s0:e0|s1:e1|…|header"``)."""
    if len(spans) == 1:
        (s, e) = spans[0]
        key = f"{doc_id}|{s}:{e}|{header}"  # most chunks: one span, one f-string
    else:
        key = "|".join([doc_id, *[f"{s}:{e}" for s, e in spans], header])
    return f"{doc_id}#{_blake2b(key.encode('utf-8'), digest_size=8).hexdigest()}"


SPAN_JOINER = "\n\n"
HEADER_JOINER = "\n"


@dataclass(frozen=True, slots=True)
class Chunk:
    """A unit of retrieval: a document id plus one or more spans into its text.

    ``body`` is the span texts joined by a blank line, in the order of ``spans`` (reading
    order of composition: a table, then the notes that qualify it). ``text`` is the
    ``header`` line followed by the body, or the body alone when the header is empty: it
    is what gets indexed and what ``chars`` counts.
    """

    id: str
    doc_id: str
    spans: tuple[Span, ...]
    body: str
    header: str = ""
    section: tuple[str, ...] = ()
    pages: tuple[int, ...] = ()
    kind: ChunkKind = ChunkKind.TEXT

    @property
    def text(self) -> str:
        return f"{self.header}{HEADER_JOINER}{self.body}" if self.header else self.body

    @property
    def page(self) -> int | None:
        return self.pages[0] if self.pages else None

    @property
    def start(self) -> int:
        return min(s for s, _ in self.spans)

    @classmethod
    def build(
        cls,
        doc: Document,
        spans: Sequence[Span],
        *,
        section: tuple[str, ...] = (),
        header: str = "",
        kind: ChunkKind = ChunkKind.TEXT,
    ) -> Chunk:
        """Make a chunk of ``doc`` from spans; the body is always the joined span slices."""
        spans_t = tuple(spans)
        if len(spans_t) == 1:
            body = doc.text[spans_t[0][0] : spans_t[0][1]]
        else:
            body = SPAN_JOINER.join([doc.text[s:e] for s, e in spans_t])
        pages = _pages_of(doc, spans_t) if doc.pages else ()
        # The slots set directly, as new_element does (half the cost of ``cls(...)``);
        # ``tests/test_model.py`` checks the result equals the dataclass constructor's.
        s_id, s_doc, s_spans, s_body, s_header, s_section, s_pages, s_kind = _CHUNK_SLOTS
        c = _new(cls)
        s_id(c, chunk_id(doc.id, spans_t, header))
        s_doc(c, doc.id)
        s_spans(c, spans_t)
        s_body(c, body)
        s_header(c, header)
        s_section(c, section)
        s_pages(c, pages)
        s_kind(c, kind)
        return c


_CHUNK_SLOTS = _slot_setters(Chunk)


def _pages_of(doc: Document, spans: tuple[Span, ...]) -> tuple[int, ...]:
    """The pages the spans touch, in order of first touch."""
    seen: dict[int, None] = {}
    for s, e in spans:
        first = doc.page_at(s) or 1
        last = doc.page_at(max(s, e - 1)) or first
        for p in range(first, last + 1):
            seen[p] = None
    return tuple(seen)


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Union of spans as sorted, disjoint spans (touching spans merge)."""
    out: list[Span] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out
