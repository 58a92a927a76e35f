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
  record's is refused rather than overwritten.

:mod:`finchunk.adapters.langchain` and :mod:`finchunk.adapters.llama_index` import their
framework only when called (``pip install 'finchunk[langchain]'`` / ``'finchunk[llama-index]'``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finchunk.errors import InputError
from finchunk.records import ChunkRecord

#: The metadata keys the adapters write for a record's own fields (``id`` as ``chunk_id``).
RECORD_KEYS = ("chunk_id", "doc_id", "spans", "section", "page", "pages", "header", "kind")
_REQUIRED = ("chunk_id", "doc_id", "spans")


def record_metadata(record: ChunkRecord) -> dict[str, Any]:
    """The flat metadata of ``record``: its fields (:data:`RECORD_KEYS`), then its
    document's metadata; :class:`InputError` when a document field shadows a record key."""
    row = record.to_json()
    out: dict[str, Any] = {"chunk_id": row.pop("id")}
    out.update((k, row[k]) for k in RECORD_KEYS[1:])
    clash = sorted(k for k in record.metadata if k in out)
    if clash:
        raise InputError(
            f"{record.id}: document metadata field(s) {', '.join(clash)} clash with the "
            "chunk's own; rename them in the document's metadata"
        )
    out.update(record.metadata)
    return out


def metadata_record(text: str, metadata: Mapping[str, Any], where: str) -> ChunkRecord:
    """The record that :func:`record_metadata` and ``text`` came from: the keys outside
    :data:`RECORD_KEYS` become the document metadata. ``where`` names it in errors."""
    missing = [k for k in _REQUIRED if k not in metadata]
    if missing:
        raise InputError(f"{where}: not a finchunk chunk (no {', '.join(missing)} in metadata)")
    obj = {k: metadata[k] for k in RECORD_KEYS if k in metadata}
    obj["id"] = obj.pop("chunk_id")
    obj["text"] = text
    obj["metadata"] = {k: v for k, v in metadata.items() if k not in RECORD_KEYS}
    return ChunkRecord.from_json(obj, where)
