"""A generation's statistics assembled from its segments: the live rows of each segment, their
BM25 and card document frequencies merged (:func:`assemble`), what a local build and a
PostgreSQL build both write."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from finchunk.errors import InputError
from finchunk.records import CHUNK_SCHEMA
from finchunk.retrieve.index.config import (
    BuildReport,
    IndexConfig,
    Progress,
    _manifest_for,
)
from finchunk.retrieve.index.manifest import (
    LIVE_CARD_DF,
    LIVE_DF,
    Manifest,
    document_positions,
    index_array,
)
from finchunk.retrieve.index.pieces import (
    Work,
    _embed_missing,
)
from finchunk.retrieve.index.segments import (
    BM25_DIR,
    CARDS_DIR,
    CHUNKS,
    DOC_SCHEMA,
    live_doc_freqs,
    read_rows,
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
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.lexical.bm25 import BM25Params, SegmentPart
from finchunk.retrieve.lexical.bm25_stats import TermStats
from finchunk.retrieve.lexical.postings import Segment

if TYPE_CHECKING:  # the dense stack is imported by builds that embed, when they do
    from finchunk.retrieve.neural.dense import Embedder


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
