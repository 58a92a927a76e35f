"""OCR of scanned pages (the ``ocr`` extra): words per second and character accuracy on pages
rendered from known text.

Pages of financial prose and statement rows are written with fpdf2 (11 pt; Helvetica, Times
and Courier, a font a page in turn),
rendered to images with pdfium at the scanner's resolution (``--scan-dpi``), and put into an
image-only PDF (``tests/pdf_fixtures.write_scanned``); ``finchunk.parse.load`` then reads it
as a user's scanned report is read (OCR at ``finchunk.parse.ocr.DPI``, or each ``--dpi``
given). Measured per OCR resolution:

* words/s: the known text's words over the seconds ``load`` took (the engine loaded before);
* space gap: ``finchunk.parse.ocr.SPACE_GAP`` (``off``: the recogniser's spaces as read);
* character accuracy: 1 − edit distance / length, against the known text (lines joined by
  newlines, runs of white space as one space), and again with all white space removed (the
  recogniser's model drops some spaces between words; the second figure is the characters
  alone);
* word recall: the share of the known text's words found as words in the OCR text.

Run: ``python bench/ocr.py [--pages 3] [--dpi 100,150] [--gap off,0.4] [--size 8]`` from the
repository root with the ``ocr`` and ``dev`` extras installed (seconds a page).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.pdf_fixtures import write_scanned  # noqa: E402

from finchunk.parse import load  # noqa: E402
from finchunk.parse import ocr as ocr_module  # noqa: E402

PROSE = [
    "Item 7. Management's Discussion and Analysis of Financial Condition",
    "Net sales increased 12% to $4,213 million in fiscal 2024, driven by higher",
    "volumes in the Retail segment and favorable pricing across all regions.",
    "Operating income was $812 million, compared with $745 million a year earlier.",
    "Gross margin improved 80 basis points to 38.4% on lower freight costs.",
    "Selling, general and administrative expenses rose 5% to $1,102 million.",
    "Cash provided by operating activities was $1,356 million for the year.",
    "We repurchased 4.2 million shares for $310 million under our program.",
    "Note 12. Debt: the Company had $2,750 million of senior notes outstanding.",
    "The effective tax rate was 21.7% compared with 23.1% in fiscal 2023.",
]
ROWS = [
    "(In millions) 2024 2023 2022",
    "Net sales $ 4,213 $ 3,761 $ 3,540",
    "Cost of sales (2,595) (2,347) (2,201)",
    "Gross profit 1,618 1,414 1,339",
    "Operating income $ 812 $ 745 $ 690",
    "Net income attributable to shareholders $ 598 $ 541 $ 502",
]


def known_pages(n: int) -> list[list[str]]:
    """``n`` pages, each a heading, prose and a statement (rotated so no two are alike)."""
    pages = []
    for i in range(n):
        prose = PROSE[i % len(PROSE) :] + PROSE[: i % len(PROSE)]
        pages.append([f"Section {i + 1}. Results of Operations", *prose, "", *ROWS])
    return pages


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (one row at a time)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _norm(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def accuracy(truth: str, read: str) -> tuple[float, float, float]:
    """Character accuracy with spaces, without white space, and word recall."""
    t, r = _norm(truth), _norm(read)
    with_spaces = 1 - edit_distance(t, r) / max(len(t), 1)
    t0, r0 = re.sub(r"\s+", "", t), re.sub(r"\s+", "", r)
    chars = 1 - edit_distance(t0, r0) / max(len(t0), 1)
    want, got = Counter(t.split()), Counter(r.split())
    words = sum(min(c, got[w]) for w, c in want.items()) / max(sum(want.values()), 1)
    return with_spaces, chars, words


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--dpi", default=str(ocr_module.DPI), help="OCR resolutions, comma-separated")
    ap.add_argument("--scan-dpi", type=int, default=200, help="the scanned images' resolution")
    ap.add_argument("--fonts", default="Helvetica,Times,Courier", help="a font a page, in turn")
    ap.add_argument("--gap", default=str(ocr_module.SPACE_GAP), help="SPACE_GAP values (off)")
    ap.add_argument("--size", type=float, default=11, help="the text's size in points")
    args = ap.parse_args()
    if not ocr_module.ocr_enabled():
        print("the ocr extra is not installed (pip install 'finchunk[ocr]')", file=sys.stderr)
        return 2
    pages = known_pages(args.pages)
    truth = "\n".join(line for page in pages for line in page)
    n_words = len(truth.split())
    t = time.perf_counter()
    ocr_module._engine()
    print(
        f"engine loaded in {time.perf_counter() - t:.2f} s; {args.pages} pages of {args.size:g} pt"
        f" ({args.fonts}), {n_words} words"
    )
    print("| OCR dpi | space gap | s/page | words/s | char acc. | char acc. (no spaces) | words |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        fonts = tuple(args.fonts.split(","))
        scan = write_scanned(
            Path(tmp) / "scan.pdf", pages, dpi=args.scan_dpi, fonts=fonts, size=args.size
        )
        gaps = [float("inf") if g == "off" else float(g) for g in args.gap.split(",")]
        runs = [(int(d), g) for d in args.dpi.split(",") for g in gaps]
        for dpi, gap in runs:
            ocr_module.DPI, ocr_module.SPACE_GAP = dpi, gap
            t = time.perf_counter()
            doc = load(scan)
            secs = time.perf_counter() - t
            read = "\n".join(doc.element_text(e) for e in doc.elements)
            acc, chars, words = accuracy(truth, read)
            print(
                f"| {dpi} | {gap} | {secs / args.pages:.2f} | {n_words / secs:.0f} | {acc:.3f} "
                f"| {chars:.3f} | {words:.3f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
