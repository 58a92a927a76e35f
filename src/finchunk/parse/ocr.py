"""Scanned PDF pages read by OCR (the ``ocr`` extra: rapidocr-onnxruntime, whose detection,
orientation and recognition models ship inside its wheel; nothing is downloaded).

A page is read by OCR only when it has no text layer and is a scanned page: images cover
at least half of it (a blank page or a vector drawing is not). The page is rendered with
pdfium at :data:`DPI`, recognised, and the recognised boxes are grouped into lines (boxes
that share a baseline band, left to right) that join the PDF parser's pipeline exactly as
text-layer lines do. Each page read so gets a warning (recognition makes errors); without
the extra, a scanned page is named in a warning and left unread.

The switch is the extra itself: installed, scanned pages are read; ``FINCHUNK_OCR=off`` in
the environment turns it off (a run that must not spend seconds a page on OCR).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import util
from typing import Any

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from finchunk.errors import MissingExtraError, ParseError
from finchunk.extras import EXTRA_PACKAGES
from finchunk.parse.pdf_layout import Line, trailing_numeric

#: Rendering resolution for OCR. ``bench/ocr.py`` (11 and 8 pt, three fonts): 100 dpi reads
#: the characters nearly as well as 150 (0.99+ both) in half the time (the detector's cost
#: grows with the pixels) and keeps more of the spaces.
DPI = 100
#: The share of a page that images must cover for it to be a scanned page.
SCANNED_COVER = 0.5
#: A gap between words (:func:`respace`): ink-free columns at least this share of the line's
#: ink height and this many times the line's median gap, put back only inside runs of at
#: least this many characters without a space. Chosen on Helvetica, Times and Courier at 11
#: and 8 pt and a scanned letter of FinanceBench (``bench/README.md``).
SPACE_GAP = 0.25
GAP_OVER_MEDIAN = 2.0
GLUED_RUN = 10
_SOLID = re.compile(r"\S+")
_INK = 140  # grey level below which a pixel is ink
OCR_ENV = "FINCHUNK_OCR"
_MODULE = "rapidocr_onnxruntime"


def ocr_enabled() -> bool:
    """Whether scanned pages are read: the extra is installed and not switched off."""
    if os.environ.get(OCR_ENV, "").strip().lower() in ("off", "0", "no", "false"):
        return False
    try:
        return util.find_spec(_MODULE) is not None
    except (ImportError, ValueError):
        return False


@lru_cache(maxsize=1)
def _engine() -> Any:
    """The OCR engine, loaded once per process (about half a second)."""
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:  # installed but broken (OpenCV without its system libraries)
        what = f"reading scanned pages ({exc})"
        raise MissingExtraError("ocr", what, EXTRA_PACKAGES["ocr"]) from None
    return RapidOCR()


def is_scanned(page: pdfium.PdfPage) -> bool:
    """Whether images cover at least :data:`SCANNED_COVER` of the page."""
    width, height = page.get_size()
    area = max(width * height, 1.0)
    covered = 0.0
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]):
        bounds = getattr(obj, "get_bounds", None) or obj.get_pos  # pypdfium2 5 / 4
        left, bottom, right, top = bounds()
        w = min(right, width) - max(left, 0.0)
        h = min(top, height) - max(bottom, 0.0)
        if w > 0 and h > 0:
            covered += w * h
        if covered >= SCANNED_COVER * area:
            return True
    return False


def recognise(page: pdfium.PdfPage, dpi: int | None = None) -> list[str]:
    """The text lines OCR reads on ``page``, top to bottom (rendered at ``dpi``, else
    :data:`DPI`)."""
    image = page.render(scale=(dpi or DPI) / 72).to_numpy()  # BGR, as OpenCV reads images
    # No angle classifier: on upright scans it turned whole lines upside down (lost them).
    # Character boxes: to put back the spaces the recogniser drops (see respace).
    result, _ = _engine()(image, use_cls=False, return_word_box=True)
    gray = image.min(axis=2) if image.ndim == 3 else image
    boxes = [[r[0], respace(gray, r[0], str(r[1]), r[3]), r[2]] for r in result or []]
    return group_lines(boxes)


def respace(gray: Any, box: Any, text: str, char_boxes: Any) -> str:
    """``text`` with a space wherever the image shows one that the recogniser dropped
    (its model, trained mostly on Chinese, often glues English words: "Cashprovided").

    Within the line's box, a run of ink-free columns is a gap between words when it is at
    least :data:`SPACE_GAP` of the ink's height wide and :data:`GAP_OVER_MEDIAN` times the
    line's median gap (a monospaced font's letters stand far apart). Such a gap falls
    between the two characters whose box centres straddle it; a space goes there only
    inside a run of :data:`GLUED_RUN` or more characters without one (words glued together:
    a short word is left as read). Without one box per character the text stays as read."""
    if len(char_boxes) != len(text) or not text:
        return text
    xs = [p[0] for p in box]
    ys = [p[1] for p in box]
    x0, y0 = max(int(min(xs)), 0), max(int(min(ys)), 0)
    ink = gray[y0 : int(max(ys)) + 1, x0 : int(max(xs)) + 1] < _INK
    if ink.size == 0:
        return text
    height = int(ink.any(axis=1).sum())
    cols = np.flatnonzero(ink.any(axis=0))
    widths = np.diff(cols) - 1
    blank = widths[widths > 0]
    if not blank.size:
        return text
    least = max(2.0, SPACE_GAP * height, GAP_OVER_MEDIAN * float(np.median(blank)))
    gaps = [x0 + (a + b) / 2 for a, b, w in zip(cols, cols[1:], widths, strict=False) if w >= least]
    if not gaps:
        return text
    run = [0] * len(text)  # the length of the space-free run each character is in
    for m in _SOLID.finditer(text):
        run[m.start() : m.end()] = [m.end() - m.start()] * (m.end() - m.start())
    centres = [sum(p[0] for p in cb) / max(len(cb), 1) for cb in char_boxes]
    solid = [i for i, ch in enumerate(text) if ch != " "]
    after: set[int] = set()
    for g in gaps:
        for j, k in zip(solid, solid[1:], strict=False):
            if centres[j] <= g <= centres[k]:
                if k == j + 1 and run[j] >= GLUED_RUN:  # no space between them yet
                    after.add(j)
                break
    return "".join(ch + " " if i in after else ch for i, ch in enumerate(text))


def group_lines(result: list[Any]) -> list[str]:
    """Recognised boxes (``[points, text, score]``) as lines: a box whose vertical middle
    lies within a line's band joins it; each line reads its boxes left to right."""
    boxes = []
    for points, text, _score in result:
        ys = [p[1] for p in points]
        xs = [p[0] for p in points]
        boxes.append((min(ys), max(ys), min(xs), str(text)))
    boxes.sort(key=lambda b: (b[0] + b[1]) / 2)
    lines: list[list[tuple[float, float, float, str]]] = []
    for box in boxes:
        middle = (box[0] + box[1]) / 2
        if lines and lines[-1][0][0] <= middle <= lines[-1][0][1]:
            lines[-1].append(box)
        else:
            lines.append([box])
    return [" ".join(b[3] for b in sorted(line, key=lambda b: b[2])) for line in lines]


@dataclass
class PageReader:
    """Reads the scanned pages of one PDF and keeps the warnings to give."""

    source: str
    enabled: bool = field(default_factory=ocr_enabled)
    warnings: list[str] = field(default_factory=list)
    read: list[int] = field(default_factory=list)  # pages read by OCR
    unread: list[int] = field(default_factory=list)  # scanned pages left unread

    def lines(self, page: pdfium.PdfPage, number: int, clean: Any) -> list[Line]:
        """The lines of a page without a text layer: OCR's, when it is a scanned page and
        OCR is on; else none (and a warning naming the page when it is a scanned page)."""
        if not is_scanned(page):
            return []
        if not self.enabled:
            self.unread.append(number)
            self.warnings.append(
                f"page {number}: a scanned page (no text layer), not read: "
                f"pip install 'finchunk[ocr]' reads it by OCR"
            )
            return []
        try:
            found = recognise(page)
        except MissingExtraError as exc:
            raise MissingExtraError(exc.extra, exc.what, exc.package, self.source) from None
        except Exception as exc:  # the engine's failure on one image: name file and page
            why = f"OCR failed ({type(exc).__name__}: {exc})"
            raise ParseError(self.source, why, f"page {number}") from None
        texts = [t for t in (clean(s) for s in found) if t]
        self.read.append(number)
        self.warnings.append(
            f"page {number}: no text layer, read by OCR ({len(texts)} lines; "
            "recognition errors are possible)"
        )
        return [Line(t, trailing_numeric(t), False) for t in texts]
