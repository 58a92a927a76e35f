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
:mod:`finchunk.parse.pdf_layout` (headings in :mod:`finchunk.parse.pdf_headings`). From
pdfium, per line (a few calls a line, never per character): the height of its first
character's box as the font sets it (the type size a reader sees; pdfium's own font size
ignores the text matrix), the left and right edges, the top, the left edge of a table row's
first number column, and bold (weight or font name) for the lines that could be headings.
Lines keep pdfium's stream order, but for two columns drawn row by row
(:mod:`finchunk.parse.pdf_order`). Words pdfium split with a space it made up where the glyphs
touch are joined when the join is an English word ("Busines s"), and so is the "ff" a
ligature glyph mapped to one "f" lost ("af ected" → "affected").

Metadata: ``format``, ``pages``, and what the document says of itself
(:mod:`finchunk.parse.pdf_meta`): ``form``, ``period_end``, ``fiscal_year`` from a cover
(found among the first pages), ``issuer`` from the cover, its name in large type, a press
release's "X (NYSE: ABC)", the running footer, or the signature block; never from the file
name. The title is the PDF's own Title unless a producer wrote it ("Microsoft Word - R1",
an accession number, a file name), else "{issuer} > {form} {period end}", else the id.

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
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from finchunk.errors import ParseError
from finchunk.files import os_text
from finchunk.model import Document, Element, ElementKind, Span
from finchunk.parse.html_meta import title as meta_title
from finchunk.parse.ocr import PageReader
from finchunk.parse.pdf_headings import document_style
from finchunk.parse.pdf_layout import (
    Block,
    Line,
    furniture,
    heading_candidate,
    join_split_labels,
    numeric_start,
    page_blocks,
    trailing_numeric,
)
from finchunk.parse.pdf_meta import producer_artefact, read_metadata
from finchunk.parse.pdf_order import reading_order
from finchunk.parse.pdf_table import TablePlan, plan_tables, table_candidates, table_text

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
    """Font and position lookups on one text page (a few calls per line, never per char)."""

    __slots__ = ("_tp", "_count", "_buf", "_flags", "_l", "_r", "_b", "_t", "_rect")

    def __init__(self, textpage: pdfium.PdfTextPage) -> None:
        self._tp = textpage.raw
        self._count = textpage.count_chars()
        self._buf = ctypes.create_string_buffer(128)
        self._flags = ctypes.c_int()
        self._l, self._r = ctypes.c_double(), ctypes.c_double()
        self._b, self._t = ctypes.c_double(), ctypes.c_double()
        self._rect = pdfium_c.FS_RECTF()

    def bold(self, index: int) -> bool:
        """The weight first, the font name when it is unknown."""
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

    def loose(self, index: int) -> tuple[float, float, float, float]:
        """Left and right edges, height and top of one character's box as its font sets it
        (ascent to descent): the height is the size the reader sees, whatever the font size
        and text matrix say (pdfium's font size ignores the matrix: 1.0 or 736 in filings).
        Zeros when unknown (invisible text has an empty box)."""
        r = self._rect
        if not 0 <= index < self._count or not pdfium_c.FPDFText_GetLooseCharBox(
            self._tp, index, ctypes.byref(r)
        ):
            return 0.0, 0.0, 0.0, 0.0
        return r.left, r.right, abs(r.top - r.bottom), max(r.top, r.bottom)

    def box(self, index: int) -> tuple[float, float]:
        """Left and right edges of one character (0, 0 when unknown)."""
        if not 0 <= index < self._count or not pdfium_c.FPDFText_GetCharBox(
            self._tp, index, self._l, self._r, self._b, self._t
        ):
            return 0.0, 0.0
        return self._l.value, self._r.value

    def generated(self, index: int) -> bool:
        return 0 <= index < self._count and pdfium_c.FPDFText_IsGenerated(self._tp, index) == 1


#: Two letter runs pdfium split with a space it made up ("af ected", "Busines s").
_SPLIT = re.compile(r"(?<![A-Za-z])([A-Za-z]+) (?=([A-Za-z]+)(?![A-Za-z]))")
_ROMAN = re.compile(r"(?:IV|IX|VI{0,3}|XI{0,3}|XIV|XV)")
#: What a ligature glyph mapped to one "f" lost: the joins tried, in order.
_LIGATURE_JOINS = ("ff", "fi", "fl", "ffi", "ffl")
#: A gap narrower than this share of the font size is no word space; up to the wider one,
#: it is none either when neither half is a word.
_NO_GAP, _NARROW_GAP = 0.15, 0.33
#: ... and so is it when the half that is no word is this short ("Dat a", "Comment s").
_FRAGMENT = 4
_SHORT_WORDS = frozenset(
    {"a", "i", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it", "me"}
    | {"my", "no", "of", "on", "or", "so", "to", "up", "us", "we"}
)


def _words() -> frozenset[str]:
    from finchunk.text.analysis import english_words

    return english_words()


def mend_splits(
    text: str, base: int, probe: _FontProbe, size: float, joined: list[int] | None = None
) -> str:
    """Join the words pdfium split with a space of its own where the glyphs (nearly) touch
    ("Busines s", "W ELLS"), and put back the "ff" a ligature glyph mapped to one "f" lost
    ("af ected" → "affected"). Only pairs whose join is an English word are looked at;
    ``base`` is the text page index of ``text[0]``; the text page index of each space
    removed is appended to ``joined`` when given."""
    words = None
    out: list[str] = []
    last = 0
    for m in _SPLIT.finditer(text):
        a, b = m.group(1), m.group(2)
        la, lb = a.lower(), b.lower()
        words = words or _words()
        lig = la.endswith("f") and b[:1].islower()
        joined = [la + lb] + ([la + j[1:] + lb for j in _LIGATURE_JOINS] if lig else [])
        hit = next((i for i, w in enumerate(joined) if w in words), None)
        if hit is None and _ROMAN.fullmatch(a + b):
            hit = 0  # "PART I V"
        if hit is None:
            continue
        known = sum(w in words or w in _SHORT_WORDS for w in (la, lb))
        if known == 2 and hit == 0:
            continue
        space = base + m.end(1)
        if not probe.generated(space):
            continue
        gap = probe.box(space + 1)[0] - probe.box(space - 1)[1]
        unknown = [w for w in (la, lb) if w not in words and w not in _SHORT_WORDS]
        narrow = known == 0 or min(map(len, unknown), default=99) <= _FRAGMENT
        if gap > (_NARROW_GAP if narrow else _NO_GAP) * max(size, 1.0):
            continue
        glue = _LIGATURE_JOINS[hit - 1][1:] if hit else ""
        if joined is not None:
            joined.append(space)
        out.append(text[last : m.end(1)] + glue)
        last = m.start(2)
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def page_lines(textpage: pdfium.PdfTextPage) -> list[Line]:
    """The non-empty lines of one page: text, numeric cells, bold, font size, left and
    right edges, the left edge of a table row's first number column, the top edge, and
    on a page with table rows the words' edges of the lines that may be in a table."""
    raw = textpage.get_text_range()
    probe = _FontProbe(textpage)
    out: list[Line] = []
    where: list[tuple[int, int, list[int]]] = []  # per line: its text page span, joins
    for m in _LINE.finditer(raw):
        seg = m.group()
        text = clean_line(seg)
        if not text:
            continue
        first = m.start() + len(seg) - len(seg.lstrip())
        last = m.start() + len(seg.rstrip()) - 1
        x0, _, size, y = probe.loose(first)
        exact = len(text) == last - first + 1  # text[i] is char first + i
        joined: list[int] = []
        if exact and " " in text:
            mended = mend_splits(text, first, probe, size, joined)
            exact, text = mended == text, mended
        nums = trailing_numeric(text)
        bold = False
        if heading_candidate(text, nums):
            bold = probe.bold(first) and probe.bold(last)
        x1 = probe.loose(last)[1]
        numx = 0.0
        if nums >= 2 and exact:
            numx = probe.loose(first + numeric_start(text, nums))[0]
        out.append(Line(text, nums, bold, size, x0, x1, numx, y))
        where.append((first, last + 1, joined))
    for i in table_candidates(out):
        first, end, joined = where[i]
        words = _word_edges(raw, first, end, joined, out[i].text, probe)
        if words:
            out[i] = replace(out[i], words=words)
    return reading_order(join_split_labels(out))


_WORD = re.compile(r"\S+")


def _word_edges(
    raw: str, first: int, end: int, joined: list[int], text: str, probe: _FontProbe
) -> tuple[tuple[float, float], ...]:
    """Left and right edges of each word of a line (``text.split()`` order; the right edge
    of a word's last letter or digit, so "(73)" and "12%" end where the digits do), read
    from the text page's characters ``first:end``; words pdfium split that
    :func:`mend_splits` joined are one. Empty when the words of the text page and of
    ``text`` do not pair up."""
    spans = [(w.start() - first, w.end() - first) for w in _WORD.finditer(raw, first, end)]
    if joined:
        merged: list[tuple[int, int]] = []
        for a, b in spans:
            if merged and any(merged[-1][1] <= j - first < a for j in joined):
                merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        spans = merged
    parts = text.split()
    if len(spans) != len(parts):
        return ()
    out = []
    for a, b in spans:
        k = b - 1
        while k > a and not raw[first + k].isalnum():
            k -= 1
        out.append((probe.loose(first + a)[0], probe.loose(first + k)[1]))
    return tuple(out)


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
    #: Page index → where its part of a table written on an earlier page begins.
    breaks: dict[int, int] = field(default_factory=dict)

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

    def page(
        self, number: int, lines: Sequence[Line], blocks: Sequence[Block], plan: TablePlan
    ) -> None:
        """Write one page's blocks. A table that goes on onto the next page is written
        whole (its later parts' rows after its own) after the page's other blocks (its
        page furniture comes before it), and the next page starts where its rows do."""
        p = number - 1
        inside = self.breaks.pop(p, None)  # the page starts inside a table written before
        if inside is None and number > 1:
            self.write(PAGE_JOINER)
        page_start = self.pos if inside is None else inside
        sep = inside is not None
        order = list(range(len(blocks)))
        last = next((k for k in order if (p, k) in plan.goes_on), None)
        if last is not None:
            order = [k for k in order if k != last] + [last]
        for k in order:
            if (p, k) in plan.later:
                continue
            b = blocks[k]
            parts = plan.parts.get((p, k)) if b.kind is ElementKind.TABLE else None
            offsets: list[int] = []
            if parts:
                text, offsets = table_text(parts)
            else:
                text = LINE_JOINER.join(ln.text for ln in lines[b.first : b.last + 1])
            if sep:
                self.write(BLOCK_JOINER)
            sep = True
            start, end = self.write(text)
            for n, off in enumerate(offsets, start=1):
                self.breaks[p + n] = start + off
            self.elements.append(
                Element(
                    b.kind,
                    start,
                    end,
                    level=b.level,
                    section=self.section(b, text),
                    cites=tuple(dict.fromkeys(b.cites + plan.cites.get((p, k), ()))),
                    mark=b.mark,
                    page=number,
                )
            )
        self.pages.append((page_start, self.breaks.get(p + 1, self.pos)))

    def settle_pages(self) -> None:
        """Page furniture written after a table that runs on over a page it sat on (a
        table over three pages or more) is on the page whose text holds it."""
        starts = [s for s, _ in self.pages]
        for n, e in enumerate(self.elements):
            if e.page is None or not self.pages:
                continue
            s, t = self.pages[e.page - 1]
            if not s <= e.start < max(t, s + 1):
                self.elements[n] = replace(e, page=max(1, bisect_right(starts, e.start)))


NO_TEXT_LAYER = "no text layer (a scanned or image-only PDF)"


def build_document(
    pages: Sequence[Sequence[Line]], doc_id: str, *, title: str = "", source: str | None = None
) -> Document:
    """Assemble the canonical text, page spans and elements from extracted lines."""
    skips = furniture(pages)
    style = document_style(pages, skips)
    blocks = [page_blocks(lines, skip, style) for lines, skip in zip(pages, skips, strict=True)]
    plan = plan_tables(pages, blocks)
    w = _Writer()
    for number, (lines, page) in enumerate(zip(pages, blocks, strict=True), start=1):
        w.page(number, lines, page, plan)
    w.settle_pages()
    metadata: dict[str, object] = {"format": "pdf", "pages": len(pages)}
    running = [lines[i].text for lines, skip in zip(pages, skips, strict=True) for i in skip]
    meta = read_metadata(pages, running)
    metadata.update(meta)
    if pages and not w.elements:
        metadata["warning"] = NO_TEXT_LAYER
    if not title or producer_artefact(title):
        title = meta_title(meta, doc_id)
    return Document(
        id=doc_id,
        text="".join(w.parts),
        title=title,
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
