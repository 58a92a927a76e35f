"""Lesson-schema files: ``documents.parquet``, ``passages.parquet``, ``questions.csv``.

Columns, exactly:

- documents: ``id_doc, titulo, tipo, texto, emisor, anio, idioma``
- passages: ``id_pasaje, id_doc, seccion, tipo, inicio, fin`` (``texto[inicio:fin]``)
- questions (UTF-8 CSV, ``\\n`` line ends, RFC 4180 quoting): ``id_pregunta, pregunta,
  respuesta_oro, pasajes_oro, tipo_pregunta, respondible, id_doc``; ``pasajes_oro`` and
  ``id_doc`` are lists joined by ``;`` (``pasajes_oro`` is empty for unanswerable
  questions); ``respondible`` is written ``true`` / ``false`` (read back: also ``1``/``0``,
  ``True``/``False``, ``sí``/``no``).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

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

DOCUMENTS = "documents.parquet"
PASSAGES = "passages.parquet"
QUESTIONS = "questions.csv"
LIST_SEPARATOR = ";"

DOCUMENT_COLUMNS = ("id_doc", "titulo", "tipo", "texto", "emisor", "anio", "idioma")
PASSAGE_COLUMNS = ("id_pasaje", "id_doc", "seccion", "tipo", "inicio", "fin")
QUESTION_COLUMNS = (
    "id_pregunta",
    "pregunta",
    "respuesta_oro",
    "pasajes_oro",
    "tipo_pregunta",
    "respondible",
    "id_doc",
)

_DOCUMENT_SCHEMA = pa.schema(
    [(c, pa.int32() if c == "anio" else pa.string()) for c in DOCUMENT_COLUMNS]
)
_PASSAGE_SCHEMA = pa.schema(
    [(c, pa.int64() if c in ("inicio", "fin") else pa.string()) for c in PASSAGE_COLUMNS]
)
_TRUE = frozenset({"true", "1", "yes", "sí", "si"})
_FALSE = frozenset({"false", "0", "no"})


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
    docs = {c: [str(getattr(d, c)) for d in corpus.documents] for c in DOCUMENT_COLUMNS}
    docs["anio"] = [d.anio for d in corpus.documents]  # type: ignore[misc]
    pq.write_table(pa.table(docs, schema=_DOCUMENT_SCHEMA), files.documents)
    passages = {c: [getattr(p, c) for p in corpus.passages] for c in PASSAGE_COLUMNS}
    passages["tipo"] = [str(t) for t in passages["tipo"]]
    pq.write_table(pa.table(passages, schema=_PASSAGE_SCHEMA), files.passages)
    with files.questions.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(QUESTION_COLUMNS)
        for q in corpus.questions:
            writer.writerow(_question_row(q))
    return files


def _question_row(q: QuestionRecord) -> list[str]:
    return [
        q.id_pregunta,
        q.pregunta,
        q.respuesta_oro,
        LIST_SEPARATOR.join(q.pasajes_oro),
        str(q.tipo_pregunta),
        "true" if q.respondible else "false",
        LIST_SEPARATOR.join(q.id_doc),
    ]


def read_lesson_files(directory: str | Path) -> SampleCorpus:
    """Read back what :func:`write_lesson_files` wrote (``evidencia`` is not stored)."""
    root = Path(directory)
    docs = _read_parquet(root / DOCUMENTS, DOCUMENT_COLUMNS)
    passages = _read_parquet(root / PASSAGES, PASSAGE_COLUMNS)
    documents = [
        DocumentRecord(
            r["id_doc"],
            r["titulo"],
            _enum(DocType, r["tipo"], root / DOCUMENTS, i),
            r["texto"],
            r["emisor"],
            int(r["anio"]),
            r["idioma"],
        )
        for i, r in enumerate(docs)
    ]
    records = [
        PassageRecord(
            r["id_pasaje"],
            r["id_doc"],
            r["seccion"],
            _enum(PassageType, r["tipo"], root / PASSAGES, i),
            int(r["inicio"]),
            int(r["fin"]),
        )
        for i, r in enumerate(passages)
    ]
    return SampleCorpus(documents, records, _read_questions(root / QUESTIONS))


def _read_parquet(path: Path, columns: tuple[str, ...]) -> list[dict[str, object]]:
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"{path}: not a readable parquet file ({exc})") from exc
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise InputError(f"{path}: missing columns {', '.join(missing)}")
    return table.select(list(columns)).to_pylist()


def _read_questions(path: Path) -> list[QuestionRecord]:
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    out = []
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in QUESTION_COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise InputError(f"{path}: missing columns {', '.join(missing)}")
        for row in reader:
            line = reader.line_num
            out.append(
                QuestionRecord(
                    row["id_pregunta"],
                    row["pregunta"],
                    row["respuesta_oro"],
                    _split(row["pasajes_oro"]),
                    _enum(QuestionType, row["tipo_pregunta"], path, line),
                    _bool(row["respondible"], path, line),
                    _split(row["id_doc"]),
                )
            )
    return out


def _split(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(LIST_SEPARATOR) if v.strip())


def _bool(value: str, path: Path, line: int) -> bool:
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise InputError(f"{path} (line {line}): respondible must be true/false, got {value!r}")


def _enum(kind, value: object, path: Path, where: int):  # noqa: ANN001, ANN202
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(k.value for k in kind)
        raise InputError(f"{path} (row {where}): {value!r} is not one of {allowed}") from None
