"""``finchunk --help`` start-up: this checkout against floors measured in the same run.

Interleaved runs (medians) of: the bare interpreter; importing typer and the rich help
formatter it uses (the least a typer CLI with rich help pays); a typer app with one command
printing its --help; ``finchunk --help`` at 80 columns (the stored pages) and at 120 (the
page rendered at that width once, then read from the cache: a scratch cache folder, warmed
before the runs); and, with ``--other SRC``, another checkout's ``finchunk --help`` (e.g.
main's ``src``).

    python bench/startup.py [--runs 15] [--other /work/main/src]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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


def timed(cmd: list[str], src: str, columns: str = "80") -> float:
    env = {**os.environ, "PYTHONPATH": src, "COLUMNS": columns}
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--other", help="another checkout's src folder")
    args = ap.parse_args()
    py = sys.executable
    helped = [py, "-m", "finchunk.cli", "--help"]
    cases = {
        "python -c pass": ([py, "-c", "pass"], SRC, "80"),
        "import typer + typer.rich_utils": (
            [py, "-c", "import typer, typer.rich_utils"],
            SRC,
            "80",
        ),
        "bare typer app --help": ([py, "-c", BARE_TYPER, "--help"], SRC, "80"),
        "finchunk --help (this checkout)": (helped, SRC, "80"),
        "finchunk --help, 120 columns": (helped, SRC, "120"),
    }
    if args.other:
        cases["finchunk --help (other)"] = (helped, args.other, "80")
    scratch = tempfile.mkdtemp(prefix="finchunk-startup-")
    os.environ["FINCHUNK_CACHE_DIR"] = scratch
    timed(helped, SRC, "120")  # the page at 120 columns rendered once, into the cache
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, (cmd, src, columns) in cases.items():
            times[name].append(timed(cmd, src, columns))
    shutil.rmtree(scratch, ignore_errors=True)
    ours = statistics.median(times["finchunk --help (this checkout)"])
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<34} median {med * 1000:6.0f} ms   ×{med / ours:.2f} of finchunk --help")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
