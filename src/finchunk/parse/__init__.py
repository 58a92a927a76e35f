"""Parsers: each turns a file into a :class:`finchunk.model.Document` with elements.

``load(path)`` picks the parser by file type: Markdown (``.md``, ``.markdown``, plain
``.txt``), SEC HTML / inline XBRL (``.htm``, ``.html``, SGML submissions and HTML pages
named ``.txt``, sniffed from their first bytes), PDF, Word (``.docx``), Excel (``.xlsx``,
``.xlsm``).
"""

from __future__ import annotations

from pathlib import Path

from finchunk.errors import ParseError
from finchunk.extras import import_extra
from finchunk.model import Document

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown"})
HTML_SUFFIXES = frozenset({".htm", ".html", ".xhtml"})
PDF_SUFFIXES = frozenset({".pdf"})
DOCX_SUFFIXES = frozenset({".docx"})
XLSX_SUFFIXES = frozenset({".xlsx", ".xlsm"})
SUPPORTED_SUFFIXES = (
    MARKDOWN_SUFFIXES | HTML_SUFFIXES | PDF_SUFFIXES | DOCX_SUFFIXES | XLSX_SUFFIXES | {".txt"}
)
#: The formats read, for messages about the files that are not.
SUPPORTED_FORMATS = "Markdown, HTML, text or SEC SGML .txt, PDF, Word .docx, Excel .xlsx"


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            return fh.read(4096).lstrip()
    except OSError as exc:
        raise ParseError(str(path), f"cannot read file: {exc.strerror or exc}") from exc


def _is_markup(path: Path) -> bool:
    """A ``.txt`` file that is an SGML submission or an HTML page (sniffed, not named)."""
    head = _head(path)
    # Full submissions may open with a PEM envelope before <SEC-DOCUMENT>.
    markers = (b"<SEC-DOCUMENT>", b"<SEC-HEADER>", b"<IMS-DOCUMENT>", b"<IMS-HEADER>")
    if any(m in head for m in markers) or (b"<DOCUMENT>" in head and b"<TYPE>" in head):
        return True
    lead = head.removeprefix(b"\xef\xbb\xbf").lstrip()[:1024].lower()
    return lead.startswith((b"<!doctype html", b"<html")) or (
        lead.startswith((b"<?xml", b"<!--")) and b"<html" in lead
    )


def load(path: str | Path, doc_id: str | None = None) -> Document:
    """Parse one file with the parser its type calls for."""
    p = Path(path)
    if not p.is_file():
        raise ParseError(str(p), "no such file")
    suffix = p.suffix.lower()
    if suffix in MARKDOWN_SUFFIXES or (suffix == ".txt" and not _is_markup(p)):
        from finchunk.parse.markdown import parse_markdown_file

        return parse_markdown_file(p, doc_id)
    if suffix in HTML_SUFFIXES or suffix == ".txt":
        import_extra("selectolax", "html", "reading HTML", p)
        from finchunk.parse.html import parse_html_file

        return parse_html_file(p, doc_id)
    if suffix in PDF_SUFFIXES:
        import_extra("pypdfium2", "pdf", "reading PDF", p)
        from finchunk.parse.pdf import parse_pdf_file

        return parse_pdf_file(p, doc_id)
    if suffix in DOCX_SUFFIXES:
        import_extra("docx", "office", "reading Word .docx", p)
        from finchunk.parse.word import parse_docx_file

        return parse_docx_file(p, doc_id)
    if suffix in XLSX_SUFFIXES:
        import_extra("openpyxl", "office", "reading Excel .xlsx", p)
        from finchunk.parse.excel import parse_xlsx_file

        return parse_xlsx_file(p, doc_id)
    raise ParseError(
        str(p),
        f"unsupported file type {suffix or '(none)'}; expected one of "
        + ", ".join(sorted(SUPPORTED_SUFFIXES)),
    )
