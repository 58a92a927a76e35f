"""Fact-store speed: load time of the five companyfacts files, and point-in-time query latency
(p50/p99) on them and on a synthetic store of 10,000 entities.

Targets: p50 < 1 ms on the five files, p50 < 10 ms on the 10,000-entity store.

    .venv/bin/python bench/facts_speed.py [--edgar ../shared/data/edgar] [--entities 10000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from decimal import Decimal
from functools import partial
from pathlib import Path

from finchunk.facts import FactStore, Period
from finchunk.facts.companyfacts import read_companyfacts
from finchunk.facts.model import Fact, Filing, ParsedFacts

FILES = [
    "AAPL/CIK0000320193.json",
    "NVDA/CIK0001045810.json",
    "GOOGL/CIK0001652044.json",
    "TSLA/tsla_facts.json",
    "LPA/lpa_facts.json",
]
QUERIES = 2000
SEED = 20240101


def percentiles(samples_ns: list[int]) -> tuple[float, float]:
    ordered = sorted(samples_ns)
    p50 = ordered[len(ordered) // 2] / 1e6
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] / 1e6
    return p50, p99


def timed(calls: list[Callable[[], object]]) -> list[int]:
    out = []
    for call in calls:
        t0 = time.perf_counter_ns()
        call()
        out.append(time.perf_counter_ns() - t0)
    return out


def bench_companyfacts(edgar: Path, workdir: Path) -> None:
    print("== companyfacts: load (parse + insert into a SQLite file), median of 3 runs ==")
    all_facts: list[Fact] = []
    total = []
    for run in range(3):
        db = workdir / f"cf{run}.sqlite"
        run_total = 0.0
        with FactStore(db) as store:
            for name in FILES:
                t0 = time.perf_counter()
                parsed = read_companyfacts(edgar / name)
                t1 = time.perf_counter()
                report = store.add(parsed)
                t2 = time.perf_counter()
                run_total += t2 - t0
                if run == 0:
                    all_facts.extend(parsed.facts)
                    print(
                        f"  {name:28} {report.facts:6d} facts  parse {t1 - t0:6.3f} s  "
                        f"insert {t2 - t1:6.3f} s  ({(edgar / name).stat().st_size / 1e6:.1f} MB)"
                    )
        total.append(run_total)
    size = (workdir / "cf0.sqlite").stat().st_size / 1e6
    print(
        f"  all five: median {statistics.median(total):.2f} s over 3 runs "
        f"({len(all_facts)} facts, store {size:.1f} MB)"
    )
    rng = random.Random(SEED)
    sample = rng.sample(all_facts, QUERIES)
    with FactStore(workdir / "cf0.sqlite") as store:
        exact = [
            partial(store.get, f.cik, f.concept, unit=f.unit, period=f.period, as_of=_as_of(rng, f))
            for f in sample
        ]
        p50, p99 = percentiles(timed(exact))
        print(
            f"  get exact period + as_of ({QUERIES} random facts): "
            f"p50 {p50:.3f} ms  p99 {p99:.3f} ms   target p50 < 1 ms"
        )
        p50, p99 = percentiles(timed(exact))
        print(
            f"  same, second pass (warm cache):                  p50 {p50:.3f} ms  p99 {p99:.3f} ms"
        )
        annual = [f for f in sample if f.period.days > 300][:300]
        fiscal = [
            (
                lambda f=f: store.get(
                    f.cik, f.concept, unit=f.unit, fiscal_year=f.period.end.year, quarter=4
                )
            )
            for f in annual
        ]
        p50, p99 = percentiles(timed(fiscal))
        print(
            f"  get --fiscal-year Y --quarter 4 ({len(fiscal)} queries, calendar inference "
            f"and Q4 derivation): p50 {p50:.3f} ms  p99 {p99:.3f} ms"
        )
        hist = [
            (lambda f=f: store.history(f.cik, f.concept, f.period, unit=f.unit))
            for f in sample[:500]
        ]
        p50, p99 = percentiles(timed(hist))
        print(f"  history (500 facts): p50 {p50:.3f} ms  p99 {p99:.3f} ms")


def _as_of(rng: random.Random, fact: Fact) -> date:
    return fact.filing.filed + timedelta(days=rng.randint(-200, 800))


CONCEPTS = [f"us-gaap:Concept{i:02d}" for i in range(10)]
YEARS = range(2015, 2025)


def synthetic(entities: int) -> Iterator[ParsedFacts]:
    """Per entity: 10 concepts x 10 annual periods, each in its 10-K; a third restated in the
    next year's 10-K. About 1.33 observations per fact, 1.3 M rows for 10,000 entities."""
    rng = random.Random(SEED)
    batch: list[Fact] = []
    for cik in range(1, entities + 1):
        for year in YEARS:
            period = Period.duration(date(year, 1, 1), date(year, 12, 31))
            first = Filing(f"{cik:010d}-{year % 100 + 1:02d}-000001", "10-K", date(year + 1, 2, 20))
            again = Filing(f"{cik:010d}-{year % 100 + 2:02d}-000001", "10-K", date(year + 2, 2, 20))
            for concept in CONCEPTS:
                value = Decimal(rng.randint(1, 10**9))
                batch.append(Fact(cik, concept, "USD", period, value, first))
                if rng.random() < 1 / 3 and year + 2 <= 2025:
                    batch.append(Fact(cik, concept, "USD", period, value + 1, again))
        if cik % 500 == 0 or cik == entities:
            yield ParsedFacts(source=f"synthetic up to {cik}", facts=batch)
            batch = []


def bench_synthetic(entities: int, workdir: Path) -> None:
    print(f"== synthetic store: {entities} entities ==")
    db = workdir / "synthetic.sqlite"
    t0 = time.perf_counter()
    rows = 0
    with FactStore(db) as store:
        for parsed in synthetic(entities):
            rows += store.add(parsed).inserted
    print(
        f"  built {rows} rows in {time.perf_counter() - t0:.1f} s "
        f"(store {db.stat().st_size / 1e6:.0f} MB)"
    )
    rng = random.Random(SEED + 1)
    with FactStore(db) as store:
        calls = []
        for _ in range(QUERIES):
            cik, year = rng.randint(1, entities), rng.choice(YEARS)
            period = Period.duration(date(year, 1, 1), date(year, 12, 31))
            as_of = date(year + 1, 1, 1) + timedelta(days=rng.randint(0, 900))
            concept = rng.choice(CONCEPTS)
            calls.append(
                lambda c=cik, k=concept, p=period, a=as_of: store.get(
                    c, k, unit="USD", period=p, as_of=a
                )
            )
        p50, p99 = percentiles(timed(calls))
        print(
            f"  get exact period + as_of ({QUERIES} random): p50 {p50:.3f} ms  "
            f"p99 {p99:.3f} ms   target p50 < 10 ms"
        )
        calls = [
            partial(store.get, rng.randint(1, entities), "us-gaap:Concept03", fiscal_year=2020)
            for _ in range(300)
        ]
        p50, p99 = percentiles(timed(calls))
        print(f"  get --fiscal-year (300 random): p50 {p50:.3f} ms  p99 {p99:.3f} ms")
        frames = [
            (
                lambda y=y: store.frame(
                    "us-gaap:Concept05",
                    Period.duration(date(y, 1, 1), date(y, 12, 31)),
                    as_of=date(y + 1, 6, 30),
                )
            )
            for y in YEARS
        ]
        p50, p99 = percentiles(timed(frames))
        print(f"  frame over all entities (10 years): p50 {p50:.1f} ms  p99 {p99:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--edgar", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/edgar"
    )
    parser.add_argument("--entities", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if (args.edgar / FILES[0]).is_file():
            bench_companyfacts(args.edgar, Path(tmp))
        else:
            print(f"skipping companyfacts: {args.edgar} not found")
        bench_synthetic(args.entities, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
