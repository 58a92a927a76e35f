"""How ``finchunk eval`` scales: wall time and peak RSS from 143 to 2,803 generated documents.

Corpora: ``finchunk generate --issuers I --years 10 --funds 2I`` (3 research notes), I in
10, 50, 200 → 143, 703, 2,803 documents. Each ``finchunk eval`` (3 strategies × header on
and off: 6 variants, k 1-10, run files written) runs in a fresh process; its wall time and
peak RSS are printed, then the exponent of time against documents (log-log slope, overall
and between neighbours). At the largest size each variant also runs alone: its peak RSS is
"that variant's needs", and the all-variant RSS is printed as a multiple of the largest.

    python bench/eval_scaling.py [--issuers 10,50,200] [--repeat 1]

``--repeat R`` runs R rounds over all sizes and keeps each size's fastest (CPU time).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

RUN = """
import resource, sys, time
from finchunk.cli import main
sys.argv = ["finchunk", *sys.argv[1:]]
t0 = time.perf_counter()
try:
    main()
except SystemExit as exc:
    if exc.code:
        raise
wall = time.perf_counter() - t0
use = resource.getrusage(resource.RUSAGE_SELF)
# VmHWM, not ru_maxrss: that counts the parent's pages this process was forked with
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) * 1024 / 2**20
print(f"@@ {wall:.3f} {peak:.1f} {use.ru_utime + use.ru_stime:.3f}",
      file=sys.stderr)
"""

STRATEGIES = "fixed,recursive,structure"


def finchunk(*args: str) -> tuple[float, float, float]:
    """Run the CLI in a fresh interpreter: (wall seconds, peak RSS MB, CPU seconds)."""
    out = subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(f"finchunk {' '.join(args)} failed:\n{out.stderr[-2000:]}")
    line = [x for x in out.stderr.splitlines() if x.startswith("@@ ")][-1]
    wall, rss, cpu = line.split()[1:]
    return float(wall), float(rss), float(cpu)


def generate(issuers: int, folder: Path) -> int:
    finchunk(
        "generate", "-o", str(folder), "--issuers", str(issuers), "--years", "10",
        "--funds", str(2 * issuers),
    )  # fmt: skip
    return issuers * 10 + 4 * issuers + 3


def eval_args(folder: Path, strategies: str, header: str) -> list[str]:
    files = {p.stem: p for p in folder.iterdir()}
    return [
        "eval",
        "--docs", str(files["documents"]),
        "--passages", str(files["passages"]),
        "--questions", str(files["questions"]),
        "--strategies", strategies,
        "--header", header,
        "--run-out", str(folder / "runs"),
        "--json", "-o", str(folder / "report.json"),
    ]  # fmt: skip


def slope(xs: list[float], ys: list[float]) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    num = sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True))
    return num / sum((a - mx) ** 2 for a in lx)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--issuers", default="10,50,200")
    ap.add_argument(
        "--repeat", type=int, default=1, help="rounds over the sizes (the fastest kept)"
    )
    ap.add_argument("--strategies", default=STRATEGIES, help="comma list (× header on, off)")
    ap.add_argument("--no-alone", action="store_true", help="skip the variants-alone runs")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    sizes = [int(x) for x in args.issuers.split(",")]
    docs, walls, rss, cpus = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        folders = {i: Path(tmp) / f"i{i}" for i in sizes}
        counts = {i: generate(i, folders[i]) for i in sizes}
        # rounds over all sizes (not the repeats of one size in a row): this machine's speed
        # drifts by up to a fifth over minutes, which would tilt the exponent
        runs: dict[int, list[tuple[float, float, float]]] = {i: [] for i in sizes}
        for r in range(args.repeat):
            for issuers in sizes:
                runs[issuers].append(
                    finchunk(*eval_args(folders[issuers], args.strategies, "both"))
                )
                wall, peak, cpu = runs[issuers][-1]
                print(
                    f"round {r + 1}: {counts[issuers]:6d} documents: eval wall {wall:7.2f} s, "
                    f"CPU {cpu:7.2f} s, peak RSS {peak:7.1f} MB",
                    flush=True,
                )
        for issuers in sizes:
            wall, peak, cpu = min(runs[issuers], key=lambda r: r[2])
            docs.append(counts[issuers])
            walls.append(wall)
            rss.append(peak)
            cpus.append(cpu)
            print(
                f"{counts[issuers]:6d} documents (fastest of {args.repeat}): "
                f"eval wall {wall:7.2f} s, CPU {cpu:7.2f} s, peak RSS {peak:7.1f} MB"
            )
        for i in range(1, len(docs)):
            local = slope(docs[i - 1 : i + 1], cpus[i - 1 : i + 1])
            print(f"exponent (CPU time) {docs[i - 1]}→{docs[i]}: {local:.3f}")
        overall = slope(docs, cpus)
        print(
            f"exponent overall (CPU time, log-log fit, {docs[0]}→{docs[-1]} documents): "
            f"{overall:.3f}; wall time: {slope(docs, walls):.3f}"
        )
        folder = Path(tmp) / f"i{sizes[-1]}"
        alone: dict[str, float] = {}
        if args.no_alone:
            return 0
        for s in args.strategies.split(","):
            for header in ("on", "off"):
                alone[f"{s}/{header}"] = finchunk(*eval_args(folder, s, header))[1]
        largest = max(alone.values())
        print(
            "peak RSS of each variant alone (MB): "
            + ", ".join(f"{k} {v:.0f}" for k, v in alone.items())
        )
        print(f"all six variants: {rss[-1]:.0f} MB = {rss[-1] / largest:.2f}× the largest alone")
    if args.json:
        figures = {
            "documents": docs,
            "wall_s": walls,
            "rss_mb": rss,
            "cpu_s": cpus,
            "exponent": overall,
            "alone_rss_mb": alone,
        }
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
