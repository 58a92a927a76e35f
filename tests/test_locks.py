"""Readers and writers of one index: an opened index is a snapshot that later builds do not
delete from under it; what no reader holds is deleted at the next publish."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from finchunk.errors import DamagedIndexError, InputError
from finchunk.retrieve.index import locks
from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.locks import claim_unread, hold_live
from finchunk.retrieve.index.manifest import MANIFEST
from finchunk.retrieve.index.store import Index

pytestmark = pytest.mark.skipif(locks.fcntl is None, reason="no flock on this platform")


def _folders(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir())


def _corpus(tmp_path: Path, version: int) -> list:
    (tmp_path / "a.md").write_text(f"# A\n\nrevenue grew {version} percent\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\ncosts fell in the year\n", encoding="utf-8")
    return file_sources([tmp_path / "a.md", tmp_path / "b.md"])


def _only_the_live_generation_left(root: Path) -> None:
    with Index.open(root) as live:
        assert _folders(root) == sorted([live.gen.name, *live.header.segments])


def _texts(index: Index) -> list[str]:
    return index.chunks.column("text").to_pylist()


def test_an_open_index_reads_its_generation_through_later_builds(tmp_path):
    root = tmp_path / "idx"
    build_index(_corpus(tmp_path, 1), root)
    opened = Index.open(root)
    hits = opened.retriever("bm25").search("revenue grew", 2)
    build_index(_corpus(tmp_path, 2), root)  # an update: a new segment for a.md
    build_index(_corpus(tmp_path, 3), root, IndexConfig(size=300))  # a full rebuild
    # Nothing of the opened generation was deleted: its lazily read files still load.
    assert any("grew 1 percent" in t for t in _texts(opened))
    assert opened.retriever("bm25").search("revenue grew", 2) == hits
    assert opened.document_text("a").endswith("revenue grew 1 percent\n")
    latest = Index.open(root)
    assert any("grew 3 percent" in t for t in _texts(latest))
    assert latest.gen != opened.gen and opened.gen.is_dir()


def test_a_closed_reader_lets_the_next_build_delete_what_only_it_used(tmp_path):
    root = tmp_path / "idx"
    build_index(_corpus(tmp_path, 1), root)
    with Index.open(root) as first:
        held = {first.gen.name, *first.header.segments}
        build_index(_corpus(tmp_path, 2), root)
        assert held <= set(_folders(root))  # kept while read
    build_index(_corpus(tmp_path, 3), root)
    _only_the_live_generation_left(root)


def test_a_collected_reader_holds_nothing(tmp_path):
    root = tmp_path / "idx"
    build_index(_corpus(tmp_path, 1), root)
    assert Index.open(root).size == 2  # opened and dropped at once
    build_index(_corpus(tmp_path, 2), root)
    _only_the_live_generation_left(root)


def test_a_build_does_not_hold_the_generation_it_replaces(tmp_path):
    root = tmp_path / "idx"
    build_index(_corpus(tmp_path, 1), root)
    before = Index.open(root, hold=False)
    build_index(_corpus(tmp_path, 2), root, IndexConfig(size=300))  # rebuilt: new segment
    assert not before.gen.exists()  # deleted at once, as a build's own reading of it is
    with pytest.raises(DamagedIndexError, match="the file is gone.*open the index again"):
        _ = before.chunks


def test_a_reader_in_another_process_keeps_its_generation(tmp_path):
    root = tmp_path / "idx"
    build_index(_corpus(tmp_path, 1), root)
    script = textwrap.dedent(
        f"""
        import sys
        from finchunk.retrieve.index.store import Index
        index = Index.open({str(root)!r})
        print(index.gen.name, flush=True)
        sys.stdin.readline()
        print(sum("grew 1 percent" in t for t in index.chunks.column("text").to_pylist()))
        """
    )
    reader = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        gen = reader.stdout.readline().strip()
        build_index(_corpus(tmp_path, 2), root)
        assert (root / gen).is_dir()
        out, _ = reader.communicate("go\n", timeout=60)
    finally:
        reader.kill()
    assert out.strip() == "1"
    build_index(_corpus(tmp_path, 3), root)  # the reader has exited: its generation goes
    assert not (root / gen).exists()


def test_claims_and_holds_exclude_each_other(tmp_path):
    gen = tmp_path / "g000001"
    gen.mkdir()
    (gen / MANIFEST).write_text("{}", encoding="utf-8")
    hold = hold_live(lambda: gen, MANIFEST)
    with claim_unread(gen, MANIFEST) as unread:
        assert not unread
    hold.release()
    with claim_unread(gen, MANIFEST) as unread:
        assert unread
        with pytest.raises(InputError, match="published over"):
            hold_live(lambda: gen, MANIFEST)  # claimed for deletion: never held
    with claim_unread(tmp_path / "g000002", MANIFEST) as unread:
        assert unread  # a generation without a manifest (a partial one) is nobody's


def test_a_reader_that_loses_the_race_reads_current_again(tmp_path):
    """Read CURRENT, then a build deleted that generation before the lock was taken: the
    reader takes the generation CURRENT names now."""
    gone, live = tmp_path / "g000001", tmp_path / "g000002"
    live.mkdir()
    (live / MANIFEST).write_text("{}", encoding="utf-8")
    answers = iter([gone, live])
    hold = hold_live(lambda: next(answers), MANIFEST)
    assert hold.gen == live
    hold.release()
