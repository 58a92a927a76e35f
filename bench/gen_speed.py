"""Speed of the sample-corpus generator: median wall time of repeated runs.

.venv/bin/python bench/gen_speed.py            # default corpus and a 10,000+ document one
.venv/bin/python bench/gen_speed.py --quick    # default corpus only
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable

from finchunk.datasets import SampleConfig, generate, write_lesson_files


def median_time(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def report(label: str, config: SampleConfig, repeat: int) -> None:
    gen_s, corpus = median_time(lambda: generate(config), repeat)
    chars = sum(len(d.texto) for d in corpus.documents)
    with tempfile.TemporaryDirectory() as tmp:
        write_s, _ = median_time(lambda: write_lesson_files(corpus, tmp), repeat)
    print(
        f"{label}: {len(corpus.documents):,} documents, {len(corpus.passages):,} passages, "
        f"{len(corpus.questions):,} questions, {chars / 1e6:.1f} M chars | "
        f"generate {gen_s:.3f} s ({len(corpus.documents) / gen_s:,.0f} docs/s), "
        f"write {write_s:.3f} s  [median of {repeat}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="default corpus only")
    args = parser.parse_args()
    report("default (4x2 reports, 5 ETFs, 3 notes)", SampleConfig(), 5)
    if not args.quick:
        big = SampleConfig(issuers=2000, years=5, funds=500, notes=200)
        report("large (2000x5 reports, 500 ETFs, 200 notes)", big, 3)


if __name__ == "__main__":
    main()
