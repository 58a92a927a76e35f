"""SEC filings as documents: 10-K/10-Q HTML, inline XBRL and full SGML submissions.

``parse_html_file(path)`` reads the bytes (UTF-8, else the declared charset, else
Windows-1252), unwraps an SGML submission to its main document, and parses it;
``parse_html(html, doc_id)`` does the same from a string. The result's ``text`` is a
canonical rendering built while walking the tree (headings on their own lines, blocks
separated by blank lines, data tables as Markdown pipe tables, notes as their own blocks)
and every element's span is recorded as the text is written.

Pipeline: :mod:`html_walk` (DOM -> raw blocks, pages) -> :mod:`html_blocks` (tables
resolved, furniture dropped) -> :mod:`html_outline` (headings, notes, lists) ->
:mod:`html_write` (text and spans); metadata from :mod:`html_meta`.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import replace
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from finchunk.errors import ParseError
from finchunk.files import os_text, read_bytes
from finchunk.model import Document
from finchunk.parse.encoding import decode_page, utf16_by_nuls
from finchunk.parse.html_blocks import (
    Item,
    drop_furniture,
    join_split_paragraphs,
    resolve_tables,
)
from finchunk.parse.html_meta import complete, cover_metadata, dei_metadata, header_metadata, title
from finchunk.parse.html_outline import outline
from finchunk.parse.html_raw import Block, Para
from finchunk.parse.html_walk import Walker
from finchunk.parse.html_write import write
from finchunk.parse.sec_sgml import is_sgml, plain_text_blocks, split_submission

__all__ = ["check_nesting", "decode_bytes", "decode_filing", "parse_html", "parse_html_file"]


def parse_html_file(path: str | Path, doc_id: str | None = None) -> Document:
    """Parse an HTML/iXBRL filing or an SGML ``.txt`` submission from disk.

    ``doc_id`` defaults to the file name without its suffix. Raises :class:`ParseError`
    naming the file when it cannot be read, is binary or has no readable text.
    """
    p = Path(path)
    text, warning = decode_filing(read_bytes(p), str(p))
    doc = parse_html(text, doc_id or os_text(p.stem), source=os_text(p))
    if warning is None:
        return doc
    return replace(doc, metadata={**doc.metadata, "warning": warning})


def decode_bytes(data: bytes, source: str) -> str:
    """Text of a filing, decoded as browsers do (:func:`decode_filing`), without the warning."""
    return decode_filing(data, source)[0]


def decode_filing(data: bytes, source: str) -> tuple[str, str | None]:
    """Text of a filing (a BOM, else UTF-16 told by its NULs, else the declared charset,
    else UTF-8, else Windows-1252: :func:`finchunk.parse.encoding.decode_page`) and a
    warning when bytes were replaced or read in another encoding than the declared one.

    Binary data (a NUL byte near the top of a file that is not UTF-16) is an error."""
    utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or utf16_by_nuls(data)
    nul = -1 if utf16 else data.find(b"\x00", 0, 65536)
    if nul >= 0:
        raise ParseError(source, "binary data (NUL byte), not HTML or SGML text", position=nul)
    return decode_page(data)


#: Elements that close an open <p> (HTML's "p in button scope" check walks the stack of open
#: elements at each of them, so N of them left open cost the tree builder N^2 steps).
_BLOCK_TAGS = (
    r"<(/?)(?:div|section|article|aside|blockquote|center|dl|dir|fieldset|figure|footer|"
    r"header|main|menu|nav|ol|ul|pre|form|address|details|h[1-6])[\s/>]"
)
_BLOCK_TAG = re.compile(_BLOCK_TAGS, re.I)
_BLOCK_TAG_BYTES = re.compile(_BLOCK_TAGS.encode(), re.I)
#: Block elements open at once beyond which a page is refused: real filings nest a few dozen.
MAX_BLOCK_DEPTH = 5000


def check_nesting(html: str | bytes, where: str) -> None:
    """ParseError for HTML whose block elements nest past :data:`MAX_BLOCK_DEPTH` (an upper
    bound: open tags minus close tags), which the tree builder takes quadratic time on."""
    depth = 0
    tags = _BLOCK_TAG_BYTES.finditer(html) if isinstance(html, bytes) else _BLOCK_TAG.finditer(html)
    for m in tags:
        depth = max(depth - 1, 0) if m.group(1) else depth + 1
        if depth > MAX_BLOCK_DEPTH:
            raise ParseError(
                where,
                f"HTML block elements nested more than {MAX_BLOCK_DEPTH} deep",
                position=m.start(),
            )


def parse_html(html: str, doc_id: str, source: str | None = None) -> Document:
    """Parse filing text (HTML, inline XBRL, or a full SGML submission) into a Document."""
    where = source or doc_id
    meta: dict[str, str] = {}
    if is_sgml(html):
        sub = split_submission(html)
        meta = header_metadata(sub.header)
        if not sub.is_html:
            blocks, last_page = plain_text_blocks(sub.body)
            return _build(blocks, last_page > 1, meta, doc_id, source, where)
        html = sub.body
    check_nesting(html, where)
    try:
        tree = LexborHTMLParser(html)
    except (ValueError, TypeError) as e:
        raise ParseError(where, f"HTML parser failed: {e}") from e
    root = tree.body or tree.root
    if root is None:
        raise ParseError(where, "no document body")
    walker = Walker(targets=_link_targets(tree))
    walker.walk(root)
    walker.flush()
    for key, value in dei_metadata(tree).items():
        meta.setdefault(key, value)
    paged = any(b.page > 1 for b in walker.out)
    return _build(walker.out, paged, meta, doc_id, source, where)


def _build(
    blocks: list[Block],
    paged: bool,
    meta: dict[str, str],
    doc_id: str,
    source: str | None,
    where: str,
) -> Document:
    items: list[Item] = join_split_paragraphs(drop_furniture(resolve_tables(blocks)))
    for key, value in cover_metadata([it for it in items if isinstance(it, Para)]).items():
        meta.setdefault(key, value)
    outs = outline(items)
    text, elements, pages = write(outs, paged)
    if not text.strip():
        raise ParseError(where, "no readable text (empty body)")
    meta = complete(meta)
    return Document(
        id=doc_id,
        text=text,
        title=title(meta, doc_id),
        metadata=meta,
        elements=elements,
        pages=pages,
        source=source,
    )


def _link_targets(tree: LexborHTMLParser) -> frozenset[str]:
    """Ids that internal links (``href="#id"``) point to."""
    out = set()
    for a in tree.css('a[href^="#"]'):
        href = a.attrs.get("href") or ""
        if len(href) > 1:
            out.add(href[1:])
    return frozenset(out)
