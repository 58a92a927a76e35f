"""Building an index: sources → parse → chunk → embed → segments and a new generation.

Re-indexing keeps the documents whose file stat or content hash is unchanged where they are
(in their segments) and writes the changed ones into one new segment
(:mod:`finchunk.retrieve.index.segments`); an unchanged folder writes nothing. Parsing, chunking
and embedding run on a :class:`Work` (here, or on a Dask cluster), a batch of documents at a
time, so memory stays bounded by a batch and a row group. The generation is written and
published by :mod:`finchunk.retrieve.index.store`, atomically. :func:`assemble` gives a whole
generation in memory instead, for stores written whole (PostgreSQL).
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

import finchunk
from finchunk import collector
from finchunk.errors import InputError
from finchunk.retrieve.index.assemble import (
    _check_removals,
    _live_card_parts,
    _live_parts,
)
from finchunk.retrieve.index.config import (
    BuildReport,
    IndexConfig,
    NoProgress,
    OnError,
    Progress,
    _manifest_for,
    _splade_header,
    resolve_embedder,
    resolve_splade,
)
from finchunk.retrieve.index.manifest import (
    CURRENT,
    FORMAT,
    MANIFEST,
    DocEntry,
    IndexMismatchError,
    Manifest,
    check_root,
    live_generation,
    next_generation,
    publish,
    segment_positions,
    write_generation,
)
from finchunk.retrieve.index.pieces import (
    LocalWork,
    Piece,
    Work,
    _batches,
    _embed_missing,
    _encode_missing,
    _plan,
    _Planned,
    _report_plans,
    _settled,
)
from finchunk.retrieve.index.segments import (
    SegmentBuilder,
)
from finchunk.retrieve.index.sources import (  # the sources' names stay importable from here
    META_SUFFIX as META_SUFFIX,
)
from finchunk.retrieve.index.sources import (
    Source,
)
from finchunk.retrieve.index.sources import (
    document_sources as document_sources,
)
from finchunk.retrieve.index.sources import (
    file_sources as file_sources,
)
from finchunk.retrieve.index.store import Index, writer_lock
from finchunk.retrieve.lexical.bm25 import corpus_stats

if TYPE_CHECKING:  # the dense stack is imported by builds that embed, when they do
    from finchunk.retrieve.neural.dense import Embedder
    from finchunk.retrieve.neural.splade import Splade
    from finchunk.retrieve.neural.splade_impacts import Impacts

# --- configuration ----------------------------------------------------------------

_DEFAULT_CONFIG = IndexConfig()


# --- progress ------------------------------------------------------------------------------------


# --- build -----------------------------------------------------------------------------------


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
            vectors = np.asarray(old.source.vectors()[e.first_chunk : e.first_chunk + e.chunks])
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


def build_index(
    sources: Sequence[Source],
    root: str | Path,
    config: IndexConfig = _DEFAULT_CONFIG,
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
