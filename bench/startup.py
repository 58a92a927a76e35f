"""``finchunk --help`` start-up: this checkout against floors measured in the same run.

Interleaved runs (medians) of: the bare interpreter; importing typer and the rich help
formatter it uses (the least a typer CLI with rich help pays); a typer app with one command
printing its --help; ``finchunk --help``; and, with ``--other SRC``, another checkout's
``finchunk --help`` (e.g. main's ``src``).

    python bench/startup.py [--runs 15] [--other /work/main/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
BARE_TYPER = """
import typer
app = typer.Typer()
@app.command()
def hello(name: str = "x") -> None:
    "Say hello."
@app.command()
def bye() -> None:
    "Say bye."
app()
"""


def timed(cmd: list[str], src: str) -> float:
    env = {**os.environ, "PYTHONPATH": src, "COLUMNS": "80"}
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--other", help="another checkout's src folder")
    args = ap.parse_args()
    py = sys.executable
    cases = {
        "python -c pass": ([py, "-c", "pass"], SRC),
        "import typer + typer.rich_utils": ([py, "-c", "import typer, typer.rich_utils"], SRC),
        "bare typer app --help": ([py, "-c", BARE_TYPER, "--help"], SRC),
        "finchunk --help (this checkout)": ([py, "-m", "finchunk.cli", "--help"], SRC),
    }
    if args.other:
        cases["finchunk --help (other)"] = ([py, "-m", "finchunk.cli", "--help"], args.other)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, (cmd, src) in cases.items():
            times[name].append(timed(cmd, src))
    ours = statistics.median(times["finchunk --help (this checkout)"])
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<34} median {med * 1000:6.0f} ms   ×{med / ours:.2f} of finchunk --help")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
