"""Indexing on Dask: parsing, chunking, embedding and term counting as tasks on a cluster.

:class:`DaskWork` is a :class:`~finchunk.retrieve.index.pieces.Work`: the build hands it the
documents to process; it cuts them into parts (consecutive documents, in source order), and
one task per part parses, chunks and embeds each of its documents and counts its chunks'
BM25 terms. A task writes its results as Parquet parts (chunks, documents, term statistics;
vectors as ``.npy``) in a parts folder the workers and this process share, written under a
temporary name and renamed, so a task run twice (Dask retries the tasks of a worker that
died) writes the same files. This process reads the parts back in order and merges the term
statistics (:func:`~finchunk.retrieve.lexical.bm25_stats.merge_term_stats`: document frequencies
summed, one idf), then the build publishes the generation atomically as a local build does.
The chunks, ids, spans, vectors and BM25 scores equal the local build's.

A task that fails for good (its worker killed more often than Dask allows, or an error in a
document when ``on_error`` is FAIL) stops the build with a :class:`DistributedBuildError`;
nothing was published, so the previous generation stays live. With ``on_error`` SKIP a
document that cannot be read is left out and named, as in a local build.

``dask[distributed]`` is the ``dask`` extra; :func:`dask_client` imports it.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from finchunk.chunk import make_chunker
from finchunk.errors import FinchunkError
from finchunk.extras import import_extra
from finchunk.parallel import cut
from finchunk.records import CHUNK_SCHEMA
from finchunk.retrieve.index.build import Source
from finchunk.retrieve.index.config import IndexConfig, NoProgress, OnError, Progress, load_or_skip
from finchunk.retrieve.index.manifest import DocEntry
from finchunk.retrieve.index.pieces import Piece, fresh_piece
from finchunk.retrieve.index.store import DOC_SCHEMA
from finchunk.retrieve.lexical.bm25_stats import TermStats, count_terms, merge_term_stats
from finchunk.retrieve.neural.dense import Embedder, embed_passages, make_embedder
from finchunk.text.analysis import TextPipeline

#: How many parts per worker thread the documents are cut into (load balance vs overhead).
PARTS_PER_THREAD = 4
#: Times a task is retried after an error other than its worker dying.
RETRIES = 1
LOCAL = "local"


class DistributedBuildError(FinchunkError):
    """A cluster task failed for good; nothing was published."""


@contextmanager
def dask_client(address: str = LOCAL) -> Iterator[Any]:
    """A ``distributed.Client``: on a new local cluster sized to this machine (``local``:
    one single-threaded worker process per core), or on the scheduler at ``address``."""
    distributed = import_extra("distributed", "dask", "--dask")
    if address == LOCAL:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        cluster = distributed.LocalCluster(
            n_workers=cores or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        try:
            with distributed.Client(cluster) as client:
                yield client
        finally:
            cluster.close()
        return
    try:
        client = distributed.Client(address, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise DistributedBuildError(
            f"--dask {address}: no Dask scheduler answers ({exc})"
        ) from None
    with client:
        yield client


# --- the tasks (run on workers) ------------------------------------------------------------


@dataclass(frozen=True)
class _PartJob:
    number: int
    sources: list[Source]
    config: IndexConfig
    model: str | None  # the embedder's name (each worker makes its own)
    folder: str
    on_error: OnError


@dataclass(frozen=True)
class _PartDone:
    number: int
    entries: list[DocEntry | None]  # None: a document skipped (named in ``skipped``)
    files: dict[str, str]
    seconds: dict[str, float]  # per phase: parse, chunk, count, embed, write
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)


class _Timed:
    """A loader that adds the time it takes to ``seconds["parse"]``."""

    def __init__(self, loader: Any, seconds: dict[str, float]) -> None:
        self.loader, self.seconds = loader, seconds

    def __call__(self) -> Any:
        t = time.perf_counter()
        try:
            return self.loader()
        finally:
            self.seconds["parse"] += time.perf_counter() - t


def _write_atomic(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def _stats_table(stats: TermStats) -> tuple[pa.Table, pa.Table, pa.Table]:
    vocab = pa.table({"term": pa.array(stats.vocab, pa.string())})
    postings = pa.table({"term": stats.terms.astype(np.int32), "tf": stats.tf.astype(np.int32)})
    texts = pa.table({"postings": stats.per_text, "length": stats.lengths})
    return vocab, postings, texts


def _read_stats(files: dict[str, str]) -> TermStats:
    vocab = pq.read_table(files["terms"]).column("term").to_pylist()
    postings = pq.read_table(files["postings"])
    texts = pq.read_table(files["texts"])
    return TermStats(
        vocab,
        postings.column("term").to_numpy().astype(np.int64),
        postings.column("tf").to_numpy().astype(np.float64),
        texts.column("postings").to_numpy().astype(np.int64),
        texts.column("length").to_numpy().astype(np.float64),
    )


def _run_part(job: _PartJob) -> _PartDone:
    """Parse, chunk, embed and count one part; write it as Parquet parts."""
    c = job.config
    chunker = make_chunker(c.strategy, size=c.size, overlap=c.overlap, header=c.header)
    seconds = dict.fromkeys(("parse", "chunk", "count", "embed", "write"), 0.0)
    skipped: list[tuple[str, str]] = []
    warnings: list[tuple[str, str]] = []
    t = time.perf_counter()
    pieces = []
    for s in job.sources:
        doc = load_or_skip(
            replace(s, loader=_Timed(s.loader, seconds)), job.on_error, skipped, warnings
        )
        pieces.append(None if doc is None else fresh_piece(s, chunker, doc))
    seconds["chunk"] = time.perf_counter() - t - seconds["parse"]
    entries = [None if p is None else p.entry for p in pieces]
    pieces = [p for p in pieces if p is not None]
    tables = [p.table for p in pieces if p.table is not None]
    chunks = pa.concat_tables(tables) if tables else CHUNK_SCHEMA.empty_table()
    texts = chunks.column("text").to_pylist()
    t = time.perf_counter()
    stats = _stats_table(count_terms(texts, c.bm25.text))
    seconds["count"] = time.perf_counter() - t
    t = time.perf_counter()
    vectors = None if job.model is None else embed_passages(_embedder(job.model), texts)
    seconds["embed"] = time.perf_counter() - t
    t = time.perf_counter()
    docs = pa.Table.from_pylist([p.doc_row for p in pieces], schema=DOC_SCHEMA)
    files = _write_part(Path(job.folder) / f"part-{job.number:06d}", chunks, docs, stats, vectors)
    seconds["write"] = time.perf_counter() - t
    return _PartDone(job.number, entries, files, seconds, skipped, warnings)


def _write_part(
    stem: Path,
    chunks: pa.Table,
    docs: pa.Table,
    stats: tuple[pa.Table, pa.Table, pa.Table],
    vectors: np.ndarray | None,
) -> dict[str, str]:
    files = {name: stem.with_name(f"{stem.name}.{name}.parquet") for name in _PART_FILES}
    for name, table in zip(_PART_FILES, (chunks, docs, *stats), strict=True):
        _write_atomic(table, files[name])
    if vectors is not None:
        files["vectors"] = stem.with_name(f"{stem.name}.vectors.npy")
        tmp = stem.with_name(f".{stem.name}.vectors.{os.getpid()}.npy")
        np.save(tmp, vectors)
        os.replace(tmp, files["vectors"])
    return {k: str(v) for k, v in files.items()}


_PART_FILES = ("chunks", "documents", "terms", "postings", "texts")


_EMBEDDERS: dict[str, Embedder] = {}


def _embedder(name: str) -> Embedder:
    """One embedder per worker process and model."""
    if name not in _EMBEDDERS:
        _EMBEDDERS[name] = make_embedder(name)
    return _EMBEDDERS[name]


def _count(texts: list[str], pipeline: TextPipeline) -> TermStats:
    return count_terms(texts, pipeline)


# --- the work, as the build sees it ------------------------------------------------------------


class DaskWork:
    """The build's per-document work on a Dask cluster (``client``); parts are written
    under ``parts_dir`` (default: a new temporary folder; on a remote cluster give one the
    workers share), which is removed when the build is done."""

    def __init__(
        self,
        client: Any,
        parts_dir: str | Path | None = None,
        parts: int | None = None,
        on_error: OnError = OnError.FAIL,
    ):
        self.client = client
        self.on_error = on_error
        #: A build hands the cluster every document at once (its parts bound each task).
        self.batch: int | None = None
        self.skipped: list[tuple[str, str]] = []
        self.warnings: list[tuple[str, str]] = []
        self.parts_dir = None if parts_dir is None else Path(parts_dir)
        threads = sum(client.nthreads().values()) or 1
        self.parts = parts or threads * PARTS_PER_THREAD
        self._stats: list[TermStats] = []
        self._fresh_chunks = 0
        #: Seconds the tasks spent per phase (parse, chunk, count, embed, write), summed.
        self.seconds: dict[str, float] = {}

    def _submit(
        self, fn: Any, jobs: Sequence[Any], progress: Progress, weights: Sequence[int], *extra: Any
    ) -> list[Any]:
        distributed = import_extra("distributed", "dask", "--dask")
        futures = self.client.map(
            fn, jobs, *[[e] * len(jobs) for e in extra], retries=RETRIES, pure=False
        )
        weight = {f.key: w for f, w in zip(futures, weights, strict=True)}
        try:
            for done in distributed.as_completed(futures):
                progress.advance(weight[done.key])
            return self.client.gather(futures)
        except FinchunkError:
            raise
        except Exception as exc:  # a task's own error or a worker killed too often
            raise DistributedBuildError(
                f"Dask build failed, nothing was published (the previous index stays live): "
                f"{type(exc).__name__}: {exc}"
            ) from None
        finally:
            self.client.cancel(futures)

    def pieces(
        self,
        sources: Sequence[Source],
        config: IndexConfig,
        embedder: Embedder | None,
        progress: Progress,
    ) -> list[Piece | None]:
        if not sources:
            return []
        folder = Path(tempfile.mkdtemp(prefix="finchunk-parts-", dir=self.parts_dir))
        try:
            runs = cut(sources, self.parts)
            model = embedder.name if embedder is not None else None
            jobs = [
                _PartJob(i, run, config, model, str(folder), self.on_error)
                for i, run in enumerate(runs)
            ]
            done = self._submit(_run_part, jobs, progress, [len(r) for r in runs])
            out: list[Piece | None] = []
            for d in sorted(done, key=lambda d: d.number):
                out += self._read(d)
                self.skipped += d.skipped
                self.warnings += d.warnings
            return out
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _read(self, done: _PartDone) -> list[Piece | None]:
        chunks = pq.read_table(done.files["chunks"]).cast(CHUNK_SCHEMA)
        docs = pq.read_table(done.files["documents"]).to_pylist()
        vectors = np.load(done.files["vectors"]) if "vectors" in done.files else None
        self._stats.append(_read_stats(done.files))
        for phase, sec in done.seconds.items():
            self.seconds[phase] = self.seconds.get(phase, 0.0) + sec
        self._fresh_chunks += chunks.num_rows
        out: list[Piece | None] = []
        start = 0
        rows = iter(docs)
        for entry in done.entries:
            if entry is None:
                out.append(None)
                continue
            row, n = next(rows), entry.chunks
            vec = None if vectors is None else vectors[start : start + n]
            out.append(Piece(entry, table=chunks.slice(start, n), doc_row=row, vectors=vec))
            start += n
        return out

    def term_stats(self, texts: Sequence[str], pipeline: TextPipeline) -> TermStats:
        """The parts' own counts when every chunk is fresh (they are in text order); else
        every text counted again, in parts, on the cluster."""
        if self._fresh_chunks == len(texts):
            t = time.perf_counter()
            merged = merge_term_stats(self._stats)
            self.seconds["merge"] = time.perf_counter() - t
            return merged
        runs = cut(list(texts), self.parts)
        return merge_term_stats(self._submit(_count, runs, NoProgress(), [1] * len(runs), pipeline))
