"""The context header: one line saying which document a chunk comes from, and where in it.

``"{document line} > {section path}"``, for example::

    Apple Inc. (AAPL) | 10-K | FY 2024 > Part II > Item 7. Management's Discussion …
    3M | 10-Q | Q2 FY 2023 > Item 2. Management's Discussion …
    Aurora Energía | informe anual | ejercicio 2022 > Resultados
    Documento de datos fundamentales — Meridiano … UCITS ETF (Acc) | KID | 2023 > Riesgos

The document line is built from the document's metadata under the canonical names of
:func:`finchunk.text.metadata.canonical_metadata` (every parser's spelling: ``dei:``
facts, the SGML header, the cover page, FinanceBench's document information, the lesson's
``emisor``/``anio``/``tipo`` columns) and the title:

* the entity: ``issuer``, with the ``ticker`` in brackets when known;
* the document type: ``doc_type`` as a reader writes it ("10k" → "10-K", "informe_anual" →
  "informe anual", "kid" → "KID");
* the period: "FY 2024" (a fiscal year, or the year of an annual report), "Q2 FY 2025" (a
  quarter of one), "ejercicio 2023" (a Spanish document's year), "period ended 2000-04-01"
  (a period end alone), the bare year otherwise;
* the title, first, only when it says something the fields do not (a human title such as
  "Documento de datos fundamentales — …"); a title the parser made from the same metadata
  ("Apple Inc. > 10-K 2024-09-28", "3M 10K 2018") is left out, and a field the title
  already says is not repeated.

Without metadata the document line is the title (the document id when there is none), as
before. The header is never part of any span: ``Chunk.text`` is the header line, then the
body; it is delivered with every chunk, so it stays one short line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from weakref import WeakKeyDictionary

from finchunk.model import Document
from finchunk.text.analysis import normalize

SECTION_SEPARATOR = " > "
FIELD_SEPARATOR = " | "
#: The longest header (characters): it goes with every chunk, so it stays one short line.
MAX_HEADER = 200
#: The longest one title in it; a title needs this much room to be kept at all.
MAX_TITLE, _MIN_ROOM = 90, 12

#: Document types as a reader writes them (keys: the metadata's spelling, normalised).
_DOC_TYPE_LABELS = {
    "earnings": "earnings release",
    "10k_annualreport": "annual report",
    "annualreport": "annual report",
    "annual_report": "annual report",
    "informe_anual": "informe anual",
    "nota_analisis": "nota de análisis",
    "kid": "KID",
    "kiid": "KIID",
}
_SEC_FORM = re.compile(r"(10|20|40|8|6|11)[-\s]?([kqf])(\d*|sb|405|t)", re.IGNORECASE)
_QUARTER = re.compile(r"q([1-4])", re.IGNORECASE)
_ANNUAL_FORMS = frozenset({"10-K", "10-K405", "10-KSB", "20-F", "40-F", "annual report"})
_WORD = re.compile(r"\w+")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_PERIOD_STARTS = ("FY", "Q", "ejercicio ", "period ended ")

_LINES: WeakKeyDictionary[Document, str] = WeakKeyDictionary()


def context_header(doc: Document, section: Sequence[str]) -> str:
    """The document line, then the section path: ``"{line} > {section} > {subsection}"``."""
    line = _LINES.get(doc)
    if line is None:
        line = document_line(doc.metadata, doc.title or doc.id)
        _LINES[doc] = line
    titles = [s for s in section if s and s not in (line, doc.title)]
    return fit_header(line, titles)


def fit_header(line: str, titles: Sequence[str], limit: int = MAX_HEADER) -> str:
    """``line > title > …`` in at most ``limit`` characters: each title cut to
    :data:`MAX_TITLE` at a word's end ("…" marks the cut), then the outermost titles left
    out while it is too long (the innermost, the chunk's own section, stays), then the
    last title, and at the very last the document line, cut at a word's end."""
    titles = [shorten(t, MAX_TITLE) for t in titles]
    while titles:
        header = SECTION_SEPARATOR.join([line, *titles])
        if len(header) <= limit:
            return header
        if len(titles) == 1:
            room = limit - len(line) - len(SECTION_SEPARATOR)
            if room >= _MIN_ROOM:
                return SECTION_SEPARATOR.join([line, shorten(titles[0], room)])
        titles = titles[1:]
    return shorten(line, limit)


def shorten(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut after a whole word with "…" added."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    space = cut.rfind(" ")
    if space > 0 and text[len(cut)] != " ":
        cut = cut[:space]
    return cut.rstrip(" ,;:–—-") + "…"


def document_line(metadata: Mapping[str, Any], title: str) -> str:
    """Entity, document type and period from ``metadata``; the title when it says more."""
    # Imported here: filters needs numpy, which ``finchunk --help`` must not load.
    from finchunk.text.metadata import canonical_metadata

    meta = canonical_metadata(metadata)
    doc_type = doc_type_label(meta.get("doc_type", ""))
    fields = [f for f in (entity(meta), doc_type, period(meta, doc_type)) if f]
    if not fields:
        return title
    if not _says_more(title, fields):
        return FIELD_SEPARATOR.join(fields)
    return FIELD_SEPARATOR.join([title, *(f for f in fields if not _said(f, title))])


def entity(meta: Mapping[str, str]) -> str:
    """``"Apple Inc. (AAPL)"``: the issuer and its ticker; either alone when only one is known."""
    issuer, ticker = meta.get("issuer", ""), meta.get("ticker", "")
    if issuer and ticker and normalize(ticker) not in _words(issuer):
        return f"{issuer} ({ticker})"
    return issuer or ticker


def doc_type_label(value: str) -> str:
    """ "10k" → "10-K", "10k_annualreport" → "annual report", "informe_anual" → "informe anual"."""
    key = normalize(value.strip()).replace(" ", "_").replace("-", "_")
    if not key:
        return ""
    if key in _DOC_TYPE_LABELS:
        return _DOC_TYPE_LABELS[key]
    m = _SEC_FORM.fullmatch(key.replace("_", ""))
    if m:
        return f"{m.group(1)}-{m.group(2).upper()}{m.group(3).upper()}"
    return value.strip().replace("_", " ")


def period(meta: Mapping[str, str], doc_type: str = "") -> str:
    """ "FY 2024", "Q2 FY 2025", "ejercicio 2023", "period ended 2000-04-01", or "2023".

    "FY 2024", not "FY2024": the year is a word of its own, so a question that names the
    year bare ("in 2024", "fiscal 2024") matches it (EDGAR dev set, corpus scope, recall@5:
    0.562 with "FY2024", 0.574 with "FY 2024", +4/−2 questions)."""
    year = meta.get("year", "")
    quarter = _QUARTER.fullmatch(meta.get("fiscal_period", "").strip())
    if year and quarter:
        return f"Q{quarter.group(1)} FY {year}"
    if year and meta.get("language", "").lower().startswith("es"):
        return f"ejercicio {year}"
    if year and (meta.get("fiscal_period", "").upper() == "FY" or doc_type in _ANNUAL_FORMS):
        return f"FY {year}"
    end = meta.get("period_end", "")
    return f"period ended {end}" if end else year


def _words(text: str) -> list[str]:
    return _WORD.findall(normalize(text))


def _says_more(title: str, fields: Sequence[str]) -> bool:
    """Whether the title holds a word (not a number or a letter: "S.A.") that no field holds,
    glued or split ("10K" is in "10-K")."""
    glued = "".join(w for f in fields for w in _words(f))
    return any(len(w) > 1 and not w.isdigit() and w not in glued for w in _words(title))


def _said(field: str, title: str) -> bool:
    """Whether the title already says a field: all its words, a period by its year."""
    have = set(_words(title))
    if field.startswith(_PERIOD_STARTS):
        return any(y in have for y in _YEAR.findall(field))
    return all(w in have for w in _words(field))
