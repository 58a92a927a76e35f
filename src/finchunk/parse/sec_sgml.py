"""EDGAR SGML submissions (``.txt``): the header, the main document, and plain-text bodies.

A full submission wraps an ``<SEC-HEADER>`` (company name, CIK, form type, period) and
one ``<DOCUMENT>`` per file; the main document's ``<TEXT>`` is HTML (from 2001 on) or
plain text laid out in fixed-width columns, with ``<PAGE>`` between pages and
``<TABLE>``/``<S>``/``<C>`` marking tables and their column starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from finchunk.parse.html_raw import Block, Cell, Para, RawTable
from finchunk.parse.sec_patterns import heading_key

_SGML_START = re.compile(r"<(?:SEC-DOCUMENT|SEC-HEADER|IMS-HEADER|DOCUMENT)>", re.I)
# The header is found with one search for each opening tag and one for its close: a lazy
# "<SEC-HEADER>(.*?)</SEC-HEADER>" retried at each of many unclosed openings is quadratic.
_HEADER_OPEN = {name: re.compile(f"<{name}>", re.I) for name in ("SEC-HEADER", "IMS-HEADER")}
_HEADER_CLOSE = {name: re.compile(f"</{name}>", re.I) for name in _HEADER_OPEN}
_HEADER_LINE = re.compile(r"^[ \t]*([A-Z][A-Z0-9 ()\-/]*?):[ \t]*(\S[^\n]*)", re.M)
_DOCUMENT = re.compile(r"<DOCUMENT>(.*?)(?:</DOCUMENT>|\Z)", re.S | re.I)
_TYPE = re.compile(r"<TYPE>\s*([^\s<][^\n<]*)", re.I)
_TEXT = re.compile(r"<TEXT>(.*?)(?:</TEXT>|\Z)", re.S | re.I)
_HTML_HINT = re.compile(r"<(?:html|body|div|p|font|br|tr|td)\b", re.I)


@dataclass(slots=True)
class Submission:
    header: dict[str, str] = field(default_factory=dict)
    body: str = ""
    is_html: bool = False


def is_sgml(text: str) -> bool:
    """True for a full EDGAR submission (``<SEC-DOCUMENT>``/``<DOCUMENT>`` near the top)."""
    return _SGML_START.search(text[:20000]) is not None and "<TEXT>" in text.upper()[:200000]


def split_submission(text: str) -> Submission:
    """The header fields and the main document's ``<TEXT>``.

    The main document is the first ``<DOCUMENT>`` whose ``<TYPE>`` is the submission's
    form type, else the first document.
    """
    header: dict[str, str] = {}
    block = _header_block(text)
    if block is not None:
        for key, value in _HEADER_LINE.findall(block):
            header.setdefault(key.strip().upper(), value.rstrip())
    form = header.get("CONFORMED SUBMISSION TYPE", "").upper()
    docs = [d.group(1) for d in _DOCUMENT.finditer(text)]
    main = docs[0] if docs else text
    for d in docs:
        t = _TYPE.search(d)
        if t and form and t.group(1).strip().upper() == form:
            main = d
            break
    t = _TEXT.search(main)
    body = t.group(1) if t else main
    return Submission(header=header, body=body, is_html=_HTML_HINT.search(body[:20000]) is not None)


def _header_block(text: str) -> str | None:
    """The text inside the first ``<SEC-HEADER>`` (or ``<IMS-HEADER>``) that is closed."""
    found: list[tuple[int, str]] = []
    for name, opening in _HEADER_OPEN.items():
        m = opening.search(text)
        if m is None:
            continue
        close = _HEADER_CLOSE[name].search(text, m.end())
        if close is not None:
            found.append((m.start(), text[m.end() : close.start()]))
    return min(found)[1] if found else None


# -- plain text ---------------------------------------------------------------------------
_RULE = re.compile(r"^[\s\-=_*.]*$")
_TAG_LINE = re.compile(r"^\s*</?(?:CAPTION|S|C|FN|TABLE|PAGE)>\s*$", re.I)
_COLS = re.compile(r"\S+(?: \S+)*")


def plain_text_blocks(text: str, page: int = 1) -> tuple[list[Block], int]:
    """Blocks of a fixed-width text body; returns them and the page count reached."""
    out: list[Block] = []
    group: list[str] = []
    table: list[str] | None = None
    at_break = 0

    def flush() -> None:
        if group:
            out.extend(_prose(group, page))
            group.clear()

    for raw in text.splitlines():
        line = raw.rstrip()
        tag = line.strip().upper()
        if table is not None:
            if tag == "</TABLE>":
                out.append(_table(table, page))
                table = None
            else:
                table.append(line)
            continue
        if tag == "<PAGE>":
            flush()
            if len(out) > at_break:
                page += 1
                at_break = len(out)
        elif tag == "<TABLE>":
            flush()
            table = []
        elif not line.strip() or _RULE.match(line) or _TAG_LINE.match(line):
            flush()
        else:
            group.append(line)
    if table is not None:
        out.append(_table(table, page))
    flush()
    return [b for b in out if not isinstance(b, RawTable) or b.rows], page


def _prose(lines: list[str], page: int) -> list[Para]:
    """A group of lines: heading lines (Part/Item, short upper-case) and a paragraph.

    Each leading Part/Item line is a heading of its own, unless the group is at most three
    upper-case lines (a heading broken over lines). A loop, not recursion: a group of
    thousands of "Item" lines must not exhaust the stack."""
    out: list[Para] = []
    while lines and heading_key(lines[0].strip()) is not None:
        if len(lines) <= 3 and all(ln.strip().upper() == ln.strip() for ln in lines):
            text = " ".join(" ".join(ln.split()) for ln in lines)
            return [*out, Para(text=text, bold=1.0, page=page)]
        out.append(Para(text=" ".join(lines[0].split()), bold=1.0, page=page))
        lines = lines[1:]
    return out + ([_paragraph(lines, page)] if lines else [])


def _paragraph(lines: list[str], page: int) -> Para:
    """Lines of prose as one paragraph (bold when short and in capitals)."""
    text = " ".join(" ".join(ln.split()) for ln in lines)
    short_caps = len(lines) <= 2 and len(text) <= 100 and text.upper() == text
    bold = 1.0 if short_caps and any(ch.isalpha() for ch in text) else 0.0
    return Para(text=text, bold=bold, page=page)


def _table(lines: list[str], page: int) -> RawTable:
    """Fixed-width rows into cells: by the ``<S>``/``<C>`` column starts when given,
    else by runs of two or more spaces."""
    starts: list[int] = []
    for line in lines:
        up = line.upper()
        if "<S>" in up or "<C>" in up:
            starts = [m.start() for m in re.finditer(r"<[SC]>", up)]
            break
    rows: list[list[str]] = []
    for line in lines:
        up = line.upper()
        if "<S>" in up or "<C>" in up:
            continue
        if not line.strip() or _RULE.match(line) or _TAG_LINE.match(line):
            continue
        tokens = [(m.start(), m.end(), m.group(0)) for m in _COLS.finditer(line)]
        rows.append(_place(tokens, starts))
    width = max((len(r) for r in rows), default=0)
    cells = [
        [Cell(paras=[Para(text=t, page=page)] if t else []) for t in _pad(r, width)] for r in rows
    ]
    return RawTable(rows=cells, page=page)


def _place(tokens: list[tuple[int, int, str]], starts: list[int]) -> list[str]:
    if len(starts) >= 2:
        row = [""] * len(starts)
        for s, e, t in tokens:
            col = 0
            for i, c in enumerate(starts):
                if c < e:
                    col = i
            if s == 0 or s < starts[1] - 1 and col == 0:
                col = 0
            row[col] = f"{row[col]} {t}" if row[col] else t
        return row
    return [t for _, _, t in tokens]


_NUMERIC = re.compile(r"^[$(\-\d.,%)\s]+$")


def _pad(row: list[str], width: int) -> list[str]:
    """Right-align the values of a short row under the value columns (labels stay left)."""
    missing = width - len(row)
    if missing <= 0:
        return row
    if row and not _NUMERIC.match(row[0]):
        return [row[0], *[""] * missing, *row[1:]]
    return [*[""] * missing, *row]
