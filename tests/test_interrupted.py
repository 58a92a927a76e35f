"""Ctrl-C stops a command with one ``interrupted:`` line on stderr saying what was kept,
and exit status 130. The build interrupts itself at a chosen stage (SIGINT to its own
process), so the test is deterministic and needs no timing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")

#: ``finchunk index`` with SIGINT sent to itself when the build reaches ``stage``:
#: ``segment`` (writing the new segment) or ``generation`` (the segment written, the new
#: generation about to be).
INTERRUPTED_INDEX = """
import os, signal, sys
import finchunk.retrieve.index.build as build
from finchunk.retrieve.index.segments import SegmentBuilder

stage, args = sys.argv[1], sys.argv[2:]

def stop():
    os.kill(os.getpid(), signal.SIGINT)

if stage == "segment":
    finish = SegmentBuilder.finish
    def interrupted_finish(self, *a, **kw):
        stop()
        return finish(self, *a, **kw)
    SegmentBuilder.finish = interrupted_finish
elif stage == "generation":
    write = build.write_generation
    def interrupted_write(*a, **kw):
        stop()
        return write(*a, **kw)
    build.write_generation = interrupted_write
sys.argv = ["finchunk", "index", *args]
from finchunk.cli import main
main()
"""


def _index(args: list[str], stage: str = "none") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-c", INTERRUPTED_INDEX, stage, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture()
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "acme.md").write_text("# Acme\n\nRevenue rose 12% to $4.2 billion.\n")
    (folder / "beta.md").write_text("# Beta\n\nCash fell to $1.1 billion.\n")
    return folder


def test_a_first_build_interrupted_leaves_no_index(docs: Path, tmp_path: Path) -> None:
    idx = tmp_path / "idx"
    done = _index([str(docs), "-o", str(idx)], "segment")
    assert done.returncode == 130
    assert done.stderr.strip() == (
        f"interrupted: no index was written; {idx} was new and has been removed"
    )
    assert not idx.exists()


def test_an_update_interrupted_leaves_the_previous_generation_live(
    docs: Path, tmp_path: Path
) -> None:
    idx = tmp_path / "idx"
    assert _index([str(docs), "-o", str(idx)]).returncode == 0
    live = (idx / "CURRENT").read_text().strip()
    (docs / "gamma.md").write_text("# Gamma\n\nDebt was repaid in full.\n")

    done = _index([str(docs), "-o", str(idx)], "segment")  # the segment's parts are removed
    assert done.returncode == 130
    assert done.stderr.strip() == (
        f"interrupted: {idx} is as it was: generation {live} is still the live one; "
        "no unfinished part was left"
    )
    assert (idx / "CURRENT").read_text().strip() == live

    done = _index([str(docs), "-o", str(idx)], "generation")  # the new segment stays
    assert done.returncode == 130
    assert done.stderr.strip() == (
        f"interrupted: {idx} is as it was: generation {live} is still the live one; "
        "unfinished parts left: s000002 (the next build deletes them)"
    )
    assert (idx / "CURRENT").read_text().strip() == live

    assert _index([str(docs), "-o", str(idx)]).returncode == 0  # the next build cleans up
    kept = sorted(p.name for p in idx.iterdir() if p.is_dir())
    assert kept == ["g000002", "s000001", "s000003"]


def test_every_command_says_it_was_interrupted(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from finchunk.cli.common import user_errors

    for note, line in (("", "interrupted"), ("the report was not written", None)):
        with pytest.raises(typer.Exit) as stopped, user_errors(note):
            raise KeyboardInterrupt
        assert stopped.value.exit_code == 130
        assert capsys.readouterr().err.strip() == (line or f"interrupted: {note}")
