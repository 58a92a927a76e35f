"""The malformed-input corpus of :mod:`tests.hostile_corpus`, through ``chunk`` (every
strategy), ``index``, ``view`` and ``facts load``: each file gives OK or a one-line error
naming it; never a traceback, a hang, a crash, or exit 0 with text lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile_corpus import CLEAN_DECODINGS, corpus, run_file, write_corpus

#: Seconds one command may take on one file: linear code needs a few at most on a busy
#: machine; a hang is what this limit catches.
PER_FILE_LIMIT = 60
_NAMES = [name for name, _ in corpus()]


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile") / "corpus"
    write_corpus(folder)
    return folder


@pytest.mark.parametrize("name", _NAMES)
def test_corpus_file_gives_ok_or_one_line_error(corpus_dir: Path, name: str, tmp_path: Path):
    outcomes = run_file(corpus_dir / name, tmp_path, limit=PER_FILE_LIMIT)
    problems = [
        f"{o.command}: {p} | {o.output.strip()[-300:]}" for o in outcomes for p in o.problems
    ]
    assert not problems, problems


@pytest.mark.parametrize(
    ("name", "ok"),
    [("ok.md", True), ("cut_utf8.htm", True), ("page_breaks.htm", True), ("image_only.pdf", False),
     ("deep_divs.htm", False), ("ok.xml", True), ("overflow.json", False), ("precise.json", True),
     ("ok.docx", True), ("ok.xlsx", True), ("encrypted.xlsx", False), ("not_word.docx", False)],
)  # fmt: skip
def test_corpus_outcomes(corpus_dir: Path, name: str, ok: bool, tmp_path: Path) -> None:
    outcomes = run_file(corpus_dir / name, tmp_path, limit=PER_FILE_LIMIT)
    assert all((o.exit_code == 0) is ok for o in outcomes), [
        (o.command, o.output) for o in outcomes
    ]


@pytest.mark.parametrize("name", CLEAN_DECODINGS)
def test_no_replacement_character_where_a_clean_decoding_exists(
    corpus_dir: Path, name: str
) -> None:
    from finchunk.parse import load

    doc = load(corpus_dir / name)
    assert "\ufffd" not in doc.text and "\x00" not in doc.text
    assert any(w in doc.text for w in ("“Café”: año fiscal, 5 €", "Quoted", "UTF-16 text")), (
        doc.text
    )
    warning = doc.metadata.get("warning")
    assert warning is None or " but the bytes are " in warning
