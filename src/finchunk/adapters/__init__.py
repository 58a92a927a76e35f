"""Chunks in the formats other tools take: LangChain ``Document`` and LlamaIndex ``TextNode``.

Both adapters start from :class:`~finchunk.records.ChunkRecord` (what ``finchunk chunk``
writes and :func:`~finchunk.records.read_chunks` reads, or
:func:`~finchunk.records.document_records` of a document's chunks) and share one mapping of
a record onto a flat metadata dict, defined here:

* the text is the record's ``text``, what finchunk indexes: the context header line, then
  the span texts (no header line when the chunk has none);
* the metadata holds the record's fields (``chunk_id``, ``doc_id``, ``spans`` as
  ``[[start, end], ...]``, ``section``, ``page``, ``pages``, ``header``, ``kind``) and the
  document's metadata (canonical names, string values) beside them, flat, so that vector
  stores can filter on ``issuer`` or ``year``. A document field named like one of the
  record's is carried as ``doc_`` and its name (a PDF's page count ``pages`` as
  ``doc_pages``) and read back under its own; a document field already named so
  (``doc_kind``) is refused, as it would be read back as another.

Flat metadata (``flat=True``; what the framework classes of
:mod:`finchunk.adapters.langchain` and :mod:`finchunk.adapters.llama_index` write by
default) is for vector stores that take scalar values only (Chroma: ``str``, ``int``,
``float``, ``bool``; no ``None``, no nested lists): the list fields ``spans``, ``section``
and ``pages`` become JSON strings (``"[[0, 120], [130, 171]]"``), ``page`` is ``0`` when the
chunk has no page (pages are 1-based), and a search hit's ``citations`` a JSON string too.
Every record gets the same keys, with the same types. :func:`metadata_record` reads either
form back, and :func:`metadata_spans` gives the spans of either.

:mod:`finchunk.adapters.langchain` and :mod:`finchunk.adapters.llama_index` import their
framework only when called (``pip install 'finchunk[langchain]'`` / ``'finchunk[llama-index]'``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from finchunk.errors import InputError
from finchunk.records import ChunkRecord

if TYPE_CHECKING:
    from finchunk.retrieve.query.search import Hit

#: The metadata keys the adapters write for a record's own fields (``id`` as ``chunk_id``).
RECORD_KEYS = ("chunk_id", "doc_id", "spans", "section", "page", "pages", "header", "kind")
_REQUIRED = ("chunk_id", "doc_id", "spans")
#: The record's list fields, JSON strings in flat metadata.
_LISTS = ("spans", "section", "pages")
#: What a search hit adds to its chunk's metadata (``citations``: a list, JSON when flat).
HIT_KEYS = ("rank", "score", "title", "citations")
#: Keys the adapters add beside a record's fields (a hit's; LangChain splitters'
#: ``start_index``): left out when a record is read back from metadata.
ADDED_KEYS = (*HIT_KEYS, "start_index")


_DOC = "doc_"


def _record_key(key: str) -> str:
    """A document field's name as :func:`record_metadata` wrote it, read back."""
    name = key.removeprefix(_DOC)
    return name if key[:4] == _DOC and name in RECORD_KEYS else key


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def record_metadata(record: ChunkRecord, flat: bool = False) -> dict[str, Any]:
    """The metadata of ``record``: its fields (:data:`RECORD_KEYS`), then its document's
    metadata (a field named like a record key as ``doc_`` and its name; :class:`InputError`
    for a field named ``doc_`` and a record key). ``flat``: scalar values only (lists as
    JSON strings, no page as 0; see the module's text)."""
    row = record.to_json()
    out: dict[str, Any] = {"chunk_id": row.pop("id")}
    out.update((k, row[k]) for k in RECORD_KEYS[1:])
    if flat:
        out.update((k, _json(out[k])) for k in _LISTS)
        out["page"] = out["page"] or 0
    clash = sorted(k for k in record.metadata if _record_key(k) != k)
    if clash:
        raise InputError(
            f"{record.id}: document metadata field(s) {', '.join(clash)} clash with the "
            "chunk's own (doc_ and a chunk field); rename them in the document's metadata"
        )
    out.update((_DOC + k if k in RECORD_KEYS else k, v) for k, v in record.metadata.items())
    return out


def metadata_record(text: str, metadata: Mapping[str, Any], where: str) -> ChunkRecord:
    """The record that :func:`record_metadata` and ``text`` came from: the keys outside
    :data:`RECORD_KEYS` become the document metadata. ``where`` names it in errors."""
    missing = [k for k in _REQUIRED if k not in metadata]
    if missing:
        raise InputError(f"{where}: not a finchunk chunk (no {', '.join(missing)} in metadata)")
    obj = {k: metadata[k] for k in RECORD_KEYS if k in metadata}
    for k in _LISTS:
        if isinstance(obj.get(k), str):
            obj[k] = _decoded(obj[k], k, where)
    if obj.get("page") == 0:  # flat metadata's "no page"
        obj["page"] = None
    obj["id"] = obj.pop("chunk_id")
    obj["text"] = text
    obj["metadata"] = {
        _record_key(k): v
        for k, v in metadata.items()
        if k not in RECORD_KEYS and k not in ADDED_KEYS
    }
    return ChunkRecord.from_json(obj, where)


def _decoded(value: str, key: str, where: str) -> Any:
    try:
        out = json.loads(value)
    except ValueError:
        out = None
    if not isinstance(out, list):
        raise InputError(f"{where}: metadata {key!r} is neither a list nor a JSON list: {value!r}")
    return out


def metadata_spans(metadata: Mapping[str, Any], where: str = "chunk") -> list[tuple[int, int]]:
    """The ``(start, end)`` spans in metadata of either form (a list, or flat metadata's JSON
    string): ``doc.text[start:end]`` is each span's source."""
    if "spans" not in metadata:
        raise InputError(f"{where}: not a finchunk chunk (no spans in metadata)")
    raw = metadata["spans"]
    spans = _decoded(raw, "spans", where) if isinstance(raw, str) else raw
    return [(int(s), int(e)) for s, e in spans]


def hit_metadata(hit: Hit, flat: bool = False) -> dict[str, Any]:
    """A search hit's metadata: its chunk's (:func:`record_metadata`), then ``rank``,
    ``score``, ``title`` and ``citations`` (``doc.text[start:end]`` of each span, in order;
    a JSON string when ``flat``), which replace document fields of those names."""
    out = record_metadata(hit.record, flat)
    cited = list(hit.citations)
    out.update(
        rank=hit.rank, score=hit.score, title=hit.title, citations=_json(cited) if flat else cited
    )
    return out
