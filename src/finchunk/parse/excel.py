"""Excel ``.xlsx`` workbooks → a :class:`~finchunk.model.Document` with elements (openpyxl).

The workbook is opened read-only with the values Excel last computed (``data_only``: a
formula shows its cached result; a file saved by a program that never computed it shows
nothing there). Each worksheet that holds a value becomes a level-1 heading, the sheet's
name, followed by its used range as a Markdown table (the first row as the header; empty
rows and columns dropped; a sheet with a single row or column of values gives paragraphs).
Offsets are recorded as the text is written (:func:`finchunk.parse.html_write.write`).

Numbers read as displayed where the cell's number format says how (:func:`display`):
decimals, thousands separators, percentages, currency symbols, parentheses for negatives;
dates as ISO dates. Chart sheets and hidden sheets' styles are not read; hidden sheets'
values are (a reader may search them).

Metadata: ``format`` (``xlsx``), ``sheets`` (the names of the sheets written); the title
is the core properties' title unless empty or an artefact, else the document id.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from pathlib import Path

import openpyxl

from finchunk.errors import ParseError
from finchunk.files import os_text
from finchunk.model import Document, ElementKind
from finchunk.parse.html_write import Out, write
from finchunk.parse.office import check_package, one_line, real_title, table_outs

#: The most cells read from one sheet (a sheet declaring a million rows of styles).
MAX_CELLS = 5_000_000
_QUOTED = re.compile(r'"([^"]*)"')
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_ESCAPED = re.compile(r"\\(.)")
_PADDING = re.compile(r"[_*].")


def parse_xlsx_file(path: str | Path, doc_id: str | None = None) -> Document:
    """Parse an ``.xlsx`` workbook into a document: a section and a table per sheet."""
    p = Path(path)
    check_package(p, "an Excel .xlsx")
    try:
        wb = openpyxl.load_workbook(str(p), read_only=True, data_only=True)
    except Exception as exc:  # the library's errors for a damaged package are of many types
        raise ParseError(str(p), f"not a readable Excel .xlsx file ({_why(exc)})") from None
    outs: list[Out] = []
    names: list[str] = []
    try:
        for ws in wb.worksheets:
            try:
                grid = _grid(ws, str(p))
            except ParseError:
                raise
            except Exception as exc:  # a damaged sheet part
                raise ParseError(str(p), f"unreadable sheet ({_why(exc)})", ws.title) from None
            body = table_outs(grid)
            if body:
                names.append(ws.title)
                outs.append(Out(ElementKind.HEADING, one_line(ws.title) or "Sheet", 1, level=1))
                outs += body
        title = real_title(wb.properties.title if wb.properties else None)
    finally:
        wb.close()
    if not outs:
        raise ParseError(str(p), "no values: every sheet is empty")
    text, elements, _ = write(outs, paged=False)
    ident = doc_id or os_text(p.stem)
    return Document(
        id=ident,
        text=text,
        title=title or ident,
        metadata={"format": "xlsx", "sheets": names},
        elements=elements,
        source=os_text(p),
    )


def _why(exc: BaseException) -> str:
    words = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {words}" if words else type(exc).__name__


def _grid(ws, source: str) -> list[list[str]]:
    """The sheet's cells as displayed, row by row (rows as stored: empty ones dropped later)."""
    if hasattr(ws, "reset_dimensions"):
        ws.reset_dimensions()  # a stale or missing <dimension>: read the rows that are there
    grid: list[list[str]] = []
    cells = 0
    for row in ws.iter_rows():
        if not row:
            continue  # a gap between stored rows (openpyxl fills it with empty rows)
        values = [display(c.value, getattr(c, "number_format", None)) for c in row]
        cells += len(values)
        if cells > MAX_CELLS:
            raise ParseError(source, f"over {MAX_CELLS:,} cells in one sheet", ws.title)
        while values and not values[-1]:
            values.pop()
        grid.append(values)
    return grid


def display(value: object, number_format: str | None = "General") -> str:
    """A cell's value as Excel shows it, as far as its number format can be read."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, int | float):
        return _number(float(value) if isinstance(value, float) else value, number_format)
    return str(value)


def _general(x: float | int) -> str:
    if isinstance(x, int):
        return str(x)
    if not math.isfinite(x):
        return str(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.10g}"  # Excel's General shows about 10 significant digits


def _number(x: float | int, fmt: str | None) -> str:
    if not fmt or fmt == "General" or (isinstance(x, float) and not math.isfinite(x)):
        return _general(x)
    sections = _split_sections(fmt[:255])  # Excel's own limit on a format's length
    section = sections[0]
    negative = x < 0
    if negative and len(sections) > 1:
        section, x = sections[1], -x  # the negative section writes its own sign
    literal = _BRACKET.sub(lambda m: _currency(m.group(1)), section)
    literal = _PADDING.sub("", _QUOTED.sub(r"\1", literal))  # "_)" pads, "*-" fills
    literal = _ESCAPED.sub(r"\1", literal)
    digits = re.search(r"[0#?][0#?,.\s]*(?:E[+-]0+)?", literal)
    if digits is None or "@" in literal:
        return _general(x)
    pattern = digits.group()
    if "E" in pattern:
        return _general(x)
    percent = "%" in literal
    value = x * 100 if percent else x
    decimals = len(pattern.split(".", 1)[1].rstrip(",").strip()) if "." in pattern else 0
    value /= 1000 ** (len(pattern) - len(pattern.rstrip(",")))  # trailing commas scale
    grouped = "," in pattern.rstrip(",")
    body = f"{value:,.{decimals}f}" if grouped else f"{value:.{decimals}f}"
    return (literal[: digits.start()] + body + literal[digits.end() :]).strip()


def _split_sections(fmt: str) -> list[str]:
    """The ``;``-separated sections of a number format (quoted ``;`` kept)."""
    out, cur, quoted = [], [], False
    for ch in fmt:
        if ch == '"':
            quoted = not quoted
        if ch == ";" and not quoted:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _currency(inner: str) -> str:
    """``[$€-407]`` → ``€``; colours and conditions (``[Red]``, ``[<0]``) → nothing."""
    if inner.startswith("$"):
        return inner[1:].split("-", 1)[0]
    return ""
