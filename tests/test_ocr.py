"""Scanned PDF pages: named in a warning (or the error) without the ``ocr`` extra, read by OCR
with it, a warning per page; blank pages and drawings are not scanned pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from finchunk.errors import ParseError
from finchunk.model import ElementKind
from finchunk.parse import load
from finchunk.parse.ocr import OCR_ENV, group_lines, ocr_enabled, respace

from .pdf_fixtures import write_blank, write_scanned

LINES = ["Results of Operations", "Net sales rose 12% to 4,213 million.", "Cash was 1.1 billion."]


def _text_then_scan(path: Path, tmp_path: Path) -> Path:
    """Page 1 with a text layer, page 2 a scanned image."""
    scan = write_scanned(tmp_path / "only_scan.pdf", [LINES])
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 7, "Typed cover page of the report.")
    pdf.add_page()
    import pypdfium2 as pdfium

    image = pdfium.PdfDocument(scan)[0].render(scale=1).to_pil()
    pdf.image(image, x=0, y=0, w=pdf.w, h=pdf.h)
    pdf.output(str(path))
    return path


def test_without_ocr_a_scanned_pdf_is_an_error_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(OCR_ENV, "off")
    assert not ocr_enabled()
    path = write_scanned(tmp_path / "scan.pdf", [LINES])
    with pytest.raises(ParseError) as err:
        load(path)
    message = str(err.value)
    assert message.startswith(f"{path}: no text layer") and "\n" not in message
    assert "pip install 'finchunk[ocr]'" in message


def test_without_ocr_a_scanned_page_of_a_text_pdf_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(OCR_ENV, "off")
    doc = load(_text_then_scan(tmp_path / "mixed.pdf", tmp_path))
    assert doc.text.strip() == "Typed cover page of the report."
    assert doc.metadata["warning"].startswith("page 2: a scanned page (no text layer), not read")


def test_drawings_are_not_scanned_pages(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="no page is a scanned image either"):
        load(write_blank(tmp_path / "drawing.pdf"))


def test_boxes_group_into_lines_left_to_right() -> None:
    boxes = [
        ([[300, 52], [380, 52], [380, 70], [300, 70]], "$ 829", 0.9),
        ([[10, 50], [200, 50], [200, 72], [10, 72]], "Operating income", 0.9),
        ([[10, 90], [120, 90], [120, 110], [10, 110]], "Net income", 0.9),
    ]
    assert group_lines(boxes) == ["Operating income $ 829", "Net income"]


def _box(x0: float, x1: float) -> list[list[float]]:
    return [[x0, 0], [x1, 0], [x1, 20], [x0, 20]]


def _drawn_line(text: str, word_gap_after: int | None):
    """A grey line image of ``text``: each character a 4-pixel block 1 pixel from the next,
    6 pixels after character ``word_gap_after``; its box and the characters' boxes."""
    import numpy as np

    gray = np.full((20, 8 * len(text) + 20), 255, dtype=np.uint8)
    boxes, x = [], 2
    for i, ch in enumerate(text):
        if ch != " ":
            gray[5:16, x : x + 4] = 0
        boxes.append(_box(x, x + 4))
        x += 11 if i == word_gap_after else 5
    return gray, _box(0, gray.shape[1]), boxes


def test_spaces_the_recogniser_dropped_come_back_from_the_image() -> None:
    gray, line, chars = _drawn_line("revenuerose", 6)
    assert respace(gray, line, "revenuerose", chars) == "revenue rose"
    assert respace(gray, line, "revenuerose", chars[:5]) == "revenuerose"  # boxes do not fit
    gray, line, chars = _drawn_line("netsales", 2)
    assert respace(gray, line, "netsales", chars) == "netsales"  # a short run is left as read
    gray, line, chars = _drawn_line("revenue rose", 6)
    assert respace(gray, line, "revenue rose", chars) == "revenue rose"  # a space read stays


needs_ocr = pytest.mark.skipif(not ocr_enabled(), reason="the ocr extra is not installed")


@needs_ocr
def test_ocr_reads_scanned_pages_into_elements_with_a_warning_a_page(tmp_path: Path) -> None:
    doc = load(_text_then_scan(tmp_path / "mixed.pdf", tmp_path))
    assert doc.metadata["warning"].startswith("page 2: no text layer, read by OCR")
    assert [e.page for e in doc.elements] == sorted(e.page for e in doc.elements)
    page2 = " ".join(doc.element_text(e) for e in doc.elements if e.page == 2)
    for word in ("Results", "Net", "sales", "4,213", "million", "Cash", "billion"):
        assert word in page2, page2
    for e in doc.elements:
        assert doc.text[e.start : e.end].strip() == doc.text[e.start : e.end] != ""
    assert doc.pages[1][0] <= min(e.start for e in doc.elements if e.page == 2)
    assert all(e.kind is not ElementKind.FURNITURE for e in doc.elements)
