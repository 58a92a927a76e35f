"""The documents a build chunks: each file's :class:`Piece` (chunks, rows, vectors), the
local :class:`Work` that makes them, and the plan of what changed since the previous
generation (which files are new, changed, unchanged or gone)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pyarrow as pa

from finchunk.chunk import make_chunker
from finchunk.errors import FinchunkError
from finchunk.model import Document
from finchunk.records import chunk_table, document_records, metadata_json
from finchunk.retrieve.index.config import (
    BuildReport,
    IndexConfig,
    OnError,
    Progress,
    load_or_skip,
)
from finchunk.retrieve.index.layout import document_layout
from finchunk.retrieve.index.manifest import (
    DocEntry,
)
from finchunk.retrieve.index.sources import (  # the sources' names stay importable from here
    META_SUFFIX as META_SUFFIX,
)
from finchunk.retrieve.index.sources import (
    RACY_NS,
    Source,
)
from finchunk.retrieve.index.sources import (
    document_sources as document_sources,
)
from finchunk.retrieve.index.sources import (
    file_sources as file_sources,
)
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.lexical.bm25_stats import TermStats, count_terms
from finchunk.text.analysis import TextPipeline
from finchunk.text.metadata import canonical_metadata

if TYPE_CHECKING:  # the dense stack is imported by builds that embed, when they do
    from finchunk.retrieve.neural.dense import Embedder
    from finchunk.retrieve.neural.splade import Splade
    from finchunk.retrieve.neural.splade_impacts import Impacts


@dataclass
class Piece:
    """One document made from its source: its entry, chunk rows and documents row (and its
    chunks' vectors when the work that made it embedded them)."""

    entry: DocEntry
    table: pa.Table
    doc_row: dict[str, Any]
    vectors: np.ndarray | None = None
    impacts: Impacts | None = None  # its chunks' SPLADE impacts, when the build stores them


class Work(Protocol):
    """Where the per-document work runs: :class:`LocalWork` in this process, or a Dask
    cluster (:class:`finchunk.retrieve.backends.distributed.DaskWork`); the results are equal. A
    work reads documents as its ``on_error`` says: a document it skipped gives None in
    :meth:`pieces` and ``(source, reason)`` in ``skipped``; one read with a warning (bytes
    replaced) adds ``(source, warning)`` to ``warnings``. A build hands it ``batch``
    documents at a time (None: all at once), which bounds what it holds in memory."""

    on_error: OnError
    skipped: list[tuple[str, str]]
    warnings: list[tuple[str, str]]
    batch: int | None

    def pieces(
        self,
        sources: Sequence[Source],
        config: IndexConfig,
        embedder: Embedder | None,
        progress: Progress,
    ) -> list[Piece | None]: ...

    def term_stats(self, texts: Sequence[str], pipeline: TextPipeline) -> TermStats: ...


@dataclass
class LocalWork:
    """Parse and chunk document by document here; embedding is left to the build. With
    ``on_error`` SKIP a document that cannot be read gives None and ``(source, reason)`` in
    ``skipped``; a document read with a warning (bytes replaced) adds it to ``warnings``."""

    on_error: OnError = OnError.FAIL
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    batch: int | None = 64

    def pieces(
        self,
        sources: Sequence[Source],
        config: IndexConfig,
        embedder: Embedder | None,
        progress: Progress,
    ) -> list[Piece | None]:
        chunker = make_chunker(
            config.strategy, size=config.size, overlap=config.overlap, header=config.header
        )
        out: list[Piece | None] = []
        for src in sources:
            doc = load_or_skip(src, self.on_error, self.skipped, self.warnings)
            out.append(None if doc is None else fresh_piece(src, chunker, doc))
            progress.advance()
        return out

    def term_stats(self, texts: Sequence[str], pipeline: TextPipeline) -> TermStats:
        return count_terms(texts, pipeline)


def _doc_row(doc: Document, src: Source, meta: dict[str, str]) -> dict[str, Any]:
    return {
        "id": doc.id,
        "title": doc.title,
        "source": src.source,
        "sha256": src.sha256,
        "text": doc.text,
        "metadata": metadata_json(meta),
        "layout": document_layout(doc),
    }


def fresh_piece(src: Source, chunker: Any, doc: Document | None = None) -> Piece:
    """``src``'s rows in a new index (``doc``: its document, when already read), with the
    document's card made once, here (searches read it)."""
    from finchunk.retrieve.query.cards import card_text  # the retriever stack: not for a re-index

    doc = src.loader() if doc is None else doc
    records = document_records(doc, chunker.chunk(doc))
    meta = canonical_metadata(doc.metadata)
    entry = DocEntry(doc.id, doc.title, src.source, src.sha256, meta, 0, len(records))
    entry.card = card_text(doc.title or doc.id, meta)
    return Piece(entry, chunk_table(records), _doc_row(doc, src, meta))


def _settled(stat: Sequence[int] | None, started: int) -> list[int] | None:
    """``stat`` (as a list) when every modification time in it is safely older than the
    build started at ``started``, else None."""
    if stat is None or max(stat[1::2], default=-1) >= started - RACY_NS:
        return None
    return list(stat)


@dataclass
class _Planned:
    """One document of the new index: kept where it is (``source`` None), copied from an
    old segment (a merge), or made from its source; ``stat``: the file stat to record;
    ``dropped`` when it could not be read (skipped). A kept entry is the old manifest's
    own object: :func:`_publish_build` moves it once the new segment is written."""

    entry: DocEntry
    source: Source | None = None
    stat: list[int] | None = None
    dropped: bool = False


def _digest(src: Source) -> str:
    """The source's content hash; "" when it cannot be read (its loader then says why)."""
    try:
        return src.sha256
    except FinchunkError:
        return ""


def _plan(sources: Sequence[Source], old: Index | None) -> list[_Planned]:
    """Which documents are kept (same settled stat or content hash) and which are made
    again; nothing is parsed yet."""
    started = time.time_ns()
    old_docs = {d.id: d for d in old.manifest.documents} if old else {}
    plans = []
    for src in sources:
        prev = old_docs.get(src.doc_id)
        stat = None if src.stat is None else list(src.stat)
        same_stat = stat is not None and prev is not None and prev.stat == stat
        if prev is not None and (same_stat or prev.sha256 == _digest(src)):
            keep = prev.stat if stat is None else _settled(stat, started)
            plans.append(_Planned(prev, stat=keep))
        else:
            entry = DocEntry(src.doc_id, "", src.source, "", {}, 0, 0)
            entry.stat = _settled(stat, started)
            plans.append(_Planned(entry, src, entry.stat))
    return plans


def _report_plans(plans: list[_Planned], previous: set[str], report: BuildReport) -> None:
    for p in plans:
        if p.dropped:
            continue
        doc_id = p.entry.id
        if p.source is None:
            report.unchanged.append(doc_id)
        else:
            (report.updated if doc_id in previous else report.added).append(doc_id)


def _embed_missing(pieces: Sequence[Piece | None], embedder: Embedder | None) -> None:
    """Vectors for the pieces the work did not embed, one call for all of them."""
    todo = [p for p in pieces if p is not None and p.vectors is None]
    if embedder is None or not todo:
        return
    from finchunk.retrieve.neural.dense import embed_passages

    texts = [t for p in todo for t in p.table.column("text").to_pylist()]
    vectors = embed_passages(embedder, texts)
    start = 0
    for p in todo:
        p.vectors, start = vectors[start : start + p.entry.chunks], start + p.entry.chunks


def _encode_missing(pieces: Sequence[Piece | None], splade: Splade | None) -> None:
    """SPLADE impacts for the pieces that have none, here (whatever work made them: a
    Dask build's pieces are encoded as a local one's)."""
    todo = [p for p in pieces if p is not None and p.impacts is None]
    if splade is None or not todo:
        return
    from finchunk.retrieve.neural.splade_impacts import impacts

    for p in todo:
        p.impacts = impacts(splade, p.table.column("text").to_pylist())


def _batches(items: list[_Planned], size: int | None) -> list[list[_Planned]]:
    step = size if size and size > 0 else max(len(items), 1)
    return [items[i : i + step] for i in range(0, len(items), step)]
