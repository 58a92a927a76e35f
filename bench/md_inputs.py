"""Markdown inputs with real structure for the speed benches: filings rendered as Markdown.

``render(doc)`` writes a parsed filing (the HTML or PDF parser's elements) as the Markdown a
converter would give: headings as ``#``/``##``/``###``, tables as GFM pipe tables (a PDF
table's lines become one-cell rows), notes as footnotes (a numeric mark as a superscript,
``¹ text``, any other as ``[^m]: text``) and each citation as the same mark at the end of
the citing block. Furniture (page headers, footers) is left out.

The data stays where it is (../shared/data); nothing here is written to the project.
"""

from __future__ import annotations

import re
from pathlib import Path

from finchunk.model import Document, Element, ElementKind
from finchunk.parse.sec_patterns import SUPERSCRIPT_DIGITS

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
_SUP = str.maketrans("0123456789", SUPERSCRIPT_DIGITS)
_LEAD_MARK = re.compile(r"\(?[0-9A-Za-z*†‡]{1,3}\)?[ \t]+")


def _mark(mark: str) -> str:
    """How a citation of ``mark`` is written: ``¹²`` or ``[^a]``."""
    return mark.translate(_SUP) if mark.isdigit() else f"[^{mark}]"


def _heading(doc: Document, e: Element) -> str:
    text = " ".join(doc.element_text(e).split())
    return "#" * min(max(e.level, 1), 6) + " " + text


def _table(doc: Document, e: Element) -> str:
    lines = [ln for ln in doc.element_text(e).splitlines() if ln.strip()]
    if lines and all(ln.lstrip().startswith("|") for ln in lines):
        rows = lines
    else:
        cells = ["| " + ln.replace("|", "\\|").strip() + " |" for ln in lines]
        rows = cells[:1] + ["| --- |"] + cells[1:]
    if e.cites:
        rows[-1] = rows[-1].rstrip()[:-1].rstrip() + " " + " ".join(map(_mark, e.cites)) + " |"
    return "\n".join(rows)


def _note(doc: Document, e: Element) -> str:
    body = doc.element_text(e)
    lead = _LEAD_MARK.match(body)
    body = body[lead.end() :] if lead else body
    mark = e.mark or ""
    return f"{_mark(mark)} {body}" if mark.isdigit() else f"[^{mark}]: {body}"


def _block(doc: Document, e: Element) -> str:
    if e.kind is ElementKind.HEADING:
        return _heading(doc, e)
    if e.kind is ElementKind.TABLE:
        return _table(doc, e)
    if e.kind is ElementKind.NOTE and e.mark:
        return _note(doc, e)
    text = doc.element_text(e)
    return text + "".join(" " + _mark(m) for m in e.cites) if e.cites else text


def render(doc: Document) -> str:
    """``doc`` as Markdown with its structure (see the module docstring)."""
    return "\n\n".join(_block(doc, e) for e in doc.elements if e.kind is not ElementKind.FURNITURE)


def edgar_10k(edgar: Path) -> list[tuple[str, str]]:
    """(name, Markdown) of every 10-K HTML filing under ``edgar`` (by name)."""
    from finchunk.parse.html import parse_html_file

    out = []
    for path in sorted(edgar.glob("*/*.htm*")):
        doc = parse_html_file(path)
        if doc.metadata.get("form") == "10-K":
            out.append((path.name, render(doc)))
    return out


def financebench_10k(pdfs: Path, count: int = 10) -> list[tuple[str, str]]:
    """(name, Markdown) of the first ``count`` FinanceBench 10-K PDFs (by name)."""
    from finchunk.parse.pdf import parse_pdf_file

    return [(p.name, render(parse_pdf_file(p))) for p in sorted(pdfs.glob("*_10K.pdf"))[:count]]


def pages_markdown(pdfs: Path, target_mb: float) -> str:
    """The old input: each filing a '# name', each page a '## Page n' with its raw text
    (one block per page: it flatters a block scanner)."""
    import pypdfium2 as pdfium

    parts: list[str] = []
    size = 0
    for pdf in sorted(pdfs.glob("*.pdf")):
        doc = pdfium.PdfDocument(str(pdf))
        parts.append(f"# {pdf.stem}\n")
        for i in range(len(doc)):
            page = doc[i].get_textpage().get_text_range().replace("\r\n", "\n")
            block = f"## Page {i + 1}\n\n{page.strip()}\n"
            parts.append(block)
            size += len(block.encode("utf-8"))
        doc.close()
        if size >= target_mb * 1e6:
            break
    return "\n".join(parts)
