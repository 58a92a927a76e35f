"""A document's layout as an index stores it: its elements (kind, span, level, section,
page, the note marks it cites or defines) and its pages' spans, one JSON value per
documents row (the ``layout`` column of ``documents.parquet``, and of PostgreSQL's
``documents`` table).

Evidence delivery (:mod:`finchunk.retrieve.query.evidence`) cuts the elements the top chunks
touch into units; on an opened index it reads them from here, so a search neither parses
the document again nor guesses its blocks from the stored text: :func:`stored_document`
gives back the document the build chunked (its text, title, metadata, elements and pages),
and what evidence delivery delivers from it is what it delivers from the parsed document.

The JSON is compact: ``{"pages": [[start, end], ...], "sections": [[heading, ...], ...],
"elements": [[kind, start, end, level, section, page, mark, cites], ...]}``, ``section``
an index into ``sections`` (a section path is written once, not once per element), ``page``
and ``mark`` null when absent, ``cites`` a list of marks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from finchunk.errors import DamagedIndexError
from finchunk.model import Document, ElementKind, new_element

_KINDS = {k.value: k for k in ElementKind}


def document_layout(doc: Document) -> str:
    """``doc``'s elements and pages as the index stores them (JSON text)."""
    sections: dict[tuple[str, ...], int] = {}
    elements = []
    for e in doc.elements:
        at = sections.setdefault(e.section, len(sections))
        elements.append([e.kind.value, e.start, e.end, e.level, at, e.page, e.mark, list(e.cites)])
    layout = {
        "pages": [list(p) for p in doc.pages],
        "sections": [list(s) for s in sections],
        "elements": elements,
    }
    return msgspec.json.encode(layout).decode("utf-8")


def stored_document(
    doc_id: str,
    text: str,
    title: str,
    metadata: Mapping[str, Any],
    layout: str | None,
    where: Any = "index",
) -> Document:
    """The document an index stores as ``text`` and ``layout`` (:func:`document_layout`);
    ``where`` names the file or table in the error a damaged layout gives."""
    if not layout:
        raise DamagedIndexError(where, f"document {doc_id!r} has no stored layout")
    try:
        data = msgspec.json.decode(layout)
        sections = [tuple(s) for s in data["sections"]]
        elements = tuple(
            new_element(_KINDS[k], s, e, lv, sections[sec], tuple(cites), mark, page)
            for k, s, e, lv, sec, page, mark, cites in data["elements"]
        )
        pages = tuple((int(s), int(e)) for s, e in data["pages"])
    except (msgspec.DecodeError, KeyError, IndexError, TypeError, ValueError) as exc:
        raise DamagedIndexError(where, f"document {doc_id!r}: bad layout ({exc})") from None
    return Document(doc_id, text, title, dict(metadata), elements, pages)
