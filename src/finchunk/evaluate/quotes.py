"""Quote-gold evaluation: questions whose gold is quoted evidence, aligned to parsed documents.

Each line of the questions JSONL is
``{"id", "doc" (a path relative to --files), "question", "type", "evidence": ["quote", ...]}``.
An evidence item may be a list of quotes instead of one: alternatives, the same answer
stated in several places, of which any one retrieves the item
(``"evidence": ["quote", ["stated here", "or here"]]``). Every quote is aligned to the
parsed document's text ignoring case, whitespace and punctuation
(:mod:`finchunk.evaluate.align`) and becomes a gold passage. A quote that does not align is
reported and stays in its question's gold as a passage no chunk can cover, so it counts as
not retrieved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from finchunk.errors import InputError
from finchunk.evaluate.align import QuoteIndex
from finchunk.evaluate.corpus import Corpus
from finchunk.files import read_jsonl
from finchunk.lesson import Passage, Question
from finchunk.model import Document
from finchunk.parse import load


@dataclass(frozen=True, slots=True)
class QuoteQuestion:
    id: str
    doc: str
    question: str
    type: str
    evidence: tuple[str, ...]  # every quote, alternatives included
    items: tuple[int, ...] = ()  # per quote, its evidence item when some item has several


def _evidence(raw: list[Any], where: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The quotes of an evidence list (a quote, or a non-empty list of alternative quotes
    per item) and, when an item has alternatives, each quote's item."""
    quotes: list[str] = []
    items: list[int] = []
    for n, item in enumerate(raw):
        alternatives = item if isinstance(item, list) else [item]
        if not alternatives or not all(isinstance(a, str) for a in alternatives):
            raise InputError(
                f"{where}: evidence must be a list of quotes or of lists of alternative quotes"
            )
        quotes += alternatives
        items += [n] * len(alternatives)
    return tuple(quotes), tuple(items) if len(items) != len(raw) else ()


def _field(row: dict[str, Any], key: str, path: Path, n: int, kind: type | tuple[type, ...]) -> Any:
    if key not in row:
        raise InputError(f"{path}:{n}: missing field {key!r}")
    value = row[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        names = " or ".join(k.__name__ for k in kinds)
        raise InputError(f"{path}:{n}: field {key!r} must be {names}")
    return value


def read_quote_questions(path: str | Path) -> list[QuoteQuestion]:
    p = Path(path)
    out: list[QuoteQuestion] = []
    first: dict[str, int] = {}
    for n, row in read_jsonl(p):
        evidence, items = _evidence(_field(row, "evidence", p, n, list), f"{p}:{n}")
        qid = str(_field(row, "id", p, n, (str, int)))
        if first.setdefault(qid, n) != n:  # its passages (ID#1 …) would replace the first's
            raise InputError(f"{p}:{n}: question id {qid!r} is given twice (line {first[qid]})")
        out.append(
            QuoteQuestion(
                id=qid,
                doc=_field(row, "doc", p, n, str),
                question=_field(row, "question", p, n, str),
                type=str(row.get("type", "")),
                evidence=evidence,
                items=items,
            )
        )
    return out


def quote_doc_id(doc: str) -> str:
    """The document id of a question's ``doc`` path: the path without its suffix, with
    ``/`` between folders."""
    path = PurePosixPath(doc.replace("\\", "/"))
    return path.with_suffix("").as_posix() if path.suffix else path.as_posix()


@dataclass(frozen=True)
class QuoteCorpus:
    corpus: Corpus
    alignment: dict[str, Any]


def build_quote_corpus(
    questions: list[QuoteQuestion],
    files: str | Path,
    *,
    on_document: Callable[[str], None] | None = None,
) -> QuoteCorpus:
    """Parse every document the questions name (once each) and align their quotes.

    A document's id is its ``doc`` path without the suffix (``AAPL/aapl-10-k.html`` →
    ``AAPL/aapl-10-k``), as ``finchunk chunk`` and ``index`` name a file under a folder."""
    base = Path(files)
    docs: dict[str, Document] = {}
    ids: dict[str, str] = {}  # the id of each path, and the path of each id
    for q in questions:
        if q.doc not in docs:
            doc_id = quote_doc_id(q.doc)
            if ids.setdefault(doc_id, q.doc) != q.doc:
                raise InputError(
                    f"{base / q.doc}: document id {doc_id!r} is also used by {ids[doc_id]}"
                )
            docs[q.doc] = load(base / q.doc, doc_id=doc_id)
            if on_document:
                on_document(q.doc)
    indexes = {name: QuoteIndex(d.text) for name, d in docs.items()}
    passages: dict[str, Passage] = {}
    out_questions: list[Question] = []
    unaligned: list[str] = []
    for q in questions:
        gold = []
        for n, quote in enumerate(q.evidence, 1):
            pid = f"{q.id}#{n}"
            found = indexes[q.doc].align(quote)
            doc_id = docs[q.doc].id
            if found is None:
                unaligned.append(pid)
                passages[pid] = Passage(pid, doc_id, 0, 0, "", "unaligned")
            else:
                passages[pid] = Passage(pid, doc_id, *found.span, "", "quote")
            gold.append(pid)
        out_questions.append(
            Question(
                q.id, q.question, "", tuple(gold), q.type, bool(gold), (docs[q.doc].id,), q.items
            )
        )
    n_quotes = len(passages)
    alignment = {
        "quotes": n_quotes,
        "aligned": n_quotes - len(unaligned),
        "unaligned_ids": unaligned,
    }
    corpus = Corpus(tuple(docs.values()), passages, tuple(out_questions))
    return QuoteCorpus(corpus, alignment)
