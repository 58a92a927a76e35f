"""What a table needs to be read: the lead-in and caption above it, its column-header rows.

**Lead-ins and captions.** Up to two paragraphs directly above a table (same section, no
heading, page furniture or other element between) join the table's packing unit when each
is one of:

* a *caption*: a short line (at most :data:`CAPTION_MAX` characters) that is not a sentence
  (it does not end with ``.``, ``?`` or ``!``): a statement's title, a units line
  ("(in millions, except per share data)", "Millones de euros"), a PDF table's column line;
* a *lead-in*: a paragraph of at most :data:`LEAD_MAX` characters that ends with ``:``
  (a sentence announcing what follows, in any language) or that names what follows: "the
  following", "below", "as follows", "table", "siguiente", "a continuación", "tabla",
  "cuadro" (:data:`LEAD_CUES`, English and Spanish, the languages of finchunk's corpora).

The unit is contiguous source text, so it stays one span: nothing is copied, and a
paragraph the table takes is not packed anywhere else.

**Row groups.** A table longer than the size limit can be split into groups of whole rows;
every group after the first carries the table's head (lead-in, caption and column-header
rows: the lines up to a pipe table's delimiter row, else the first line) as an extra span,
so a chunk of rows still says what its columns and units are.
"""

from __future__ import annotations

import re

from finchunk.chunk.base import trim_span
from finchunk.model import Document, Element, ElementKind, Span

CAPTION_MAX = 120
LEAD_MAX = 600
LEAD_CUES = re.compile(
    r"\b(?:the following|following table|below|as follows|tables?|set forth|"
    r"siguientes?|a continuaci[oó]n|tablas?|cuadros?)\b",
    re.IGNORECASE,
)
_DELIMITER = re.compile(r"^\s*+\|?\s*+:?-{3,}+:?\s*+(?:\|\s*+:?-{3,}+:?\s*+)*+\|?\s*+$")
_SENTENCE_END = (".", "?", "!", ".)", ".”", '."')


def is_caption(text: str) -> bool:
    t = text.strip()
    return 0 < len(t) <= CAPTION_MAX and "\n\n" not in t and not t.endswith(_SENTENCE_END)


def is_lead_in(text: str) -> bool:
    t = text.strip()
    if not t or len(t) > LEAD_MAX:
        return False
    return t.endswith(":") or LEAD_CUES.search(t) is not None


def table_unit_start(doc: Document, i: int) -> int:
    """Index of the first element of table ``i``'s packing unit (``i`` when nothing above
    it is its lead-in or caption)."""
    elements = doc.elements
    table = elements[i]
    first = i
    while first > 0 and i - first < 2:
        e = elements[first - 1]
        if e.kind is not ElementKind.TEXT or e.section != table.section or e.cites:
            break
        text = doc.element_text(e)
        if not (is_caption(text) or is_lead_in(text)):
            break
        first -= 1
    return first


def _lines(doc: Document, start: int, end: int) -> list[Span]:
    """Non-blank lines of ``doc.text[start:end]``, trimmed."""
    out: list[Span] = []
    pos = start
    while pos < end:
        nl = doc.text.find("\n", pos, end)
        stop = end if nl < 0 else nl
        s, e = trim_span(doc.text, pos, stop)
        if e > s:
            out.append((s, e))
        pos = stop + 1
    return out


def header_rows_end(doc: Document, table: Element) -> int:
    """Offset where a table's column-header rows end: after a pipe table's delimiter row
    (within its first five lines), else after its first line."""
    lines = _lines(doc, table.start, table.end)
    for s, e in lines[:5]:
        if _DELIMITER.match(doc.text[s:e]):
            return e
    return lines[0][1] if lines else table.end


def row_groups(doc: Document, unit_start: int, head: Span, table: Element, size: int) -> list[Span]:
    """Spans of whole rows after ``head``: the first group starts at ``unit_start`` (lead-in,
    caption and head with it), each later one fits ``size`` together with the head it will
    carry as an extra span; a row longer than that is a group alone."""
    groups: list[Span] = []
    start, end = unit_start, head[1]
    extra = 0  # the head's characters (and joiner) a later group carries
    for s, e in _lines(doc, head[1], table.end):
        if end > head[1] and extra + e - start > size:
            groups.append((start, end))
            start, extra = s, head[1] - head[0] + 2
        end = e
    groups.append((start, end))
    return groups


def cites_mark(text: str, mark: str) -> bool:
    """Whether ``text`` shows a citation of note ``mark`` in one of the forms the parsers
    read: ``(1)``, a superscript, ``[^a]``, ``Nota 3`` / ``Note 3``."""
    if mark.startswith("^"):
        return f"[{mark}]" in text
    if mark.startswith("note:"):
        n = mark.split(":", 1)[1]
        return re.search(rf"\bNot[ae]s?\s+{re.escape(n)}\b", text, re.IGNORECASE) is not None
    sup = mark.translate(_DIGIT_TO_SUP)
    return f"({mark})" in text or (sup != mark and sup in text) or f"[{mark}]" in text


_DIGIT_TO_SUP = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
