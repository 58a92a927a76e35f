"""Walk a Lexbor DOM into raw blocks: paragraphs with inline style facts, tables, pages.

The walker knows HTML, not SEC conventions: it turns block-level elements into
:class:`Para` blocks (whitespace-normalised text, share of bold characters, superscript
marks), keeps each ``<table>`` as a :class:`RawTable` of cells (each cell its own list of
paragraphs) and counts pages from ``page-break-*`` styles and ``<!-- PAGEBREAK -->``
comments. Hidden content (``display:none``, ``ix:header``, scripts) is never visited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from selectolax.lexbor import LexborNode

from finchunk.parse.html_raw import Anchor, Block, Cell, Para, RawTable
from finchunk.parse.sec_patterns import SUP_MARK_RE
from finchunk.parse.sec_sgml import plain_text_blocks

#: Elements whose start and end end the current paragraph.
BLOCK_TAGS = frozenset(
    {
        "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "dl", "dt", "dd",
        "br", "hr", "center", "blockquote", "section", "article", "header", "footer", "nav",
        "main", "aside", "address", "figure", "figcaption", "caption", "tr", "td", "th",
        "tbody", "thead", "tfoot", "form", "fieldset", "body", "html", "page",
    }
)  # fmt: skip
#: Elements never rendered (inline XBRL header, scripts, head content).
SKIP_TAGS = frozenset(
    {
        "head", "title", "script", "style", "noscript", "template", "ix:header", "ix:hidden",
        "ix:references", "ix:resources", "meta", "link", "object", "iframe", "svg", "img",
        "button", "select", "option", "textarea", "xml", "map",
    }
)  # fmt: skip
_HEAD_TAGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
#: Deeper than this, a subtree is taken as plain text (1990s markup can nest thousands of
#: unclosed ``<FONT>`` tags; Python recursion must not follow it).
MAX_DEPTH = 200
_DISPLAY_NONE = re.compile(r"display\s*:\s*none")
_BREAK_BEFORE = re.compile(r"(?:page-)?break-before\s*:\s*(?:always|page|left|right)")
_BREAK_AFTER = re.compile(r"(?:page-)?break-after\s*:\s*(?:always|page|left|right)")
_WEIGHT = re.compile(r"font-weight\s*:\s*([a-z0-9]+)")
_BOLD_WEIGHTS = frozenset({"bold", "bolder", "600", "700", "800", "900"})
_SUPER = re.compile(r"vertical-align\s*:\s*(?:super|top|text-top)")

BOLD = 1
LINK = 2
_GAP = re.compile(r"(?:padding|margin)-left\s*:\s*0*[1-9]")
_HIDDEN, _BREAK_BEFORE_F, _BREAK_AFTER_F, _WEIGHT_SET, _WEIGHT_BOLD, _SUPER_F, _GAP_F = (
    1, 2, 4, 8, 16, 32, 64
)  # fmt: skip


@lru_cache(maxsize=8192)
def _style_facts(style: str) -> int:
    """What an inline ``style`` changes for the reader, as bit flags (filings repeat the
    same few hundred style strings thousands of times: cached)."""
    st = style.lower()
    facts = 0
    if "none" in st and _DISPLAY_NONE.search(st):
        return _HIDDEN
    if "break" in st:
        if _BREAK_BEFORE.search(st):
            facts |= _BREAK_BEFORE_F
        if _BREAK_AFTER.search(st):
            facts |= _BREAK_AFTER_F
    if "font-weight" in st:
        m = _WEIGHT.search(st)
        if m:
            facts |= _WEIGHT_SET | (_WEIGHT_BOLD if m.group(1) in _BOLD_WEIGHTS else 0)
    if "vertical-align" in st and _SUPER.search(st):
        facts |= _SUPER_F
    if "-left" in st and _GAP.search(st):
        facts |= _GAP_F
    return facts


@dataclass(slots=True)
class _Inline:
    """The paragraph being collected."""

    buf: list[str] = field(default_factory=list)
    total: int = 0
    bold: int = 0
    link: int = 0
    marks: list[str] = field(default_factory=list)
    lead_mark: str | None = None
    list_item: bool = False
    htag: int = 0


class Walker:
    """Collects :data:`Block` s from a DOM subtree; ``page`` counts page breaks seen."""

    def __init__(self, targets: frozenset[str] = frozenset()) -> None:
        self.out: list[Block] = []
        self.page = 1
        self._cur = _Inline()
        self._blocks_at_break = 0
        self.hrefs: list[str] = []
        self.targets = targets

    # -- inline content -------------------------------------------------------------
    def add_text(self, s: str, flags: int) -> None:
        cur = self._cur
        cur.buf.append(s)
        n = len(s.strip())
        cur.total += n
        if flags & BOLD:
            cur.bold += n
        if flags & LINK:
            cur.link += n

    def flush(self) -> None:
        cur = self._cur
        if not cur.buf:
            if cur.list_item or cur.htag:
                self._cur = _Inline()
            return
        text = " ".join("".join(cur.buf).replace("\u200b", "").split())
        if text:
            total = max(cur.total, 1)
            self.out.append(
                Para(
                    text=text,
                    bold=min(cur.bold / total, 1.0),
                    page=self.page,
                    lead_mark=cur.lead_mark,
                    marks=tuple(cur.marks),
                    list_item=cur.list_item,
                    htag=cur.htag,
                    linked=min(cur.link / total, 1.0),
                )
            )
        self._cur = _Inline()

    def page_break(self) -> None:
        """A page ends here; empty pages (breaks with nothing between) are not counted."""
        self.flush()
        if len(self.out) > self._blocks_at_break:
            self.page += 1
            self._blocks_at_break = len(self.out)

    # -- tree walk --------------------------------------------------------------------
    def walk(self, node: LexborNode, flags: int = 0, depth: int = 0) -> None:
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                s = child.text_content
                if s:
                    self.add_text(s, flags)
            elif tag == "-comment":
                content = child.comment_content or ""
                if "PAGEBREAK" in content.upper():
                    self.page_break()
            elif tag is not None and tag not in SKIP_TAGS:  # None: a processing instruction
                self._element(child, tag, flags, depth)

    def _element(self, node: LexborNode, tag: str, flags: int, depth: int) -> None:
        style = node.attrs.get("style")
        after = False
        sup = tag == "sup"
        if style:
            facts = _style_facts(style)
            if facts & _HIDDEN:
                return
            if facts & _BREAK_BEFORE_F:
                self.page_break()
            after = bool(facts & _BREAK_AFTER_F)
            if facts & _WEIGHT_SET:
                flags = flags | BOLD if facts & _WEIGHT_BOLD else flags & ~BOLD
            sup = sup or bool(facts & _SUPER_F)
            if facts & _GAP_F and tag not in BLOCK_TAGS:
                self.add_text(" ", 0)  # an indented inline run reads as a separate word
        if self.targets:
            self._anchor(node, tag)
        if tag == "b" or tag == "strong" or tag == "th":
            flags |= BOLD
        elif tag == "a":
            href = node.attrs.get("href")
            if href and href.startswith("#"):
                flags |= LINK
                self.hrefs.append(href[1:])
        if sup and self._mark(node):
            pass
        elif tag == "table":
            self._table(node, flags, depth)
        elif tag == "pre":
            self._pre(node)
        elif tag in BLOCK_TAGS:
            self.flush()
            if tag == "li":
                self._cur.list_item = True
            elif tag in _HEAD_TAGS:
                self._cur.htag = _HEAD_TAGS[tag]
            self._descend(node, flags, depth)
            self.flush()
        else:
            self._descend(node, flags, depth)
        if after:
            self.page_break()

    def _anchor(self, node: LexborNode, tag: str) -> None:
        ident = node.attrs.get("id")
        if not ident and tag == "a":
            ident = node.attrs.get("name")
        if ident and ident in self.targets:
            self.flush()
            self.out.append(Anchor(id=ident, page=self.page))

    def _descend(self, node: LexborNode, flags: int, depth: int) -> None:
        if depth < MAX_DEPTH:
            self.walk(node, flags, depth + 1)
        else:
            text = node.text(deep=True, separator=" ")
            if text:
                self.add_text(text, flags)

    def _mark(self, node: LexborNode) -> bool:
        """A superscript footnote mark: rendered ``(m)``; True when ``node`` was one."""
        s = "".join(node.text(deep=True).split())
        m = SUP_MARK_RE.fullmatch(s)
        if not m:
            return False
        mark = m.group(1)
        cur = self._cur
        if not "".join(cur.buf).strip():
            cur.lead_mark = mark
            self.add_text(f"({mark}) ", 0)
        else:
            cur.marks.append(mark)
            self.add_text(f"({mark})", 0)
        return True

    def _pre(self, node: LexborNode) -> None:
        self.flush()
        blocks, self.page = plain_text_blocks(node.text(deep=True), self.page)
        self.out.extend(blocks)
        self._blocks_at_break = min(self._blocks_at_break, len(self.out))

    # -- tables -----------------------------------------------------------------------
    def _table(self, node: LexborNode, flags: int, depth: int) -> None:
        self.flush()
        if depth >= MAX_DEPTH or len(node.css("table")) > 1:
            # A table holding tables is page layout: its cells are read as blocks.
            self._descend(node, flags, depth)
            self.flush()
            return
        page = self.page
        rows: list[list[Cell]] = []
        for tr in node.css("tr"):
            cells = [self._cell(td, flags, depth) for td in tr.iter() if td.tag in ("td", "th")]
            cells = [c for c in cells if c is not None]
            if cells:
                rows.append(cells)
        if rows:
            self.out.append(RawTable(rows=rows, page=page))
        if self._blocks_at_break > len(self.out):
            self._blocks_at_break = len(self.out)

    def _cell(self, td: LexborNode, flags: int, depth: int) -> Cell | None:
        style = td.attrs.get("style")
        if style and "none" in style and _DISPLAY_NONE.search(style.lower()):
            return None
        colspan = _span(td.attrs.get("colspan"))
        if td.child is None or not td.text(deep=True).strip():
            return Cell(paras=[], colspan=colspan)  # a spacer cell: nothing to walk
        saved, links = self.out, len(self.hrefs)
        self.out = []
        self._element_in_cell(td, flags, depth)
        paras = [b for b in self.out if isinstance(b, Para)]
        self.out = saved
        href = self.hrefs[links] if len(self.hrefs) > links else None
        return Cell(paras=paras, colspan=colspan, href=href)

    def _element_in_cell(self, td: LexborNode, flags: int, depth: int) -> None:
        self.flush()
        # A page break inside a cell would count the cell's paragraphs, not the page:
        # pin the break baseline so the cell's own blocks never open a new page.
        at_break = self._blocks_at_break
        self._blocks_at_break = 0
        self._element(td, td.tag, flags, depth + 1)
        self.flush()
        self._blocks_at_break = at_break


def _span(value: str | None) -> int:
    if not value:
        return 1
    digits = "".join(ch for ch in value if ch.isdecimal())  # int() refuses "²"
    return min(max(int(digits), 1), 1000) if digits else 1
