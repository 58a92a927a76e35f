"""PDF reports → a :class:`~finchunk.model.Document` with elements and pages (pypdfium2).

Text comes from pdfium's text layer, page by page (150–300 pages/s; table rows stay on one
line). The canonical ``Document.text`` is built line by line as the elements are found, so
every offset is recorded while writing, never searched for afterwards:

* each extracted line is NFKC-normalised, control characters removed, trimmed; empty lines
  are dropped;
* the lines of one element are joined by ``\\n``; elements are separated by a blank line, and
  so are pages; ``Document.pages[i]`` is the span of page ``i + 1``;
* every element records the 1-based page it is on (elements never cross a page).

Element detection (headings, tables, notes, lists, paragraphs, page furniture) lives in
:mod:`finchunk.parse.pdf_layout`; the only font fact used is bold, looked up for the few
lines that could be headings.

Metadata: ``format``, ``pages``, and what a filing's cover (the first page) says: ``form``,
``period_end``, ``issuer`` (:func:`finchunk.parse.html_meta.cover_metadata`); the title is
the PDF's own Title, else the document id.

Scanned pages (no text layer, covered by images) are read by OCR when the ``ocr`` extra is
installed (:mod:`finchunk.parse.ocr`), a warning per page; without it each is named in a
warning and left unread.

Encrypted PDFs and files pdfium cannot open raise :class:`~finchunk.errors.ParseError`
naming the file, and so does a PDF of which no page yields text (scanned images without the
``ocr`` extra, only drawings).
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from finchunk.errors import ParseError
from finchunk.files import os_text
from finchunk.model import Document, Element, ElementKind, Span
from finchunk.parse.html_meta import cover_metadata
from finchunk.parse.ocr import PageReader
from finchunk.parse.pdf_layout import (
    Block,
    Line,
    furniture,
    heading_candidate,
    join_split_labels,
    page_blocks,
    trailing_numeric,
)

LINE_JOINER = "\n"
BLOCK_JOINER = "\n\n"
PAGE_JOINER = "\n\n"

_LINE = re.compile(r"[^\r\n]+")
_CONTROL = {c: None for c in (*range(0, 9), *range(11, 32), 0x7F, 0xFFFE, 0xFFFF)}
_CONTROL[9] = " "
_BOLD_MARKERS = ("bold", "black", "heavy", "demi", "semibold")
_BOLD_WEIGHT = 700


def clean_line(raw: str) -> str:
    """One extracted line as it goes into ``Document.text``."""
    text = raw.translate(_CONTROL)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return text.strip()


class _FontProbe:
    """Bold lookups on one text page: the weight first, the font name when it is unknown."""

    __slots__ = ("_tp", "_count", "_buf", "_flags")

    def __init__(self, textpage: pdfium.PdfTextPage) -> None:
        self._tp = textpage.raw
        self._count = textpage.count_chars()
        self._buf = ctypes.create_string_buffer(128)
        self._flags = ctypes.c_int()

    def bold(self, index: int) -> bool:
        if not 0 <= index < self._count:
            return False
        if pdfium_c.FPDFText_GetFontWeight(self._tp, index) >= _BOLD_WEIGHT:
            return True
        n = pdfium_c.FPDFText_GetFontInfo(
            self._tp, index, self._buf, len(self._buf), ctypes.byref(self._flags)
        )
        if n <= 0:
            return False
        name = self._buf.value.decode("latin-1").lower()
        return any(m in name for m in _BOLD_MARKERS)


def page_lines(textpage: pdfium.PdfTextPage) -> list[Line]:
    """The non-empty lines of one page, with their numeric-cell count and boldness."""
    raw = textpage.get_text_range()
    probe: _FontProbe | None = None
    out: list[Line] = []
    for m in _LINE.finditer(raw):
        seg = m.group()
        text = clean_line(seg)
        if not text:
            continue
        nums = trailing_numeric(text)
        bold = False
        if heading_candidate(text, nums):
            probe = probe or _FontProbe(textpage)
            first = m.start() + len(seg) - len(seg.lstrip())
            last = m.start() + len(seg.rstrip()) - 1
            bold = probe.bold(first) and probe.bold(last)
        out.append(Line(text, nums, bold))
    return join_split_labels(out)


def _open(path: Path) -> pdfium.PdfDocument:
    source = str(path)
    try:
        return pdfium.PdfDocument(source)
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower():
            raise ParseError(source, "encrypted PDF: a password is required to read it") from None
        raise ParseError(source, f"not a readable PDF ({msg})") from None
    except OSError as exc:
        raise ParseError(source, f"cannot read file: {exc.strerror or exc}") from None


def extract_pages(
    pdf: pdfium.PdfDocument, source: str, reader: PageReader | None = None
) -> list[list[Line]]:
    """Lines of every page, in page order; a page without a text layer is given to
    ``reader`` (OCR of scanned pages) when one is given."""
    pages: list[list[Line]] = []
    for i in range(len(pdf)):
        try:
            page = pdf[i]
            textpage = page.get_textpage()
        except pdfium.PdfiumError as exc:
            raise ParseError(source, f"cannot read page text ({exc})", f"page {i + 1}") from None
        try:
            lines = page_lines(textpage)
            if not lines and reader is not None:
                lines = reader.lines(page, i + 1, clean_line)
            pages.append(lines)
        finally:
            textpage.close()
            page.close()
    return pages


def _title(pdf: pdfium.PdfDocument) -> str:
    try:
        title = pdf.get_metadata_value("Title")
    except (pdfium.PdfiumError, KeyError, ValueError):
        return ""
    return clean_line(title or "")


@dataclass
class _Writer:
    """Accumulates ``Document.text`` and the elements, recording offsets as it writes."""

    parts: list[str] = field(default_factory=list)
    pos: int = 0
    elements: list[Element] = field(default_factory=list)
    pages: list[Span] = field(default_factory=list)
    headings: list[tuple[int, str]] = field(default_factory=list)

    def write(self, s: str) -> Span:
        start = self.pos
        self.parts.append(s)
        self.pos += len(s)
        return start, self.pos

    def section(self, block: Block, text: str) -> tuple[str, ...]:
        if block.kind is ElementKind.HEADING:
            title = " ".join(text.split()).rstrip(" .:")
            self.headings = [h for h in self.headings if h[0] < block.level]
            self.headings.append((block.level, title))
        return tuple(t for _, t in self.headings)

    def page(self, number: int, lines: Sequence[Line], blocks: Sequence[Block]) -> None:
        if number > 1:
            self.write(PAGE_JOINER)
        page_start = self.pos
        for n, b in enumerate(blocks):
            if n:
                self.write(BLOCK_JOINER)
            text = LINE_JOINER.join(ln.text for ln in lines[b.first : b.last + 1])
            start, end = self.write(text)
            self.elements.append(
                Element(
                    b.kind,
                    start,
                    end,
                    level=b.level,
                    section=self.section(b, text),
                    cites=b.cites,
                    mark=b.mark,
                    page=number,
                )
            )
        self.pages.append((page_start, self.pos))


NO_TEXT_LAYER = "no text layer (a scanned or image-only PDF)"


def build_document(
    pages: Sequence[Sequence[Line]], doc_id: str, *, title: str = "", source: str | None = None
) -> Document:
    """Assemble the canonical text, page spans and elements from extracted lines."""
    skips = furniture(pages)
    w = _Writer()
    for number, (lines, skip) in enumerate(zip(pages, skips, strict=True), start=1):
        w.page(number, lines, page_blocks(lines, skip))
    metadata: dict[str, object] = {"format": "pdf", "pages": len(pages)}
    if pages:  # a filing's cover page: form, period end, registrant
        metadata.update(cover_metadata(pages[0]))
    if pages and not w.elements:
        metadata["warning"] = NO_TEXT_LAYER
    return Document(
        id=doc_id,
        text="".join(w.parts),
        title=title or doc_id,
        metadata=metadata,
        elements=tuple(w.elements),
        pages=tuple(w.pages),
        source=source,
    )


def parse_pdf_file(path: str | Path, doc_id: str | None = None) -> Document:
    """Parse a PDF file into a document with pages and elements."""
    p = Path(path)
    pdf = _open(p)
    reader = PageReader(str(p))
    try:
        pages = extract_pages(pdf, str(p), reader)
        title = _title(pdf)
    finally:
        pdf.close()
    doc = build_document(pages, doc_id or os_text(p.stem), title=title, source=os_text(p))
    if not doc.elements:
        raise ParseError(str(p), _no_text(reader) if pages else "a PDF without pages")
    if reader.warnings:  # one line a page: the index and chunk commands print each
        warning = "\n".join(reader.warnings)
        doc = replace(doc, metadata={**doc.metadata, "warning": warning})
    return doc


def _no_text(reader: PageReader) -> str:
    """Why no page of a PDF yielded text."""
    if reader.unread:
        return f"{NO_TEXT_LAYER}: reading it needs OCR: pip install 'finchunk[ocr]'"
    if reader.read:
        return f"{NO_TEXT_LAYER}: OCR read no text on its scanned pages"
    return f"{NO_TEXT_LAYER}: no page is a scanned image either (blank pages or drawings)"
