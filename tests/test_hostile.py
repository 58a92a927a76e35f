"""Hostile and broken documents (issue 14): no hang, no traceback, no silent loss.

Every input is generated here; none is a copy of a real file.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.errors import FinchunkError
from finchunk.model import Document, ElementKind
from finchunk.parse.html import parse_html
from finchunk.parse.markdown import parse_markdown

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
