"""Filing metadata: from inline XBRL ``dei:`` facts, the SGML header, or the cover page.

Keys (all strings, absent when unknown): ``issuer``, ``cik`` (no leading zeros), ``ticker``,
``form`` and ``doc_type`` (e.g. "10-K"), ``period_end`` (ISO date), ``year`` (the fiscal
year: the name chunk records, filters and the lesson's tables use; ``fiscal_year`` holds the
same value, kept for compatibility), ``fiscal_period`` ("FY", "Q1".."Q4"), ``language``
("en"). The document title is
``"{issuer} > {form} {period_end}"``; a chunk's context header is built from the metadata
(:mod:`finchunk.chunk.header`: "Apple Inc. (AAPL) | 10-K | FY2024 > Item 7. ...").

The cover-page reader works on any sequence of lines with a ``text`` (HTML paragraphs, PDF
lines): the PDF parser reads a filing's first page with it, so this module needs
selectolax only for :func:`dei_metadata`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser


class _Texted(Protocol):
    @property
    def text(self) -> str: ...


_DEI = {
    "EntityRegistrantName": "issuer",
    "EntityCentralIndexKey": "cik",
    "TradingSymbol": "ticker",
    "DocumentType": "form",
    "DocumentPeriodEndDate": "period_end",
    "DocumentFiscalYearFocus": "fiscal_year",
    "DocumentFiscalPeriodFocus": "fiscal_period",
}
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}  # fmt: skip
_DATE_WORDS = re.compile(r"([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})")
_DATE_DMY = re.compile(r"(\d{1,2})\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})")
_DATE_ISO = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")
_DATE_US = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_FORM = re.compile(r"\bFORM\s+(10-K405|10-KSB|10-QSB|10-K|10-Q|20-F|40-F|8-K|N-CSR)\b", re.I)
_PERIOD = re.compile(
    r"(?:fiscal\s+year|quarterly\s+period|period|year)\s+ended:?\s+"
    r"([A-Za-z]{3,9}\.?\s+\d{1,2},?\s+\d{4})",
    re.I,
)
_REGISTRANT = re.compile(r"exact\s+name\s+of\s+(?:the\s+)?registrant", re.I)
_COVER_PARAS = 80
_LEAD_RULE = re.compile(r"^[\W_]+")
#: EDGAR names may end in the state of incorporation: "WELLS FARGO & COMPANY/MN".
_STATE_SUFFIX = re.compile(r"(?<!\s)\s*/[A-Z]{2,3}/?$")


def parse_date(text: str) -> str | None:
    """An ISO date from "September 28, 2024", "28 Sept. 2024", "2024-09-28", "9/28/2024"."""
    for rx, order in (
        (_DATE_WORDS, "mdy"),
        (_DATE_DMY, "dmy"),
        (_DATE_ISO, "ymd"),
        (_DATE_US, "mdy#"),
    ):
        m = rx.search(text)
        if not m:
            continue
        a, b, c = m.groups()
        try:
            if order == "mdy":
                d = date(int(c), _MONTHS[a.lower()], int(b))
            elif order == "dmy":
                d = date(int(c), _MONTHS[b.lower()], int(a))
            elif order == "ymd":
                d = date(int(a), int(b), int(c))
            else:
                d = date(int(c), int(a), int(b))
        except (KeyError, ValueError):
            continue
        return d.isoformat()
    return None


def dei_metadata(tree: LexborHTMLParser) -> dict[str, str]:
    """Metadata from the ``dei:`` facts of an inline XBRL document (first value wins)."""
    meta: dict[str, str] = {}
    for node in tree.css("ix\\:nonnumeric"):
        name = node.attrs.get("name") or ""
        key = _DEI.get(name.partition(":")[2]) if name.startswith("dei:") else None
        if key is None or key in meta:
            continue
        value = " ".join(node.text(deep=True).split())
        if value:
            meta[key] = value
    return _normalise(meta)


def header_metadata(header: dict[str, str]) -> dict[str, str]:
    """Metadata from an SGML ``<SEC-HEADER>``."""
    meta: dict[str, str] = {}
    pairs = (
        ("COMPANY CONFORMED NAME", "issuer"),
        ("CENTRAL INDEX KEY", "cik"),
        ("CONFORMED SUBMISSION TYPE", "form"),
        ("FORM TYPE", "form"),
        ("CONFORMED PERIOD OF REPORT", "period_end"),
    )
    for src, key in pairs:
        if header.get(src) and key not in meta:
            meta[key] = header[src]
    return _normalise(meta)


def cover_metadata(paras: Sequence[_Texted]) -> dict[str, str]:
    """Form, period end and registrant name read off the cover page's first paragraphs."""
    meta: dict[str, str] = {}
    head = paras[:_COVER_PARAS]
    for i, p in enumerate(head):
        if "form" not in meta and (m := _FORM.search(p.text)):
            meta["form"] = m.group(1).upper()
        if "period_end" not in meta and (m := _PERIOD.search(p.text)):
            iso = parse_date(m.group(1))
            if iso:
                meta["period_end"] = iso
        if "issuer" not in meta and (m := _REGISTRANT.search(p.text)):
            before = p.text[: m.start()].strip(" (")
            name = before if len(before) >= 3 else (head[i - 1].text if i > 0 else "")
            name = _LEAD_RULE.sub("", name)  # "_______ AMAZON.COM, INC." (a rule drawn in text)
            if 2 < len(name) <= 120:
                meta["issuer"] = name
    return _normalise(meta)


def _normalise(meta: dict[str, str]) -> dict[str, str]:
    out = dict(meta)
    if "issuer" in out:
        out["issuer"] = _STATE_SUFFIX.sub("", out["issuer"])
    if "cik" in out:
        digits = "".join(ch for ch in out["cik"] if ch.isdecimal())  # int() refuses "²"
        if digits:
            out["cik"] = str(int(digits))
        else:
            del out["cik"]
    if "period_end" in out:
        iso = parse_date(out["period_end"])
        if iso:
            out["period_end"] = iso
        else:
            del out["period_end"]
    if "form" in out:
        out["form"] = out["form"].upper().replace(" ", "")
    return out


def complete(meta: dict[str, str]) -> dict[str, str]:
    """Fill the derived keys: doc_type, fiscal_year (and year, its canonical name) and
    fiscal_period of a 10-K, language."""
    out = dict(meta)
    form = out.get("form")
    if form:
        out["doc_type"] = form
    if "fiscal_year" not in out and "period_end" in out and form and form.startswith("10-K"):
        out["fiscal_year"] = out["period_end"][:4]
    if "fiscal_year" in out:  # the canonical name (finchunk.text.metadata), and the old
        out.setdefault("year", out["fiscal_year"])
    if "fiscal_period" not in out and form and form.startswith("10-K"):
        out["fiscal_period"] = "FY"
    out["language"] = "en"
    return out


def title(meta: dict[str, str], fallback: str) -> str:
    """``"Apple Inc. > 10-K 2024-09-28"``; the fallback when the issuer is unknown."""
    issuer = meta.get("issuer")
    if not issuer:
        return fallback
    rest = " ".join(v for v in (meta.get("form"), meta.get("period_end")) if v)
    return f"{issuer} > {rest}" if rest else issuer
