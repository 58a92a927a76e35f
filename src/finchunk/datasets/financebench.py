"""FinanceBench (Islam et al., 2023), open-source sample: questions, documents, PDFs.

Layout of the data folder::

    financebench_open_source.jsonl             one question a line
    financebench_document_information.jsonl    one document a line (company, type, period)
    pdfs/{doc_name}.pdf                        the filings

Questions whose PDF (or one of whose evidence PDFs) is missing are skipped and counted.
``evidence_page_num`` in the data is a 0-based PDF page index; :class:`Evidence` keeps the
1-based page number finchunk uses everywhere (``Element.page``, ``Document.pages[page - 1]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from finchunk.errors import InputError
from finchunk.files import read_jsonl

QUESTIONS_FILE = "financebench_open_source.jsonl"
DOCUMENTS_FILE = "financebench_document_information.jsonl"
PDF_DIR = "pdfs"
_QUARTER_IN_NAME = re.compile(r"_(?:19|20)\d{2}Q([1-4])(?:_|$)")
_DATED_IN_NAME = re.compile(r"_dated[-_]((?:19|20)\d{2}-\d{2}-\d{2})")
_ANNUAL_TYPES = frozenset({"10k", "10k_annualreport"})


@dataclass(frozen=True, slots=True)
class Evidence:
    doc_name: str
    page: int  # 1-based page number (the data's 0-based evidence_page_num + 1)
    text: str


@dataclass(frozen=True, slots=True)
class FBQuestion:
    id: str
    question: str
    answer: str
    company: str
    doc_name: str
    type: str
    reasoning: str
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True, slots=True)
class FBDocument:
    name: str
    company: str
    doc_type: str
    period: int | None
    path: Path

    @property
    def title(self) -> str:
        """A readable title: "3M 10K 2018"."""
        period = f" {self.period}" if self.period is not None else ""
        return f"{self.company} {self.doc_type.upper()}{period}"

    @property
    def metadata(self) -> dict[str, str]:
        """The document information under finchunk's canonical names: ``issuer``,
        ``doc_type`` ("10k", "10q", "8k", "Earnings"), ``year`` (doc_period),
        ``fiscal_period`` ("FY" for annual reports, "Q2" from a name such as
        "3M_2023Q2_10Q"), ``date`` (an 8-K's "dated-2022-04-26"), ``language``."""
        meta = {"issuer": self.company, "doc_type": self.doc_type, "language": "en"}
        if self.period is not None:
            meta["year"] = str(self.period)
        quarter = _QUARTER_IN_NAME.search(self.name)
        if quarter:
            meta["fiscal_period"] = f"Q{quarter.group(1)}"
        elif self.doc_type.lower() in _ANNUAL_TYPES:
            meta["fiscal_period"] = "FY"
        dated = _DATED_IN_NAME.search(self.name)
        if dated:
            meta["date"] = dated.group(1)
        return {k: v for k, v in meta.items() if v}


@dataclass(frozen=True)
class FinanceBench:
    root: Path
    questions: tuple[FBQuestion, ...]  # questions whose PDFs are all present
    documents: dict[str, FBDocument]  # the documents those questions use, by name
    catalogue: dict[str, FBDocument]  # every document described, PDF present or not
    skipped: tuple[str, ...]  # ids of questions skipped for a missing PDF

    def corpus(self) -> list[FBDocument]:
        """Documents of the benchmark, in name order."""
        return [self.documents[n] for n in sorted(self.documents)]


def _field(row: dict[str, Any], key: str, path: Path, n: int) -> Any:
    if key not in row:
        raise InputError(f"{path} (line {n}): missing field {key!r}")
    return row[key]


def _period(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def read_documents(root: Path) -> dict[str, FBDocument]:
    path = root / DOCUMENTS_FILE
    out: dict[str, FBDocument] = {}
    for n, row in read_jsonl(path):
        name = str(_field(row, "doc_name", path, n))
        out[name] = FBDocument(
            name=name,
            company=str(row.get("company") or name.split("_")[0]),
            doc_type=str(row.get("doc_type") or ""),
            period=_period(row.get("doc_period")),
            path=root / PDF_DIR / f"{name}.pdf",
        )
    return out


def _evidence(row: dict[str, Any], doc_name: str, path: Path, n: int) -> tuple[Evidence, ...]:
    out = []
    for ev in _field(row, "evidence", path, n) or ():
        page = ev.get("evidence_page_num")
        if not isinstance(page, int) or page < 0:
            raise InputError(f"{path} (line {n}): evidence_page_num must be an integer >= 0")
        out.append(
            Evidence(
                str(ev.get("doc_name") or doc_name), page + 1, str(ev.get("evidence_text") or "")
            )
        )
    return tuple(out)


def read_questions(root: Path) -> list[FBQuestion]:
    path = root / QUESTIONS_FILE
    out = []
    for n, row in read_jsonl(path):
        doc_name = str(_field(row, "doc_name", path, n))
        out.append(
            FBQuestion(
                id=str(_field(row, "financebench_id", path, n)),
                question=str(_field(row, "question", path, n)),
                answer=str(row.get("answer") or ""),
                company=str(row.get("company") or ""),
                doc_name=doc_name,
                type=str(row.get("question_type") or ""),
                reasoning=str(row.get("question_reasoning") or ""),
                evidence=_evidence(row, doc_name, path, n),
            )
        )
    return out


def _describe(name: str, root: Path, catalogue: dict[str, FBDocument]) -> FBDocument:
    return catalogue.get(name) or FBDocument(
        name, name.split("_")[0], "", None, root / PDF_DIR / f"{name}.pdf"
    )


def load_financebench(root: str | Path) -> FinanceBench:
    """Questions, documents and the questions skipped because a PDF is missing."""
    base = Path(root)
    if not base.is_dir():
        raise InputError(f"{base}: no such folder (expected a FinanceBench data folder)")
    catalogue = read_documents(base)
    kept: list[FBQuestion] = []
    skipped: list[str] = []
    documents: dict[str, FBDocument] = {}
    for q in read_questions(base):
        names = [q.doc_name, *(e.doc_name for e in q.evidence)]
        docs = [_describe(n, base, catalogue) for n in dict.fromkeys(names)]
        if not all(d.path.is_file() for d in docs):
            skipped.append(q.id)
            continue
        kept.append(q)
        documents.update((d.name, d) for d in docs)
    return FinanceBench(base, tuple(kept), documents, catalogue, tuple(skipped))
