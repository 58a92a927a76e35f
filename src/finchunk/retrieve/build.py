"""Building an index: sources → parse → chunk → embed → segments and a new generation.

Re-indexing keeps the documents whose file stat or content hash is unchanged where they are
(in their segments) and writes the changed ones into one new segment
(:mod:`finchunk.retrieve.segments`); an unchanged folder writes nothing. Parsing, chunking
and embedding run on a :class:`Work` (here, or on a Dask cluster), a batch of documents at a
time, so memory stays bounded by a batch and a row group. The generation is written and
published by :mod:`finchunk.retrieve.store`, atomically. :func:`assemble` gives a whole
generation in memory instead, for stores written whole (PostgreSQL).
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pyarrow as pa

import finchunk
from finchunk import collector
from finchunk.chunk import Strategy, make_chunker
from finchunk.errors import FinchunkError, InputError
from finchunk.model import Document
from finchunk.records import CHUNK_SCHEMA, chunk_table, document_records, metadata_json
from finchunk.retrieve.bm25 import BM25Params, SegmentPart, corpus_stats
from finchunk.retrieve.bm25_stats import TermStats, count_terms
from finchunk.retrieve.metadata import canonical_metadata
from finchunk.retrieve.postings import Segment
from finchunk.retrieve.segments import (
    BM25_DIR,
    CARDS_DIR,
    CHUNKS,
    DOC_SCHEMA,
    SegmentBuilder,
    live_doc_freqs,
    read_rows,
)
from finchunk.retrieve.sources import (  # the sources' names stay importable from here
    META_SUFFIX as META_SUFFIX,
)
from finchunk.retrieve.sources import (
    RACY_NS,
    Source,
)
from finchunk.retrieve.sources import (
    document_sources as document_sources,
)
from finchunk.retrieve.sources import (
    file_sources as file_sources,
)
from finchunk.retrieve.store import (
    CURRENT,
    FORMAT,
    LIVE_CARD_DF,
    LIVE_DF,
    MANIFEST,
    DocEntry,
    Index,
    IndexMismatchError,
    Manifest,
    check_root,
    document_positions,
    index_array,
    live_generation,
    next_generation,
    publish,
    segment_positions,
    write_generation,
    writer_lock,
)
from finchunk.retrieve.text import TextPipeline

if TYPE_CHECKING:  # the dense stack is imported by builds that embed, when they do
    from finchunk.retrieve.dense import Embedder
    from finchunk.retrieve.splade import Impacts, Splade

# --- configuration ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IndexConfig:
    """How chunks are made and embedded (part of the manifest; a change rebuilds all), and
    BM25's parameters and text pipeline (stored in the manifest; search uses them; the BM25
    index is rebuilt from the chunk texts on every build)."""

    strategy: Strategy = Strategy.STRUCTURE
    size: int | None = None
    overlap: int | None = None
    header: bool = True
    model: str | None = None  # embedder name; None: no dense vectors
    bm25: BM25Params = BM25Params()
    splade: str | None = None  # SPLADE model whose impacts are stored; None: none

    def chunking(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy.value,
            "size": self.size,
            "overlap": self.overlap,
            "header": self.header,
        }


# --- progress ------------------------------------------------------------------------------------


class Progress(Protocol):
    def stage(self, name: str, total: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...


class NoProgress:
    def stage(self, name: str, total: int) -> None:
        return None

    def advance(self, n: int = 1) -> None:
        return None


def _manifest_for(config: IndexConfig, dim: int | None) -> Manifest:
    return Manifest(
        format=FORMAT,
        finchunk_version=finchunk.__version__,
        chunking=config.chunking(),
        bm25=asdict(config.bm25),
        dense={"model": config.model, "dim": dim} if config.model else None,
        splade=_splade_header(config.splade),
    )


def _splade_header(model: str | None) -> dict[str, Any] | None:
    if model is None:
        return None
    from finchunk.retrieve.splade import IMPACT_SCALE

    return {"model": model, "scale": IMPACT_SCALE}


# --- build -----------------------------------------------------------------------------------


class OnError(StrEnum):
    """What a document that cannot be read does to a run: stop it, or be skipped (and named)."""

    FAIL = "fail"
    SKIP = "skip"


def default_on_error(inputs: Sequence[str | Path]) -> OnError:
    """What a run does with a file it cannot read when not told: skip it (and name it) when
    an input is a folder, fail when every input is a file named one by one."""
    return OnError.SKIP if any(Path(p).is_dir() for p in inputs) else OnError.FAIL


def load_or_skip(
    src: Source,
    on_error: OnError,
    skipped: list[tuple[str, str]],
    warnings: list[tuple[str, str]] | None = None,
) -> Document | None:
    """The source's document; with ``SKIP``, None (and ``(source, reason)`` added to
    ``skipped``) when it cannot be read. A document read with a warning (bytes replaced)
    adds ``(source, warning)`` to ``warnings``."""
    try:
        doc = src.loader()
    except FinchunkError as exc:
        if on_error is OnError.FAIL:
            raise
        skipped.append((src.source, str(exc)))
        return None
    if warnings is not None and doc.metadata.get("warning"):  # a line each (a PDF's pages)
        warnings += [(src.source, w) for w in str(doc.metadata["warning"]).split("\n") if w]
    return doc


@dataclass
class BuildReport:
    path: Path | str  # a directory, or a database URL (password hidden)
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (source, reason)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (source, warning)
    chunks: int = 0
    rebuilt: str | None = None  # why every document was processed again, if so

    def summary(self) -> str:
        parts = [
            f"{len(self.added)} added",
            f"{len(self.updated)} updated",
            f"{len(self.unchanged)} unchanged",
            f"{len(self.removed)} removed",
            f"{self.chunks} chunks",
        ]
        if self.skipped:
            parts.insert(4, f"{len(self.skipped)} skipped")
        why = f" (full rebuild: {self.rebuilt})" if self.rebuilt else ""
        return ", ".join(parts) + why


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
    cluster (:class:`finchunk.retrieve.distributed.DaskWork`); the results are equal. A
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


#: Segments beyond this many are merged on the next build (the largest stays as it is).
MAX_SEGMENTS = 8


def _listing(sources: Sequence[Source]) -> str:
    """A digest of the sources' ids, paths and file stats, or "" unless every source has a
    stat that has settled (modified more than :data:`RACY_NS` ago): equal listings mean
    the same files, unchanged since the index recorded them."""
    started = time.time_ns()
    h = hashlib.sha256()
    for src in sources:
        if _settled(src.stat, started) is None:
            return ""
        h.update(f"{src.doc_id}\0{src.source}\0{src.stat}\n".encode())
    return h.hexdigest()


def _unchanged_header(root: Path, listing: str, config: IndexConfig) -> Manifest | None:
    """The live manifest's header when the index was built from exactly these files
    (``listing``), unchanged, with this configuration, else None: read from the header
    alone (a 10k-document folder is then listed and stat-ed, nothing else)."""
    gen = live_generation(root)
    if gen is None:
        return None
    try:
        head = Manifest.from_json(gen / MANIFEST, documents=False)
    except InputError:
        return None  # the full path says what is wrong
    same_config = (head.chunking, head.bm25, head.model, head.splade) == (
        config.chunking(),
        asdict(config.bm25),
        config.model,
        _splade_header(config.splade),
    )
    current = head.format == FORMAT and head.finchunk_version == finchunk.__version__
    return head if same_config and current and head.listing == listing else None


def _previous(root: Path, config: IndexConfig) -> tuple[Index | None, str | None, set[str]]:
    """The live index when its chunks and vectors can be reused (else why not), and the ids
    of the documents it holds."""
    gen = live_generation(root)
    if gen is None:
        return None, None, set()
    manifest = Manifest.from_json(gen / MANIFEST)
    ids = {d.id for d in manifest.documents}
    try:
        old = Index.open(root, manifest, hold=False)  # a held generation would stay
    except IndexMismatchError as exc:
        return None, str(exc), ids
    m = old.manifest
    if m.chunking != config.chunking():
        return None, f"chunking changed from {m.chunking} to {config.chunking()}", ids
    if m.model != config.model:
        return None, f"model changed from {m.model} to {config.model}", ids
    if m.splade != _splade_header(config.splade):
        was, now = m.splade_model or "none", config.splade or "none"
        return None, f"SPLADE impacts changed from {was} to {now}", ids
    return old, None, ids


def _doc_row(doc: Document, src: Source, meta: dict[str, str]) -> dict[str, Any]:
    return {
        "id": doc.id,
        "title": doc.title,
        "source": src.source,
        "sha256": src.sha256,
        "text": doc.text,
        "metadata": metadata_json(meta),
    }


def fresh_piece(src: Source, chunker: Any, doc: Document | None = None) -> Piece:
    """``src``'s rows in a new index (``doc``: its document, when already read), with the
    document's card made once, here (searches read it)."""
    from finchunk.retrieve.cards import card_text  # the retriever stack: not for a re-index

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


class _Writer:
    """Fills the new segment in source order: fresh documents as the work made them
    (embedded here when the work did not), kept ones copied from their old segments (a
    merge)."""

    def __init__(
        self,
        builder: SegmentBuilder,
        old: Index | None,
        embedder: Embedder | None,
        splade: bool = False,
    ):
        self.builder, self.old, self.embedder, self.splade = builder, old, embedder, splade
        self._old_rows: dict[str, pa.Table] = {}
        self._old_docs: dict[str, dict[str, Any]] | None = None

    def fresh(self, plan: _Planned, piece: Piece) -> None:
        e, made = plan.entry, piece.entry
        e.title, e.sha256, e.metadata, e.card = made.title, made.sha256, made.metadata, made.card
        e.chunks = made.chunks
        self._place(e, piece.table, piece.doc_row, piece.vectors, piece.impacts)

    def copy(self, plan: _Planned) -> None:
        """A kept document moved into the new segment (merge): its rows, not its source."""
        old, e = self.old, plan.entry
        if old is None:
            raise InputError(f"{e.id}: no previous index to copy it from")
        if e.segment not in self._old_rows:
            self._old_rows[e.segment] = old.segment_rows(e.segment)
        if self._old_docs is None:
            self._old_docs = old.document_rows()
        table = self._old_rows[e.segment].slice(e.segment_row, e.chunks)
        vectors = None
        if self.embedder is not None:  # e.first_chunk is still its old position
            vectors = np.asarray(old.vectors()[e.first_chunk : e.first_chunk + e.chunks])
        impacts = None
        if self.splade:  # the old index stores them: _previous rebuilds all when it does not
            impacts = old.splade_impacts(np.arange(e.first_chunk, e.first_chunk + e.chunks))
        self._place(e, table, self._old_docs[e.id], vectors, impacts)

    def _place(
        self,
        e: DocEntry,
        table: pa.Table,
        row: dict[str, Any],
        vectors: np.ndarray | None,
        impacts: Impacts | None = None,
    ) -> None:
        e.segment = self.builder.name
        e.segment_row, e.doc_row = self.builder.add(table, row, vectors, e.card, impacts)


def _embed_missing(pieces: Sequence[Piece | None], embedder: Embedder | None) -> None:
    """Vectors for the pieces the work did not embed, one call for all of them."""
    todo = [p for p in pieces if p is not None and p.vectors is None]
    if embedder is None or not todo:
        return
    from finchunk.retrieve.dense import embed_passages

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
    from finchunk.retrieve.splade import impacts

    for p in todo:
        p.impacts = impacts(splade, p.table.column("text").to_pylist())


def _batches(items: list[_Planned], size: int | None) -> list[list[_Planned]]:
    step = size if size and size > 0 else max(len(items), 1)
    return [items[i : i + step] for i in range(0, len(items), step)]


@dataclass(frozen=True)
class _Run:
    """What a build runs with: its configuration, work, embedder and progress."""

    config: IndexConfig
    work: Work
    embedder: Embedder | None
    progress: Progress
    splade: Splade | None = None


def _unchanged(plans: list[_Planned], old: Index | None, config: IndexConfig) -> bool:
    """True when the index already holds exactly these documents, in this order."""
    if old is None or any(p.source is not None for p in plans):
        return False
    m = old.manifest
    same = [(p.entry.id, p.stat) for p in plans] == [(d.id, d.stat) for d in m.documents]
    return same and m.bm25 == asdict(config.bm25)


def _merged_segments(plans: list[_Planned], everything: bool) -> set[str]:
    """The old segments whose kept documents move into the new one: all of them when
    ``everything`` (their postings are stale); when more than :data:`MAX_SEGMENTS` would
    be live, all but the largest, which is kept as it is if it holds at least half the
    kept chunks (Lucene's tiered merging, in short: an update never rewrites the bulk of
    the index just because small segments piled up); else none."""
    live: dict[str, int] = {}
    for p in plans:
        if p.source is None:
            live[p.entry.segment] = live.get(p.entry.segment, 0) + p.entry.chunks
    if everything:
        return set(live)
    if len(live) + 1 <= MAX_SEGMENTS:
        return set()
    largest = max(sorted(live), key=lambda s: live[s])
    if 2 * live[largest] >= sum(live.values()):
        return set(live) - {largest}
    return set(live)


def _write_segment(
    root: Path, plans: list[_Planned], old: Index | None, run: _Run
) -> tuple[str, int] | None:
    """The new segment (name, rows): every fresh document, and in a merge every kept one
    too, a batch of sources at a time on the run's work; None when there is nothing to
    write (documents that could not be read are marked ``dropped``)."""
    stale_bm25 = old is not None and old.manifest.bm25 != asdict(run.config.bm25)
    merged = _merged_segments(plans, everything=stale_bm25)
    todo = [p for p in plans if p.source is not None or p.entry.segment in merged]
    if not todo:
        return None
    builder = SegmentBuilder(root, next_generation(root, "s"), run.config.bm25)
    writer = _Writer(builder, old, run.embedder, run.splade is not None)
    run.progress.stage("parsing, chunking and writing", len(todo))
    try:
        for batch in _batches(todo, run.work.batch):
            fresh = [p.source for p in batch if p.source is not None]
            made = run.work.pieces(fresh, run.config, run.embedder, run.progress)
            _embed_missing(made, run.embedder)
            _encode_missing(made, run.splade)
            pieces = iter(made)
            for p in batch:
                if p.source is None:
                    writer.copy(p)
                    run.progress.advance()
                elif (piece := next(pieces)) is None:
                    p.dropped = True
                else:
                    writer.fresh(p, piece)
        if not builder.docs:
            builder.abort()
            return None
        builder.finish(run.embedder.dim if run.embedder else None, run.splade is not None)
    except BaseException:
        builder.abort()
        raise
    return builder.name, builder.rows


def _not_given(sources: Sequence[Source], previous: set[str]) -> list[str]:
    """The indexed documents ``sources`` lack (sorted)."""
    given = {s.doc_id for s in sources}
    return sorted(d for d in previous if d not in given)


def _check_removals(
    root: Path, sources: Sequence[Source], previous: set[str], prune: bool
) -> list[str]:
    """The indexed documents not given again: removed only with ``prune``, else an error
    that names them (an index is updated, never emptied of documents by a mistyped path)."""
    gone = _not_given(sources, previous)
    if gone and not prune:
        shown = ", ".join(gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
        raise InputError(
            f"{root}: {len(gone)} indexed document(s) not given again ({shown}); "
            "give them too, or pass --prune to remove them"
        )
    return gone


def _live_parts(
    root: Path,
    manifest: Manifest,
    positions: dict[str, np.ndarray | None],
    old: Index | None,
    params: BM25Params,
) -> tuple[list[SegmentPart], dict[str, np.ndarray]]:
    """The new generation's segments as BM25 parts (rows at ``positions``), and the live
    document frequencies of those with rows no longer live (corrected by the chunks
    removed since ``old``)."""
    parts, live_df = [], {}
    for name, size in manifest.segments.items():
        segment = Segment.load(root / name / BM25_DIR)
        pos = positions[name]
        if pos is None or (pos >= 0).all():
            parts.append(SegmentPart(segment, pos))
            continue
        base, was_live = segment.doc_freqs, np.ones(size, dtype=bool)
        if old is not None and name in old.manifest.segments:
            was_live = old.positions[name] is None or old.positions[name] >= 0
            was_live = np.broadcast_to(was_live, size)
            if name in old.manifest.live_df:
                base = np.array(index_array(old.gen / LIVE_DF / f"{name}.npy"))
        removed = np.flatnonzero(was_live & (pos < 0))
        gone = read_rows(root / name / CHUNKS, removed, ["text"]).column("text").to_pylist()
        live_df[name] = live_doc_freqs(segment, base, gone, params)
        parts.append(SegmentPart(segment, pos, live_df[name]))
    return parts, live_df


def _live_card_parts(
    root: Path, manifest: Manifest, old: Index | None, params: BM25Params
) -> tuple[list[SegmentPart], dict[str, np.ndarray]]:
    """The new generation's card postings as BM25 parts (documents rows at their document
    positions), and the live document frequencies of those with rows no longer live: the
    old generation's, less the cards of its documents no longer live (replaced or
    removed; a document moved by a merge leaves a segment the new generation drops)."""
    segments = {name: Segment.load(root / name / CARDS_DIR) for name in manifest.segments}
    positions = document_positions(manifest, {n: s.size for n, s in segments.items()})
    dead = {n: p for n, p in positions.items() if p is not None and bool((p < 0).any())}
    gone: dict[str, list[str]] = {}
    if old is not None and dead:
        for d in old.manifest.documents:  # its row is dead now: replaced or removed
            if d.segment in dead and dead[d.segment][d.doc_row] < 0:
                gone.setdefault(d.segment, []).append(d.card)
    parts, card_df = [], {}
    for name, segment in segments.items():
        pos = positions[name]
        if name not in dead:
            parts.append(SegmentPart(segment, pos))
            continue
        base = segment.doc_freqs
        if old is not None and name in old.manifest.live_card_df:
            base = np.array(index_array(old.gen / LIVE_CARD_DF / f"{name}.npy"))
        card_df[name] = live_doc_freqs(segment, base, gone.get(name, []), params)
        parts.append(SegmentPart(segment, pos, card_df[name]))
    return parts, card_df


@dataclass
class Assembled:
    """A whole generation in memory: what a store written whole (PostgreSQL) writes."""

    report: BuildReport
    manifest: Manifest
    chunks: pa.Table
    docs: pa.Table
    texts: list[str]
    vectors: np.ndarray | None
    stats: TermStats


def assemble(
    sources: Sequence[Source],
    report: BuildReport,
    config: IndexConfig,
    previous: set[str],
    work: Work,
    embedder: Embedder | None,
    progress: Progress,
) -> Assembled:
    """Parse, chunk and embed every source (on ``work``) and count BM25's statistics;
    ``previous``: the ids the store holds now (for the report)."""
    progress.stage("parsing and chunking", len(sources))
    before = len(work.skipped), len(work.warnings)
    made = work.pieces(sources, config, embedder, progress)
    report.skipped += work.skipped[before[0] :]
    report.warnings += work.warnings[before[1] :]
    pieces = [p for p in made if p is not None]
    for p in pieces:
        (report.updated if p.entry.id in previous else report.added).append(p.entry.id)
    report.removed = _not_given(sources, previous)
    _embed_missing(pieces, embedder)
    pos = 0
    for p in pieces:
        p.entry.first_chunk, pos = pos, pos + p.entry.chunks
    tables = [p.table.cast(CHUNK_SCHEMA) for p in pieces]
    chunks = pa.concat_tables(tables) if tables else CHUNK_SCHEMA.empty_table()
    manifest = _manifest_for(replace(config, splade=None), embedder.dim if embedder else None)
    manifest.documents = [p.entry for p in pieces]
    manifest.chunks = report.chunks = chunks.num_rows
    texts = chunks.column("text").to_pylist()
    vectors = None
    if embedder is not None:
        parts = [np.asarray(p.vectors, dtype=np.float32) for p in pieces if p.vectors is not None]
        vectors = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), np.float32)
    progress.stage("counting terms", 1)
    stats = work.term_stats(texts, config.bm25.text)
    progress.advance()
    docs = pa.Table.from_pylist([p.doc_row for p in pieces], schema=DOC_SCHEMA)
    return Assembled(report, manifest, chunks, docs, texts, vectors, stats)


def resolve_embedder(
    config: IndexConfig, embedder: Embedder | None
) -> tuple[IndexConfig, Embedder | None]:
    """The embedder the configuration names (or the one given, whose name it then takes)."""
    if config.model and embedder is None:
        from finchunk.retrieve.dense import make_embedder

        embedder = make_embedder(config.model)
    if embedder is not None and config.model != embedder.name:
        config = replace(config, model=embedder.name)
    return config, embedder


def resolve_splade(config: IndexConfig) -> Splade | None:
    """The SPLADE model whose impacts the build stores (None: it stores none); the
    configuration names the installed one (:func:`splade_config`)."""
    if config.splade is None:
        return None
    from finchunk.retrieve.splade import load_splade

    splade = load_splade()
    if splade.name != config.splade:
        raise InputError(f"SPLADE model {config.splade} is asked for, {splade.name} installed")
    return splade


def splade_config(config: IndexConfig, store: bool | None) -> IndexConfig:
    """``config`` storing SPLADE impacts when ``store`` says (None: when the splade extra
    is installed); ``store`` True without the extra is the extra's own error."""
    from finchunk.errors import MissingExtraError
    from finchunk.retrieve.splade import load_splade

    if store is False:
        return replace(config, splade=None)
    try:
        name = load_splade().name
    except MissingExtraError:
        if store:
            raise
        return replace(config, splade=None)
    return replace(config, splade=name)


def build_index(
    sources: Sequence[Source],
    root: str | Path,
    config: IndexConfig = IndexConfig(),
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    work: Work | None = None,
    prune: bool = False,
    on_error: OnError = OnError.FAIL,
) -> BuildReport:
    """Create or update the index at ``root`` from ``sources`` (atomically): documents
    whose content changed go into one new segment, an unchanged index is left alone.
    ``work``: where parsing, chunking and embedding run (default: here, reading documents
    as ``on_error`` says; a work given reads them as its own ``on_error`` says).

    Documents of the index that ``sources`` lack are removed only with ``prune`` (else
    InputError). With ``on_error`` SKIP a document that cannot be read is left out and
    listed in the report's ``skipped``; nothing is written when no document is left."""
    root = Path(root)
    config, embedder = resolve_embedder(config, embedder)
    check_root(root)
    created = not root.exists()
    try:
        root.mkdir(parents=True, exist_ok=True)  # the writer's lock lives in it
        with writer_lock(root):
            report = _build(sources, root, config, embedder, progress, work, prune, on_error)
    except BaseException as exc:
        if created:
            shutil.rmtree(root, ignore_errors=True)
        if isinstance(exc, OSError) and _writing(exc, root):  # a full disk, a read-only place
            raise InputError(f"{root}: cannot write the index: {exc.strerror or exc}") from exc
        raise
    if created and not (root / CURRENT).is_file():  # nothing was written
        shutil.rmtree(root, ignore_errors=True)
    return report


def build_into(
    sources: Sequence[Source],
    target: str | Path,
    config: IndexConfig = IndexConfig(),
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    work: Work | None = None,
    prune: bool = False,
    on_error: OnError = OnError.FAIL,
) -> BuildReport:
    """Build into PostgreSQL (``target`` a ``postgresql://`` URL: a whole generation each
    time; ``prune`` does not apply) or the index folder ``target`` (:func:`build_index`):
    what ``finchunk index`` runs."""
    from finchunk.files import is_database_url

    if is_database_url(target):
        from finchunk.retrieve.pgstore import build_pg_index

        return build_pg_index(
            sources,
            str(target),
            config,
            embedder=embedder,
            progress=progress,
            work=work,
            on_error=on_error,
        )
    return build_index(
        sources,
        target,
        config,
        embedder=embedder,
        progress=progress,
        work=work,
        prune=prune,
        on_error=on_error,
    )


def _writing(exc: OSError, root: Path) -> bool:
    """Whether ``exc`` failed a write of the index at ``root`` (its file is there, or not
    named: a write to an open file), not a read of an input document."""
    name = exc.filename
    return name is None or Path(str(name)).absolute().is_relative_to(root.absolute())


def _build(
    sources: Sequence[Source],
    root: Path,
    config: IndexConfig,
    embedder: Embedder | None,
    progress: Progress | None,
    work: Work | None,
    prune: bool,
    on_error: OnError,
) -> BuildReport:
    """:func:`build_index` with the index's writer lock held and ``root`` made."""
    report = BuildReport(root)
    with collector.paused():  # the 10k-entry document lists: no cycles
        listing = _listing(sources)
        head = _unchanged_header(root, listing, config) if listing else None
        if head is not None:
            report.unchanged = [s.doc_id for s in sources]
            report.chunks = head.chunks
            return report
        old, report.rebuilt, previous = _previous(root, config)
        report.removed = _check_removals(root, sources, previous, prune)
        plans = _plan(sources, old)
    if _unchanged(plans, old, config) and old is not None:
        _report_plans(plans, previous, report)
        report.chunks = old.size
        return report
    work = work or LocalWork(on_error)
    run = _Run(config, work, embedder, progress or NoProgress(), resolve_splade(config))
    _publish_build(root, plans, old, run, listing)
    report.skipped += work.skipped
    report.warnings += work.warnings
    _report_plans(plans, previous, report)
    report.chunks = sum(p.entry.chunks for p in plans if not p.dropped)
    return report


def _publish_build(
    root: Path, plans: list[_Planned], old: Index | None, run: _Run, listing: str
) -> None:
    """Write the new segment and a generation over the plans' documents (``listing``: the
    sources' :func:`_listing`), and publish it."""
    written = _write_segment(root, plans, old, run)
    with collector.paused():  # the 10k-entry document lists: no cycles
        _publish_generation(root, plans, old, run, (written, listing))


def _publish_generation(
    root: Path,
    plans: list[_Planned],
    old: Index | None,
    run: _Run,
    made: tuple[tuple[str, int] | None, str],
) -> None:
    """The generation over the plans' documents (``made``: the new segment, if any, and
    the sources' listing), written and published."""
    written, listing = made
    # From here the old index is read through its header and stored arrays only, so its
    # kept entries are updated in place (copying 10k of them cost a tenth of an update).
    for p in plans:
        if p.source is None:
            p.entry.stat = p.stat
    live = [p for p in plans if not p.dropped]
    if not live:
        raise InputError(f"{root}: no document could be read; the index is left as it was")
    manifest = _manifest_for(run.config, run.embedder.dim if run.embedder else None)
    pos = 0
    for p in live:
        p.entry.first_chunk, pos = pos, pos + p.entry.chunks
    manifest.documents = [p.entry for p in live]
    manifest.chunks = pos
    sizes = dict(old.manifest.segments) if old else {}
    if written:
        sizes[written[0]] = written[1]
    used = {p.entry.segment for p in live}
    manifest.segments = {s: n for s, n in sorted(sizes.items()) if s in used}
    run.progress.stage("writing index", 1)
    manifest.listing = "" if len(live) < len(plans) else listing  # retry what was skipped
    positions = segment_positions(manifest)
    parts, live_df = _live_parts(root, manifest, positions, old, run.config.bm25)
    manifest.bm25_stats = asdict(corpus_stats(parts))
    card_parts, card_df = _live_card_parts(root, manifest, old, run.config.bm25)
    manifest.card_stats = asdict(corpus_stats(card_parts))
    gen_name = next_generation(root)
    stored = {name: pos for name, pos in positions.items() if pos is not None}
    write_generation(root, gen_name, manifest, live_df, stored, card_df)
    run.progress.advance()
    publish(root, gen_name, list(manifest.segments))
