"""Speed of the SEC HTML parser: MB/s from file bytes to a Document with elements.

Runs ``parse_html_file`` on every HTML/iXBRL filing in ../shared/data/edgar (and the SGML
``.txt`` submission, reported apart), five times each, and prints the median time per
filing, its MB/s, and the Parts/Items found as headings. Target: >= 10 MB/s overall.

    .venv/bin/python bench/html_speed.py [--runs 5] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from finchunk.model import ElementKind
from finchunk.parse.html import parse_html_file
from finchunk.parse.sec_patterns import heading_key

_DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data"


def _items(path: Path) -> tuple[int, str]:
    d = parse_html_file(path)
    keys = [
        heading_key(d.element_text(e))
        for e in d.elements
        if e.kind is ElementKind.HEADING and e.level <= 2
    ]
    keys = [k for k in keys if k]
    tables = sum(1 for e in d.elements if e.kind is ElementKind.TABLE)
    short = " ".join(k.split(":")[1] if k.startswith("ITEM") else f"[{k[5:]}]" for k in keys)
    return tables, f"{d.metadata.get('form', '?'):5} {len(keys):3} {short}"


def _median_seconds(path: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        parse_html_file(path)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--data", type=Path, default=_DEFAULT)
    args = ap.parse_args()
    edgar = args.data / "edgar"
    html = sorted(edgar.glob("*/*.htm*"))
    sgml = sorted(edgar.glob("*/*.txt"))
    if not html:
        raise SystemExit(f"no filings under {edgar}")
    total_bytes = 0
    total_s = 0.0
    print(f"{'filing':34} {'MB':>6} {'median s':>9} {'MB/s':>7} {'tables':>6}  form  n  items")
    for path in html + sgml:
        size = path.stat().st_size
        sec = _median_seconds(path, args.runs)
        tables, items = _items(path)
        print(
            f"{path.name[:34]:34} {size / 1e6:6.2f} {sec:9.3f} {size / 1e6 / sec:7.1f} "
            f"{tables:6}  {items}"
        )
        if path in html:
            total_bytes += size
            total_s += sec
    print(
        f"\n{len(html)} HTML filings, {total_bytes / 1e6:.1f} MB: {total_s:.2f} s "
        f"(sum of medians of {args.runs}) = {total_bytes / 1e6 / total_s:.1f} MB/s "
        f"(target >= 10 MB/s)"
    )


if __name__ == "__main__":
    main()
