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
            name = registrant_name(name)
            if name:
                meta["issuer"] = name
    return _normalise(meta)


#: What precedes a registrant's name on a cover and is no part of it.
_NOT_NAME = re.compile(
    r"commission\s+file\s+(?:number|no\.?)\s*:?\s*[\d-]*|_{2,}|\(mark\s+one\)|"
    r"transition\s+period\s+from\s+to",
    re.I,
)


_CAPS_SPLIT = re.compile(r"\b([A-Z]) ([A-Z]{2,})\b")


def join_capitals(name: str) -> str:
    """ "MGM R ESORTS I NTERNATIONAL" → "MGM RESORTS INTERNATIONAL": a name in small
    capitals whose large initials the text layer set apart (joined where that makes a word
    and the rest is none)."""
    if not _CAPS_SPLIT.search(name):
        return name
    from finchunk.text.analysis import english_words

    words = english_words()

    def join(m: re.Match[str]) -> str:
        whole, rest = (m.group(1) + m.group(2)).lower(), m.group(2).lower()
        return m.group(1) + m.group(2) if whole in words and rest not in words else m.group()

    return _CAPS_SPLIT.sub(join, name)


def registrant_name(text: str) -> str:
    """The name in the text before "(Exact name of registrant …)": after the last rule,
    commission file number or bracket; empty when nothing name-like is left."""
    parts = _NOT_NAME.split(text)
    name = _LEAD_RULE.sub("", parts[-1].rsplit(")", 1)[-1]).strip(" (,")
    if not 2 < len(name) <= 120 or sum(ch.isalpha() for ch in name) < 2:
        return ""
    return name


#: "Johnson & Johnson (NYSE: JNJ) today announced": a press release names its issuer so.
_LISTED = re.compile(
    r"\((?:NYSE|NASDAQ|Nasdaq|NYSE American|ASX|LSE|TSX)(?:/[A-Z]+)?\s*:\s*[A-Z.]{1,6}\)"
)
#: What stands between a release's dateline and the issuer's name.
_DATELINE_END = re.compile(r"\s[-–—]+\s|--|\)\s*|—|–")
#: "Amcor reports fiscal 2023 results", "Ulta Beauty Announces …": a release's headline.
_HEADLINE = re.compile(
    r"^([A-Z0-9][\w&.,'’ -]{1,50}?)\s+(?:reports|announces|reported|announced|posts|delivers)\b",
    re.I,
)
#: "THE COCA-COLA COMPANY (Registrant)": the signature block of a filing.
_SIGNED = re.compile(r"^(.{3,80}?)\s*\(registrant\)", re.I)
#: Cover lines that are no one's name.
BOILERPLATE_RE = re.compile(
    r"united\s+states|securities\s+and\s+exchange|washington|\bform\b|annual\s+report|"
    r"quarterly\s+report|transition|pursuant|commission|\bact\b|^\W|table\s+of\s+contents|"
    r"^(?:or|and)$|registrant|incorporat|\bexchange\b",
    re.I,
)
CORPORATE_RE = re.compile(
    r"\b(?:inc|corp|corporation|company|co|plc|ltd|limited|group|holdings|n\.v|s\.a|ag|se|"
    r"llc|lp)\b\.?",
    re.I,
)


def issuer_from_text(lines: Sequence[_Texted]) -> str:
    """An issuer named in a press release's first lines: "X (NYSE: ABC)", or a headline
    "X reports …"."""
    for ln in lines:
        m = _LISTED.search(ln.text)
        if m:
            name = _DATELINE_END.split(ln.text[: m.start()])[-1].strip(" ,")
            if 2 < len(name) <= 60 and (name[0].isupper() or name[0].isdigit()):
                return name
    for ln in lines[:8]:
        m = _HEADLINE.match(ln.text)
        if m and not BOILERPLATE_RE.search(m.group(1)):
            return m.group(1).strip(" ,")
    return ""


def signed_issuer(lines: Sequence[_Texted]) -> str:
    """The registrant a filing's signature block names: "THE COCA-COLA COMPANY (Registrant)"
    or the line above a bare "(Registrant)"."""
    prev = ""
    for ln in lines:
        t = ln.text
        if "egistrant" in t:
            m = _SIGNED.match(t)
            if m and m.group(1).strip():
                return registrant_name(m.group(1))
            if t.strip(" ()").lower() == "registrant" and prev:
                return registrant_name(prev)
        prev = t
    return ""


def fiscal_year(period_end: str) -> str:
    """The fiscal year a period ending on ``period_end`` (ISO) is named by: its year, or the
    year before when it ends in the first week of January (a 52/53-week year that closes on
    the Sunday nearest December 31: "fiscal 2022" ends 2023-01-01)."""
    year, month, day = period_end[:4], period_end[5:7], period_end[8:10]
    if month == "01" and day.isdigit() and int(day) <= 7 and year.isdigit():
        return str(int(year) - 1)
    return year


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
        out["fiscal_year"] = fiscal_year(out["period_end"])
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
