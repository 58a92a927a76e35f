"""The lesson schema: documents, passages and questions tables, read and written here only.

Column names are the lesson's Spanish ones or their English twins (read either way, written
in Spanish):

* documents (parquet or CSV): ``id_doc, titulo, tipo, texto`` + metadata columns (the
  generator writes ``emisor, anio, idioma``), or ``doc_id, title, type, text``; every column
  but id, title and text becomes document metadata;
* passages (parquet or CSV): ``id_pasaje, id_doc, seccion, tipo, inicio, fin`` or
  ``passage_id, doc_id, section, type, start, end``; ``texto[inicio:fin]`` is the passage;
* questions (UTF-8 CSV, ``\\n`` line ends, RFC 4180 quoting): ``id_pregunta, pregunta,
  respuesta_oro, pasajes_oro, tipo_pregunta, respondible, id_doc`` or ``question_id,
  question, answer, gold_passages, question_type, answerable, doc_ids``. List cells
  (``pasajes_oro``, ``id_doc``) are joined by ``;``; in ``pasajes_oro``, passages joined
  by ``|`` are alternatives: one piece of evidence stated in several places (``p1;p2|p3``:
  two items, the second found in either ``p2`` or ``p3``). Booleans are written ``true`` /
  ``false`` and read from true/false, 1/0, yes/no, sí/no, t/f, y/n.

Errors name the file, the row (or line, or id) and the problem.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from finchunk.errors import InputError
from finchunk.files import atomic_output, read_bytes, whole_number
from finchunk.model import Document, Span
from finchunk.parse.markdown import parse_markdown

DOCUMENTS = "documents.parquet"
PASSAGES = "passages.parquet"
QUESTIONS = "questions.csv"
LIST_SEPARATOR = ";"
#: Between the alternative passages of one gold evidence item, inside a list item.
ALTERNATIVE_SEPARATOR = "|"

#: Spanish (written) column name → English name, in the order columns are written.
DOCUMENT_COLUMNS = {"id_doc": "doc_id", "titulo": "title", "tipo": "type", "texto": "text"}
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
_TRUE = frozenset({"true", "1", "yes", "si", "sí", "t", "y"})
_FALSE = frozenset({"false", "0", "no", "f", "n", ""})


@dataclass(frozen=True, slots=True)
class Passage:
    """A canonical passage: ``doc.text[start:end]`` of document ``doc_id``."""

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
    """A question; ``answerable`` is false when the file says so or it has no gold passage.

    ``items`` gives, for each gold passage, the 0-based evidence item it states; passages
    of one item are alternatives (the answer stated in several places). Empty: each
    passage is its own item."""

    id: str
    text: str
    answer: str
    gold: tuple[str, ...]  # passage ids
    type: str
    answerable: bool
    doc_ids: tuple[str, ...]
    items: tuple[int, ...] = ()


# --- cells -----------------------------------------------------------------------------------


def split_list(cell: Any) -> tuple[str, ...]:
    """A list cell: items separated by ``;`` (blank items dropped)."""
    if cell is None:
        return ()
    return tuple(s.strip() for s in str(cell).split(LIST_SEPARATOR) if s.strip())


def join_list(items: Iterable[str]) -> str:
    return LIST_SEPARATOR.join(items)


def split_gold(cell: Any) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """A gold-passages cell: the passage ids and, when some item has alternatives
    (``p2|p3``), each passage's item (else ``()``)."""
    gold: list[str] = []
    items: list[int] = []
    for item in split_list(cell):
        alternatives = [a.strip() for a in item.split(ALTERNATIVE_SEPARATOR) if a.strip()]
        items += [len(set(items))] * len(alternatives)
        gold += alternatives
    grouped = len(items) != len(set(items))
    return tuple(gold), tuple(items) if grouped else ()


def join_gold(gold: Sequence[str], items: Sequence[int]) -> str:
    """The cell :func:`split_gold` reads back."""
    if not items:
        return join_list(gold)
    by_item: dict[int, list[str]] = {}
    for passage, item in zip(gold, items, strict=True):
        by_item.setdefault(item, []).append(passage)
    return join_list(ALTERNATIVE_SEPARATOR.join(by_item[i]) for i in sorted(by_item))


def parse_bool(cell: Any, where: str) -> bool:
    """A boolean cell; ``where`` (file, line, column) prefixes the error."""
    v = str(cell).strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise InputError(f"{where} must be true/false, got {cell!r}")


def format_bool(value: bool) -> str:
    return "true" if value else "false"


# --- reading ---------------------------------------------------------------------------------


def _english(path: Path, names: Iterable[str], columns: Mapping[str, str]) -> list[str]:
    """The column names in English; an error when two name one column (``pregunta`` and
    ``question``, or one name twice): which one a reader took would be chance."""
    english = [columns.get(n, n) for n in names]
    seen: dict[str, str] = {}
    for name, given in zip(english, names, strict=True):
        if name in seen:
            what = (
                f"column {given!r} is given twice"
                if seen[name] == given
                else (f"columns {seen[name]!r} and {given!r} are both {name!r}")
            )
            raise InputError(f"{path}: {what}")
        seen[name] = given
    return english


def _require(
    path: Path, have: Sequence[str], needed: Sequence[str], columns: Mapping[str, str]
) -> None:
    """Every ``needed`` (English) column must be in ``have``; the error names both spellings."""
    spanish = {v: k for k, v in columns.items()}
    missing = [f"{spanish[n]}/{n}" if n in spanish else n for n in needed if n not in have]
    if missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(missing)} (found {', '.join(sorted(have))})"
        )


def read_table(
    path: str | Path, columns: Mapping[str, str], required: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """The rows of a parquet or CSV table (by suffix) with English column names; ``required``
    (English names) must be present."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    try:
        table = pacsv.read_csv(p) if p.suffix.lower() == ".csv" else pq.read_table(p)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{p}: cannot read table: {exc}") from exc
    names = _english(p, table.column_names, columns)
    _require(p, names, required, columns)
    return table.rename_columns(names).to_pylist()


def read_documents(path: str | Path) -> tuple[Document, ...]:
    """Documents of a documents table, parsed as Markdown (``Document.text`` is ``texto``)."""
    p = Path(path)
    docs = []
    seen: set[str] = set()
    for r in read_table(p, DOCUMENT_COLUMNS, ("doc_id", "text")):
        doc_id = str(r["doc_id"])
        _once(p, "document", doc_id, seen)
        seen.add(doc_id)
        text = r["text"]
        if not isinstance(text, str):
            raise InputError(f"{p}: document {doc_id!r} has no text")
        meta = {k: v for k, v in r.items() if k not in ("doc_id", "title", "text")}
        title = str(r.get("title") or doc_id)
        docs.append(
            parse_markdown(text, doc_id, title=title, metadata=meta, source=f"{p}#{doc_id}")
        )
    return tuple(docs)


def read_passages(
    path: str | Path, documents: Sequence[Document] | None = None
) -> dict[str, Passage]:
    """Passages by id. With ``documents``, each passage must name one of them and lie
    inside its text."""
    p = Path(path)
    lengths = {d.id: len(d.text) for d in documents} if documents is not None else None
    out: dict[str, Passage] = {}
    for r in read_table(p, PASSAGE_COLUMNS, ("passage_id", "doc_id", "start", "end")):
        pid, doc_id = str(r["passage_id"]), str(r["doc_id"])
        _once(p, "passage", pid, out)
        start, end = whole_number(r["start"]), whole_number(r["end"])
        if start is None or end is None:
            raise InputError(f"{p}: passage {pid!r} has no integer start and end")
        passage = Passage(
            pid, doc_id, start, end, str(r.get("section") or ""), str(r.get("type") or "")
        )
        if lengths is not None:
            if doc_id not in lengths:
                raise InputError(f"{p}: passage {pid!r} names unknown document {doc_id!r}")
            check_passage(p, passage, lengths[doc_id])
        out[pid] = passage
    return out


def _once(where: object, what: str, key: str, seen: Container[str]) -> None:
    """An error when ``key`` was read before (is in ``seen``): a second row with one id
    would replace or shadow the first without a word."""
    if key in seen:
        raise InputError(f"{where}: {what} id {key!r} is given twice")


def check_passage(path: Path, passage: Passage, length: int) -> None:
    """The passage's span must be non-empty and inside a text of ``length`` characters."""
    if not 0 <= passage.start < passage.end <= length:
        raise InputError(
            f"{path}: passage {passage.id!r} span {passage.span} is outside document "
            f"{passage.doc_id!r} of length {length}"
        )


def read_questions(
    path: str | Path,
    passages: Mapping[str, Passage] | None = None,
    required: Sequence[str] = ("question_id", "question", "gold_passages"),
) -> tuple[Question, ...]:
    """Questions of a questions CSV. With ``passages``, every gold passage must be one;
    ``required`` (English names) must be present."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    try:
        text = read_bytes(p).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: not UTF-8 text (at byte {exc.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, [])
        names = dict(zip(_english(p, header, QUESTION_COLUMNS), header, strict=True))
        _require(p, list(names), required, QUESTION_COLUMNS)
        out: list[Question] = []
        seen: set[str] = set()
        for row in reader:
            if not row:  # a blank line
                continue
            if len(row) > len(header):
                raise InputError(
                    f"{p} (line {reader.line_num}): {len(row)} fields, the header has {len(header)}"
                )
            cells = dict(zip(header, row, strict=False))
            out.append(_question(p, reader.line_num, cells, names, passages))
            _once(f"{p} (line {reader.line_num})", "question", out[-1].id, seen)
            seen.add(out[-1].id)
    except csv.Error as exc:  # an unclosed quote, a field over csv's size limit
        raise InputError(f"{p} (line {reader.line_num}): not CSV: {exc}") from None
    return tuple(out)


def _question(
    path: Path,
    line: int,
    row: Mapping[str, Any],
    names: Mapping[str, str],
    passages: Mapping[str, Passage] | None,
) -> Question:
    def cell(name: str) -> Any:
        return row.get(names[name]) if name in names else None

    for name in ("question_id", "question"):
        if name in names and cell(name) is None:
            raise InputError(f"{path} (line {line}): no {names[name]!r} field")
    qid = str(cell("question_id"))
    gold, items = split_gold(cell("gold_passages"))
    unknown = [g for g in gold if passages is not None and g not in passages]
    if unknown:
        raise InputError(
            f"{path} (line {line}): question {qid!r} cites unknown passage(s) {unknown}"
        )
    answerable = bool(gold)
    if "answerable" in names:
        where = f"{path} (line {line}): question {qid!r}: {names['answerable']}"
        answerable = parse_bool(cell("answerable"), where) and answerable
    return Question(
        qid,
        str(cell("question")),
        str(cell("answer") or ""),
        gold,
        str(cell("question_type") or ""),
        answerable,
        split_list(cell("doc_ids")),
        items,
    )


# --- writing ---------------------------------------------------------------------------------


def write_documents(
    path: str | Path, columns: Mapping[str, Sequence[Any]], types: Mapping[str, pa.DataType]
) -> None:
    """A documents table from columns named in English (``doc_id, title, type, text``) and
    metadata columns (names kept); ``types`` gives non-string columns. Written atomically."""
    spanish = {v: k for k, v in DOCUMENT_COLUMNS.items()}
    names = [spanish.get(n, n) for n in columns]
    schema = pa.schema(
        [(s, types.get(n, pa.string())) for s, n in zip(names, columns, strict=True)]
    )
    table = pa.table(dict(zip(names, columns.values(), strict=True)), schema=schema)
    with atomic_output(path) as tmp:
        pq.write_table(table, tmp)


def write_passages(path: str | Path, passages: Iterable[Passage]) -> None:
    """A passages table with the lesson's columns (``inicio``/``fin`` as int64)."""
    ps = list(passages)
    fields = {
        "id_pasaje": [p.id for p in ps],
        "id_doc": [p.doc_id for p in ps],
        "seccion": [p.section for p in ps],
        "tipo": [p.type for p in ps],
        "inicio": [p.start for p in ps],
        "fin": [p.end for p in ps],
    }
    ints = ("inicio", "fin")
    schema = pa.schema([(c, pa.int64() if c in ints else pa.string()) for c in fields])
    with atomic_output(path) as tmp:
        pq.write_table(pa.table(fields, schema=schema), tmp)


def write_questions(path: str | Path, questions: Iterable[Question]) -> None:
    """A questions CSV with the lesson's columns (``\\n`` line ends, RFC 4180 quoting)."""
    with atomic_output(path) as tmp, tmp.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(QUESTION_COLUMNS)
        for q in questions:
            writer.writerow(
                [
                    q.id,
                    q.text,
                    q.answer,
                    join_gold(q.gold, q.items),
                    q.type,
                    format_bool(q.answerable),
                    join_list(q.doc_ids),
                ]
            )
