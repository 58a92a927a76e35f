"""Evaluation corpora in the lesson's schema (Spanish column names) or its English twin.

* documents (parquet or CSV): ``id_doc, titulo, tipo, texto`` (other columns → metadata)
  or ``doc_id, title, type, text``;
* passages (parquet or CSV): ``id_pasaje, id_doc, seccion, tipo, inicio, fin``
  or ``passage_id, doc_id, section, type, start, end``;
* questions (CSV): ``id_pregunta, pregunta, respuesta_oro, pasajes_oro, tipo_pregunta,
  respondible, id_doc`` or ``question_id, question, answer, gold_passages, question_type,
  answerable, doc_ids``; list cells are separated by ``;``.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from finchunk.errors import InputError
from finchunk.model import Document, Span
from finchunk.parse.markdown import parse_markdown

DOC_COLUMNS = {"id_doc": "doc_id", "titulo": "title", "tipo": "type", "texto": "text"}
PASSAGE_COLUMNS = {
    "id_pasaje": "passage_id",
    "id_doc": "doc_id",
    "seccion": "section",
    "tipo": "type",
    "inicio": "start",
    "fin": "end",
}
QUESTION_COLUMNS = {
    "id_pregunta": "question_id",
    "pregunta": "question",
    "respuesta_oro": "answer",
    "pasajes_oro": "gold_passages",
    "tipo_pregunta": "question_type",
    "respondible": "answerable",
    "id_doc": "doc_ids",
}
_TRUE = {"true", "1", "yes", "si", "sí", "t", "y"}
_FALSE = {"false", "0", "no", "f", "n", ""}


@dataclass(frozen=True, slots=True)
class Passage:
    id: str
    doc_id: str
    start: int
    end: int
    section: str = ""
    type: str = ""

    @property
    def span(self) -> Span:
        return (self.start, self.end)


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    answer: str
    gold: tuple[str, ...]  # passage ids
    type: str
    answerable: bool
    doc_ids: tuple[str, ...]


@dataclass(frozen=True)
class Corpus:
    documents: tuple[Document, ...]
    passages: Mapping[str, Passage]
    questions: tuple[Question, ...]

    @property
    def answerable(self) -> tuple[Question, ...]:
        return tuple(q for q in self.questions if q.answerable)


def _read_table(path: Path) -> pa.Table:
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        if path.suffix.lower() == ".csv":
            return pacsv.read_csv(path)
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{path}: cannot read table: {exc}") from exc


def _rename(rows: list[dict[str, Any]], mapping: Mapping[str, str]) -> list[dict[str, Any]]:
    return [{mapping.get(k, k): v for k, v in r.items()} for r in rows]


def _require(path: Path, rows: list[dict[str, Any]], names: Sequence[str]) -> None:
    have = set(rows[0]) if rows else set()
    missing = [n for n in names if n not in have]
    if rows and missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(missing)} (found {', '.join(sorted(have))})"
        )


def read_documents(path: str | Path) -> tuple[Document, ...]:
    p = Path(path)
    rows = _rename(_read_table(p).to_pylist(), DOC_COLUMNS)
    _require(p, rows, ["doc_id", "text"])
    docs = []
    for r in rows:
        doc_id = str(r["doc_id"])
        text = r["text"]
        if not isinstance(text, str):
            raise InputError(f"{p}: document {doc_id!r} has no text")
        meta = {k: v for k, v in r.items() if k not in ("doc_id", "title", "text")}
        docs.append(
            parse_markdown(
                text,
                doc_id,
                title=str(r.get("title") or doc_id),
                metadata=meta,
                source=f"{p}#{doc_id}",
            )
        )
    return tuple(docs)


def read_passages(path: str | Path, documents: Sequence[Document]) -> dict[str, Passage]:
    p = Path(path)
    rows = _rename(_read_table(p).to_pylist(), PASSAGE_COLUMNS)
    _require(p, rows, ["passage_id", "doc_id", "start", "end"])
    lengths = {d.id: len(d.text) for d in documents}
    out: dict[str, Passage] = {}
    for r in rows:
        pid, doc_id = str(r["passage_id"]), str(r["doc_id"])
        start, end = int(r["start"]), int(r["end"])
        if doc_id not in lengths:
            raise InputError(f"{p}: passage {pid!r} names unknown document {doc_id!r}")
        if not 0 <= start < end <= lengths[doc_id]:
            raise InputError(
                f"{p}: passage {pid!r} span ({start}, {end}) is outside document {doc_id!r} "
                f"of length {lengths[doc_id]}"
            )
        out[pid] = Passage(
            pid, doc_id, start, end, str(r.get("section") or ""), str(r.get("type") or "")
        )
    return out


def _split_list(cell: Any) -> tuple[str, ...]:
    if cell is None:
        return ()
    return tuple(s.strip() for s in str(cell).split(";") if s.strip())


def _as_bool(path: Path, qid: str, cell: Any) -> bool:
    v = str(cell).strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise InputError(f"{path}: question {qid!r}: answerable must be true/false, got {cell!r}")


def read_questions(path: str | Path, passages: Mapping[str, Passage]) -> tuple[Question, ...]:
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    with p.open(encoding="utf-8-sig", newline="") as fh:
        rows = _rename(list(csv.DictReader(fh)), QUESTION_COLUMNS)
    _require(p, rows, ["question_id", "question", "gold_passages"])
    out = []
    for r in rows:
        qid = str(r["question_id"])
        gold = _split_list(r.get("gold_passages"))
        unknown = [g for g in gold if g not in passages]
        if unknown:
            raise InputError(f"{p}: question {qid!r} cites unknown passage(s) {unknown}")
        answerable = _as_bool(p, qid, r["answerable"]) if "answerable" in r else bool(gold)
        out.append(
            Question(
                qid,
                str(r["question"]),
                str(r.get("answer") or ""),
                gold,
                str(r.get("question_type") or ""),
                answerable and bool(gold),
                _split_list(r.get("doc_ids")),
            )
        )
    return tuple(out)


def read_corpus(docs: str | Path, passages: str | Path, questions: str | Path) -> Corpus:
    documents = read_documents(docs)
    ps = read_passages(passages, documents)
    return Corpus(documents, ps, read_questions(questions, ps))
