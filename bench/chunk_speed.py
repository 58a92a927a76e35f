"""Parse + chunk speed (MB/s, median of 5) on >= 5 MB of Markdown built from FinanceBench
PDF text, next to LangChain's RecursiveCharacterTextSplitter in the same process.

    python bench/chunk_speed.py [--data ../shared/data/financebench] [--mb 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.parse.markdown import parse_markdown

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "financebench"


def build_markdown(pdf_dir: Path, target_mb: float) -> str:
    """Each filing becomes '# name', each page a '## Page n' section with its text."""
    import pypdfium2 as pdfium

    parts: list[str] = []
    size = 0
    for pdf in sorted(pdf_dir.glob("*.pdf")):
        doc = pdfium.PdfDocument(str(pdf))
        parts.append(f"# {pdf.stem}\n")
        for i in range(len(doc)):
            page = doc[i].get_textpage().get_text_range().replace("\r\n", "\n")
            block = f"## Page {i + 1}\n\n{page.strip()}\n"
            parts.append(block)
            size += len(block.encode("utf-8"))
        doc.close()
        if size >= target_mb * 1e6:
            break
    return "\n".join(parts)


def median_mbps(fn: Callable[[], object], nbytes: int, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return nbytes / 1e6 / statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--mb", type=float, default=5.0)
    args = ap.parse_args()
    pdfs = args.data / "pdfs"
    if not pdfs.is_dir():
        print(f"no PDFs at {pdfs}: pass --data DIR (FinanceBench folder)", file=sys.stderr)
        return 2
    text = build_markdown(pdfs, args.mb)
    nbytes = len(text.encode("utf-8"))
    print(f"input: {nbytes / 1e6:.2f} MB of Markdown, {len(text):,} characters")
    doc = parse_markdown(text, "bench")
    print(f"elements: {len(doc.elements):,}")
    rows: list[tuple[str, float]] = []
    rows.append(
        ("parse (Markdown → elements)", median_mbps(lambda: parse_markdown(text, "b"), nbytes))
    )
    for chunker in (Fixed(500, 50), Recursive(500), Structure(800), ByTitle(2048)):
        rows.append(
            (f"{chunker.name} (chunk only)", median_mbps(lambda c=chunker: c.chunk(doc), nbytes))
        )
    rows.append(
        (
            "structure incl. parsing",
            median_mbps(lambda: Structure(800).chunk(parse_markdown(text, "b")), nbytes),
        )
    )
    rows.append(
        (
            "bytitle incl. parsing",
            median_mbps(lambda: ByTitle(2048).chunk(parse_markdown(text, "b")), nbytes),
        )
    )
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        splitter = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=0)
        rows.append(
            (
                "LangChain RecursiveCharacterTextSplitter(500), strings only",
                median_mbps(lambda: splitter.split_text(text), nbytes),
            )
        )
        # With offsets, as finchunk always gives them (LangChain finds them with str.find).
        located = RecursiveCharacterTextSplitter(
            chunk_size=500, chunk_overlap=0, add_start_index=True
        )
        rows.append(
            (
                "LangChain RecursiveCharacterTextSplitter(500), with start_index",
                median_mbps(lambda: located.create_documents([text]), nbytes),
            )
        )
    except ImportError:
        print("langchain-text-splitters not installed: peer skipped", file=sys.stderr)
    width = max(len(n) for n, _ in rows)
    for name, mbps in rows:
        print(f"{name:<{width}}  {mbps:7.1f} MB/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
