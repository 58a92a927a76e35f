"""Index segments (Lucene-style): immutable folders of chunks, documents, BM25 postings and
vectors; a generation's manifest says which documents of which segments are live.

Adding or replacing documents writes one small segment; the documents it replaces stay in
their old segments, masked out (their rows are simply not in the manifest), and those
segments' live document frequencies are corrected by re-tokenising only the removed chunks.
When segments pile up they are merged into one. Search over the segments of a generation
equals search over a full rebuild: the corpus statistics are those of the live chunks, and
positions follow the manifest's document order.

A segment is written under a hidden name, fsynced, then renamed into place
(:class:`SegmentBuilder`), so a killed build leaves only a hidden folder that the next
publish removes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from finchunk.files import index_file
from finchunk.records import CHUNK_SCHEMA
from finchunk.retrieve.lexical.bm25 import BM25Params
from finchunk.retrieve.lexical.postings import Segment, SegmentWriter

if TYPE_CHECKING:  # the splade module is imported by builds that store its impacts
    from finchunk.retrieve.neural.splade_impacts import Impacts

CHUNKS = "chunks.parquet"
DOCUMENTS = "documents.parquet"
BM25_DIR = "bm25"
#: BM25 postings of the segment's documents' cards (:mod:`finchunk.retrieve.query.cards`), one
#: per documents row: a search with a document prior reads them instead of tokenising
#: every card of the index.
CARDS_DIR = "cards"
VECTORS = "vectors.npy"
#: SPLADE document weights as uint16 impacts, one sparse row per chunk row
#: (:class:`finchunk.retrieve.neural.splade.Impacts`), when the index stores them.
SPLADE_DIR = "splade"
#: Chunks buffered before they are written; rows per Parquet row group of chunks and of
#: documents (a search reads the row groups of the chunks it delivers: small ones are cheap).
ROW_GROUP = 8192
CHUNK_GROUP_ROWS = 1024
DOC_GROUP_ROWS = 32

DOC_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("title", pa.string()),
        ("source", pa.string()),
        ("sha256", pa.string()),
        ("text", pa.string()),
        ("metadata", pa.string()),
        # elements and pages (finchunk.retrieve.index.layout): evidence delivery's units
        ("layout", pa.string()),
    ]
)


def fsync_tree(path: Path) -> None:
    for f in path.rglob("*"):
        if f.is_file():
            with f.open("rb") as fh:
                os.fsync(fh.fileno())


class SegmentBuilder:
    """Writes one segment piece by piece with bounded memory: chunk rows go to Parquet in
    row groups, BM25 keeps integer postings (no token lists), vectors accumulate (one row
    per chunk). :meth:`finish` fsyncs and renames the folder into place."""

    def __init__(self, root: Path, name: str, params: BM25Params) -> None:
        self.root, self.name, self.params = root, name, params
        self.tmp = root / f".{name}.tmp"
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp.mkdir()
        self._chunks = pq.ParquetWriter(self.tmp / CHUNKS, CHUNK_SCHEMA)
        self._docs = pq.ParquetWriter(self.tmp / DOCUMENTS, DOC_SCHEMA)
        self._pending: list[pa.Table] = []
        self._pending_docs: list[dict[str, Any]] = []
        self._bm25 = SegmentWriter()
        self._cards = SegmentWriter()
        self._vectors: list[np.ndarray] = []
        self._impacts: list[Impacts] = []
        self.rows = 0
        self.docs = 0

    def add(
        self,
        chunks: pa.Table,
        doc_row: dict[str, Any],
        vectors: np.ndarray | None,
        card: str = "",
        impacts: Impacts | None = None,
    ) -> tuple[int, int]:
        """One document's chunk rows, its documents row, vectors, card and SPLADE impacts;
        returns its first chunk's row and its documents row in the segment."""
        at = (self.rows, self.docs)
        for text in chunks.column("text").to_pylist():
            self._bm25.add(*self.params.text.terms(text))
        self._cards.add(*self.params.text.terms(card))
        # (a cast, even to the same schema, imports pyarrow.compute: 0.2 s of an update)
        self._pending.append(chunks if chunks.schema == CHUNK_SCHEMA else chunks.cast(CHUNK_SCHEMA))
        self._pending_docs.append(doc_row)
        if vectors is not None:
            self._vectors.append(np.asarray(vectors, dtype=np.float32))
        if impacts is not None:
            self._impacts.append(impacts)
        self.rows += chunks.num_rows
        self.docs += 1
        if sum(t.num_rows for t in self._pending) >= ROW_GROUP:
            self._flush()
        return at

    def _flush(self) -> None:
        if self._pending:
            self._chunks.write_table(pa.concat_tables(self._pending), CHUNK_GROUP_ROWS)
            self._pending = []
        if self._pending_docs:
            docs = pa.Table.from_pylist(self._pending_docs, schema=DOC_SCHEMA)
            self._docs.write_table(docs, DOC_GROUP_ROWS)
            self._pending_docs = []

    def finish(self, dim: int | None, splade: bool = False) -> Segment:
        self._flush()
        self._chunks.close()
        self._docs.close()
        segment = self._bm25.finish()
        segment.save(self.tmp / BM25_DIR)
        self._cards.finish().save(self.tmp / CARDS_DIR)
        if dim is not None:
            vecs = np.concatenate(self._vectors) if self._vectors else np.zeros((0, dim))
            np.save(self.tmp / VECTORS, vecs.astype(np.float32))
        if splade:
            from finchunk.retrieve.neural.splade_impacts import Impacts

            rows = Impacts.concat(self._impacts)
            if len(rows) != self.rows:
                raise ValueError(f"SPLADE impacts for {len(rows)} of {self.rows} chunk rows")
            rows.save(self.tmp / SPLADE_DIR)
        fsync_tree(self.tmp)
        os.replace(self.tmp, self.root / self.name)
        return segment

    def abort(self) -> None:
        self._chunks.close()
        self._docs.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def read_rows(path: Path, rows: np.ndarray, columns: list[str] | None = None) -> pa.Table:
    """Some rows of a Parquet file (in the order given), reading only their row groups:
    a search delivers five chunks without reading an index's hundreds of thousands. A
    damaged file is a :class:`~finchunk.errors.DamagedIndexError` naming it."""
    with index_file(path):
        return _read_rows(path, np.asarray(rows, dtype=np.int64), columns)


def _read_rows(path: Path, rows: np.ndarray, columns: list[str] | None) -> pa.Table:
    pf = pq.ParquetFile(path)
    if not rows.size:
        return pf.schema_arrow.empty_table().select(columns or pf.schema_arrow.names)
    sizes = np.array([pf.metadata.row_group(i).num_rows for i in range(pf.num_row_groups)])
    ends = np.cumsum(sizes)
    starts = ends - sizes
    group_of = np.searchsorted(ends, rows, side="right")
    groups = np.sort(group_of)  # distinct, ascending (np.unique's first call imports numpy.ma)
    groups = groups[np.concatenate([[True], groups[1:] != groups[:-1]])]
    # one thread: starting Arrow's pool costs ~50 ms, more than reading a few row groups
    table = pf.read_row_groups(groups.tolist(), columns=columns, use_threads=False)
    before = np.concatenate([[0], np.cumsum(ends[groups] - starts[groups])[:-1]])
    local = np.searchsorted(groups, group_of)
    return _take(table, before[local] + rows - starts[group_of])


def _take(table: pa.Table, at: np.ndarray) -> pa.Table:
    """``table.take(at)`` by slices of consecutive rows: ``take`` imports pyarrow.compute,
    0.2 s of a one-document update or a first search."""
    if not at.size:
        return table.slice(0, 0)
    breaks = np.flatnonzero(np.diff(at) != 1) + 1
    firsts = np.concatenate([[0], breaks])
    lengths = np.diff(np.concatenate([firsts, [at.size]]))
    pieces = [table.slice(int(at[f]), int(n)) for f, n in zip(firsts, lengths, strict=True)]
    return pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces)


def live_doc_freqs(
    segment: Segment,
    doc_freqs: np.ndarray,
    removed_texts: Sequence[str],
    params: BM25Params,
) -> np.ndarray:
    """``doc_freqs`` (a segment's, or its live ones so far) less the chunks just removed:
    each removed chunk's distinct terms count once (they are re-tokenised, nothing else is
    read)."""
    out = np.array(doc_freqs, dtype=np.uint32)
    ids: list[int] = []
    for text in removed_texts:
        ids.extend(segment.term_id(t) for t in set(params.text.tokens(text)))
    if ids:
        counts = np.bincount(np.asarray(ids, dtype=np.int64), minlength=out.size)
        out -= counts[: out.size].astype(np.uint32)
    return out


def positions_of(size: int, rows: Sequence[tuple[int, int, int]]) -> np.ndarray:
    """Per segment row, its position in the index (-1: not live); ``rows`` are (first row
    in the segment, chunks, first position) per live document (vectorised: 10k documents
    are one fill, not 10k)."""
    out = np.full(size, -1, dtype=np.int64)
    if not rows:
        return out
    first_row, count, first_pos = (np.asarray(c, dtype=np.int64) for c in zip(*rows, strict=True))
    total = int(count.sum())
    if total:
        step = np.repeat(np.cumsum(count) - count, count)
        offset = np.arange(total, dtype=np.int64) - step
        out[np.repeat(first_row, count) + offset] = np.repeat(first_pos, count) + offset
    return out
