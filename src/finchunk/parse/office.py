"""What the Word (:mod:`finchunk.parse.word`) and Excel (:mod:`finchunk.parse.excel`) readers
share: checking the file before a library opens it, cleaning text, writing a grid of cells
as a Markdown table, and telling a real title from a producer's artefact.

Both formats are ZIP packages of XML parts. Before the library opens one, :func:`check_package`
turns the usual ways a file is not such a package into one :class:`ParseError` naming the
file: an encrypted (password-protected) file, which Office saves as an OLE compound file;
a legacy binary ``.doc``/``.xls`` renamed; a file that is not a ZIP or is cut short; a
package whose parts unpack to more than :data:`MAX_UNPACKED` bytes (a ZIP bomb).
"""

from __future__ import annotations

import re
import unicodedata
import zipfile
from pathlib import Path

from finchunk.errors import ParseError
from finchunk.model import ElementKind
from finchunk.parse.html_table import markdown_rows
from finchunk.parse.html_write import Out

#: The first bytes of an OLE compound file: an encrypted OOXML file or a legacy .doc/.xls.
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: The most the parts of one package may unpack to (a 100-page report is a few MB).
MAX_UNPACKED = 1 << 30

_CONTROL = {c: None for c in (*range(0, 9), *range(11, 32), 0x7F, 0xFFFE, 0xFFFF)}
_CONTROL[9] = " "
_SPACES = re.compile(r"[ \u00a0\u2000-\u200a\u202f\u205f\u3000]+")
#: Titles that name the producer or a default, not the document.
_ARTEFACT_TITLE = re.compile(
    r"(?:microsoft\s+(?:word|excel)\b.*|(?:document|book|sheet|workbook|untitled|presentation)"
    r"\s*\d*|\d{10}-\d{2}-\d{6}|.*\.(?:docx?|xlsx?|xlsm|pdf|html?|txt)|title|none|null|-+)",
    re.I,
)


def check_package(path: Path, label: str) -> None:
    """Raise :class:`ParseError` naming ``path`` unless it is a readable ZIP package.

    ``label`` names the format in messages, with its article (``a Word .docx``)."""
    source = str(path)
    try:
        with path.open("rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        raise ParseError(source, f"cannot read file: {exc.strerror or exc}") from None
    if head == OLE_MAGIC:
        raise ParseError(
            source,
            f"not {label} package: a password-protected (encrypted) file, or a legacy "
            f"binary Office file (.doc/.xls) given a new name; save it unprotected as {label}",
        )
    if not head:
        raise ParseError(source, "an empty file")
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        why = f"not {label} package (not a readable ZIP file: {exc})"
        raise ParseError(source, why) from None
    unpacked = sum(i.file_size for i in infos)
    if unpacked > MAX_UNPACKED:
        raise ParseError(
            source, f"its parts unpack to {unpacked:,} bytes (over {MAX_UNPACKED:,}): refused"
        )


def clean(text: str) -> str:
    """A run of document text as it goes into ``Document.text``: control characters out,
    runs of spaces as one, each line trimmed, empty lines dropped."""
    text = text.translate(_CONTROL)
    lines = (_SPACES.sub(" ", ln).strip() for ln in text.split("\n"))
    return "\n".join(ln for ln in lines if ln)


def one_line(text: str) -> str:
    """``clean`` on one line (a heading, a table cell)."""
    return " ".join(clean(text).split())


def _plain(cell: str) -> bool:
    """Already one clean line (most cells: a word or a number), so cleaning is skipped."""
    return cell.isprintable() and "  " not in cell and cell == cell.strip()


def real_title(title: str | None) -> str:
    """The core properties' title, unless it is empty or a producer's artefact."""
    t = one_line(unicodedata.normalize("NFKC", title or ""))
    return "" if not t or _ARTEFACT_TITLE.fullmatch(t) else t


def table_outs(grid: list[list[str]], page: int = 1) -> list[Out]:
    """A grid of cell texts as elements: empty rows and columns dropped; a Markdown table
    (first row as its header) when two or more rows and columns hold text, else the
    cells' texts as paragraphs (a layout table, a single column of prose)."""
    rows = [[c if _plain(c) else one_line(c) for c in row] for row in grid]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows if any(r)]
    keep = [j for j in range(width) if any(r[j] for r in rows)]
    rows = [[r[j] for j in keep] for r in rows]
    if len(rows) >= 2 and len(keep) >= 2:
        return [Out(ElementKind.TABLE, "\n".join(markdown_rows(rows)), page)]
    return [Out(ElementKind.TEXT, c, page) for r in rows for c in r if c]
