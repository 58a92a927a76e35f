"""Regex audit: every pattern that the parsers, chunkers and fact readers apply to document
text runs in linear time, as it is used.

Each module-level pattern is found by reflection; how it is used (``match``/``fullmatch``
at one place, or ``search``/``finditer``/``sub``/... over a whole text) is read from the
source, so a new pattern or a new use is audited without editing this file. A quadratic
pattern takes tens of seconds on these 50 KB inputs; a linear one a few milliseconds.
"""

from __future__ import annotations

import importlib
import re
import time
from pathlib import Path

import pytest

import finchunk

MODULES = [
    "finchunk.parse.markdown",
    "finchunk.parse.sec_sgml",
    "finchunk.parse.sec_patterns",
    "finchunk.parse.html",
    "finchunk.parse.html_meta",
    "finchunk.parse.html_walk",
    "finchunk.parse.html_outline",
    "finchunk.parse.html_table",
    "finchunk.parse.html_blocks",
    "finchunk.parse.pdf",
    "finchunk.parse.pdf_layout",
    "finchunk.parse.pdf_headings",
    "finchunk.parse.pdf_meta",
    "finchunk.parse.ocr",
    "finchunk.parse.office",
    "finchunk.parse.word",
    "finchunk.parse.excel",
    "finchunk.chunk.tables",
    "finchunk.chunk.tablectx",
    "finchunk.chunk.header",
    "finchunk.chunk.recursive",
    "finchunk.facts.transforms",
    "finchunk.facts.concepts",
    "finchunk.facts.values",
    "finchunk.text.analysis",
    "finchunk.retrieve.query.need",
]
_SRC = Path(finchunk.__file__).parent
_SOURCE = "\n".join(p.read_text(encoding="utf-8") for p in sorted(_SRC.rglob("*.py")))
_ANCHORED = {"match", "fullmatch"}
_SCANNING = {"search", "finditer", "findall", "sub", "subn", "split"}

_N = 50_000
_UNITS = [" ", "\n", " \n", "\t", "\r", "a", "A", "1", "1 ", "1,", "-", "- ", "#", "[^"]
_UNITS += ["<", "<a", "/", "(", "*", "¹", "$", "a ", "Jan ", "ITEM 1 ", "_", ":", ".", "|", "| -"]
#: The same runs behind prefixes that start a match and before endings that fail it.
_WRAPS = [("", "x"), ("|-", "\x00"), ("a", "\n!"), ("1", ":x")]
_TEXTS = [pre + u * (_N // len(u)) + post for u in _UNITS for pre, post in _WRAPS]
#: Seconds one call may take: linear code takes milliseconds even on a loaded machine.
_BOUND = 3.0


def _patterns() -> list[tuple[str, re.Pattern[str], set[str]]]:
    found: dict[int, tuple[str, re.Pattern[str], set[str]]] = {}
    for module in MODULES:
        for name, pat in vars(importlib.import_module(module)).items():
            if not isinstance(pat, re.Pattern) or id(pat) in found:
                continue
            uses = set(re.findall(rf"\b{re.escape(name)}\.(\w+)\(", _SOURCE))
            uses &= _ANCHORED | _SCANNING
            found[id(pat)] = (f"{module}.{name}", pat, uses or {"search"})
    return sorted(found.values(), key=lambda t: t[0])


_ALL = _patterns()


def test_audit_finds_the_patterns() -> None:
    names = {n for n, _, _ in _ALL}
    assert "finchunk.parse.markdown._FOOTNOTE_REF" in names
    assert "finchunk.parse.sec_sgml._HEADER_LINE" in names
    assert len(_ALL) > 60


@pytest.mark.parametrize("name", [n for n, _, _ in _ALL])
def test_pattern_is_linear_as_used(name: str) -> None:
    _, pat, uses = next(t for t in _ALL if t[0] == name)
    calls = []
    if uses & {"match"}:
        calls.append(pat.match)
    if uses & {"fullmatch"}:
        calls.append(pat.fullmatch)
    if uses & _SCANNING:
        calls.append(lambda s: sum(1 for _ in pat.finditer(s)))
    texts = _TEXTS if isinstance(pat.pattern, str) else [t.encode() for t in _TEXTS]
    for text in texts:
        for call in calls:
            t = time.perf_counter()
            call(text)
            took = time.perf_counter() - t
            assert took < _BOUND, (name, text[:12], f"{took:.1f}s")
