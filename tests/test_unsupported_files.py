"""A folder's files of types finchunk does not read are named, one ``skipped:`` line each
with the reason, and do not change the exit status; hidden files, sidecars and indexes
inside the folder stay silently out."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.cli import app
from finchunk.cli.common import MAX_UNSUPPORTED_NAMED
from finchunk.errors import InputError
from finchunk.parse import SUPPORTED_FORMATS
from finchunk.retrieve.index.build import file_sources


def _folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / ".hidden").mkdir()
    (docs / "acme.md").write_text("# Acme\n\nRevenue rose 12%.\n", encoding="utf-8")
    (docs / "acme.meta.json").write_text('{"issuer": "Acme"}', encoding="utf-8")
    (docs / "deck.pptx").write_bytes(b"PK\3\4")
    (docs / "sub" / "model.ODS").write_bytes(b"PK\3\4")
    (docs / "README").write_text("notes", encoding="utf-8")
    (docs / ".DS_Store").write_bytes(b"\0")
    (docs / ".hidden" / "draft.docx").write_bytes(b"PK\3\4")
    return docs


def test_file_sources_lists_the_files_of_other_types(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    unsupported: list[tuple[str, str]] = []
    sources = file_sources([docs], unsupported)
    assert [s.doc_id for s in sources] == ["acme"]
    assert unsupported == [
        (
            f"{docs}/README",
            f"{docs}/README: no suffix: not a supported format ({SUPPORTED_FORMATS})",
        ),
        (
            f"{docs}/deck.pptx",
            f"{docs}/deck.pptx: .pptx is not a supported format ({SUPPORTED_FORMATS})",
        ),
        (
            f"{docs}/sub/model.ODS",
            f"{docs}/sub/model.ODS: .ods is not a supported format ({SUPPORTED_FORMATS})",
        ),
    ]


@pytest.mark.parametrize("command", ["index", "chunk"])
def test_index_and_chunk_name_each_skipped_file_and_exit_0(tmp_path: Path, command: str) -> None:
    docs = _folder(tmp_path)
    out = tmp_path / ("idx" if command == "index" else "c.jsonl")
    done = CliRunner().invoke(app, [command, str(docs), "-o", str(out)])
    assert done.exit_code == 0, done.output
    lines = done.stderr.splitlines()
    assert lines == [
        f"skipped: {docs}/README: no suffix: not a supported format ({SUPPORTED_FORMATS})",
        f"skipped: {docs}/deck.pptx: .pptx is not a supported format ({SUPPORTED_FORMATS})",
        f"skipped: {docs}/sub/model.ODS: .ods is not a supported format ({SUPPORTED_FORMATS})",
    ]
    if command == "index":  # the index built inside the folder is not named on the next run
        again = CliRunner().invoke(app, [command, str(docs), "-o", str(docs / "idx")])
        assert again.exit_code == 0
        again = CliRunner().invoke(app, [command, str(docs), "-o", str(docs / "idx")])
        assert again.stderr.splitlines() == lines


def test_many_files_of_other_types_are_named_up_to_a_limit_then_counted(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    for i in range(MAX_UNSUPPORTED_NAMED + 5):
        (docs / f"img{i:03d}.{'png' if i % 2 else 'jpg'}").write_bytes(b"\0")
    done = CliRunner().invoke(app, ["chunk", str(docs), "-o", str(tmp_path / "c.jsonl")])
    assert done.exit_code == 0
    lines = done.stderr.splitlines()
    assert len(lines) == MAX_UNSUPPORTED_NAMED + 1
    assert lines[-1] == "skipped: 5 more files of types not read (.jpg 3, .png 2)"


def test_a_folder_of_other_types_only_is_an_error_naming_one(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.pptx").write_bytes(b"PK")
    (docs / "b.pptx").write_bytes(b"PK")
    with pytest.raises(InputError) as err:
        file_sources([docs])
    assert str(err.value) == (
        f"no supported documents found in {docs} (only files of other types: {docs}/a.pptx: "
        f".pptx is not a supported format ({SUPPORTED_FORMATS}); and 1 more)"
    )
    (docs / "a.pptx").unlink()
    (docs / "b.pptx").unlink()
    with pytest.raises(InputError) as err:
        file_sources([docs])
    assert str(err.value) == f"no supported documents found in {docs}"
