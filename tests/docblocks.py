"""The runnable examples of README.md and docs/*.md: parse them, run them, check their output.

One home for the rules that ``tests/test_docs.py`` (CI) and ``bench/first_day.py`` (a new
user's first run, in a fresh virtual environment) both follow:

* fenced blocks tagged ``bash`` or ``python`` run, in order, from a scratch folder laid out
  like the repository root (``tests/``, ``devsets/``, ``bench/`` … resolve) with
  ``../shared/data`` beside it when the real data is there: a file's python blocks share one
  namespace (as a notebook's cells), each bash block runs in its own ``bash -e``, and all
  share the folder; ``console``, ``text`` and other fences never run;
* a ``text`` block right after a run block (nothing but blank lines between) is that block's
  expected output: each of its lines, whitespace collapsed, must appear in what the block
  printed (stdout and stderr; wrapping differs by terminal width, so lines are matched with
  all whitespace runs as one space); a line that is only ``…`` stands for lines left out;
* an HTML comment on the line before a fence says more: ``<!-- needs: shared -->`` (runs
  only where ``../shared/data`` exists), ``<!-- not run: REASON -->`` (never run by CI);
* in CI the install steps of a block (``python3 -m venv``, activating a venv, ``pip
  install``) are left out: CI has installed the project with its dev extras already.
  ``bench/first_day.py`` runs them as written.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUN_LANGS = frozenset({"bash", "sh", "python"})
#: What the scratch folder links from the repository, so the examples' paths resolve.
LINKED = ("tests", "devsets", "bench", "docs", "src", "pyproject.toml", "README.md")

_FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)")
_MARKER = re.compile(r"^<!--\s*(needs|not run)\s*:\s*(.*?)\s*-->\s*$")
_INSTALL = re.compile(
    r"^\s*(python3?\s+-m\s+venv\b|\.\s+\S*activate\b|source\s+\S*activate\b"
    r"|(python3?\s+-m\s+)?pip\s+install\b)"
)
_SENTINEL = "@@finchunk-doc-block"


@dataclass
class Block:
    path: Path
    number: int  # 1-based among the file's run blocks
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    needs_shared: bool = False
    not_run: str | None = None
    expected: list[str] = field(default_factory=list)

    def where(self) -> str:
        return f"{self.path.name} block {self.number} (line {self.line}, {self.lang})"


def parse(path: Path) -> list[Block]:
    """The run blocks of one Markdown file, each with its marker and expected output."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    last: Block | None = None  # the run block a following text block would belong to
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                last = None if not _MARKER.match(lines[i].strip()) else last
            i += 1
            continue
        ticks, lang = m.group(1), m.group(2).lower()
        start = i
        i += 1
        body: list[str] = []
        while i < len(lines) and not lines[i].startswith(ticks):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        marker = _marker_before(lines, start)
        if lang in RUN_LANGS:
            block = Block(path, len(blocks) + 1, start + 1, lang, "\n".join(body) + "\n")
            if marker and marker[0] == "needs":
                if marker[1] != "shared":
                    raise ValueError(f"{path}:{start + 1}: unknown need {marker[1]!r}")
                block.needs_shared = True
            elif marker:
                block.not_run = marker[1] or "marked not run"
            blocks.append(block)
            last = block
        elif lang == "text" and last is not None:
            last.expected = [ln for ln in body if ln.strip() and ln.strip() not in ("…", "...")]
            last = None
        else:
            last = None
    return blocks


def _marker_before(lines: Sequence[str], fence: int) -> tuple[str, str] | None:
    j = fence - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    m = _MARKER.match(lines[j].strip()) if j >= 0 else None
    return (m.group(1), m.group(2)) if m else None


def without_install_steps(code: str) -> str:
    """A bash block less its install steps (CI has installed the project already)."""
    out = []
    for line in code.splitlines():
        if line.lstrip().startswith("#"):
            out.append(line)
            continue
        parts = [p for p in line.split("&&") if not _INSTALL.match(p)]
        if parts:
            out.append("&&".join(parts).strip())
    return "\n".join(out) + "\n"


@dataclass
class Plan:
    """What one file's run does: the blocks run, and those left out with why."""

    run: list[Block]
    left_out: list[tuple[Block, str]]


def plan(blocks: Iterable[Block], *, shared: bool, install: bool, not_run: bool) -> Plan:
    run: list[Block] = []
    left_out: list[tuple[Block, str]] = []
    for b in blocks:
        if b.not_run is not None and not not_run:
            left_out.append((b, b.not_run))
        elif b.needs_shared and not shared:
            left_out.append((b, "needs ../shared/data, absent"))
        else:
            if not install and b.lang != "python":
                b = Block(**{**b.__dict__, "code": without_install_steps(b.code)})
            run.append(b)
    return Plan(run, left_out)


_BASH_PRELUDE = "set -e\ntrap 'echo \"failed: $BASH_COMMAND (exit status $?)\" >&2' ERR\n"


def drive(spec_file: str) -> int:
    """Run one file's blocks (the child process of :func:`run_blocks`; stdlib only, so any
    interpreter runs it): a sentinel line with the time before each block on stdout and
    stderr; python blocks executed in one namespace, as a notebook's cells; each bash block
    in its own ``bash``, sharing the folder."""
    spec = json.loads(Path(spec_file).read_text(encoding="utf-8"))
    sys.path[0] = os.getcwd()  # as `python -`: the working folder, not this file's
    namespace: dict[str, object] = {"__name__": "__main__"}
    for b in spec:
        stamp = f"{_SENTINEL} {b['number']} {time.time()}@@"
        print(stamp, flush=True)
        print(stamp, file=sys.stderr, flush=True)
        if b["lang"] == "python":
            try:
                exec(compile(b["code"], b["where"], "exec"), namespace)
            except SystemExit as exc:
                if exc.code not in (None, 0):
                    print(f"failed: SystemExit({exc.code!r})", file=sys.stderr, flush=True)
                    return 1
            except BaseException:
                traceback.print_exc()
                sys.stdout.flush()
                return 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
        else:
            rc = subprocess.run(["bash", "-c", _BASH_PRELUDE + b["code"]]).returncode
            if rc:
                return rc
    print(f"{_SENTINEL} end {time.time()}@@", flush=True)
    return 0


@dataclass
class Result:
    returncode: int
    outputs: dict[int, str]  # block number -> its stdout + stderr
    stderr: dict[int, str]
    seconds: dict[int, float]
    last_started: int | None  # the block running when the run stopped (None: all ran)
    timed_out: bool = False


def _split(text: str) -> tuple[dict[int | str, str], dict[int | str, float]]:
    parts: dict[int | str, list[str]] = {}
    starts: dict[int | str, float] = {}
    current: int | str | None = None
    for line in text.splitlines():
        if line.startswith(_SENTINEL):
            key, stamp = line[len(_SENTINEL) :].strip(" @").split()
            current = int(key) if key.isdigit() else key
            starts[current] = float(stamp)
            parts.setdefault(current, [])
        elif current is not None:
            parts[current].append(line)
    return {k: "\n".join(v) for k, v in parts.items()}, starts


def run_blocks(
    blocks: Sequence[Block],
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    python: str = sys.executable,
) -> Result:
    """Run a file's blocks with ``python`` in ``cwd``, in a process group of their own (a
    block that starts servers or a cluster and fails before stopping them leaves nothing
    behind)."""
    spec = cwd.parent / f".blocks-{os.getpid()}-{time.monotonic_ns()}.json"
    spec.write_text(
        json.dumps(
            [
                {"number": b.number, "lang": b.lang, "code": b.code, "where": b.where()}
                for b in blocks
            ]
        ),
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [python, str(Path(__file__).resolve()), str(spec)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    finally:
        spec.unlink(missing_ok=True)
    _stop_postgres(cwd)
    outs, starts = _split(out)
    errs, _ = _split(err)
    numbers = sorted(k for k in starts if isinstance(k, int))
    seconds = {}
    for n in numbers:
        later = [starts[k] for k in starts if k == "end" or (isinstance(k, int) and k > n)]
        seconds[n] = (min(later) if later else time.time()) - starts[n]
    return Result(
        proc.returncode,
        {n: outs.get(n, "") + "\n" + errs.get(n, "") for n in numbers},
        {n: errs.get(n, "") for n in numbers},
        seconds,
        None if "end" in starts else (numbers[-1] if numbers else None),
        timed_out,
    )


def _stop_postgres(cwd: Path) -> None:
    """Stop a throwaway PostgreSQL an example started and did not stop (it failed first)."""
    for pid_file in cwd.glob("*/postmaster.pid"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)


def missing_output(block: Block, printed: str) -> list[str]:
    """The expected lines a block did not print (whitespace runs compared as one space)."""
    said = " ".join(printed.split())
    return [ln for ln in block.expected if " ".join(ln.split()) not in said]


def scratch(root: Path, shared_data: Path | None) -> Path:
    """``root/repo`` with the repository's folders linked in, ``root/shared/data`` beside
    it when the real data exists: the examples' relative paths resolve as from a clone."""
    work = root / "repo"
    work.mkdir(parents=True)
    for name in LINKED:
        if (REPO / name).exists():
            (work / name).symlink_to(REPO / name)
    if shared_data is not None:
        (root / "shared").mkdir()
        (root / "shared" / "data").symlink_to(shared_data)
    return work


def shim_path(folder: Path, python: str = sys.executable) -> str:
    """A PATH whose ``python`` and ``python3`` are ``python`` and whose ``finchunk`` is the
    one installed beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("python", "python3"):
        # A script, not a link: a venv's python run through a link elsewhere is not in the
        # venv (it finds pyvenv.cfg beside the path it was run as).
        shim = folder / name
        shim.write_text(f'#!/bin/sh\nexec "{python}" "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    return os.pathsep.join([str(folder), str(Path(python).parent), os.environ.get("PATH", "")])


def report(blocks: Sequence[Block], result: Result) -> str:
    """What failed, readably: the block, its code, and the end of its stderr."""
    n = result.last_started
    if n is None:
        return ""
    block = next(b for b in blocks if b.number == n)
    why = "timed out" if result.timed_out else f"exit status {result.returncode}"
    tail = "\n".join(result.stderr.get(n, "").strip().splitlines()[-25:])
    return f"{block.where()} failed ({why}):\n{block.code}\n--- stderr ---\n{tail}"


def copy_checkout(dest: Path) -> None:
    """The files of this checkout that git tracks or would track (no venvs, no outputs)."""
    names = (
        subprocess.run(
            ["git", "ls-files", "-z", "-co", "--exclude-standard"],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, names):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


if __name__ == "__main__":
    sys.exit(drive(sys.argv[1]))
