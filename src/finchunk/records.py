"""The chunk record: one serialisation of a chunk for every output that carries chunks.

``finchunk chunk`` (JSONL, or Parquet when the output ends with ``.parquet``), the index's
``chunks.parquet`` and ``finchunk search --json`` hits all hold these fields:

=========  ==============================================================================
id         deterministic chunk id (:func:`finchunk.model.chunk_id`)
doc_id     the document the spans index into
spans      ``[[start, end], ...]``: ``doc.text[start:end]`` is each span's source
section    the section path (heading texts), outermost first
page       the first page (null without pages); kept for compatibility, = ``pages[0]``
pages      every 1-based page the spans touch, in order
header     the context header line ("" when none)
text       what is indexed: the header line, then the span texts joined by a blank line
kind       a :class:`~finchunk.model.ChunkKind` value
metadata   the document's metadata, canonical field names, values as strings
=========  ==============================================================================

In Arrow (:data:`CHUNK_SCHEMA`) ``metadata`` is a JSON string; in JSON lines it is an object.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from finchunk.errors import InputError
from finchunk.files import atomic_output, loads, read_jsonl, whole_number
from finchunk.model import Chunk, ChunkKind, Document, Span
from finchunk.text.metadata import canonical_metadata

PARQUET_SUFFIX = ".parquet"

CHUNK_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("doc_id", pa.string()),
        ("spans", pa.list_(pa.list_(pa.int64()))),
        ("section", pa.list_(pa.string())),
        ("page", pa.int32()),
        ("pages", pa.list_(pa.int32())),
        ("header", pa.string()),
        ("text", pa.string()),
        ("kind", pa.string()),
        ("metadata", pa.string()),
    ]
)
FIELDS = tuple(CHUNK_SCHEMA.names)
_REQUIRED = ("id", "doc_id", "spans", "text")


def metadata_json(metadata: Mapping[str, Any]) -> str:
    """The one JSON encoding of metadata stored in Arrow tables (sorted keys, UTF-8)."""
    return json.dumps(dict(metadata), ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A chunk as written out: the chunk's fields plus its document's metadata."""

    id: str
    doc_id: str
    spans: tuple[Span, ...]
    text: str
    section: tuple[str, ...] = ()
    pages: tuple[int, ...] = ()
    header: str = ""
    kind: ChunkKind = ChunkKind.TEXT
    metadata: Mapping[str, str] = field(default_factory=dict)

    @property
    def page(self) -> int | None:
        return self.pages[0] if self.pages else None

    @classmethod
    def from_chunk(cls, chunk: Chunk, metadata: Mapping[str, str] | None = None) -> ChunkRecord:
        return cls(
            chunk.id,
            chunk.doc_id,
            chunk.spans,
            chunk.text,
            chunk.section,
            chunk.pages,
            chunk.header,
            chunk.kind,
            dict(metadata or {}),
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON-line object: every field, ``metadata`` as an object."""
        return {
            "id": self.id,
            "doc_id": self.doc_id,
            "spans": [list(s) for s in self.spans],
            "section": list(self.section),
            "page": self.page,
            "pages": list(self.pages),
            "header": self.header,
            "text": self.text,
            "kind": self.kind.value,
            "metadata": dict(self.metadata),
        }

    def to_row(self) -> dict[str, Any]:
        """The Arrow row (:data:`CHUNK_SCHEMA`): ``metadata`` as a JSON string."""
        return {**self.to_json(), "metadata": metadata_json(self.metadata)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], where: str = "chunk") -> ChunkRecord:
        """A record from a JSON line; fields added after the first format default (pages
        from ``page``, kind ``text``, no metadata). ``where`` names the line in errors."""
        missing = [k for k in _REQUIRED if k not in obj]
        if missing:
            raise InputError(f"{where}: missing field(s) {', '.join(missing)}")
        page = obj.get("page")
        pages = obj.get("pages", [page] if page is not None else [])
        try:
            return cls(
                str(obj["id"]),
                str(obj["doc_id"]),
                tuple((_int(s), _int(e)) for s, e in obj["spans"]),
                str(obj["text"]),
                tuple(str(s) for s in obj.get("section") or ()),
                tuple(_int(p) for p in pages or ()),
                str(obj.get("header") or ""),
                ChunkKind(obj.get("kind") or ChunkKind.TEXT),
                _metadata(obj.get("metadata")),
            )
        except (TypeError, ValueError) as exc:
            raise InputError(f"{where}: not a chunk record ({exc})") from exc

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ChunkRecord:
        """A record from an Arrow row of :data:`CHUNK_SCHEMA`."""
        return cls(
            row["id"],
            row["doc_id"],
            tuple((s, e) for s, e in row["spans"]),
            row["text"],
            tuple(row["section"]),
            tuple(row["pages"]),
            row["header"],
            ChunkKind(row["kind"]),
            json.loads(row["metadata"] or "{}"),
        )


def _int(cell: Any) -> int:
    """A whole number of a chunk line, or ValueError (``1.5`` is not read as 1)."""
    n = whole_number(cell)
    if n is None:
        raise ValueError(f"{cell!r} is not a whole number")
    return n


def _metadata(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, str):
        value = loads(value)
    if not isinstance(value, dict):
        raise ValueError("metadata must be an object")
    return {str(k): str(v) for k, v in value.items()}


def document_records(doc: Document, chunks: Iterable[Chunk]) -> list[ChunkRecord]:
    """Records of ``doc``'s chunks, carrying its metadata in canonical form."""
    meta = canonical_metadata(doc.metadata)
    return [ChunkRecord.from_chunk(c, meta) for c in chunks]


def chunk_table(records: Sequence[ChunkRecord]) -> pa.Table:
    """The Arrow table of records (the index's ``chunks.parquet``)."""
    rows = [r.to_row() for r in records]
    return pa.Table.from_pylist(rows, schema=CHUNK_SCHEMA)


def table_records(table: pa.Table) -> list[ChunkRecord]:
    """The records of an Arrow table of :data:`CHUNK_SCHEMA`."""
    return [ChunkRecord.from_row(r) for r in table.to_pylist()]


def write_chunks(path: str | Path, records: Iterable[ChunkRecord]) -> int:
    """Write records as Parquet when ``path`` ends with ``.parquet``, else as JSON lines;
    atomically (a failed run leaves no output). Returns how many were written."""
    p = Path(path)
    with atomic_output(p) as tmp:
        if p.suffix.lower() == PARQUET_SUFFIX:
            rows = list(records)
            pq.write_table(chunk_table(rows), tmp)
            return len(rows)
        n = 0
        with tmp.open("w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r.to_json(), ensure_ascii=False) + "\n")
                n += 1
    return n


def read_chunks(path: str | Path) -> list[ChunkRecord]:
    """Read what :func:`write_chunks` wrote (Parquet or JSON lines, by suffix)."""
    p = Path(path)
    if p.suffix.lower() != PARQUET_SUFFIX:
        return [ChunkRecord.from_json(obj, f"{p}:{n}") for n, obj in read_jsonl(p)]
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    try:
        table = pq.read_table(p)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"{p}: not a readable parquet file ({exc})") from exc
    missing = [c for c in FIELDS if c not in table.column_names]
    if missing:
        raise InputError(f"{p}: missing column(s) {', '.join(missing)}")
    return table_records(table.select(list(FIELDS)))
