"""Hostile and broken documents (issue 14): no hang, no traceback, no silent loss.

Every input is generated here; none is a copy of a real file.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.cli import app
from finchunk.errors import FinchunkError, InputError, ParseError
from finchunk.model import Document, ElementKind
from finchunk.parse import load
from finchunk.parse.encoding import decode_page
from finchunk.parse.html import parse_html
from finchunk.parse.markdown import parse_markdown
from finchunk.parse.pdf import build_document
from finchunk.parse.pdf_layout import Line
from tests.hostile_corpus import GREEK

ALL = [Fixed(), Recursive(), Structure(), ByTitle()]
_MB = 1_000_000
#: Seconds one parse of 1 MB may take. Linear parsing takes a few seconds at most on a busy
#: machine; each of these inputs took minutes with the quadratic patterns.
_HANG = 60.0


def _sgml(header: str, body: str = "<p>Body text.</p>") -> str:
    return (
        "<SEC-DOCUMENT>\n<SEC-HEADER>\n"
        + header
        + "CONFORMED SUBMISSION TYPE:\t10-K\n</SEC-HEADER>\n<DOCUMENT>\n<TYPE>10-K\n<TEXT>\n"
        + f"<html><body>{body}</body></html>\n</TEXT>\n</DOCUMENT>\n</SEC-DOCUMENT>\n"
    )


#: (name, parser, 1 MB input) for each kind of adversarial input of issue 14 and more.
_MD = lambda s: parse_markdown(s, "adv")  # noqa: E731
_HTML = lambda s: parse_html(s, "adv")  # noqa: E731
ADVERSARIAL: list[tuple[str, Callable[[str], Document], str]] = [
    ("heading inner spaces", _MD, "# a" + " " * _MB + "b\n"),
    ("heading spaces before #", _MD, "# a" + " " * _MB + "#" + " " * 10 + "x\n"),
    ("unclosed footnote refs", _MD, "[^1]: A note.\n\nText " + "[^" * (_MB // 2)),
    ("footnote def run", _MD, "[^" * (_MB // 2) + "]:\n"),
    ("delimiter row spaces", _MD, "| a | b |\n|-" + " " * _MB + "x\n"),
    ("pipes", _MD, "|" * _MB + "\n" + "|-" * (_MB // 2)),
    ("blank lines", _MD, "\n" * _MB + "x"),
    ("list markers", _MD, "- " * (_MB // 2)),
    ("lone CR lines", _MD, "# T\r" + "word\r" * (_MB // 5)),
    ("superscripts", _MD, "¹" * _MB),
    # Lines holding "|" inside a paragraph: each one stops the paragraph scan, which must
    # not read past the next one again (a prose run bounded by the next "|" line).
    ("pipe lines in a paragraph", _MD, "text\n" + "a | b\n" * (_MB // 6)),
    ("prose and pipe lines", _MD, "word\nx | y\n" * (_MB // 12)),
    ("prose then one pipe", _MD, "word\n" * (_MB // 5) + "|"),
    ("unclosed SEC-HEADER", _HTML, "<SEC-DOCUMENT>\n" + "<SEC-HEADER>" * (_MB // 12) + "<TEXT>x"),
    ("blank lines in SGML header", _HTML, _sgml("\n" * _MB)),
    ("spaces in SGML header", _HTML, _sgml("A" + " " * _MB + "\n")),
    ("TYPE spaces", _HTML, "<DOCUMENT>\n<TYPE>" + " " * _MB + "<TEXT>\nbody\n"),
    ("SGML plain text", _HTML, "<DOCUMENT>\n<TYPE>10-K\n<TEXT>\n" + "<PAGE>\n" * (_MB // 7)),
    ("HTML open tags", _HTML, "<div>" * (_MB // 5)),
    ("HTML one paragraph", _HTML, "<p>" + "word " * (_MB // 5) + "</p>"),
    ("HTML page breaks", _HTML, '<p style="page-break-before:always">x</p>' * (_MB // 41)),
]


@pytest.mark.parametrize(("name", "parse", "text"), ADVERSARIAL, ids=[a[0] for a in ADVERSARIAL])
def test_parsers_are_linear_on_1mb_adversarial_input(
    name: str, parse: Callable[[str], Document], text: str
) -> None:
    t = time.perf_counter()
    try:
        doc = parse(text)
    except FinchunkError:
        return  # a clear error is an answer too
    assert time.perf_counter() - t < _HANG, name
    for e in doc.elements:
        assert 0 <= e.start <= e.end <= len(doc.text)


def test_lone_cr_line_endings_are_lines() -> None:
    doc = parse_markdown("# Title\r\rFirst para\rgoes on.\r\r## Sub\r\rSecond.\r", "cr")
    kinds = [e.kind for e in doc.elements]
    assert kinds == [ElementKind.HEADING, ElementKind.TEXT, ElementKind.HEADING, ElementKind.TEXT]
    assert doc.elements[2].section == ("Title", "Sub")
    assert [c.body for c in Structure().chunk(doc)] == ["First para\rgoes on.", "Second."]


def test_closing_hashes_of_a_heading() -> None:
    doc = parse_markdown("# Revenue ##\n\n## C# #\n\n### ###\n\n#### a#b\n", "h")
    headings = [e.section[-1] for e in doc.elements]
    assert headings == ["Revenue", "C#", "", "a#b"]


# --- partial results, silent deletion ------------------------------------------------------


def _run(*args: str):
    return CliRunner().invoke(app, list(args))


def _two_files(tmp_path: Path) -> tuple[Path, Path]:
    good = tmp_path / "docs" / "a.md"
    good.parent.mkdir()
    good.write_text("# A\n\nSome text.\n", encoding="utf-8")
    bad = tmp_path / "docs" / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 cut short")
    return good, bad


def test_chunk_failure_leaves_no_output(tmp_path: Path) -> None:
    good, bad = _two_files(tmp_path)
    out = tmp_path / "out.jsonl"
    result = _run("chunk", str(good), str(bad), "-o", str(out))
    assert result.exit_code == 2 and "broken.pdf" in result.output
    assert not out.exists() and not list(tmp_path.glob(".*tmp"))


def test_chunk_on_error_skip_and_folder_default(tmp_path: Path) -> None:
    good, bad = _two_files(tmp_path)
    out = tmp_path / "out.jsonl"
    asked = _run("chunk", str(good), str(bad), "-o", str(out), "--on-error", "skip")
    assert asked.exit_code == 0 and "skipped:" in asked.output and "broken.pdf" in asked.output
    assert out.read_text(encoding="utf-8").count("\n") == 1
    folder = _run("chunk", str(good.parent), "-o", str(out))
    assert folder.exit_code == 1 and "skipped:" in folder.output
    failed = _run("chunk", str(good.parent), "-o", str(out), "--on-error", "fail")
    assert failed.exit_code == 2
    assert "Traceback" not in asked.output + folder.output + failed.output


def test_index_bad_file_leaves_no_folder_and_folders_skip(tmp_path: Path) -> None:
    good, bad = _two_files(tmp_path)
    idx = tmp_path / "idx"
    assert _run("index", str(bad), "-o", str(idx)).exit_code == 2
    assert not idx.exists()
    folder = _run("index", str(good.parent), "-o", str(idx))
    assert folder.exit_code == 1 and "skipped:" in folder.output and "1 added" in folder.output


def test_index_removes_documents_only_with_prune(tmp_path: Path) -> None:
    good, _ = _two_files(tmp_path)
    other = tmp_path / "other.md"
    other.write_text("# B\n\nOther text.\n", encoding="utf-8")
    idx = tmp_path / "idx"
    assert _run("index", str(good), "-o", str(idx)).exit_code == 0
    refused = _run("index", str(other), "-o", str(idx))
    assert refused.exit_code == 2 and "--prune" in refused.output and "(a)" in refused.output
    pruned = _run("index", str(other), "-o", str(idx), "--prune")
    assert pruned.exit_code == 0 and "1 removed" in pruned.output


# --- decoding as browsers do; sniffing; empty files -----------------------------------------


@pytest.mark.parametrize(
    ("data", "text", "warns"),
    [
        ("Año fiscal 2024 €".encode()[:-1], "Año fiscal 2024 \ufffd", True),
        (
            b'<meta charset="utf-16"><p>Plain text.</p>',
            '<meta charset="utf-16"><p>Plain text.</p>',
            False,
        ),
        (b'<meta charset="cp037"><p>Caf\xe9.</p>', '<meta charset="cp037"><p>Café.</p>', False),
        (
            b'<meta charset="latin1"><p>\x93Caf\xe9\x94 \x81</p>',
            '<meta charset="latin1"><p>“Café” \x81</p>',
            False,
        ),
        (b'<meta charset="utf-8"><p>Caf\xe9</p>', '<meta charset="utf-8"><p>Café</p>', True),
        (b"\xef\xbb\xbfCaf\xc3\xa9", "Café", False),
        (b"\xff\xfeh\x00i\x00", "hi", False),
    ],
)
def test_decoding_follows_whatwg(data: bytes, text: str, warns: bool) -> None:
    decoded, warning = decode_page(data)
    assert decoded.endswith(text) and not decoded.startswith("\ufeff")
    assert (warning is not None) == warns


LATIN1_PAGE = "<html><body><p>\u201cCafé\u201d, año fiscal: 5 €</p></body></html>"


@pytest.mark.parametrize(
    ("data", "warning"),
    [
        (  # Latin-1/Windows-1252 bytes under charset=utf-8
            LATIN1_PAGE.replace("<html>", '<html><meta charset="utf-8">').encode("cp1252"),
            "declared utf-8 but the bytes are windows-1252; read as windows-1252",
        ),
        (  # a UTF-16 declaration on 8-bit text
            LATIN1_PAGE.replace("<html>", '<html><meta charset="utf-16">').encode("cp1252"),
            "declared utf-16 but the bytes are windows-1252; read as windows-1252",
        ),
        (  # UTF-8 bytes under a declaration of a multi-byte encoding they are not
            LATIN1_PAGE.replace("<html>", '<html><meta charset="euc-kr">').encode(),
            "declared euc-kr but the bytes are utf-8; read as utf-8",
        ),
        ("\ufeff" + LATIN1_PAGE, None),  # real UTF-16 with a BOM (below, LE and BE)
        (LATIN1_PAGE, "no byte-order mark or charset but the bytes are UTF-16LE; read as UTF-16LE"),
    ],
)
@pytest.mark.parametrize("utf16", ["utf-16-le", "utf-16-be"])
def test_a_clean_decoding_is_used_rather_than_replacing_bytes(
    data: bytes | str, warning: str | None, utf16: str, tmp_path: Path
) -> None:
    if isinstance(data, str):  # a UTF-16 case
        data, warning = data.encode(utf16), warning and warning.replace("LE", utf16[-2:].upper())
    decoded, said = decode_page(data)
    assert "\ufffd" not in decoded and "\x00" not in decoded
    assert decoded.endswith(LATIN1_PAGE.removeprefix("<html>")) and said == warning
    page = tmp_path / "page.htm"
    page.write_bytes(data)
    doc = load(page)
    assert "\u201cCafé\u201d, año fiscal: 5 €" in doc.text
    assert doc.metadata.get("warning") == warning


@pytest.mark.parametrize(
    ("data", "replaced"),
    [
        # mostly UTF-8 with a stray byte: read as declared (no encoding reads it cleanly)
        ('<meta charset="utf-8"><p>Año, €, ©</p>'.encode() + b"\xe9 x", "UTF-8"),
        # a one-byte declaration with an undefined byte is not Windows-1252 text
        ('<meta charset="windows-1251"><p>Год</p>'.encode("cp1251") + b"\x98", "windows-1251"),
        # nor is a multi-byte one
        (b'<meta charset="shift_jis"><p>\x82\xa0\x82</p>', "shift_jis"),
    ],
)
def test_a_file_no_common_encoding_reads_cleanly_is_read_as_declared(
    data: bytes, replaced: str
) -> None:
    decoded, warning = decode_page(data)
    assert decoded.count("\ufffd") == 1
    assert warning == f"1 byte sequence(s) that are not {replaced} were replaced by U+FFFD"


def test_utf16_is_told_by_its_nuls_only_when_it_decodes() -> None:
    from finchunk.parse.encoding import utf16_by_nuls

    assert utf16_by_nuls("<p>Text</p>".encode("utf-16-le")) == "utf-16-le"
    assert utf16_by_nuls("<p>Text</p>".encode("utf-16-be")) == "utf-16-be"
    assert utf16_by_nuls("<p>Text</p>".encode("utf-16-le")[:-1]) is None  # odd length
    assert utf16_by_nuls("<p>T</p>".encode("utf-16-le") + b"\x00\xdc") is None  # lone surrogate
    assert utf16_by_nuls(b"<html>\x00<body>x</body></html>") is None  # one NUL: binary
    assert utf16_by_nuls(b"\x00" * 64) is None


def test_cut_utf8_file_keeps_its_text_and_warns(tmp_path: Path) -> None:
    md = tmp_path / "cut.md"
    md.write_bytes("# Año\n\nIngresos de 5 €".encode()[:-2])
    doc = load(md)
    assert "Ingresos de 5 \ufffd" in doc.text and "cut off" in doc.metadata["warning"]
    html = tmp_path / "cut.htm"
    html.write_bytes("<html><body><p>Año fiscal: ingresos de 5 €".encode()[:-1])
    doc = load(html)
    assert "Año fiscal" in doc.text and "cut off" in doc.metadata["warning"]
    result = _run("chunk", str(md), "-o", str(tmp_path / "o.jsonl"))
    assert result.exit_code == 0 and "warning:" in result.output and "cut.md" in result.output


def test_html_named_txt_is_read_as_html(tmp_path: Path) -> None:
    f = tmp_path / "page.txt"
    f.write_text("<!DOCTYPE html><html><body><h1>Results</h1><p>Revenue grew.</p></body></html>")
    doc = load(f)
    assert "<p>" not in doc.text and "Revenue grew." in doc.text


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf", b"\xef\xbb\xbf \n\n", b"  \n"])
def test_bom_only_file_is_empty(tmp_path: Path, data: bytes) -> None:
    f = tmp_path / "bom.md"
    f.write_bytes(data)
    with pytest.raises(ParseError, match="empty"):
        load(f)


@pytest.mark.parametrize("header", [True, False])
def test_overlong_heading_is_text_in_a_chunk(header: bool) -> None:
    long = "Cover " + "block words " * 4000
    doc = parse_markdown(f"# Title\n\n# {long}\n\nBody.\n", "h")
    chunks = Structure(header=header).chunk(doc)
    assert any("block words block" in c.body for c in chunks)
    assert all(len(c.header) < 100 for c in chunks)


# --- page furniture keeps body text ----------------------------------------------------------


@pytest.mark.parametrize(
    "para",
    [
        lambda i, w: f"Revenue grew {i} percent in {2000 + i}.",
        lambda i, w: f"Section {i}",
        lambda i, w: f"The {w} segment grew.",
    ],
)
def test_html_page_break_between_every_paragraph_keeps_them(para) -> None:
    html = "".join(
        f'<p>{para(i, w)}</p><div style="page-break-after:always"></div>'
        for i, w in enumerate(GREEK)
    )
    doc = parse_html(f"<html><body>{html}</body></html>", "pb")
    for i, w in enumerate(GREEK):
        assert para(i, w) in doc.text


def _pdf_pages(lines_of: Callable[[int], list[str]], n: int = 12) -> list[list[Line]]:
    return [[Line(t) for t in lines_of(p)] for p in range(n)]


def _body(doc: Document) -> str:
    """The text of a document's elements other than furniture."""
    kept = (e for e in doc.elements if e.kind is not ElementKind.FURNITURE)
    return "\n".join(doc.text[e.start : e.end] for e in kept)


def test_pdf_lines_differing_only_in_digits_are_body() -> None:
    def page(p: int) -> list[str]:
        return [
            f"Net sales rose {3 * p + 1} percent to ${7 * p + 2} million in Q{p % 4 + 1}.",
            f"Segment {p % 3} margin was {p + 10} percent.",
            f"Outlook for {2020 + p % 5} unchanged at {p + 4} units.",
        ]

    doc = build_document(_pdf_pages(page), "digits")
    assert Structure().chunk(doc)
    body = _body(doc)
    for p in range(12):
        for t in page(p):
            assert t in body


def test_pdf_last_line_word_or_year_is_not_a_page_number() -> None:
    def page(p: int) -> list[str]:
        tail = {3: "Civil", 6: "2019"}.get(p, str(p + 1))
        return ["Acme Corp Annual Report", f"Body line {GREEK[p]} of the page.", tail]

    body = _body(build_document(_pdf_pages(page), "pn"))
    assert "Civil" in body and "2019" in body
    assert "Acme Corp Annual Report" not in body  # a real running header still goes
    assert "\n5\n" not in body and "\n8\n" not in body  # and page numbers in sequence


def test_duplicate_keys_in_sidecar_metadata_are_an_error(tmp_path: Path) -> None:
    from finchunk.retrieve.index.build import build_index, file_sources

    (tmp_path / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    (tmp_path / "a.meta.json").write_text('{"year": 2023, "year": 2024}', encoding="utf-8")
    with pytest.raises(ParseError, match=r"a\.meta\.json.*'year' is given twice"):
        build_index(file_sources([tmp_path / "a.md"]), tmp_path / "idx")  # said when read
    assert not (tmp_path / "idx").exists()


def test_image_only_pdf_is_one_line_for_every_command(tmp_path: Path) -> None:
    from tests.pdf_fixtures import write_blank

    scan = write_blank(tmp_path / "scan.pdf")
    for args in (["chunk", str(scan), "-o", str(tmp_path / "o.jsonl")],
                 ["view", str(scan), "-o", str(tmp_path / "v.html")],
                 ["index", str(scan), "-o", str(tmp_path / "idx")]):  # fmt: skip
        result = _run(*args)
        assert result.exit_code == 2, args
        assert "scan.pdf: no text layer" in result.output
        assert "--range" not in result.output and "Warning" not in result.output
    skipped = _run("chunk", str(scan), "-o", str(tmp_path / "o.jsonl"), "--on-error", "skip")
    assert skipped.exit_code == 0 and "skipped:" in skipped.output


def test_processing_instruction_in_html_is_skipped() -> None:
    # Found by bench/fuzz.py (html): "<?td>" is a node that is neither element nor text.
    doc = parse_html("<table><tr><td>Revenue<?td>1,234</td></tr></table><p>x<?pi y?>z</p>", "pi")
    assert "Revenue" in doc.text and "z" in doc.text


@pytest.mark.parametrize(
    "body",
    [
        "<PAGE>\nITEM 1.y><>tpmeI 7. MD&ompany sells.\n",  # found by bench/fuzz.py (sgml)
        "".join(f"Item {i % 9 + 1}. Part of a long list\n" for i in range(5000)),
    ],
)
def test_sgml_plain_text_item_lines(body: str) -> None:
    doc = parse_html("<DOCUMENT>\n<TYPE>10-K\n<TEXT>\n" + body + "</TEXT>\n", "sgml")
    assert doc.elements


#: Every way a JSON input can fail to be JSON, and the words its error says.
JSON_FAILURES = [
    (b'{"id": "\xe9"}', "not UTF-8 JSON"),
    (b'{"id": 1,}', "malformed JSON: Expecting property name"),
    (b'{"id": 1, "id": 2}', "'id' is given twice"),
    (b'{"id": NaN}', "NaN is not a JSON number"),
    (b'{"id": -Infinity}', "-Infinity is not a JSON number"),
    (b'{"id": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "nested too deeply"),
    (b'{"id": ' + b"9" * 5000 + b"}", "more than 4,300 digits"),
    (b'{"id": "a\\ud800"}', "lone surrogate"),
    (b'{"\\udc00": "a"}', "lone surrogate"),
    (b'{"id": "a\xed\xa0\x80"}', "lone surrogate"),
]


@pytest.mark.parametrize(("raw", "words"), JSON_FAILURES)
def test_every_json_reader_names_the_file_for_each_way_json_fails(
    raw: bytes, words: str, tmp_path: Path
) -> None:
    # one decoder (files.loads) behind question files, run files, sidecars and companyfacts:
    # each failure is finchunk's own error naming the file, never a traceback or bad text
    # stored (a lone surrogate cannot be written to UTF-8 or SQLite later)
    from finchunk.evaluate.quotes import read_quote_questions
    from finchunk.evaluate.runs import read_jsonl as read_run
    from finchunk.facts.companyfacts import companyfacts_from_bytes
    from finchunk.retrieve.index.build import build_index, file_sources

    lines = tmp_path / "q.jsonl"
    lines.write_bytes(b"\n" + raw + b"\n")
    for read in (read_quote_questions, read_run):
        with pytest.raises(InputError, match=rf"q\.jsonl:2: .*{re.escape(words)}"):
            read(lines)
    with pytest.raises(ParseError, match=rf"cf\.json.*{re.escape(words)}"):
        companyfacts_from_bytes(raw, "cf.json")
    (tmp_path / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    (tmp_path / "a.meta.json").write_bytes(raw)
    with pytest.raises(ParseError, match=rf"a\.meta\.json.*{re.escape(words)}"):
        build_index(file_sources([tmp_path / "a.md"]), tmp_path / "idx")


def test_surrogate_pairs_and_plain_text_still_read(tmp_path: Path) -> None:
    from finchunk.files import loads

    assert loads(b'{"a": "\\ud83d\\ude00 caf\xc3\xa9"}') == {"a": "\U0001f600 café"}
    assert loads('{"a": "\\u00e9"}') == {"a": "é"}


def test_a_question_id_of_the_wrong_type_names_the_types(tmp_path: Path) -> None:
    from finchunk.evaluate.quotes import read_quote_questions

    f = tmp_path / "q.jsonl"
    f.write_text('{"id": 1.5, "doc": "d.md", "question": "?", "evidence": ["e"]}\n')
    with pytest.raises(InputError, match=r"q\.jsonl:1: field 'id' must be str or int"):
        read_quote_questions(f)
    f.write_text('{"id": true, "doc": "d.md", "question": "?", "evidence": ["e"]}\n')
    with pytest.raises(InputError, match=r"field 'id' must be str or int"):
        read_quote_questions(f)


def test_a_file_name_that_is_not_utf8_is_indexed_under_an_escaped_id(tmp_path: Path) -> None:
    # Linux names are bytes; Python keeps a non-UTF-8 byte as a lone surrogate, which no
    # chunk file, index manifest or fact store can write: ids and sources say \\xNN instead
    import os

    docs = tmp_path / "docs"
    docs.mkdir()
    try:
        name = docs / os.fsdecode(b"caf\xe9.md")
        name.write_text("# Caf\u00e9\n\nRevenue was 100.\n", encoding="utf-8")
    except (OSError, UnicodeError):
        pytest.skip("this file system refuses non-UTF-8 names")
    out = tmp_path / "c.jsonl"
    assert _run("chunk", str(name), "-o", str(out)).exit_code == 0
    assert {json.loads(line)["doc_id"] for line in out.read_text("utf-8").splitlines()} == {
        "caf\\xe9"
    }
    idx = tmp_path / "idx"
    assert _run("index", str(docs), "-o", str(idx)).exit_code == 0
    found = _run("search", str(idx), "revenue", "--json")
    assert found.exit_code == 0 and json.loads(found.stdout)["results"][0]["doc_id"] == "caf\\xe9"
    again = _run("index", str(docs), "-o", str(idx))
    assert again.exit_code == 0 and "1 unchanged" in again.output
    facts = docs / os.fsdecode(b"f\xe9.json")
    facts.write_bytes(_companyfacts_json())
    loaded = _run("facts", "load", str(facts), "--db", str(tmp_path / "f.db"))
    assert loaded.exit_code == 0, loaded.output


def _companyfacts_json() -> bytes:
    from tests.test_facts_parsers import ROW, _companyfacts

    return json.dumps(_companyfacts([ROW])).encode()


@pytest.mark.parametrize("command", ["chunk", "view", "eval", "index"])
def test_an_output_that_cannot_be_written_is_one_error_before_the_work(
    command: str, tmp_path: Path
) -> None:
    # a folder given as -o, or a file where a folder must be: IsADirectoryError and
    # FileNotFoundError tracebacks before; eval's came after the whole run
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nRevenue was 100.\n", encoding="utf-8")
    quotes = tmp_path / "q.jsonl"
    quotes.write_text(
        '{"id": "q", "doc": "a.md", "question": "Revenue?", "evidence": ["Revenue was 100."]}\n'
    )
    inputs = {
        "chunk": [str(doc)],
        "view": [str(doc)],
        "eval": ["--questions", str(quotes), "--files", str(tmp_path)],
        "index": [str(doc)],
    }[command]
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "x").write_text("not an index", encoding="utf-8")
    for out, words in ((folder, "is a folder"), (doc / "x.out", "a.md is a file")):
        if command == "index":
            out, words = doc / "idx", "cannot write the index"
        r = _run(command, *inputs, "-o", str(out))
        assert r.exit_code == 2, r.output
        assert "Traceback" not in r.output and words in r.stderr, r.stderr
