"""cProfile tops of parsing + structure chunking, per input format, on real filings.

* ``markdown``: the ``fb`` input of ``bench/chunk_speed.py`` (ten FinanceBench 10-Ks
  rendered as Markdown with their structure), parsed as one document;
* ``html``: every EDGAR HTML filing under ../shared/data/edgar;
* ``pdf``: the first five FinanceBench 10-K PDFs.

    python bench/parse_profile.py [markdown] [html] [pdf] [--top 15] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable
from pathlib import Path

from finchunk.chunk import Structure
from md_inputs import SHARED, financebench_10k


def markdown_job(data: Path) -> Callable[[], object]:
    from finchunk.parse.markdown import parse_markdown

    text = "\n\n".join(md for _, md in financebench_10k(data / "financebench" / "pdfs"))
    return lambda: Structure(800).chunk(parse_markdown(text, "fb"))


def html_job(data: Path) -> Callable[[], object]:
    from finchunk.parse.html import parse_html_file

    files = sorted((data / "edgar").glob("*/*.htm*"))
    return lambda: [Structure().chunk(parse_html_file(f)) for f in files]


def pdf_job(data: Path) -> Callable[[], object]:
    from finchunk.parse.pdf import parse_pdf_file

    files = sorted((data / "financebench" / "pdfs").glob("*_10K.pdf"))[:5]
    return lambda: [Structure().chunk(parse_pdf_file(f)) for f in files]


JOBS = {"markdown": markdown_job, "html": html_job, "pdf": pdf_job}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("formats", nargs="*", help=f"any of {', '.join(JOBS)} (default: all)")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--data", type=Path, default=SHARED)
    args = ap.parse_args()
    unknown = set(args.formats) - set(JOBS)
    if unknown:
        ap.error(f"unknown format(s): {', '.join(sorted(unknown))}")
    for name in args.formats or list(JOBS):
        job = JOBS[name](args.data)
        t0 = time.process_time()
        job()
        plain = time.process_time() - t0
        profile = cProfile.Profile()
        profile.runcall(job)
        print(f"\n== {name}: {plain:.2f} CPU s unprofiled; top by own time ==")
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
