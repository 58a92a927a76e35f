"""The generated corpus as lesson-schema files: ``documents.parquet``, ``passages.parquet``,
``questions.csv``, read and written through :mod:`finchunk.lesson`.

Columns, exactly:

- documents: ``id_doc, titulo, tipo, texto, emisor, anio, idioma`` (``anio`` int32)
- passages: ``id_pasaje, id_doc, seccion, tipo, inicio, fin`` (``texto[inicio:fin]``)
- questions: ``id_pregunta, pregunta, respuesta_oro, pasajes_oro, tipo_pregunta,
  respondible, id_doc`` (lists joined by ``;``, ``respondible`` written ``true``/``false``).

This module only maps the generator's records to and from the lesson module's rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from finchunk import lesson
from finchunk.datasets.records import (
    DocType,
    DocumentRecord,
    PassageRecord,
    PassageType,
    QuestionRecord,
    QuestionType,
    SampleCorpus,
)
from finchunk.errors import InputError

DOCUMENTS = lesson.DOCUMENTS
PASSAGES = lesson.PASSAGES
QUESTIONS = lesson.QUESTIONS
#: The documents' metadata columns, after the lesson's four.
METADATA_COLUMNS = ("emisor", "anio", "idioma")
_DOC_FIELDS = ("doc_id", "title", "type", "text", *METADATA_COLUMNS)
_QUESTION_FIELDS = tuple(lesson.QUESTION_COLUMNS.values())


@dataclass(frozen=True, slots=True)
class LessonFiles:
    documents: Path
    passages: Path
    questions: Path


def write_lesson_files(corpus: SampleCorpus, out_dir: str | Path) -> LessonFiles:
    """Write the three files into ``out_dir`` (created if needed); return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = LessonFiles(out / DOCUMENTS, out / PASSAGES, out / QUESTIONS)
    ds = corpus.documents
    columns: dict[str, list[Any]] = {
        "doc_id": [d.id_doc for d in ds],
        "title": [d.titulo for d in ds],
        "type": [str(d.tipo) for d in ds],
        "text": [d.texto for d in ds],
        "emisor": [d.emisor for d in ds],
        "anio": [d.anio for d in ds],
        "idioma": [d.idioma for d in ds],
    }
    lesson.write_documents(files.documents, columns, {"anio": pa.int32()})
    lesson.write_passages(files.passages, map(_passage, corpus.passages))
    lesson.write_questions(files.questions, map(_question, corpus.questions))
    return files


def _passage(p: PassageRecord) -> lesson.Passage:
    return lesson.Passage(p.id_pasaje, p.id_doc, p.inicio, p.fin, p.seccion, str(p.tipo))


def _question(q: QuestionRecord) -> lesson.Question:
    return lesson.Question(
        q.id_pregunta,
        q.pregunta,
        q.respuesta_oro,
        q.pasajes_oro,
        str(q.tipo_pregunta),
        q.respondible,
        q.id_doc,
    )


def read_lesson_files(directory: str | Path) -> SampleCorpus:
    """Read back what :func:`write_lesson_files` wrote (``evidencia`` is not stored)."""
    root = Path(directory)
    rows = lesson.read_table(root / DOCUMENTS, lesson.DOCUMENT_COLUMNS, _DOC_FIELDS)
    documents = [
        DocumentRecord(
            r["doc_id"],
            r["title"],
            _enum(DocType, r["type"], root / DOCUMENTS, i),
            r["text"],
            r["emisor"],
            int(r["anio"]),
            r["idioma"],
        )
        for i, r in enumerate(rows)
    ]
    passages = [
        PassageRecord(
            p.id,
            p.doc_id,
            p.section,
            _enum(PassageType, p.type, root / PASSAGES, i),
            p.start,
            p.end,
        )
        for i, p in enumerate(lesson.read_passages(root / PASSAGES).values())
    ]
    questions = lesson.read_questions(root / QUESTIONS, required=_QUESTION_FIELDS)
    records = [
        QuestionRecord(
            q.id,
            q.text,
            q.answer,
            q.gold,
            _enum(QuestionType, q.type, root / QUESTIONS, i),
            q.answerable,
            q.doc_ids,
        )
        for i, q in enumerate(questions)
    ]
    return SampleCorpus(documents, passages, records)


def _enum(kind, value: object, path: Path, where: int):  # noqa: ANN001, ANN202
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(k.value for k in kind)
        raise InputError(f"{path} (row {where}): {value!r} is not one of {allowed}") from None
