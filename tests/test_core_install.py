"""``pip install finchunk`` without extras: the CLI starts, Markdown works, and a command that
needs a missing extra says so in one line (exit status 2). The optional packages are hidden
by a ``sys.meta_path`` finder in a subprocess, so this runs in the dev environment too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from finchunk.extras import EXTRA_MODULES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "data" / "informe_ejemplo.md"
OPTIONAL = EXTRA_MODULES  # what the extras bring (one list, in finchunk.extras)
BLOCKER = f"""
import sys
from importlib.abc import MetaPathFinder

class _NoExtras(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {OPTIONAL!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _NoExtras())
"""
RUN_CLI = BLOCKER + "from finchunk.cli import main\nsys.argv[0] = 'finchunk'\nmain()\n"


def _core(*args: str, code: str = RUN_CLI, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), *sys.path]))
    env.update(COLUMNS="80", NO_COLOR="1", TERM="dumb")
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def test_help_and_markdown_chunking_need_no_extra(tmp_path: Path) -> None:
    help_ = _core("--help", cwd=tmp_path)
    assert help_.returncode == 0, help_.stderr
    assert "chunk" in help_.stdout and "search" in help_.stdout
    out = tmp_path / "chunks.jsonl"
    done = _core("chunk", str(EXAMPLE), "-o", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["doc_id"] for r in rows)


@pytest.mark.parametrize(
    ("name", "body", "extra"),
    [
        ("filing.htm", "<html><body><p>Revenue 10</p></body></html>", "html"),
        ("report.pdf", "%PDF-1.4\n%%EOF\n", "pdf"),
        ("memo.docx", "PK", "office"),
        ("model.xlsx", "PK", "office"),
    ],
)
def test_a_missing_extra_is_one_line_naming_the_file_and_the_install(
    tmp_path: Path, name: str, body: str, extra: str
) -> None:
    (tmp_path / name).write_text(body, encoding="utf-8")
    done = _core("chunk", name, "-o", "out.jsonl", cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: {name}: ")
    assert f"pip install 'finchunk[{extra}]'" in lines[0]
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["index", "EXAMPLE", "-o", "idx", "--dask"], "dask"),
        (["index", "EXAMPLE", "--to", "postgresql://localhost/finchunk"], "postgres"),
        (["search", "postgresql://localhost/finchunk", "revenue"], "postgres"),
    ],
)
def test_dask_and_postgresql_without_their_extra_name_it(
    tmp_path: Path, args: list[str], extra: str
) -> None:
    done = _core(*[str(EXAMPLE) if a == "EXAMPLE" else a for a in args], cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'finchunk[{extra}]'" in lines[0], done.stderr
    assert not (tmp_path / "idx").exists()


HEAVY = (
    "numpy",
    "pyarrow",
    "finchunk.parse.markdown",
    "finchunk.evaluate.harness",
    "finchunk.evaluate.measures",
    "finchunk.evaluate.financebench",
    "finchunk.retrieve.index.build",
    "finchunk.retrieve.index.store",
    "finchunk.retrieve.query.retriever",
    "finchunk.datasets.sample",
    "finchunk.facts.store",
    "finchunk.ask",
    "finchunk.demo",
    "dask",
    "distributed",
    "psycopg",
    "finchunk.retrieve.backends.distributed",
    "finchunk.retrieve.backends.pgstore",
)


def test_help_imports_none_of_the_heavy_modules(tmp_path: Path) -> None:
    code = BLOCKER + (
        "from finchunk.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print('LOADED', [m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    done = _core(code=code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout, done.stdout.splitlines()[-1]


def test_the_bench_defaults_spelled_out_in_the_cli_are_the_benchmark_s() -> None:
    from finchunk.cli import bench
    from finchunk.evaluate.financebench import DEFAULT_RETRIEVERS, FBStrategy

    assert ",".join(s.value for s in FBStrategy) == bench.ALL_STRATEGIES
    assert ",".join(DEFAULT_RETRIEVERS) == bench.DEFAULT_RETRIEVERS
