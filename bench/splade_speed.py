"""SPLADE reranking cost: a question's candidates scored on its pieces alone against full
vectors, on the EDGAR dev set's chunks (structure + header), medians over questions.

For each of ``--questions`` dev questions: the 100 first chunks of its filing (the reranker's
usual depth) are scored by ``SpladeReranker`` (the vocabulary head evaluated on the
question's pieces) and by full SPLADE vectors (all 30,522 columns) with the same dot
product; prints the median seconds of each, their ratio, and the largest score difference
(0 up to float rounding: the two are the same function). Every window is encoded afresh:
the encodings cache (``Splade.cache``) is off here::

    PYTHONPATH=src python bench/splade_speed.py --edgar ../shared/data/edgar [--questions 10]

``--threads`` times instead the same rerank, and the candidates' index-time impacts (full
vocabulary head, what ``finchunk index`` stores), with BLAS limited to one thread (what
``Splade.weights`` does) against NumPy's default threads, interleaved question by question:
median wall and CPU seconds a question, and whether scores and impacts are bitwise equal.

Needs ``pip install 'finchunk[splade]'``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from pathlib import Path

import numpy as np

from finchunk.chunk import make_chunker
from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions
from finchunk.retrieve.neural import blas
from finchunk.retrieve.neural.splade import SpladeReranker, _StatesCache, load_splade
from finchunk.retrieve.neural.splade_impacts import impacts

ROOT = Path(__file__).resolve().parents[1]
DEPTH = 100


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgar", type=Path, required=True, help="the shared EDGAR folder")
    ap.add_argument("--questions", type=int, default=10)
    ap.add_argument(
        "--threads", action="store_true", help="one BLAS thread against NumPy's default"
    )
    args = ap.parse_args()
    questions = read_quote_questions(ROOT / "devsets" / "edgar_dev.jsonl")[: args.questions]
    corpus = build_quote_corpus(questions, args.edgar).corpus
    chunker = make_chunker("structure", header=True)
    texts_of = {d.id: [c.text for c in chunker.chunk(d)][:DEPTH] for d in corpus.documents}
    splade = load_splade()
    # Cold costs: no window's encoding is kept between the timed calls (the cache across
    # questions is measured by bench/rerank.py's seconds a question).
    splade.cache = _StatesCache(0)
    if args.threads:
        threads(corpus.questions, texts_of, splade)
        return
    fast, full, gaps, chars = [], [], [], []
    for q in corpus.questions:
        texts = texts_of[q.doc_ids[0]]
        chars.append(statistics.mean(len(t) for t in texts))
        at = np.arange(len(texts))
        reranker = SpladeReranker(lambda p, texts=texts: [texts[i] for i in p.tolist()], splade)
        t = time.perf_counter()
        restricted = reranker.score(q.text, at)
        fast.append(time.perf_counter() - t)
        t = time.perf_counter()
        whole = splade.weights(texts) @ splade.weights([q.text])[0]
        full.append(time.perf_counter() - t)
        gaps.append(float(np.abs(restricted - whole).max()))
    f, w = statistics.median(fast), statistics.median(full)
    print(f"{len(fast)} questions × {DEPTH} candidates (~{statistics.mean(chars):.0f} characters)")
    print(f"  on the question's pieces  {f:.3f} s a question")
    print(f"  full vectors              {w:.3f} s a question ({w / f:.1f}x)")
    print(f"  largest score difference  {max(gaps):.2e}")


def _sequential(fn, n):
    return map(fn, range(n))


def threads(questions, texts_of, splade) -> None:
    """``Splade.weights``' own setting (one BLAS thread, windows over a thread per core)
    against one BLAS thread alone and NumPy's default BLAS threads, interleaved, for the
    rerank and for index-time impacts; results compared bitwise."""
    limited, threaded = blas.one_blas_thread, blas.in_threads
    modes = (
        ("finchunk", (limited, threaded)),
        ("BLAS one", (limited, _sequential)),
        ("BLAS default", (contextlib.nullcontext, _sequential)),
    )
    jobs = ("rerank", "impacts")
    timings = {(j, m): ([], []) for j in jobs for m, _ in modes}  # (wall, cpu) lists
    equal = dict.fromkeys(jobs, 0)
    for q in questions:
        texts = texts_of[q.doc_ids[0]]
        at = np.arange(len(texts))
        reranker = SpladeReranker(lambda p, texts=texts: [texts[i] for i in p.tolist()], splade)
        made: dict[str, list[bytes]] = {j: [] for j in jobs}
        for name, limit in modes:
            blas.one_blas_thread, blas.in_threads = limit
            for job in jobs:
                wall, cpu = time.perf_counter(), time.process_time()
                if job == "rerank":
                    out = reranker.score(q.text, at).tobytes()
                else:
                    rows = impacts(splade, texts)
                    out = rows.terms.tobytes() + rows.impacts.tobytes() + rows.starts.tobytes()
                timings[job, name][0].append(time.perf_counter() - wall)
                timings[job, name][1].append(time.process_time() - cpu)
                made[job].append(out)
        blas.one_blas_thread, blas.in_threads = limited, threaded
        for job in jobs:
            equal[job] += len(set(made[job])) == 1
    n = len(questions)
    print(f"{n} questions × {DEPTH} candidates, interleaved; median a question:")
    for job in jobs:
        base = statistics.median(timings[job, "BLAS default"][0])
        for name, _ in modes:
            wall, cpu = timings[job, name]
            w, c = statistics.median(wall), statistics.median(cpu)
            print(f"  {job:<8} {name:<12} {w:.3f} s wall ({base / w:.1f}x), {c:.3f} s CPU")
        print(f"  {job:<8} bitwise equal for {equal[job]} of {n} questions")


if __name__ == "__main__":
    main()
