"""Bad input gets a clear error naming the file, or a correct result; never a deep crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.cli import app
from finchunk.errors import ParseError
from finchunk.model import ElementKind
from finchunk.parse import load
from finchunk.parse.markdown import parse_markdown

ALL = [Fixed(), Recursive(), Structure(), ByTitle()]


def test_empty_file_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "vacio.md"
    f.write_text("  \n\n", encoding="utf-8")
    with pytest.raises(ParseError, match=r"vacio\.md.*empty"):
        load(f)


def test_non_utf8_file_names_file_and_position(tmp_path: Path) -> None:
    f = tmp_path / "latin1.md"
    f.write_bytes("# Año\n\nInformación".encode("latin-1"))
    with pytest.raises(ParseError) as info:
        load(f)
    msg = str(info.value)
    assert "latin1.md" in msg and "UTF-8" in msg and "line 1" in msg


def test_missing_file_and_unknown_type(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="no such file"):
        load(tmp_path / "nope.md")
    f = tmp_path / "x.pptx"
    f.write_bytes(b"PK")
    with pytest.raises(ParseError, match=r"x\.pptx.*unsupported file type"):
        load(f)


def test_only_headings_gives_no_body_chunks_for_structure() -> None:
    doc = parse_markdown("# A\n\n## B\n\n### C\n", "h")
    assert Structure().chunk(doc) == []
    assert len(ByTitle().chunk(doc)) == 1  # by_title keeps headings in its chunks
    assert Fixed().chunk(doc)[0].body.startswith("# A")


def test_table_without_separator_row_is_a_paragraph() -> None:
    doc = parse_markdown("| a | b |\n| 1 | 2 |\n", "t")
    assert [e.kind for e in doc.elements] == [ElementKind.TEXT]


def test_note_mark_without_note_cites_nothing() -> None:
    doc = parse_markdown("Ingresos³ crecieron.\n\n¹ Una nota.\n", "n")
    assert doc.elements[0].cites == ()
    for chunker in ALL:
        assert chunker.chunk(doc)


@pytest.mark.parametrize("text", ["# T\r\n\r\nUno.\r\n\r\nDos.\r\n", "\ufeff# T\n\nUno.\n"])
def test_crlf_and_bom_give_exact_spans(text: str) -> None:
    doc = parse_markdown(text, "c")
    for chunker in ALL:
        for c in chunker.chunk(doc):
            assert c.body == "\n\n".join(doc.text[s:e] for s, e in c.spans)
            assert "\ufeff" not in c.body


def test_cli_reports_bad_file_without_traceback(tmp_path: Path) -> None:
    f = tmp_path / "malo.md"
    f.write_bytes(b"\xff\xfe\x00bad")
    result = CliRunner().invoke(app, ["chunk", str(f), "-o", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2
    assert "malo.md" in result.output
    assert "Traceback" not in result.output


def test_invalid_sizes_are_rejected() -> None:
    from finchunk.errors import InputError

    with pytest.raises(InputError):
        Fixed(size=100, overlap=100)
    with pytest.raises(InputError):
        Structure(size=0)


# ---- digits str.isdigit() accepts and int() refuses ("²", "₂") ----------------------------


@pytest.mark.parametrize("text", ["²", "1²", "₂"])
def test_unicode_digits_are_not_numbers_anywhere_int_reads_them(text: str, tmp_path: Path):
    from finchunk.cli.common import positive_int
    from finchunk.errors import InputError
    from finchunk.facts.values import parse_cik
    from finchunk.parse.html import parse_html
    from finchunk.retrieve.index.manifest import next_generation
    from finchunk.retrieve.neural.dense import make_embedder

    assert parse_cik(text) is None
    with pytest.raises(InputError, match="--budget"):
        positive_int("--budget")(text)
    with pytest.raises(InputError, match="unknown embedding model"):
        make_embedder(f"hashing-{text}")
    (tmp_path / "g000002").mkdir()
    (tmp_path / f"g3{text}").mkdir()
    assert next_generation(tmp_path) == "g000003"
    html = f'<table><tr><td colspan="{text}">a</td><td>b</td></tr></table><p>Revenue.</p>'
    doc = parse_html(html, "u.htm")
    assert "Revenue." in doc.text
