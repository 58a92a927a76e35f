"""What a PDF says about itself: issuer, form, period end and fiscal year read from the
document (a filing's cover among its first pages, its large type, a press release's ticker
line, the running head or footer, the signature block), and whether the PDF's own Title is
a producer's artefact. Never from the file name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from finchunk.parse.html_meta import (
    BOILERPLATE_RE,
    CORPORATE_RE,
    cover_metadata,
    fiscal_year,
    issuer_from_text,
    join_capitals,
    signed_issuer,
)
from finchunk.parse.pdf_layout import Line


@dataclass(frozen=True, slots=True)
class _Joined:
    text: str


#: How many first pages may hold the cover (a filing's is sometimes page 2 or 3).
COVER_PAGES = 5
_COVER_HEAD = 16  # lines: a cover set one word a line names the SEC and the form in 11
_FILING_COVER = re.compile(r"securities\s+and\s+exchange\s+commission", re.I)
_ANNUAL = frozenset({"10-K", "10-K405", "10-KSB", "20-F", "40-F"})


_COVER_FORM = re.compile(r"\bFORM\b|\bForm\s+\d")


_FORM_LINE = re.compile(r"^FORM\s+(?:10-K|10-Q|8-K|20-F|40-F|6-K|N-CSR)", re.I)


def _is_cover(lines: Sequence[Line]) -> bool:
    """A filing's cover: a line "FORM 10-K" among its first lines, or the SEC and a form."""
    head = lines[:_COVER_HEAD]
    if any(_FORM_LINE.match(ln.text) for ln in head):
        return True
    text = " ".join(ln.text for ln in head)
    return bool(_FILING_COVER.search(text) and _COVER_FORM.search(text))


def _cover_page(pages: Sequence[Sequence[Line]]) -> int:
    """The page a filing's cover is on (the first page when none is)."""
    for i, lines in enumerate(pages[:COVER_PAGES]):
        if _is_cover(lines):
            return i
    return 0


def _largest_name(lines: Sequence[Line]) -> str:
    """The cover's name in large type ("3M COMPANY", "MICROSOFT CORPORATION"): the largest
    line that is no boilerplate, set larger than the page's body text, in capitals or with
    a corporate suffix."""
    sizes = sorted(ln.size for ln in lines if ln.size > 0)
    if not sizes:
        return ""
    body = sizes[len(sizes) // 2]
    best, name = body * 1.2, ""
    for ln in lines[:60]:
        t = ln.text
        if ln.size < best or not 3 <= len(t) <= 80 or BOILERPLATE_RE.search(t):
            continue
        if sum(ch.isalpha() for ch in t) < 2 or not (t.isupper() or CORPORATE_RE.search(t)):
            continue
        best, name = ln.size + 0.01, t
    return name


_FILE_NUMBER = re.compile(r"commission\s+file\s+(?:number|no\.?)", re.I)


def _after_file_number(lines: Sequence[Line]) -> str:
    """The name-like line right below "Commission file number …" on a cover."""
    for i, ln in enumerate(lines[:60]):
        if _FILE_NUMBER.search(ln.text) and i + 1 < len(lines):
            t = lines[i + 1].text
            name_like = t.isupper() or CORPORATE_RE.search(t)
            if 3 <= len(t) <= 80 and not BOILERPLATE_RE.search(t) and name_like:
                return t
    return ""


def running_name(furniture: Sequence[str]) -> str:
    """The company a running head or footer names ("Annual Report 2022 | Example Group plc"):
    the most frequent part, between separators, with a corporate suffix."""
    counts: dict[str, int] = {}
    for text in furniture:
        for part in _RUNNING_SPLIT.split(text):
            part = part.strip(" .,")
            if 3 <= len(part) <= 80 and CORPORATE_RE.search(part) and not part[:1].isdigit():
                counts[part] = counts.get(part, 0) + 1
    if not counts:
        return ""
    return max(counts, key=lambda k: (counts[k], -len(k)))


_RUNNING_SPLIT = re.compile(r"\s[|•·–—-]\s|\|")


def read_metadata(pages: Sequence[Sequence[Line]], furniture: Sequence[str] = ()) -> dict[str, str]:
    """Form, period end, issuer and (for an annual report) fiscal year, from the document:
    a filing's cover (found among the first pages; its lines, then its text run together
    for covers set one word a line), its name in large type, a press release's "X (NYSE:
    ABC)", the running head or footer (``furniture``: "… | Example Group plc"), the
    signature block's "(Registrant)". Never from the file name."""
    if not pages:
        return {}
    c = _cover_page(pages)
    cover = pages[c]
    meta: dict[str, str] = {}
    if _is_cover(cover):
        meta = cover_metadata(cover)
        after = pages[c + 1] if c + 1 < len(pages) else ()
        joined = cover_metadata([_Joined(" ".join(ln.text for ln in [*cover, *after]))])
        line_name, run_name = meta.get("issuer", ""), joined.get("issuer", "")
        if run_name.endswith(line_name) and len(run_name) <= 80:  # "I" / "NTERNATIONAL"
            meta.pop("issuer", None)
        for k, v in joined.items():
            meta.setdefault(k, v)
        name = meta.get("issuer") or _largest_name(cover) or _after_file_number(cover)
        if name:
            meta["issuer"] = join_capitals(name)
    else:  # a release, a report: the form and period a cover states are not there
        meta = {k: v for k, v in cover_metadata(cover).items() if k == "issuer"}
    if "issuer" not in meta:
        first = [ln for lines in pages[:2] for ln in lines]
        name = (
            issuer_from_text(first)
            or running_name(furniture)
            or signed_issuer([ln for lines in pages for ln in lines])
        )
        if name:
            meta["issuer"] = name
    form = meta.get("form", "")
    if form:
        meta["doc_type"] = form
    if form in _ANNUAL and "period_end" in meta:
        meta["fiscal_year"] = fiscal_year(meta["period_end"])
        meta["fiscal_period"] = "FY"
    return meta


#: PDF Titles a producer wrote, not an author: "Microsoft Word - R1", an accession number,
#: "EDGAR PDF", "Document", "untitled"; and (:func:`producer_artefact`) file names.
_ARTEFACT = re.compile(
    r"microsoft\s+(?:word|excel|powerpoint)\b|\d{10}-\d{2}-\d{6}$|edgar(?:\s+pdf)?$|"
    r"document\d*$|untitled|.*\d{4}-\d{2}-\d{2}[-_ T]\d{2}[-_:]\d{2}",
    re.I,
)
_FILE_EXTENSIONS = frozenset({"pdf", "doc", "docx", "htm", "html", "xls", "xlsx", "ppt", "pptx"})


def producer_artefact(title: str) -> bool:
    """Whether a PDF's Title is a producer's artefact rather than a title: one of
    :data:`_ARTEFACT`, or a file name ("q4_2023.pdf", "R1_final")."""
    t = title.strip()
    if _ARTEFACT.match(t) or sum(ch.isalpha() for ch in t) < 3:
        return True
    if " " in t:
        return False
    return "_" in t or t.rpartition(".")[2].lower() in _FILE_EXTENSIONS
