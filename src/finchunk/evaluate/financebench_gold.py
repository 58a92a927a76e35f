"""FinanceBench's filings and gold: every PDF parsed once and described by the benchmark's
document information (:func:`parse_documents`), each evidence quote aligned on its gold page
(:func:`align_gold`). :mod:`finchunk.evaluate.financebench` ranks and scores against them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from finchunk.datasets.financebench import FBQuestion, FinanceBench
from finchunk.evaluate.align import QuoteIndex
from finchunk.evaluate.gold import GoldPassage, GoldSet, QuestionGold
from finchunk.extras import import_extra
from finchunk.model import Document
from finchunk.text.metadata import canonical_field

Tick = Callable[[], None]


def parse_documents(fb: FinanceBench, tick: Tick | None = None) -> dict[str, Document]:
    """Every filing of the benchmark, parsed once; title and metadata (company, type,
    period: :attr:`FBDocument.metadata`) from the document information, which wins over
    what the PDF's cover page says."""
    out: dict[str, Document] = {}
    corpus = fb.corpus()
    # The pdf extra is optional: the PDF parser is imported when filings are parsed.
    import_extra("pypdfium2", "pdf", "reading PDF", corpus[0].path if corpus else None)
    from finchunk.parse.pdf import parse_pdf_file

    for d in corpus:
        out[d.name] = parse_pdf_file(d.path, doc_id=d.name)
        if tick:
            tick()
    return describe_documents(fb, out)


def describe_documents(fb: FinanceBench, docs: dict[str, Document]) -> dict[str, Document]:
    """Each filing with its title and metadata from the document information (company,
    type, period: :attr:`FBDocument.metadata`, which header and card are made of), ahead
    of what the PDF's cover page says."""
    out = {}
    for name, doc in docs.items():
        d = fb.documents.get(name) or fb.catalogue.get(name)
        if d is None:
            out[name] = doc
        else:
            meta = with_metadata(doc.metadata, d.metadata)
            out[name] = replace(doc, title=d.title, metadata=meta)
    return out


def with_metadata(parsed: Mapping[str, Any], known: Mapping[str, str]) -> dict[str, Any]:
    """``known`` fields, then the parsed ones whose canonical field ``known`` lacks."""
    fields = {canonical_field(k) for k in known}
    return {**known, **{k: v for k, v in parsed.items() if canonical_field(k) not in fields}}


@dataclass
class Alignment:
    quotes: int = 0
    aligned: int = 0
    on_page: int = 0
    fuzzy: int = 0
    unaligned_ids: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "quotes": self.quotes,
            "aligned": self.aligned,
            "on_page": self.on_page,
            "fuzzy": self.fuzzy,
            "unaligned_ids": self.unaligned_ids,
        }


def align_gold(
    questions: Sequence[FBQuestion], docs: dict[str, Document]
) -> tuple[GoldSet, Alignment]:
    """Gold pages and aligned evidence spans; quotes are looked for on their page first.
    Unaligned evidence stays in each question's ``evidence`` count: it counts as a miss."""
    indexes = {name: QuoteIndex(doc.text) for name, doc in docs.items()}
    report = Alignment()
    golds = []
    for q in questions:
        passages = []
        for n, ev in enumerate(q.evidence):
            report.quotes += 1
            doc = docs[ev.doc_name]
            page = doc.pages[ev.page - 1] if 0 < ev.page <= len(doc.pages) else None
            found = indexes[ev.doc_name].align(ev.text, page, fuzzy=True) if page else None
            if found is None:
                found = indexes[ev.doc_name].align(ev.text)
            else:
                report.on_page += 1
            if found is None:
                report.unaligned_ids.append(f"{q.id}#{n}")
                continue
            report.aligned += 1
            report.fuzzy += not found.exact
            passages.append(GoldPassage(ev.doc_name, found.span))
        pages = frozenset((ev.doc_name, ev.page) for ev in q.evidence)
        golds.append(QuestionGold(q.id, tuple(passages), pages, len(q.evidence)))
    return GoldSet.of(golds), report
