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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from finchunk.collector import collector_paused
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


#: What the paragraph scan counts as blank (a line of only these stops a paragraph).
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

#: The first characters (after the line's spaces) of lines that may start a block.
_STARTERS = frozenset("#`~-*+[0123456789" + SUPERSCRIPT_DIGITS)
_STARTER_CODES = np.array(sorted(map(ord, _STARTERS)), dtype=np.uint32)
#: Every character ``str.isspace`` accepts (what ``str.strip`` removes).
_SPACE_CODES = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)
_SPACE, _NEWLINE, _CR, _BAR = 0x20, 0x0A, 0x0D, 0x7C
#: Stands for "no character" (past the line's end) where lines' first characters are read:
#: an array scalar, so that the arrays it is put in become uint32 (a Python int beside
#: an uint8 array of ASCII codes would wrap around to 0 under NumPy 2's rules).
_NONE = np.uint32(0x110000)


def _codes(text: str) -> np.ndarray:
    """The text's code points as an array, index for index (lone surrogates included), in
    the narrowest type that holds them: one byte each for ASCII, two without characters
    beyond the BMP (UTF-16 is then one unit a character), else four."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    wide = text.encode("utf-16-le", "surrogatepass")
    if len(wide) == 2 * len(text):
        return np.frombuffer(wide, dtype=np.uint16)
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


class _Lines:
    """The lines of a text, classified at once with array operations (no Python code runs
    per line, only per line that may be blank or opens with four spaces or more).

    ``self[i]`` is line i without its line ending (and the BOM): ``scan[starts[i]:ends[i]]``.
    Per line, lists of bools: ``blank`` (nothing but whitespace, as ``str.strip`` sees it),
    ``stop_blank`` (nothing but ``_STOP_BLANK``),
    ``lead`` (its first character after its spaces may start a block: ``_STARTERS``) and
    ``bar`` (it holds a ``|``); ``stops`` lists the lines where a run of prose ends (blank
    as ``_STOP_BLANK`` sees it, a starter after at most three spaces, or a ``|``), which
    are the only lines a paragraph scan looks at. ``cites`` holds where citations may
    start (:class:`_CiteCandidates`).

    The text's code points are read one window of :data:`_WINDOW` characters at a time
    (:func:`_windows`): no array as long as the text is made, so the arrays stay in the
    CPU's caches and the time stays linear in the length (one array of a 10 MB text's
    code points cost more per character than one of 5 MB: its fresh pages)."""

    __slots__ = (
        "scan",
        "starts",
        "ends",
        "n",
        "blank",
        "stop_blank",
        "lead",
        "bar",
        "stops",
        "cites",
    )

    def __init__(self, text: str) -> None:
        # A lone "\r" ends a line too (old Mac files): the scan runs over a copy with each
        # one made "\n", the same length, so offsets stay those of ``text``.
        has_cr = "\r" in text
        scan = _LONE_CR.sub("\n", text) if has_cr else text
        self.scan = scan
        # Line 0's content starts after the BOM.
        found = _scan_windows(scan, 1 if text.startswith("\ufeff") else 0, has_cr)
        starts, ends, firsts, spaces = found.starts, found.ends, found.firsts, found.spaces
        self.cites = found.cites
        self.n = len(starts)
        bar = _holding(found.bars, starts)
        if has_cr:  # a CRLF line's content ends before its "\r"
            filled = np.flatnonzero(ends > starts)
            ends[filled] -= np.isin(ends[filled] - 1, found.crs)
        starter = np.isin(firsts, _STARTER_CODES)
        self.starts, self.ends = starts.tolist(), ends.tolist()
        self.bar = bar.tolist()
        self.lead = starter.tolist()
        for i in np.flatnonzero(spaces).tolist():  # four spaces or more: rare, read here
            self.lead[i] = self[i].lstrip(" ")[:1] in _STARTERS
        empty = ends == starts
        self.blank, self.stop_blank = empty.tolist(), empty.tolist()
        stop = starter | bar | empty
        stop[self._read_blanks(~empty & ((firsts == _NONE) | np.isin(firsts, _SPACE_CODES)))] = True
        self.stops = np.flatnonzero(stop).tolist()

    def _read_blanks(self, maybe: np.ndarray) -> list[int]:
        """Read the lines ``maybe`` marks (not empty, opening with whitespace: few) for
        ``blank`` and ``stop_blank``; the lines that are blank as ``_STOP_BLANK`` sees it."""
        stops = []
        for i in np.flatnonzero(maybe).tolist():
            c = self[i]
            self.blank[i] = not c.strip()
            if not c.strip(_STOP_BLANK):
                self.stop_blank[i] = True
                stops.append(i)
        return stops

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> str:
        return self.scan[self.starts[i] : self.ends[i]]

    def next_stop(self, i: int) -> int:
        """The first line after ``i`` that is blank or may start a block (or ``len``)."""
        stops = self.stops
        k = bisect_right(stops, i)
        return stops[k] if k < len(stops) else self.n


def _holding(found: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per line (lines start at ``starts``), whether it holds one of the offsets ``found``."""
    lines = np.zeros(len(starts), dtype=bool)
    lines[np.searchsorted(starts, found, side="right") - 1] = True
    return lines


#: Characters per window of the line scan (two bytes each for most texts: 1 MB).
_WINDOW = 1 << 19
#: How far past its window a window's codes reach: a line's first character lies at most
#: three characters after the line's start; a citation candidate's test reads two further.
_REACH = 3


@dataclass(slots=True)
class _CiteCandidates:
    """Offsets where a citation may start, whatever the document defines (sorted): the
    superscript digits (and their code points) and each "[^"."""

    sups: np.ndarray
    sup_codes: np.ndarray
    footnotes: np.ndarray


@dataclass(slots=True)
class _Scanned:
    """What :func:`_scan_windows` finds, as offsets into the text (int64 arrays)."""

    starts: np.ndarray
    ends: np.ndarray
    firsts: np.ndarray  # per line: its first character after at most three spaces, or _NONE
    spaces: np.ndarray  # per line: it opens with four spaces or more (its first not read)
    bars: np.ndarray  # offsets of "|"
    crs: np.ndarray  # offsets of "\r" (a scan keeps only those of CRLF)
    cites: _CiteCandidates


def _windows(text: str) -> Iterator[tuple[int, np.ndarray]]:
    """(offset, code points of ``text[offset - 1 : offset + _WINDOW + _REACH]``) for each
    window (the first starts at 0 and has no character before it)."""
    for off in range(0, max(len(text), 1), _WINDOW):
        lo = max(off - 1, 0)
        yield off, _codes(text[lo : off + _WINDOW + _REACH])


def _scan_windows(scan: str, first_start: int, has_cr: bool) -> _Scanned:
    """The lines of ``scan`` (line 0 starting at ``first_start``) and what the scanner
    reads of them, one window at a time. A line starts at 0 and after each newline; the
    window holding its start reads its first characters (the last window also holds the
    empty line after a final newline, which starts at the text's end)."""
    parts: dict[str, list[np.ndarray]] = {k: [] for k in _Scanned.__slots__ if k != "cites"}
    cites: dict[str, list[np.ndarray]] = {k: [] for k in _CiteCandidates.__slots__}
    n = len(scan)
    for off, codes in _windows(scan):
        before = 1 if off else 0  # codes[0] is the character before the window
        base = off - before  # the text offset of codes[0]
        own = codes[before : before + _WINDOW]  # the window's own characters
        last = off + _WINDOW >= n
        hi = n if last else off + _WINDOW
        newlines = np.flatnonzero(codes == _NEWLINE) + base  # the reach's too
        # The lines that start in [off, hi) (and at n, when last): after a newline there.
        after = newlines + 1
        starts = after[(after >= off) & ((after <= hi) if last else (after < hi))]
        if not off:
            starts = np.concatenate(([first_start], starts))
        first, four = _firsts(codes, starts - base)
        parts["starts"].append(starts)
        parts["firsts"].append(first)
        parts["spaces"].append(four)
        parts["ends"].append(newlines[(newlines >= off) & (newlines < off + _WINDOW)])
        parts["bars"].append(np.flatnonzero(own == _BAR) + off)
        if has_cr:
            parts["crs"].append(np.flatnonzero(own == _CR) + off)
        _cite_candidates(codes, before, off, cites)
    joined = {k: np.concatenate(v) if v else np.zeros(0, np.int64) for k, v in parts.items()}
    joined["ends"] = np.concatenate((joined["ends"], [n]))
    found = _CiteCandidates(**{k: np.concatenate(v) for k, v in cites.items()})
    return _Scanned(**joined, cites=found)


def _firsts(codes: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each line's first character after at most three spaces (``_NONE`` past its end),
    and whether it opens with four spaces or more (its first character is then not read
    here), for the lines starting at ``at`` in ``codes``. A line ends at a line ending or
    where ``codes`` stops (they reach ``_REACH`` characters past each window's own, so only
    the text's end stops them early). Only the lines still reading spaces read further."""
    at = at.copy()
    first = _read(codes, at)
    spaces = np.flatnonzero(first == _SPACE)
    for _ in range(3):
        if not len(spaces):
            break
        at[spaces] += 1
        found = _read(codes, at[spaces])
        first[spaces] = found
        spaces = spaces[found == _SPACE]
    four = np.zeros(len(at), dtype=bool)
    four[spaces] = True
    first[spaces] = _NONE
    return first, four


def _read(codes: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The code points at ``at`` as uint32, ``_NONE`` at a line ending ("\\n", or the "\\r"
    of a CRLF: a scan has no other) or past the codes."""
    inside = at < len(codes)
    got = np.full(len(at), _NONE, dtype=np.uint32)
    got[inside] = codes[at[inside]]
    got[(got == _NEWLINE) | (got == _CR)] = _NONE
    return got


def _cite_candidates(
    codes: np.ndarray, before: int, off: int, out: dict[str, list[np.ndarray]]
) -> None:
    """Append the window's superscript digits and "[^" (offsets in the text) to ``out``:
    those starting at one of its own characters (``codes[before : before + _WINDOW]``)."""
    own = codes[before : before + _WINDOW]
    high = np.flatnonzero(own >= _LOWEST_SUP)  # few: curly quotes, dashes, accents
    high = high[np.isin(own[high], _SUP_CODES)]
    out["sups"].append(high + off)
    out["sup_codes"].append(own[high].astype(np.uint32))
    out["footnotes"].append(_followed_by(codes, before, _OPEN_BRACKET, (_CARET,)) + off)


# A block: (kind, first line, last line (inclusive), heading level, heading text, note mark).
_Block = tuple[ElementKind, int, int, int, str, str | None]


def _is_table_start(cs: _Lines, i: int) -> bool:
    if not cs.bar[i] or i + 1 >= len(cs) or not cs.bar[i + 1]:
        return False
    delim = cs[i + 1]
    return "-" in delim and _DELIM_ROW.match(delim) is not None


_INTERRUPTING_ITEM = re.compile(r" {0,3}(?:[-*+]|1[.)])[ \t]+\S")


def _list_interrupts_paragraph(content: str) -> bool:
    """CommonMark: only a non-empty bullet or a list numbered from 1 interrupts a paragraph
    (so a line "2023." inside a paragraph stays text)."""
    return _INTERRUPTING_ITEM.match(content) is not None


def _starts_block(cs: _Lines, i: int) -> bool:
    """Whether line i interrupts a paragraph (starts a block of its own)."""
    if not (cs.lead[i] or cs.bar[i]):
        return False  # fast path: most prose lines start with a letter
    c = cs[i]
    return bool(
        _ATX.match(c)
        or _FENCE.match(c)
        or _list_interrupts_paragraph(c)
        or _SUP_NOTE.match(c)
        or _FOOTNOTE_DEF.match(c)
        or _is_table_start(cs, i)
    )


_CAPTION_MAX = 100


def _is_caption_of_table(cs: _Lines, i: int) -> bool:
    return (
        i + 1 < len(cs)
        and cs.bar[i + 1]  # cheapest first: most paragraphs are followed by a blank
        and not cs.bar[i]
        and len(cs[i].strip()) <= _CAPTION_MAX
        and _is_table_start(cs, i + 1)
    )


def _scan_fence(cs: _Lines, i: int) -> int:
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


def _scan_table(cs: _Lines, i: int) -> int:
    j, n, bar = i + 2, len(cs), cs.bar
    # A line holding "|" is never blank.
    while j < n and bar[j]:
        j += 1
    return j - 1


def _marker_type(content: str) -> str:
    """``-``, ``*`` or ``+`` for bullets, ``.`` or ``)`` for ordered items."""
    s = content.lstrip()
    return s[0] if s[0] in "-*+" else s[len(s) - len(s.lstrip("0123456789"))]


def _loose_list_resumes(cs: _Lines, j: int) -> int | None:
    """After the blank line j inside a list: the line where the list resumes (an item or
    indented text after the blank lines), None where it ends."""
    k, n = j, len(cs)
    while k < n and cs.blank[k]:
        k += 1
    if k < n and (_LIST_ITEM.match(cs[k]) or cs[k][:1] in (" ", "\t")):
        return k
    return None


def _scan_list(cs: _Lines, i: int) -> int:
    last, j, n = i, i + 1, len(cs)
    marker = _marker_type(cs[i])
    first = _LIST_ITEM.match(cs[i])
    has_text = first is None or bool(cs[i][first.end() :].strip())
    while j < n:
        c = cs[j]
        item = _LIST_ITEM.match(c)
        if item and not c.startswith("  ") and _marker_type(c) != marker:
            break  # a different bullet or numbering style starts a new list
        if cs.blank[j]:
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
    n, blank = lines.n, lines.blank
    j = lines.next_stop(i)
    while j < n:
        if blank[j] or _starts_block(lines, j):
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
    if j == i and _is_caption_of_table(lines, i):
        # A one-line units/caption row glued to a table ("Millones de euros") is
        # part of the table: it says how to read the numbers.
        return (_TABLE, i, _scan_table(lines, i + 1), 0, "", None)
    return (_TEXT, i, j, 0, "", None)


def _starter_block(lines: _Lines, i: int) -> _Block:
    """The block at line i, which opens with a block starter or holds a "|"."""
    c = lines[i]
    if m := _ATX.match(c):
        return _atx_block(c, i, m)
    if _FENCE.match(c):
        return (_TEXT, i, _scan_fence(lines, i), 0, "", None)
    if _is_table_start(lines, i):
        return (_TABLE, i, _scan_table(lines, i), 0, "", None)
    if m := _SUP_NOTE.match(c):
        return (_NOTE, i, _scan_paragraph(lines, i), 0, "", sup_mark(m.group(1)))
    if m := _FOOTNOTE_DEF.match(c):
        return (_NOTE, i, _scan_paragraph(lines, i), 0, "", "^" + m.group(1))
    if _LIST_ITEM.match(c):
        return (_LIST, i, _scan_list(lines, i), 0, "", None)
    return _text_block(lines, i)


def _blocks(lines: _Lines) -> Iterator[_Block]:
    blank, stop_blank, lead, bar = lines.blank, lines.stop_blank, lines.lead, lines.bar
    i, n = 0, lines.n
    while i < n:
        if blank[i]:
            i += 1
            continue
        if lead[i] or bar[i]:
            block = _starter_block(lines, i)
        elif i + 1 < n and stop_blank[i + 1]:
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


def _cite_starts(text: str, defined: _Defined, found: _CiteCandidates) -> list[int]:
    """Offsets, sorted, such that every citation ``_cites`` finds in a block starts at one
    of them (a block is bounded by whitespace, which no citation starts with); so the
    whole text is searched once and only the blocks holding one are read again.

    A superscript run names a defined mark only if it is made of the digits of defined
    marks: the candidates of the line scan (:class:`_CiteCandidates`; ``str.find`` for "⁴"
    is slow, its low byte being that of "t") are kept where their digit is one of those;
    a "Note N" reference is kept where ``_NOTE_REF`` matches at its first letter.
    """
    found_at: list[int] = []
    if defined.sup:
        digits = {d for m in defined.marks if m[:1].isdigit() for d in m}
        sups = np.array(sorted(map(ord, "".join(digits).translate(_DIGIT_TO_SUP))), np.uint32)
        found_at += found.sups[np.isin(found.sup_codes, sups)].tolist()
    if defined.footnote:
        found_at += found.footnotes.tolist()
    if defined.nota:  # "Not", "not" or "NOT" (any case here; the regex is exact)
        match = _NOTE_REF.match
        found_at += [p for p in _nots(text) if match(text, p)]
    found_at.sort()
    return found_at


_OPEN_BRACKET, _CARET, _LOWER_N, _LOWER_O, _LOWER_T = map(ord, "[^not")
_SUP_CODES = np.array(sorted(map(ord, SUPERSCRIPT_DIGITS)), dtype=np.uint32)
_LOWEST_SUP = int(_SUP_CODES[0])


def _nots(text: str) -> list[int]:
    """Offsets of "not" in any case, a window at a time (read only where a document
    defines "Note N" notes)."""
    found: list[int] = []
    for off, codes in _windows(text):
        before = 1 if off else 0
        at = _followed_by(codes | 0x20, before, _LOWER_N, (_LOWER_O, _LOWER_T))
        found += (at + off).tolist()
    return found


def _followed_by(codes: np.ndarray, before: int, first: int, then: tuple[int, ...]) -> np.ndarray:
    """Offsets (from ``codes[before]``, below ``before + _WINDOW``) where the code
    ``first`` is followed by the codes ``then``."""
    tail = len(then)
    stop = min(before + _WINDOW, len(codes) - tail)
    at = np.flatnonzero(codes[before:stop] == first) + before
    for k, code in enumerate(then, 1):
        at = at[codes[at + k] == code]
    return at - before


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
    starts, ends = lines.starts, lines.ends
    for kind, first, last, level, heading, mark in _blocks(lines):
        # Where the first line's content starts and the last line's ends (see _Lines).
        start, end = starts[first], ends[last]
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


def _with_cites(text: str, parsed: _Parsed, found: _CiteCandidates) -> tuple[Element, ...]:
    """The elements, each that cites a note the document defines given its ``cites``."""
    elements = parsed.elements
    defined = _Defined.of({e.mark for e in elements if e.mark is not None})
    starts = _cite_starts(text, defined, found)
    for k in sorted(_citing(parsed.starts, parsed.ends, starts)):
        e = elements[k]
        if e.kind is _HEADING:
            continue
        cites = _cites(text[e.start : e.end], defined, e.mark)
        if cites:
            elements[k] = new_element(e.kind, e.start, e.end, e.level, e.section, cites, e.mark)
    return tuple(elements)


@collector_paused
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
    parsed = _first_pass(text, lines)
    if title is None:
        title = parsed.first_heading or doc_id
    return Document(
        id=doc_id,
        text=text,
        title=title,
        metadata=dict(metadata or {}),
        elements=_with_cites(text, parsed, lines.cites),
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
