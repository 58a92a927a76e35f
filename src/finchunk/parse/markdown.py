"""Markdown → elements, with a line-based block scanner.

The scanner recognises the blocks financial Markdown is made of: ATX headings, GFM pipe
tables (header row + delimiter row), bulleted and numbered lists, fenced code, paragraphs,
and notes (a block that starts with a superscript mark such as ¹ or ¹⁰, a ``[^n]:``
footnote definition, or a paragraph starting "Nota N." / "Note N." inside a notes
section). ``tests/test_markdown.py`` checks its block boundaries against markdown-it-py.

``Document.text`` is the input exactly as given (CRLF, BOM and tabs stay), so every element
span indexes the original string.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import accumulate, compress, count, repeat
from operator import contains
from pathlib import Path
from typing import Any

from finchunk.errors import ParseError
from finchunk.files import os_text, read_bytes
from finchunk.model import Document, Element, ElementKind, new_element
from finchunk.parse.encoding import cut_tail_warning, utf8_with_cut_tail
from finchunk.parse.sec_patterns import SUPERSCRIPT_DIGITS, sup_mark

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_DELIM_ROW = re.compile(r" {0,3}\|?[ \t]*+:?-++:?[ \t]*+(?:\|[ \t]*+:?-++:?[ \t]*+)*+\|?[ \t]*+$")
_SUP_NOTE = re.compile(r" {0,3}([⁰¹²³⁴⁵⁶⁷⁸⁹]+)(?![⁰¹²³⁴⁵⁶⁷⁸⁹])")
_FOOTNOTE_DEF = re.compile(r" {0,3}\[\^([^\]\s]+)\]:")
_NOTE_PARA = re.compile(r"(?:Nota|Note|NOTA|NOTE)\s+(\d{1,3})\b")
_NOTES_SECTION = re.compile(r"\bnot(?:as?|es?)\b", re.IGNORECASE)

# Citations inside a block.
_SUP_CITE = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_DIGIT_TO_SUP = str.maketrans("0123456789", SUPERSCRIPT_DIGITS)
_UNIT_BEFORE = re.compile(r"(?:^|[^A-Za-z])(?:m|km|cm|mm|dm|ft|in|mi|yd|ha|μm|µm)$")
# The label excludes "[" so that a run of unclosed "[^" is scanned once, not once per "[^".
_FOOTNOTE_REF = re.compile(r"\[\^([^\[\]\s]+)\](?!:)")
_NOTE_REF = re.compile(r"\b(?:[Nn]otas?|[Nn]otes?|NOTAS?|NOTES?)\s+(\d{1,3})\b")


# Lines that may end a paragraph: blank lines, lines that may start a block and lines that
# hold a "|". A paragraph scan skips every other line (plain prose continuation): one match
# of ``_PROSE_RUN`` runs over whole lines, none blank by this test, none opening with a block
# starter, and it ends where the next line holding a "|" starts (those lines are listed
# once, ``_BAR_LINE``). Possessive, so each line is read once.
_PROSE_RUN = re.compile(
    r"(?:(?![ \t\r\f\v]*+(?:\n|\Z))(?! {0,3}[#`~*+\-\[0-9⁰¹²³⁴⁵⁶⁷⁸⁹])[^\n]*+(?:\n|\Z))*+"
)

_BAR_LINE = re.compile(r"\|[^\n]*+")

#: What ``_PROSE_RUN`` counts as blank (a line of only these is a stop).
_STOP_BLANK = " \t\r\f\v"

_LONE_CR = re.compile(r"\r(?!\n)")

# The members as module constants: ``ElementKind.TEXT`` is an attribute lookup through the
# enum's metaclass (0.1 us on CPython 3.11, a global 0.02 us), paid per block.
_HEADING, _TEXT, _TABLE, _NOTE, _LIST = (
    ElementKind.HEADING,
    ElementKind.TEXT,
    ElementKind.TABLE,
    ElementKind.NOTE,
    ElementKind.LIST,
)


class _Lines:
    """The lines of a text: ``contents[i]`` is line i without its line ending (and the BOM);
    its content starts at ``prefix[i] + i`` (one more on line 0 after a BOM) and ends
    ``len(contents[i])`` later. Built with C-level loops only (``split``, ``accumulate``,
    ``compress``): no Python code runs per line."""

    __slots__ = ("scan", "prefix", "contents", "bom", "bars", "_ends_open")

    def __init__(self, text: str) -> None:
        # A lone "\r" ends a line too (old Mac files): the scan runs over a copy with each
        # one made "\n", the same length, so offsets stay those of ``text``.
        scan = _LONE_CR.sub("\n", text) if "\r" in text else text
        self.scan = scan
        contents = scan.split("\n")
        # Line i starts at prefix[i] + i: the lengths of the lines before it, and a "\n"
        # after each.
        self.prefix = list(accumulate(map(len, contents[:-1]), initial=0))
        # The lines holding a "|", in order.
        self.bars = list(compress(count(), map(contains, contents, repeat("|"))))
        if "\r" in text:
            contents = [c[:-1] if c[-1:] == "\r" else c for c in contents]
        self.bom = text.startswith("\ufeff")
        if self.bom:
            contents[0] = contents[0][1:]
        self.contents = contents
        self._ends_open = not scan.endswith("\n")  # the last line has content, no "\n"

    def next_stop(self, i: int) -> int:
        """The first line after ``i`` that is blank or may start a block (or ``len``)."""
        n = len(self.contents)
        if i + 1 >= n:
            return n
        if not self.contents[i + 1].strip(_STOP_BLANK):
            return i + 1  # a blank line: no run of prose to skip
        scan, prefix = self.scan, self.prefix
        k = bisect_right(self.bars, i)
        limit = prefix[self.bars[k]] + self.bars[k] if k < len(self.bars) else len(scan)
        start = prefix[i + 1] + i + 1
        run = _PROSE_RUN.match(scan, start, limit)
        end = run.end() if run else start
        # The run stops at the start of a stop line, at ``limit`` (a line holding "|"), or
        # at the end of the text, after a last line that has no "\n" (then: ``len``).
        if end == len(scan) and self._ends_open:
            return n
        return i + 1 + scan.count("\n", start, end)


# A block: (kind, first line, last line (inclusive), heading level, heading text, note mark).
_Block = tuple[ElementKind, int, int, int, str, str | None]


def _is_table_start(cs: list[str], i: int) -> bool:
    if "|" not in cs[i] or i + 1 >= len(cs):
        return False
    delim = cs[i + 1]
    return "|" in delim and "-" in delim and _DELIM_ROW.match(delim) is not None


_INTERRUPTING_ITEM = re.compile(r" {0,3}(?:[-*+]|1[.)])[ \t]+\S")


def _list_interrupts_paragraph(content: str) -> bool:
    """CommonMark: only a non-empty bullet or a list numbered from 1 interrupts a paragraph
    (so a line "2023." inside a paragraph stays text)."""
    return _INTERRUPTING_ITEM.match(content) is not None


_STARTERS = frozenset("#`~-*+[0123456789" + SUPERSCRIPT_DIGITS)


def _starts_block(cs: list[str], i: int) -> bool:
    """Whether line i interrupts a paragraph (starts a block of its own)."""
    c = cs[i]
    if c.lstrip(" ")[:1] not in _STARTERS and "|" not in c:
        return False  # fast path: most prose lines start with a letter
    return bool(
        _ATX.match(c)
        or _FENCE.match(c)
        or _list_interrupts_paragraph(c)
        or _SUP_NOTE.match(c)
        or _FOOTNOTE_DEF.match(c)
        or _is_table_start(cs, i)
    )


_CAPTION_MAX = 100


def _is_caption_of_table(cs: list[str], i: int) -> bool:
    return (
        i + 1 < len(cs)
        and "|" in cs[i + 1]  # cheapest first: most paragraphs are followed by a blank
        and "|" not in cs[i]
        and len(cs[i].strip()) <= _CAPTION_MAX
        and _is_table_start(cs, i + 1)
    )


def _scan_fence(cs: list[str], i: int) -> int:
    fence = _FENCE.match(cs[i])
    if fence is None:
        return i
    marker = fence.group(1)
    run = marker[0] * len(marker)
    for j in range(i + 1, len(cs)):
        stripped = cs[j].strip()
        if stripped.startswith(run) and not stripped.strip(marker[0]):
            return j
    return len(cs) - 1


def _scan_table(cs: list[str], i: int) -> int:
    j, n = i + 2, len(cs)
    # A line holding "|" is never blank.
    while j < n and "|" in cs[j]:
        j += 1
    return j - 1


def _marker_type(content: str) -> str:
    """``-``, ``*`` or ``+`` for bullets, ``.`` or ``)`` for ordered items."""
    s = content.lstrip()
    return s[0] if s[0] in "-*+" else s[len(s) - len(s.lstrip("0123456789"))]


def _loose_list_resumes(cs: list[str], j: int) -> int | None:
    """After the blank line j inside a list: the line where the list resumes (an item or
    indented text after the blank lines), None where it ends."""
    k, n = j, len(cs)
    while k < n and not cs[k].strip():
        k += 1
    if k < n and (_LIST_ITEM.match(cs[k]) or cs[k][:1] in (" ", "\t")):
        return k
    return None


def _scan_list(cs: list[str], i: int) -> int:
    last, j, n = i, i + 1, len(cs)
    marker = _marker_type(cs[i])
    first = _LIST_ITEM.match(cs[i])
    has_text = first is None or bool(cs[i][first.end() :].strip())
    while j < n:
        c = cs[j]
        item = _LIST_ITEM.match(c)
        if item and not c.startswith("  ") and _marker_type(c) != marker:
            break  # a different bullet or numbering style starts a new list
        if not c.strip():
            # A blank line continues a loose list only if an item or indented text follows.
            k = _loose_list_resumes(cs, j)
            if k is None:
                break
            j = k
            continue
        if item or c.startswith((" ", "\t")):
            last = j
            has_text = not item or bool(c[item.end() :].strip())
        elif _starts_block(cs, j) or not has_text:
            break  # a new block, or text after an empty item (no paragraph to continue)
        else:
            last = j  # lazy continuation of the item's paragraph
        j += 1
    return last


def _scan_paragraph(lines: _Lines, i: int) -> int:
    cs, n = lines.contents, len(lines.contents)
    j = lines.next_stop(i)
    while j < n:
        if not cs[j].strip() or _starts_block(cs, j):
            return j - 1
        j = lines.next_stop(j)
    return n - 1


def _heading_text(content: str, hashes: int) -> str:
    """The heading's text without its opening hashes and an optional closing run of "#"
    (which must follow a space, or be all there is). String methods, not a regex: a
    search for "[ \t]+#+$" rescans a long run of spaces once per space (quadratic)."""
    s = content.strip()[hashes:].strip()
    t = s.rstrip("#")
    if len(t) < len(s) and (not t or t[-1] in " \t"):
        s = t
    return s.strip()


#: The longest heading text; a longer ATX "heading" is read as a paragraph (as the HTML
#: parser reads a paragraph longer than 200 characters, bold or not).
HEADING_MAX_CHARS = 200


def _atx_block(c: str, i: int, m: re.Match[str]) -> _Block:
    hashes = len(m.group(1))
    heading = _heading_text(c, c.index("#") + hashes)
    # A "heading" longer than any title (a cover block, a paragraph marked up by
    # mistake) is text: it must lie in a chunk, not only in a section path.
    if len(heading) <= HEADING_MAX_CHARS:
        return (_HEADING, i, i, hashes, heading, None)
    return (_TEXT, i, i, 0, "", None)


def _text_block(lines: _Lines, i: int) -> _Block:
    j = _scan_paragraph(lines, i)
    if j == i and _is_caption_of_table(lines.contents, i):
        # A one-line units/caption row glued to a table ("Millones de euros") is
        # part of the table: it says how to read the numbers.
        return (_TABLE, i, _scan_table(lines.contents, i + 1), 0, "", None)
    return (_TEXT, i, j, 0, "", None)


def _starter_block(lines: _Lines, i: int) -> _Block:
    """The block at line i, which opens with a block starter or holds a "|"."""
    cs = lines.contents
    c = cs[i]
    if m := _ATX.match(c):
        return _atx_block(c, i, m)
    if _FENCE.match(c):
        return (_TEXT, i, _scan_fence(cs, i), 0, "", None)
    if _is_table_start(cs, i):
        return (_TABLE, i, _scan_table(cs, i), 0, "", None)
    if m := _SUP_NOTE.match(c):
        return (_NOTE, i, _scan_paragraph(lines, i), 0, "", sup_mark(m.group(1)))
    if m := _FOOTNOTE_DEF.match(c):
        return (_NOTE, i, _scan_paragraph(lines, i), 0, "", "^" + m.group(1))
    if _LIST_ITEM.match(c):
        return (_LIST, i, _scan_list(cs, i), 0, "", None)
    return _text_block(lines, i)


def _blocks(lines: _Lines) -> Iterator[_Block]:
    cs = lines.contents
    i, n = 0, len(cs)
    while i < n:
        c = cs[i]
        if not c.strip():
            i += 1
            continue
        if c.lstrip(" ")[:1] in _STARTERS or "|" in c:
            block = _starter_block(lines, i)
        elif i + 1 < n and not cs[i + 1].strip(_STOP_BLANK):
            # Fastest path: a line of prose, then a blank line, is a paragraph of one line
            # (what _text_block finds: the blank stops it, and no table follows it).
            block = (_TEXT, i, i, 0, "", None)
        else:
            block = _text_block(lines, i)  # fast path: a line of prose opens a paragraph
        yield block
        i = block[2] + 1


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _note_ref_mark(number: str) -> str:
    return f"note:{int(number)}"


@dataclass(frozen=True, slots=True)
class _Defined:
    """The note marks a document defines, grouped so absent kinds cost nothing to look for."""

    marks: frozenset[str]
    sup: bool
    footnote: bool
    nota: bool

    @classmethod
    def of(cls, marks: set[str]) -> _Defined:
        return cls(
            frozenset(marks),
            sup=any(m[:1].isdigit() for m in marks),
            footnote=any(m.startswith("^") for m in marks),
            nota=any(m.startswith("note:") for m in marks),
        )


def _cites(body: str, defined: _Defined, own: str | None) -> tuple[str, ...]:
    found: dict[str, None] = {}
    marks = defined.marks
    if defined.sup:
        for m in _SUP_CITE.finditer(body):
            mark = sup_mark(m.group(0))
            if mark in marks and mark != own and not _is_unit_exponent(body, m):
                found[mark] = None
    if defined.footnote and "[^" in body:
        for m in _FOOTNOTE_REF.finditer(body):
            mark = "^" + m.group(1)
            if mark in marks and mark != own:
                found[mark] = None
    if defined.nota:
        for m in _NOTE_REF.finditer(body):
            mark = _note_ref_mark(m.group(1))
            if mark in marks and mark != own:
                found[mark] = None
    return tuple(found)


def _is_unit_exponent(body: str, m: re.Match[str]) -> bool:
    if m.group(0) not in ("²", "³"):
        return False
    return _UNIT_BEFORE.search(body, max(0, m.start() - 4), m.start()) is not None


def _find_all(text: str, needles: Iterable[str]) -> list[int]:
    """Every offset where one of ``needles`` occurs (``str.find``: no regex over the text)."""
    found: list[int] = []
    for needle in needles:
        find = text.find
        p = find(needle)
        while p >= 0:
            found.append(p)
            p = find(needle, p + 1)
    return found


def _cite_starts(text: str, defined: _Defined) -> list[int]:
    """Offsets, sorted, such that every citation ``_cites`` finds in a block starts at one
    of them (a block is bounded by whitespace, which no citation starts with); so the
    whole text is searched once, with ``str.find``, and only the blocks holding one are
    read again.

    A superscript run names a defined mark only if it is made of the digits of defined
    marks; a "Note N" reference is kept where ``_NOTE_REF`` matches at its first letter.
    """
    found: list[int] = []
    if defined.sup:
        digits = {d for m in defined.marks if m[:1].isdigit() for d in m}
        found += _find_all(text, "".join(sorted(digits)).translate(_DIGIT_TO_SUP))
    if defined.footnote:
        found += _find_all(text, ["[^"])
    if defined.nota:
        match = _NOTE_REF.match
        found += [p for p in _find_all(text, ["Not", "not", "NOT"]) if match(text, p)]
    found.sort()
    return found


def _citing(starts: list[int], ends: list[int], candidates: list[int]) -> set[int]:
    """Indexes of the spans (sorted, disjoint ``starts``/``ends``) holding a candidate."""
    hit: set[int] = set()
    for p in candidates:
        k = bisect_right(starts, p) - 1
        if k >= 0 and p < ends[k]:
            hit.add(k)
    return hit


@dataclass(slots=True)
class _Parsed:
    """The first pass's result: elements without citations, in order, their spans apart
    (for the citation search), and the first heading's text."""

    elements: list[Element]
    starts: list[int]
    ends: list[int]
    first_heading: str | None = None


def _first_pass(text: str, lines: _Lines) -> _Parsed:
    """Each non-empty block as an element (no citations yet) with its trimmed span and
    section path (notes in a notes section found by their "Nota N." opening). Only the
    elements outlive a block: the scan keeps no per-block tuples."""
    out = _Parsed([], [], [])
    stack: list[tuple[int, str]] = []
    section: tuple[str, ...] = ()
    prefix, cs, bom = lines.prefix, lines.contents, 1 if lines.bom else 0
    for kind, first, last, level, heading, mark in _blocks(lines):
        # Where the first line's content starts and the last line's ends (see _Lines).
        start = prefix[first] + first + (bom if first == 0 else 0)
        end = prefix[last] + last + (bom if last == 0 else 0) + len(cs[last])
        if text[start].isspace() or text[end - 1].isspace():
            start, end = _trimmed(text, start, end)
        if start >= end:
            continue
        if kind is _HEADING:
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading))
            section = tuple([h for _, h in stack])  # a list: no generator to resume
            if out.first_heading is None:
                out.first_heading = heading
        elif kind is _TEXT and mark is None and text[start] == "N":
            m = _NOTE_PARA.match(text, start)
            if m and any(_NOTES_SECTION.search(h) for h in section):
                kind, mark = _NOTE, _note_ref_mark(m.group(1))
        out.elements.append(new_element(kind, start, end, level, section, (), mark))
        out.starts.append(start)
        out.ends.append(end)
    return out


def _with_cites(text: str, parsed: _Parsed) -> tuple[Element, ...]:
    """The elements, each that cites a note the document defines given its ``cites``."""
    elements = parsed.elements
    defined = _Defined.of({e.mark for e in elements if e.mark is not None})
    for k in sorted(_citing(parsed.starts, parsed.ends, _cite_starts(text, defined))):
        e = elements[k]
        if e.kind is _HEADING:
            continue
        cites = _cites(text[e.start : e.end], defined, e.mark)
        if cites:
            elements[k] = new_element(e.kind, e.start, e.end, e.level, e.section, cites, e.mark)
    return tuple(elements)


def parse_markdown(
    text: str,
    doc_id: str,
    *,
    title: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    source: str | None = None,
) -> Document:
    """Parse Markdown ``text`` into a :class:`Document` whose elements index ``text``.

    ``title`` defaults to the first heading's text, then to ``doc_id``.
    """
    parsed = _first_pass(text, _Lines(text))
    if title is None:
        title = parsed.first_heading or doc_id
    return Document(
        id=doc_id,
        text=text,
        title=title,
        metadata=dict(metadata or {}),
        elements=_with_cites(text, parsed),
        source=source,
    )


def read_text_file(path: str | Path) -> str:
    """Read a UTF-8 text file exactly (no newline translation), with errors that name it."""
    return read_text_checked(path)[0]


def read_text_checked(path: str | Path) -> tuple[str, str | None]:
    """A UTF-8 text file's text, and a warning when a multi-byte character cut off at the
    end of the file was replaced by U+FFFD; ParseError naming the byte and line otherwise."""
    p = Path(path)
    data = read_bytes(p)
    try:
        text, cut = utf8_with_cut_tail(data)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError(
            str(p),
            f"not UTF-8 text (byte 0x{data[exc.start]:02x}); re-encode it as UTF-8",
            position=f"byte {exc.start}, line {line}",
        ) from exc
    return text, cut_tail_warning(cut)


def parse_markdown_file(path: str | Path, doc_id: str | None = None) -> Document:
    """Parse a Markdown file; the document id defaults to the file's stem."""
    p = Path(path)
    text, warning = read_text_checked(p)
    if not text.lstrip("\ufeff").strip():
        raise ParseError(str(p), "empty document: no text to chunk")
    meta = {"warning": warning} if warning else None
    return parse_markdown(text, doc_id or os_text(p.stem), metadata=meta, source=os_text(p))
