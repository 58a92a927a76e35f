"""Word ``.docx`` files → a :class:`~finchunk.model.Document` with elements (python-docx).

The body is read in order, paragraphs and tables alike (content controls opened, tables of
contents left out), and written through :func:`finchunk.parse.html_write.write`, which
records every element's span as it builds ``Document.text``:

* a heading is a paragraph whose outline level (its own, else its style's, following the
  styles it is based on) or style name (``Heading 2``) says so; the ``Title`` style is a
  level-1 heading; headings form the section paths;
* paragraphs are text; consecutive list paragraphs (Word numbering, or a ``List`` style)
  are one list element, a line each (``- item``, ``1. item`` for numbered lists, indented
  by level);
* a table is a Markdown table (merged cells written once, empty rows and columns dropped),
  or its cells' paragraphs when it is only a layout (one row or one column);
* footnotes: the reference is written ``[n]`` where it stands (numbered in order of
  reference, as Word shows them) and the footnote, ``[n] text``, is a note element written
  at the end of the section that cites it, so the chunkers keep it with its paragraph.
  ``word/footnotes.xml`` is read with defusedxml (no DTD entities, no network).

Metadata: ``format`` (``docx``); the title is the core properties' title unless it is empty
or a producer's artefact (``Document1``, a file name), else the first ``Title`` paragraph,
else the document id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import docx
from defusedxml import ElementTree as SafeET
from defusedxml.common import DefusedXmlException
from docx.opc.constants import RELATIONSHIP_TYPE as RT

from finchunk.errors import ParseError
from finchunk.files import os_text
from finchunk.model import Document, ElementKind
from finchunk.parse.html_write import Out, write
from finchunk.parse.office import check_package, clean, one_line, real_title, table_outs

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_P, _TBL, _SDT, _SDT_CONTENT = f"{_W}p", f"{_W}tbl", f"{_W}sdt", f"{_W}sdtContent"
_T, _TAB, _BR, _CR = f"{_W}t", f"{_W}tab", f"{_W}br", f"{_W}cr"
_NB_HYPHEN, _FOOTNOTE_REF = f"{_W}noBreakHyphen", f"{_W}footnoteReference"
_PPR, _PSTYLE, _NUMPR = f"{_W}pPr", f"{_W}pStyle", f"{_W}numPr"
_ILVL, _NUMID = f"{_W}ilvl", f"{_W}numId"
_OUTLINE, _VAL, _ID, _TYPE = f"{_W}outlineLvl", f"{_W}val", f"{_W}id", f"{_W}type"
_TR, _TC, _TCPR = f"{_W}tr", f"{_W}tc", f"{_W}tcPr"
_GRIDSPAN, _VMERGE = f"{_W}gridSpan", f"{_W}vMerge"
_HEADING_NAME = re.compile(r"heading\s*([1-9])", re.I)
_MAX_HEADING = 200  # longer "headings" are paragraphs in a heading style
_MAX_SPAN = 64  # a gridSpan beyond this is damage, not layout


def parse_docx_file(path: str | Path, doc_id: str | None = None) -> Document:
    """Parse a ``.docx`` file into a document with elements (no pages)."""
    p = Path(path)
    check_package(p, "a Word .docx")
    try:
        d = docx.Document(str(p))
    except Exception as exc:  # the library's errors for a damaged package are of many types
        raise ParseError(str(p), f"not a readable Word .docx file ({_why(exc)})") from None
    reader = _Reader(d, _footnotes(d, str(p)))
    reader.body(d.element.body)
    reader.flush_notes()
    outs = reader.outs
    if not outs:
        raise ParseError(str(p), "no text: the document body is empty")
    text, elements, _ = write(outs, paged=False)
    core = d.core_properties
    title = real_title(core.title) or reader.title_paragraph
    ident = doc_id or os_text(p.stem)
    return Document(
        id=ident,
        text=text,
        title=title or ident,
        metadata={"format": "docx"},
        elements=elements,
        source=os_text(p),
    )


def _why(exc: BaseException) -> str:
    words = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {words}" if words else type(exc).__name__


def _footnotes(d: docx.document.Document, source: str) -> dict[str, str]:
    """Footnote id → its text, from ``word/footnotes.xml`` (separators left out)."""
    part = next((r.target_part for r in d.part.rels.values() if r.reltype == RT.FOOTNOTES), None)
    if part is None:
        return {}
    notes: dict[str, str] = {}
    try:
        root = SafeET.fromstring(part.blob, forbid_dtd=True)
        for fn in root.iter(f"{_W}footnote"):
            if fn.get(_TYPE) in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            paras = [one_line(_run_text(p, inline_refs=None)) for p in fn.iter(_P)]
            text = " ".join(t for t in paras if t)
            if text and fn.get(_ID) is not None:
                notes[fn.get(_ID, "")] = text
    except (SafeET.ParseError, DefusedXmlException, ValueError, RecursionError) as exc:
        raise ParseError(source, f"unreadable footnotes part ({_why(exc)})") from None
    return notes


def _run_text(el, inline_refs: list[str] | None) -> str:
    """The text of a paragraph element in reading order: text, tabs and breaks; a footnote
    reference becomes ``[id]`` and its id goes to ``inline_refs`` (when given); deleted
    text, field codes and the fallback copy of drawings are left out."""
    out: list[str] = []

    def walk(node) -> None:
        for child in node:
            tag = child.tag
            if tag == _T:
                out.append(child.text or "")
            elif tag == _TAB:
                out.append("\t")
            elif tag in (_BR, _CR):
                out.append("\n")
            elif tag == _NB_HYPHEN:
                out.append("-")
            elif tag == _FOOTNOTE_REF:
                if inline_refs is not None and child.get(_ID) is not None:
                    inline_refs.append(child.get(_ID, ""))
                    out.append(f"\x00{child.get(_ID)}\x00")  # numbered once the order is known
            elif tag in (_MC_FALLBACK, _TBL):
                continue
            elif isinstance(tag, str):
                walk(child)

    walk(el)
    return "".join(out)


#: A style's name, heading level, whether it is a list style, and its list numbering.
_StyleFacts = tuple[str, int | None, bool, tuple[str, int] | None]


@dataclass
class _Reader:
    doc: docx.document.Document
    footnotes: dict[str, str]
    outs: list[Out] = field(default_factory=list)
    title_paragraph: str = ""
    _numbers: dict[str, int] = field(default_factory=dict)  # footnote id -> its number
    _pending_notes: list[str] = field(default_factory=list)
    _list: list[str] = field(default_factory=list)
    _list_marks: list[str] = field(default_factory=list)
    _counters: dict[tuple[str, int], int] = field(default_factory=dict)
    _styles: dict[str, _StyleFacts] = field(default_factory=dict)
    _by_id: dict[str, object] | None = None
    _formats: dict[tuple[str, int], bool] = field(default_factory=dict)

    # -- blocks ------------------------------------------------------------------------

    def body(self, container) -> None:
        for child in container:
            if child.tag == _P:
                self.paragraph(child)
            elif child.tag == _TBL:
                self.table(child)
            elif child.tag == _SDT:
                content = child.find(_SDT_CONTENT)
                if content is not None:
                    self.body(content)

    def paragraph(self, p) -> None:
        style_id = _child_val(p, _PPR, _PSTYLE)
        name, style_level, style_list, style_num = self._style(style_id)
        if name.lower().startswith("toc"):
            return  # a table of contents repeats the headings
        refs: list[str] = []
        raw = _run_text(p, refs)
        level = _outline_level(p)
        if level is None:
            level = style_level
        if level is not None and refs:
            level = None  # a heading does not cite notes; one that does is a paragraph
        text = self._number_refs(raw, refs)
        if level is not None:
            heading = one_line(text)
            if heading and len(heading) <= _MAX_HEADING:
                self.flush_list()
                self.flush_notes()
                self.outs.append(Out(ElementKind.HEADING, heading, 1, level=level))
                if name.lower() == "title" and not self.title_paragraph:
                    self.title_paragraph = heading
                return
        body = clean(text)
        if not body:
            return
        num = _numbering(p) or (style_num if style_list else None)
        marks = [str(self._numbers[r]) for r in refs if r in self._numbers]
        if num is not None or style_list:
            self._list.append(self._item(body, num))
            self._list_marks += marks
            return
        self.flush_list()
        self.outs.append(Out(ElementKind.TEXT, body, 1, marks=tuple(dict.fromkeys(marks))))

    def table(self, tbl) -> None:
        self.flush_list()
        grid: list[list[str]] = []
        for tr in tbl.iter(_TR):
            if _ancestor_table(tr) is not tbl:
                continue  # a nested table's row: its text is read with its cell
            row: list[str] = []
            for tc in tr.findall(_TC):
                span = _int(_child_val(tc, _TCPR, _GRIDSPAN), 1)
                merged = tc.find(f"{_TCPR}/{_VMERGE}")
                refs: list[str] = []
                texts = [self._number_refs(_run_text(p, refs), refs) for p in tc.iter(_P)]
                text = " ".join(t for t in (one_line(x) for x in texts) if t)
                if merged is not None and merged.get(_VAL) != "restart":
                    text = ""  # continues the cell above: written once
                row += [text] + [""] * (min(span, _MAX_SPAN) - 1)
            grid.append(row)
        self.outs += table_outs(grid)

    # -- lists and notes ---------------------------------------------------------------

    def _item(self, text: str, num: tuple[str, int] | None) -> str:
        num_id, ilvl = num if num is not None else ("", 0)
        indent = "  " * min(ilvl, 8)
        line = text.replace("\n", " ")
        if num is not None and self._numbered(num_id, ilvl):
            key = (num_id, ilvl)
            self._counters[key] = self._counters.get(key, 0) + 1
            for k in [k for k in self._counters if k[0] == num_id and k[1] > ilvl]:
                del self._counters[k]  # a deeper level restarts under a new parent item
            return f"{indent}{self._counters[key]}. {line}"
        return f"{indent}- {line}"

    def flush_list(self) -> None:
        if self._list:
            marks = tuple(dict.fromkeys(self._list_marks))
            self.outs.append(Out(ElementKind.LIST, "\n".join(self._list), 1, marks=marks))
            self._list, self._list_marks = [], []

    def flush_notes(self) -> None:
        self.flush_list()
        for ref in self._pending_notes:
            n = str(self._numbers[ref])
            self.outs.append(Out(ElementKind.NOTE, f"[{n}] {self.footnotes[ref]}", 1, mark=n))
        self._pending_notes = []

    def _number_refs(self, raw: str, refs: list[str]) -> str:
        """``raw`` with each footnote reference as ``[n]`` (unknown ids dropped)."""
        if not refs:
            return raw
        for r in refs:
            if r in self.footnotes and r not in self._numbers:
                self._numbers[r] = len(self._numbers) + 1
                self._pending_notes.append(r)

        def number(m: re.Match[str]) -> str:
            n = self._numbers.get(m.group(1))
            return f"[{n}]" if n is not None else ""

        return re.sub(r"\x00([^\x00]*)\x00", number, raw)

    # -- styles and numbering ----------------------------------------------------------

    def _style(self, style_id: str | None) -> _StyleFacts:
        """Name, heading level, whether a list style, and the numbering a paragraph of
        ``style_id`` has from its style (following ``basedOn``)."""
        key = style_id or ""
        if key in self._styles:
            return self._styles[key]
        name, level, is_list, num = "", None, False, None
        if self._by_id is None:
            self._by_id = {s.style_id: s for s in self.doc.styles}
        style = self._by_id.get(style_id) if style_id else None
        seen = 0
        while style is not None and seen < 16:  # a basedOn cycle is damage: stop
            el = style.element
            name = name or (style.name or "")
            if level is None:
                level = _outline_level(el)
            if num is None:
                num = _numbering(el)
            style = style.base_style
            seen += 1
        if level is None:
            m = _HEADING_NAME.fullmatch(name.strip())
            level = int(m.group(1)) if m else (1 if name.strip().lower() == "title" else None)
        is_list = name.lower().startswith("list") and "table" not in name.lower()
        found = (name, level, is_list or num is not None, num)
        self._styles[key] = found
        return found

    def _numbered(self, num_id: str, ilvl: int) -> bool:
        """Whether list ``num_id`` at level ``ilvl`` counts (decimal, letters, roman)
        rather than showing a bullet."""
        key = (num_id, ilvl)
        if key not in self._formats:
            self._formats[key] = self._find_numbered(num_id, ilvl)
        return self._formats[key]

    def _find_numbered(self, num_id: str, ilvl: int) -> bool:
        rels = self.doc.part.rels.values()  # read, never created (python-docx would add one)
        part = next((r.target_part for r in rels if r.reltype == RT.NUMBERING), None)
        numbering = getattr(part, "element", None)
        if numbering is None:  # no numbering definitions: every list shows bullets
            return False
        for num in numbering.iter(f"{_W}num"):
            if num.get(f"{_W}numId") != num_id:
                continue
            abstract = _child_val(num, f"{_W}abstractNumId")
            for an in numbering.iter(f"{_W}abstractNum"):
                if an.get(f"{_W}abstractNumId") != abstract:
                    continue
                for lvl in an.iter(f"{_W}lvl"):
                    if lvl.get(f"{_W}ilvl") == str(ilvl):
                        fmt = _child_val(lvl, f"{_W}numFmt")
                        return fmt not in (None, "bullet", "none")
        return False


def _child_val(el, *path: str) -> str | None:
    node = el
    for tag in path:
        node = node.find(tag)
        if node is None:
            return None
    return node.get(_VAL)


def _int(value: str | None, default: int) -> int:
    try:
        return max(int(value), 1) if value is not None else default
    except ValueError:
        return default


def _outline_level(el) -> int | None:
    """1-based heading level from ``w:outlineLvl`` (0-8; 9 is body text), else None."""
    val = _child_val(el, _PPR, _OUTLINE)
    if val is None or not val.isdigit():
        return None
    n = int(val)
    return n + 1 if n < 9 else None


def _numbering(el) -> tuple[str, int] | None:
    """``(numId, ilvl)`` of a paragraph or style in a numbered or bulleted list."""
    numpr = el.find(f"{_PPR}/{_NUMPR}")
    if numpr is None:
        return None
    num_id = _child_val(numpr, _NUMID)
    if num_id is None or num_id == "0":  # numId 0: numbering switched off
        return None
    ilvl = _child_val(numpr, _ILVL)
    return num_id, int(ilvl) if ilvl and ilvl.isdigit() else 0


def _ancestor_table(el) -> object:
    node = el.getparent()
    while node is not None and node.tag != _TBL:
        node = node.getparent()
    return node
