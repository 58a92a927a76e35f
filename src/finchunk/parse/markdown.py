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
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from finchunk.errors import ParseError
from finchunk.files import read_bytes
from finchunk.model import Document, Element, ElementKind
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
_UNIT_BEFORE = re.compile(r"(?:^|[^A-Za-z])(?:m|km|cm|mm|dm|ft|in|mi|yd|ha|μm|µm)$")
# The label excludes "[" so that a run of unclosed "[^" is scanned once, not once per "[^".
_FOOTNOTE_REF = re.compile(r"\[\^([^\[\]\s]+)\](?!:)")
_NOTE_REF = re.compile(r"\b(?:[Nn]otas?|[Nn]otes?|NOTAS?|NOTES?)\s+(\d{1,3})\b")


@dataclass(slots=True)
class _Line:
    start: int  # offset of the first character of the line
    end: int  # offset after the line's content, before "\r\n" / "\n"
    content: str  # the line without its line ending

    @property
    def blank(self) -> bool:
        return not self.content.strip()


# Lines that may end a paragraph: blank lines and lines that may start a block. Only these
# are visited when scanning paragraphs; every other line is plain prose continuation. The
# pattern starts with a literal newline so the regex engine can skip ahead quickly.
_STOP_LINE = re.compile(r"\n(?:[ \t\r\f\v]*(?=\n|\Z)| {0,3}[#`~*+\-\[0-9⁰¹²³⁴⁵⁶⁷⁸⁹]|[^\n]*\|)")


_LONE_CR = re.compile(r"\r(?!\n)")


class _Lines:
    """The lines of a text, made on demand; ``next_stop`` skips plain prose lines."""

    __slots__ = ("text", "starts", "stops", "_bom", "_n")

    def __init__(self, text: str) -> None:
        self.text = text
        # A lone "\r" ends a line too (old Mac files): the scan runs over a copy with each
        # one made "\n", the same length, so offsets stay those of ``text``.
        if "\r" in text:
            text = _LONE_CR.sub("\n", text)
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos >= 0:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self.starts = starts
        self._n = len(starts)
        self._bom = text.startswith("\ufeff")
        # Line 0 is always a stop (it has no newline before it, and a BOM may hide it).
        self.stops = [0] + [bisect_left(starts, m.start() + 1) for m in _STOP_LINE.finditer(text)]

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> _Line:
        text = self.text
        start = self.starts[i] + (1 if i == 0 and self._bom else 0)
        stop = self.starts[i + 1] - 1 if i + 1 < self._n else len(text)
        end = stop - 1 if stop > start and text[stop - 1] == "\r" else stop
        return _Line(start, end, text[start:end])

    def next_stop(self, i: int) -> int:
        """The first line after ``i`` that is blank or may start a block (or ``len``)."""
        k = bisect_right(self.stops, i)
        return self.stops[k] if k < len(self.stops) else self._n


@dataclass(slots=True)
class _Block:
    kind: ElementKind
    first: int  # index of first line
    last: int  # index of last line (inclusive)
    level: int = 0
    heading: str = ""
    mark: str | None = None


def _is_table_start(lines: _Lines, i: int) -> bool:
    return (
        "|" in lines[i].content
        and i + 1 < len(lines)
        and "|" in lines[i + 1].content
        and "-" in lines[i + 1].content
        and _DELIM_ROW.match(lines[i + 1].content) is not None
    )


_INTERRUPTING_ITEM = re.compile(r" {0,3}(?:[-*+]|1[.)])[ \t]+\S")


def _list_interrupts_paragraph(content: str) -> bool:
    """CommonMark: only a non-empty bullet or a list numbered from 1 interrupts a paragraph
    (so a line "2023." inside a paragraph stays text)."""
    return _INTERRUPTING_ITEM.match(content) is not None


_STARTERS = frozenset("#`~-*+[0123456789" + SUPERSCRIPT_DIGITS)


def _starts_block(lines: _Lines, i: int) -> bool:
    """Whether line i interrupts a paragraph (starts a block of its own)."""
    c = lines[i].content
    first = c.lstrip(" ")[:1]
    if first not in _STARTERS and "|" not in c:
        return False  # fast path: most prose lines start with a letter
    return bool(
        _ATX.match(c)
        or _FENCE.match(c)
        or _list_interrupts_paragraph(c)
        or _SUP_NOTE.match(c)
        or _FOOTNOTE_DEF.match(c)
        or _is_table_start(lines, i)
    )


_CAPTION_MAX = 100


def _is_caption_of_table(lines: _Lines, i: int) -> bool:
    return (
        i + 1 < len(lines)
        and len(lines[i].content.strip()) <= _CAPTION_MAX
        and "|" not in lines[i].content
        and _is_table_start(lines, i + 1)
    )


def _scan_fence(lines: _Lines, i: int) -> int:
    fence = _FENCE.match(lines[i].content)
    if fence is None:
        return i
    marker = fence.group(1)
    j = i + 1
    while j < len(lines):
        stripped = lines[j].content.strip()
        if stripped.startswith(marker[0] * len(marker)) and not stripped.strip(marker[0]):
            return j
        j += 1
    return len(lines) - 1


def _scan_table(lines: _Lines, i: int) -> int:
    j = i + 2
    while j < len(lines) and not lines[j].blank and "|" in lines[j].content:
        j += 1
    return j - 1


def _marker_type(content: str) -> str:
    """``-``, ``*`` or ``+`` for bullets, ``.`` or ``)`` for ordered items."""
    s = content.lstrip()
    return s[0] if s[0] in "-*+" else s[len(s) - len(s.lstrip("0123456789"))]


def _scan_list(lines: _Lines, i: int) -> int:
    last = i
    j = i + 1
    marker = _marker_type(lines[i].content)
    first = _LIST_ITEM.match(lines[i].content)
    has_text = first is None or bool(lines[i].content[first.end() :].strip())
    while j < len(lines):
        line = lines[j]
        top_level_item = _LIST_ITEM.match(line.content) and not line.content.startswith("  ")
        if top_level_item and _marker_type(line.content) != marker:
            break  # a different bullet or numbering style starts a new list
        if line.blank:
            # A blank line continues a loose list only if an item or indented text follows.
            k = j
            while k < len(lines) and lines[k].blank:
                k += 1
            if k < len(lines) and (
                _LIST_ITEM.match(lines[k].content) or lines[k].content[:1] in (" ", "\t")
            ):
                j = k
                continue
            break
        item = _LIST_ITEM.match(line.content)
        if item or line.content.startswith((" ", "\t")):
            last = j
            has_text = not item or bool(line.content[item.end() :].strip())
        elif _starts_block(lines, j) or not has_text:
            break  # a new block, or text after an empty item (no paragraph to continue)
        else:
            last = j  # lazy continuation of the item's paragraph
        j += 1
    return last


def _scan_paragraph(lines: _Lines, i: int) -> int:
    j = lines.next_stop(i)
    while j < len(lines):
        if lines[j].blank or _starts_block(lines, j):
            return j - 1
        j = lines.next_stop(j)
    return len(lines) - 1


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


def _blocks(lines: _Lines) -> Iterator[_Block]:
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        c = line.content
        if line.blank:
            i += 1
            continue
        if m := _ATX.match(c):
            hashes = len(m.group(1))
            heading = _heading_text(c, c.index("#") + hashes)
            # A "heading" longer than any title (a cover block, a paragraph marked up by
            # mistake) is text: it must lie in a chunk, not only in a section path.
            if len(heading) <= HEADING_MAX_CHARS:
                yield _Block(ElementKind.HEADING, i, i, hashes, heading)
            else:
                yield _Block(ElementKind.TEXT, i, i)
            i += 1
            continue
        if _FENCE.match(c):
            j = _scan_fence(lines, i)
            yield _Block(ElementKind.TEXT, i, j)
        elif _is_table_start(lines, i):
            j = _scan_table(lines, i)
            yield _Block(ElementKind.TABLE, i, j)
        elif m := _SUP_NOTE.match(c):
            j = _scan_paragraph(lines, i)
            yield _Block(ElementKind.NOTE, i, j, mark=sup_mark(m.group(1)))
        elif m := _FOOTNOTE_DEF.match(c):
            j = _scan_paragraph(lines, i)
            yield _Block(ElementKind.NOTE, i, j, mark="^" + m.group(1))
        elif _LIST_ITEM.match(c):
            j = _scan_list(lines, i)
            yield _Block(ElementKind.LIST, i, j)
        else:
            j = _scan_paragraph(lines, i)
            if j == i and _is_caption_of_table(lines, i):
                # A one-line units/caption row glued to a table ("Millones de euros") is
                # part of the table: it says how to read the numbers.
                j = _scan_table(lines, i + 1)
                yield _Block(ElementKind.TABLE, i, j)
            else:
                yield _Block(ElementKind.TEXT, i, j)
        i = j + 1


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
    lines = _Lines(text)
    raw: list[tuple[_Block, int, int, tuple[str, ...]]] = []
    stack: list[tuple[int, str]] = []
    for block in _blocks(lines):
        start, end = _trimmed(text, lines[block.first].start, lines[block.last].end)
        if start >= end:
            continue
        if block.kind is ElementKind.HEADING:
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.heading))
        section = tuple(h for _, h in stack)
        if block.kind is ElementKind.TEXT and block.mark is None:
            m = _NOTE_PARA.match(text, start)
            if m and any(_NOTES_SECTION.search(h) for h in section):
                block.kind, block.mark = ElementKind.NOTE, _note_ref_mark(m.group(1))
        raw.append((block, start, end, section))
    defined = _Defined.of({b.mark for b, *_ in raw if b.mark is not None})
    elements = tuple(
        Element(
            kind=b.kind,
            start=s,
            end=e,
            level=b.level,
            section=sec,
            cites=() if b.kind is ElementKind.HEADING else _cites(text[s:e], defined, b.mark),
            mark=b.mark,
        )
        for b, s, e, sec in raw
    )
    if title is None:
        title = next((b.heading for b, *_ in raw if b.kind is ElementKind.HEADING), "") or doc_id
    return Document(
        id=doc_id,
        text=text,
        title=title,
        metadata=dict(metadata or {}),
        elements=elements,
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
    return parse_markdown(text, doc_id or p.stem, metadata=meta, source=str(p))
