"""A new user's first day: the README, run as written, in a fresh virtual environment.

Copies this checkout (the files git tracks or would track) into a temporary folder, with
``../shared/data`` beside it when the real data is there, then runs the README's blocks in
order as a new user would: the first one as written (``python3 -m venv .venv``, activate,
``pip install -e ".[all]"``, ``finchunk demo``), the others with that environment active.
Each block's output is checked against the ``text`` block the README shows after it (the
rules of ``tests/docblocks.py``, which ``tests/test_docs.py`` applies in CI without the
install steps). Prints each block's seconds and what it did not print; exits 1 on any
failure. Slow (the install reaches the package registry): a bench script, not a test.

    python bench/first_day.py            # the README's blocks, not the test command
    python bench/first_day.py --tests    # and the test command too (installs the dev extras)
    python bench/first_day.py --keep     # leave the folder for a look
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.docblocks import (  # noqa: E402
    REPO,
    Block,
    copy_checkout,
    missing_output,
    parse,
    plan,
    report,
    run_blocks,
)


def shared_data() -> Path | None:
    p = Path(os.environ.get("FINCHUNK_SHARED_DATA", REPO.parent / "shared" / "data"))
    return p if p.is_dir() else None


def clean_env() -> dict[str, str]:
    """The environment of a new user's shell: no virtual environment active, no
    PYTHONPATH pointing at a checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    path = [
        p
        for p in env.get("PATH", "").split(os.pathsep)
        if p and not (Path(p).parent / "pyvenv.cfg").exists()
    ]
    env["PATH"] = os.pathsep.join(path)
    env.pop("COLUMNS", None)
    return env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", action="store_true", help="also run the README's test command")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds for all the blocks")
    args = ap.parse_args()

    started = time.time()
    root = Path(tempfile.mkdtemp(prefix="finchunk-first-day-"))
    root.chmod(0o755)  # PostgreSQL's server user (when run as root) must reach it
    repo = root / "finchunk"
    repo.mkdir()
    copy_checkout(repo)
    data = shared_data()
    if data is not None:
        (root / "shared").mkdir()
        (root / "shared" / "data").symlink_to(data)
    steps = plan(parse(repo / "README.md"), shared=data is not None, install=True,
                 not_run=args.tests)  # fmt: skip
    print(f"checkout copied to {repo}; shared data: {data or 'absent'}")
    for block, why in steps.left_out:
        print(f"not run: {block.where()}: {why}")

    env = clean_env()
    setup, rest = steps.run[:1], steps.run[1:]
    failures: list[str] = []
    seconds: dict[int, float] = {}
    outputs: dict[int, str] = {}

    # The first block as a new user types it: it makes and activates .venv, installs, runs
    # the demo. (A block never leaves its shell, so the venv is activated again below.)
    t = time.time()
    first = subprocess.run(
        ["bash", "-e", "-c", setup[0].code],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=args.timeout,
    )
    seconds[setup[0].number] = time.time() - t
    outputs[setup[0].number] = first.stdout + "\n" + first.stderr
    if first.returncode != 0:
        failures.append(f"{setup[0].where()} failed (exit {first.returncode}):\n"
                        + first.stderr[-3000:])  # fmt: skip
    venv = repo / ".venv"
    python = venv / "bin" / "python"
    if not failures:
        torch = subprocess.run(
            [str(python), "-c", "import importlib.util as u; print(bool(u.find_spec('torch')))"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        print(f"torch installed by the first block: {torch}")
        active = {**env, "VIRTUAL_ENV": str(venv),
                  "PATH": os.pathsep.join([str(venv / "bin"), env["PATH"]])}  # fmt: skip
        result = run_blocks(rest, repo, active, args.timeout, python=str(python))
        seconds.update(result.seconds)
        outputs.update(result.outputs)
        if result.returncode != 0 or result.last_started is not None:
            failures.append(report(rest, result))

    checked: list[Block] = [b for b in steps.run if b.number in outputs]
    for b in checked:
        missing = missing_output(b, outputs[b.number])
        status = "ok" if not missing else f"MISSING {len(missing)} line(s)"
        first_line = b.code.strip().splitlines()[0][:70]
        print(f"block {b.number:2d}  {seconds.get(b.number, 0):7.1f} s  {status:22s} {first_line}")
        if missing:
            printed = outputs[b.number].strip()[-3000:]
            failures.append(f"{b.where()} did not print:\n  " + "\n  ".join(missing)
                            + f"\n--- it printed ---\n{printed}")  # fmt: skip

    total = time.time() - started
    print(f"total {total:.1f} s (the first block, install and demo: "
          f"{seconds.get(steps.run[0].number, 0):.1f} s)")  # fmt: skip
    if failures:
        print("\n\n".join(failures), file=sys.stderr)
    if args.keep:
        print(f"kept: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    print("FIRST DAY: " + ("FAILED" if failures else "PASSED"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
