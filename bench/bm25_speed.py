"""BM25 index build and query latency: finchunk's numpy BM25 next to bm25s and rank_bm25
(when installed), run side by side on the same FinanceBench page texts and questions.

    python bench/bm25_speed.py [--data ../shared/data/financebench] [--pdfs 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from finchunk.retrieve.bm25 import LESSON_PARAMS, BM25Index
from finchunk.retrieve.text import tokenize

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "financebench"


def page_texts(pdf_dir: Path, n_pdfs: int) -> list[str]:
    import pypdfium2 as pdfium

    texts = []
    for pdf in sorted(pdf_dir.glob("*.pdf"))[:n_pdfs]:
        doc = pdfium.PdfDocument(str(pdf))
        texts += [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
        doc.close()
    return texts


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def latencies(search, queries: list[str]) -> tuple[float, float]:
    ts = []
    for q in queries:
        t0 = time.perf_counter()
        search(q)
        ts.append((time.perf_counter() - t0) * 1000)
    ts.sort()
    return statistics.median(ts), ts[int(0.99 * (len(ts) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--pdfs", type=int, default=20)
    args = ap.parse_args()
    if not (args.data / "pdfs").is_dir():
        print(f"no PDFs under {args.data}", file=sys.stderr)
        return 2
    texts = page_texts(args.data / "pdfs", args.pdfs)
    with (args.data / "financebench_open_source.jsonl").open(encoding="utf-8") as fh:
        queries = [json.loads(line)["question"] for line in fh]
    print(f"{len(texts):,} pages from {args.pdfs} filings, {len(queries)} queries")
    tokens = [tokenize(t) for t in texts]
    rows = []
    build, ours = timed(lambda: BM25Index(texts, LESSON_PARAMS))
    p50, p99 = latencies(lambda q: ours.search(q, 10), queries)
    rows.append(("finchunk BM25 lesson (numpy, incl. tokenising)", build, p50, p99))
    build, ours = timed(lambda: BM25Index(texts))
    p50, p99 = latencies(lambda q: ours.search(q, 10), queries)
    rows.append(("finchunk BM25 default pipeline", build, p50, p99))
    try:
        import bm25s

        def build_bm25s():
            m = bm25s.BM25(method="robertson")
            m.index(tokens, show_progress=False)
            return m

        build, model = timed(build_bm25s)

        def search_bm25s(q: str) -> None:
            terms = [t for t in tokenize(q) if t in model.vocab_dict]
            if terms:
                np.argsort(-model.get_scores(terms))[:10]

        p50, p99 = latencies(search_bm25s, queries)
        rows.append(("bm25s robertson (pre-tokenised)", build, p50, p99))
    except ImportError:
        print("bm25s not installed: skipped", file=sys.stderr)
    try:
        from rank_bm25 import BM25Okapi

        build, ref = timed(lambda: BM25Okapi(tokens))
        p50, p99 = latencies(lambda q: np.argsort(-ref.get_scores(tokenize(q)))[:10], queries)
        rows.append(("rank_bm25 BM25Okapi (pre-tokenised)", build, p50, p99))
    except ImportError:
        print("rank_bm25 not installed: skipped", file=sys.stderr)
    print(f"{'retriever':<42} {'build s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for name, b, p50, p99 in rows:
        print(f"{name:<42} {b:8.2f} {p50:8.2f} {p99:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
