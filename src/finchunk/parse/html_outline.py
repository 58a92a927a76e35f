"""What each readable block is: Part/Item/sub-heading, note, list, table or text.

SEC filings almost never use ``<h1>``-``<h6>``: a heading is a short, mostly bold block.
"PART II" is level 1, "Item 7." level 2, other bold lines level 3 (level 4 inside a
"Note N" of the financial statements). An "Item 7." block with its title in the next
block is merged into one heading. Notes are the "(1) ..." lines right under a data table
and any block opening with a superscript mark; tables and sentences cite them.
"""

from __future__ import annotations

import re

from finchunk.model import ElementKind
from finchunk.parse.html_blocks import DataTable, Item, bullet_text, is_glyph_bullet
from finchunk.parse.html_raw import Para
from finchunk.parse.html_write import Out
from finchunk.parse.sec_patterns import (
    GLUED_MARK_RE,
    ITEM_RE,
    NOTE_RE,
    PART_RE,
    SUB_ITEM_RE,
    TRAILING_PAGE_RE,
)

_NOTE_HEAD = re.compile(r"^(?:Note\s+\d{1,2}\b|\d{1,2}\.\s+[A-Z])", re.I)
#: Standard one-word answers of a 10-K item, bold but never a heading.
_ANSWERS = frozenset({"none", "not applicable", "n/a", "omitted", "reserved", "[reserved]"})
_NO_HEAD_START = tuple("($•●◦▪■·-–—*†‡§[\"“'☐☒☑")
_NOTE_ZONE_MAX = 40


def outline(items: list[Item]) -> list[Out]:
    """Classify the readable blocks, in order, into elements to write."""
    items = _merge_split_headings(items)
    outs: list[Out] = []
    in_note = False
    note_zone = False
    pending_list: list[Para] = []
    for it in items:
        if isinstance(it, DataTable):
            _flush_list(pending_list, outs)
            outs.append(Out(ElementKind.TABLE, "\n".join(it.lines), it.page, marks=it.marks))
            note_zone = True
            continue
        mark = _note_mark(it, note_zone)
        note_zone = note_zone and mark is not None
        if mark is not None:
            _flush_list(pending_list, outs)
            text = GLUED_MARK_RE.sub(r"\1 ", it.text, count=1)  # "(1)Includes" -> "(1) Includes"
            outs.append(Out(ElementKind.NOTE, text, it.page, mark=mark, marks=it.marks))
            continue
        level = heading_level(it)
        if level:
            _flush_list(pending_list, outs)
            if level <= 2:
                in_note = False
            elif _NOTE_HEAD.match(it.text):
                in_note = True
            elif in_note:
                level = 3 if it.text.isupper() else 4
                in_note = level == 4
            outs.append(Out(ElementKind.HEADING, it.text, it.page, level=level))
        elif it.list_item or is_glyph_bullet(it.text):
            pending_list.append(it)
        else:
            _flush_list(pending_list, outs)
            outs.append(
                Out(ElementKind.TEXT, it.text, it.page, marks=it.marks, page_breaks=it.page_breaks)
            )
    _flush_list(pending_list, outs)
    return outs


def _flush_list(pending: list[Para], outs: list[Out]) -> None:
    if pending:
        text = "\n".join(bullet_text(p) for p in pending)
        marks = tuple(m for p in pending for m in p.marks)
        outs.append(Out(ElementKind.LIST, text, pending[0].page, marks=marks))
        pending.clear()


def _note_mark(p: Para, note_zone: bool) -> str | None:
    if p.lead_mark is not None:
        return p.lead_mark
    if note_zone:
        m = NOTE_RE.match(p.text)
        if m:
            return m.group(1).strip("()")
    return None


def heading_level(p: Para) -> int:
    """1 for a Part, 2 for an Item, 3 for another heading, 0 for none."""
    text = p.text
    if len(text) > 200 or p.lead_mark is not None:
        return 0
    strong = p.bold >= 0.5 or p.htag > 0 or _is_upper(text)
    m = PART_RE.match(text)
    if m and len(text) <= 100 and _title_ok(m.group(2)) and (strong or len(text) <= 60):
        return 1
    m = ITEM_RE.match(text)
    if m and _title_ok(m.group(2)) and not TRAILING_PAGE_RE.search(text):
        rest = m.group(2)
        if strong or not rest or (len(text) <= 120 and not text.endswith(".")):
            return 2
    if _is_subheading(p):
        return 3
    return 0


def _title_ok(rest: str) -> bool:
    """The words after "Item 7." read as a title, not as a sentence going on."""
    # "Item 9A(T). Controls" is a title; "Item 14(a)(1):" is a sub-item reference.
    stripped = SUB_ITEM_RE.sub("", rest)
    if stripped != rest:
        stripped = stripped.lstrip(" .:-–—")
        return bool(stripped) and stripped[0].isupper()
    return not rest or not (rest[0].islower() or rest[0].isdigit() or rest[0] == "(")


def _is_upper(text: str) -> bool:
    return text.isupper() and sum(ch.isalpha() for ch in text) >= 4


def _is_subheading(p: Para) -> bool:
    text = p.text
    if not (p.bold >= 0.8 or p.htag) or p.linked >= 0.9:
        return False
    if len(text) < 3 or len(text) > 150 or len(text.split()) > 20:
        return False
    if text[-1] in ".,;:" or text.startswith(_NO_HEAD_START) or text[0].islower():
        return False
    if "___" in text or text.lower() in _ANSWERS:
        return False
    return sum(ch.isalpha() for ch in text) >= 3


def _merge_split_headings(items: list[Item]) -> list[Item]:
    """Join "Item 7." / "PART II" written alone with the title block that follows."""
    out: list[Item] = []
    i = 0
    n = len(items)
    while i < n:
        it = items[i]
        nxt = items[i + 1] if i + 1 < n else None
        if isinstance(it, Para) and isinstance(nxt, Para) and _joins(it, nxt):
            joiner = " — " if PART_RE.match(it.text) else " "
            out.append(
                Para(
                    text=f"{it.text}{joiner}{nxt.text}",
                    bold=max(it.bold, nxt.bold),
                    page=it.page,
                    htag=max(it.htag, nxt.htag),
                )
            )
            i += 2
            continue
        out.append(it)
        i += 1
    return out


def _joins(head: Para, title: Para) -> bool:  # noqa: C901
    m = ITEM_RE.match(head.text) or PART_RE.match(head.text)
    if m is None or m.group(2) or len(head.text) > 20 or not heading_level(head):
        return False
    t = title.text
    if len(t) > 150 or PART_RE.match(t) or ITEM_RE.match(t) or title.lead_mark is not None:
        return False
    if t[-1] in ".,;:" or t[0].islower() or not any(ch.isalpha() for ch in t):
        return False
    if PART_RE.match(head.text):
        return _is_upper(t)
    return title.bold >= 0.5 or title.htag > 0 or _is_upper(t) or head.bold < 0.5
