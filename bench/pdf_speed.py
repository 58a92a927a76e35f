"""Pages/s of PDF → elements (finchunk.parse.pdf) next to raw pypdfium2 text extraction.

Ten FinanceBench filings (the first ten by name, or the files given), median of 3 runs each.
Target: elements at >= 70 % of the raw extraction speed.

    python bench/pdf_speed.py [--data ../shared/data/financebench/pdfs] [--runs 3] [FILE ...]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pypdfium2 as pdfium

from finchunk.parse.pdf import parse_pdf_file

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "financebench" / "pdfs"


def raw_text(path: Path) -> int:
    """pypdfium2 alone: open, extract every page's text; returns the page count."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            textpage.get_text_range()
            textpage.close()
            page.close()
        return len(pdf)
    finally:
        pdf.close()


def elements(path: Path) -> int:
    return len(parse_pdf_file(path).pages)


def median_seconds(fn, path: Path, runs: int) -> tuple[float, int]:
    times, pages = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        pages = fn(path)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), pages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--data", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--count", type=int, default=10)
    args = ap.parse_args()
    files = args.files or sorted(args.data.glob("*.pdf"))[: args.count]
    if not files:
        raise SystemExit(f"no PDFs found in {args.data}")
    total_pages, t_raw, t_el = 0, 0.0, 0.0
    print(f"{'file':45} {'pages':>6} {'raw p/s':>9} {'elements p/s':>13} {'ratio':>6}")
    for f in files:
        raw_s, pages = median_seconds(raw_text, f, args.runs)
        el_s, _ = median_seconds(elements, f, args.runs)
        total_pages += pages
        t_raw += raw_s
        t_el += el_s
        print(
            f"{f.name[:45]:45} {pages:6d} {pages / raw_s:9.0f} {pages / el_s:13.0f} "
            f"{raw_s / el_s:6.0%}"
        )
    print(
        f"{'all':45} {total_pages:6d} {total_pages / t_raw:9.0f} {total_pages / t_el:13.0f} "
        f"{t_raw / t_el:6.0%}  (median of {args.runs} per file; target >= 70 %)"
    )


if __name__ == "__main__":
    main()
