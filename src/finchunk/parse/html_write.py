"""Write classified blocks as the canonical text, recording each element's span as it goes.

Blocks are separated by a blank line; a heading's section is its parents plus itself,
every other element's section is the path of headings in force. Offsets come from the
running length of the text written so far, never from searching the result.

Light (no HTML library): the Word and Excel readers write their blocks through it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from finchunk.model import Element, ElementKind, Span

BLOCK_SEP = "\n\n"
_CITE_LOOKAHEAD = 80


@dataclass(slots=True)
class Out:
    """One element to write: its kind, rendered text and what the writer needs."""

    kind: ElementKind
    text: str
    page: int
    level: int = 0
    mark: str | None = None
    marks: tuple[str, ...] = ()
    page_breaks: tuple[tuple[int, int], ...] = ()


def write(outs: list[Out], paged: bool) -> tuple[str, tuple[Element, ...], tuple[Span, ...]]:
    """Canonical text, elements and page spans (empty when ``paged`` is False)."""
    cites = _resolve_cites(outs)
    parts: list[str] = []
    elements: list[Element] = []
    stack: list[tuple[int, str]] = []
    pos = 0
    page_starts: list[tuple[int, int]] = []
    for i, o in enumerate(outs):
        if parts:
            parts.append(BLOCK_SEP)
            pos += len(BLOCK_SEP)
        start = pos
        parts.append(o.text)
        pos += len(o.text)
        page_starts.append((start, o.page))
        page_starts.extend((start + off, p) for off, p in o.page_breaks)
        if o.kind is ElementKind.HEADING:
            while stack and stack[-1][0] >= o.level:
                stack.pop()
            stack.append((o.level, o.text))
        elements.append(
            Element(
                kind=o.kind,
                start=start,
                end=pos,
                level=o.level,
                section=tuple(t for _, t in stack),
                cites=cites.get(i, ()),
                mark=o.mark,
                page=o.page if paged else None,
            )
        )
    text = "".join(parts)
    pages = _page_spans(page_starts, len(text)) if paged else ()
    return text, tuple(elements), pages


def _resolve_cites(outs: list[Out]) -> dict[int, tuple[str, ...]]:
    """Marks an element cites that a note defines after it, before the next heading."""
    found: dict[int, tuple[str, ...]] = {}
    n = len(outs)
    for i, o in enumerate(outs):
        if not o.marks:
            continue
        defined: set[str] = set()
        for j in range(i + 1, min(n, i + 1 + _CITE_LOOKAHEAD)):
            nxt = outs[j]
            if nxt.kind is ElementKind.HEADING:
                break
            if nxt.kind is ElementKind.NOTE and nxt.mark is not None:
                defined.add(nxt.mark)
        hit = tuple(dict.fromkeys(m for m in o.marks if m in defined))
        if hit:
            found[i] = hit
    return found


def _page_spans(starts_at: list[tuple[int, int]], length: int) -> tuple[Span, ...]:
    """Page ``p`` runs from where its first element (or a paragraph it cuts) begins to
    where page ``p + 1`` begins; ``starts_at`` holds (offset, page) in text order."""
    last = max((p for _, p in starts_at), default=1)
    starts = [0] * (last + 1)
    seen = [False] * (last + 2)
    for pos, p in starts_at:
        if not seen[p]:
            seen[p] = True
            starts[p - 1] = pos
    # Pages without elements (all furniture) start where the next page starts.
    nxt = length
    for p in range(last, 0, -1):
        if not seen[p]:
            starts[p - 1] = nxt
        nxt = starts[p - 1]
    starts[0] = 0
    starts[last] = length
    return tuple((starts[p], starts[p + 1]) for p in range(last))
