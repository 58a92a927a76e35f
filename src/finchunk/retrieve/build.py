"""Building an index: sources → parse → chunk → embed → a new generation.

Re-indexing reuses the chunks and vectors of documents whose content hash is unchanged and
drops documents no longer given; the generation is written and published by
:mod:`finchunk.retrieve.store`, atomically.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

import finchunk
from finchunk.chunk import Strategy, make_chunker
from finchunk.errors import FinchunkError, InputError, ParseError
from finchunk.files import DuplicateKeyError, read_bytes, unique_keys
from finchunk.model import Document
from finchunk.parse import SUPPORTED_SUFFIXES, load
from finchunk.records import CHUNK_SCHEMA, chunk_table, document_records, metadata_json
from finchunk.retrieve.bm25 import BM25Index, BM25Params
from finchunk.retrieve.bm25_stats import TermStats, count_terms
from finchunk.retrieve.dense import Embedder, embed_passages, make_embedder
from finchunk.retrieve.filters import canonical_metadata
from finchunk.retrieve.lexical import LexicalIndex
from finchunk.retrieve.store import (
    DOC_SCHEMA,
    FORMAT,
    MANIFEST,
    DocEntry,
    Index,
    IndexMismatchError,
    Manifest,
    check_root,
    live_generation,
    next_generation,
    prepare_root,
    publish,
    write_generation,
)
from finchunk.retrieve.text import TextPipeline

META_SUFFIX = ".meta.json"


# --- configuration and sources ----------------------------------------------------------------


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

    def chunking(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy.value,
            "size": self.size,
            "overlap": self.overlap,
            "header": self.header,
        }


@dataclass(frozen=True)
class Source:
    """One document to index: an id, where it comes from, a content hash and a loader."""

    doc_id: str
    source: str
    sha256: str
    loader: Callable[[], Document]


def _sha256(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()


def _sidecar_metadata(path: Path) -> tuple[dict[str, Any], bytes]:
    """Metadata from ``NAME.meta.json`` beside ``NAME.md`` (issuer, year, doc_type …)."""
    side = path.with_name(path.stem + META_SUFFIX)
    if not side.is_file():
        return {}, b""
    raw = read_bytes(side)
    try:
        meta = json.loads(raw.decode("utf-8"), object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        raise ParseError(str(side), f"key {exc.args[0]!r} is given twice") from exc
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ParseError(str(side), f"not a JSON object of metadata: {exc}") from exc
    if not isinstance(meta, dict):
        raise ParseError(str(side), "metadata must be a JSON object")
    return meta, raw


def _file_source(doc_id: str, path: Path) -> Source:
    meta, raw_meta = _sidecar_metadata(path)

    def loader() -> Document:
        doc = load(path, doc_id)
        if not meta:
            return doc
        merged = {**doc.metadata, **meta}
        return Document(doc.id, doc.text, doc.title, merged, doc.elements, doc.pages, doc.source)

    return Source(doc_id, str(path), _sha256(read_bytes(path), raw_meta), loader)


def _is_document_file(p: Path) -> bool:
    return p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES and not p.name.startswith(".")


def file_sources(paths: Iterable[str | Path]) -> list[Source]:
    """Sources for files and directories (searched recursively for supported files).

    A file's id is its stem; a file found under a directory gets its path relative to that
    directory, without the suffix (``reports/2024/acme``). Ids must be unique.
    """
    found: dict[str, Path] = {}
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            pairs = [
                (f.relative_to(p).with_suffix("").as_posix(), f)
                for f in sorted(p.rglob("*"))
                if _is_document_file(f)
            ]
        elif p.is_file():
            pairs = [(p.stem, p)]
        else:
            raise InputError(f"{p}: no such file or directory")
        for doc_id, f in pairs:
            if doc_id in found and found[doc_id] != f:
                raise InputError(f"{f}: document id {doc_id!r} is also used by {found[doc_id]}")
            found[doc_id] = f
    if not found:
        raise InputError("no supported documents found in " + ", ".join(map(str, paths)))
    return [_file_source(i, f) for i, f in found.items()]


def document_sources(docs: Sequence[Document]) -> list[Source]:
    """Sources for documents already in memory (e.g. a lesson-schema documents table)."""
    out = []
    for d in docs:
        meta = json.dumps(dict(d.metadata), sort_keys=True, default=str).encode()
        out.append(Source(d.id, d.source or d.id, _sha256(d.text.encode(), meta), lambda d=d: d))
    return out


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
    )


# --- build -----------------------------------------------------------------------------------


class OnError(StrEnum):
    """What a document that cannot be read does to a run: stop it, or be skipped (and named)."""

    FAIL = "fail"
    SKIP = "skip"


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
    if warnings is not None and doc.metadata.get("warning"):
        warnings.append((src.source, str(doc.metadata["warning"])))
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
    """One document's rows in the new index: reused from the old one, or fresh (with its
    chunks' vectors when the work that made it embedded them)."""

    entry: DocEntry
    old_rows: tuple[int, int] | None = None
    table: pa.Table | None = None
    doc_row: dict[str, Any] | None = None
    vectors: np.ndarray | None = None


class Work(Protocol):
    """Where the per-document work runs: :class:`LocalWork` in this process, or a Dask
    cluster (:class:`finchunk.retrieve.distributed.DaskWork`); the results are equal. A
    work reads documents as its ``on_error`` says: a document it skipped gives None in
    :meth:`pieces` and ``(source, reason)`` in ``skipped``; one read with a warning (bytes
    replaced) adds ``(source, warning)`` to ``warnings``."""

    on_error: OnError
    skipped: list[tuple[str, str]]
    warnings: list[tuple[str, str]]

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


def _previous(root: Path, config: IndexConfig) -> tuple[Index | None, str | None, set[str]]:
    """The live index when its chunks and vectors can be reused (else why not), and the ids
    of the documents it holds."""
    gen = live_generation(root)
    if gen is None:
        return None, None, set()
    ids = {d.id for d in Manifest.from_json(gen / MANIFEST).documents}
    try:
        old = Index.open(root)
    except IndexMismatchError as exc:
        return None, str(exc), ids
    m = old.manifest
    if m.chunking != config.chunking():
        return None, f"chunking changed from {m.chunking} to {config.chunking()}", ids
    if m.model != config.model:
        return None, f"model changed from {m.model} to {config.model}", ids
    return old, None, ids


def fresh_piece(src: Source, chunker: Any, doc: Document | None = None) -> Piece:
    """``src``'s rows in a new index (``doc``: its document, when already read)."""
    doc = src.loader() if doc is None else doc
    records = document_records(doc, chunker.chunk(doc))
    meta = canonical_metadata(doc.metadata)
    entry = DocEntry(doc.id, doc.title, src.source, src.sha256, meta, 0, len(records))
    row = {
        "id": doc.id,
        "title": doc.title,
        "source": src.source,
        "sha256": src.sha256,
        "text": doc.text,
        "metadata": metadata_json(meta),
    }
    return Piece(entry, table=chunk_table(records), doc_row=row)


def _plan(
    sources: Sequence[Source],
    old: Index | None,
    previous: set[str],
    work: Work,
    build: tuple[IndexConfig, Embedder | None, Progress],
    report: BuildReport,
) -> list[Piece]:
    config, embedder, progress = build
    old_docs = {d.id: d for d in old.manifest.documents} if old else {}
    progress.stage("parsing and chunking", len(sources))
    pieces: list[Piece | None] = []
    fresh: list[Source] = []
    for src in sources:
        prev = old_docs.get(src.doc_id)
        if prev is not None and prev.sha256 == src.sha256:
            e = DocEntry(**asdict(prev))
            pieces.append(Piece(e, old_rows=(prev.first_chunk, prev.chunks)))
            report.unchanged.append(src.doc_id)
            progress.advance()
        else:
            pieces.append(None)
            fresh.append(src)
    before = len(work.skipped), len(work.warnings)
    made = iter(work.pieces(fresh, config, embedder, progress))
    report.skipped += work.skipped[before[0] :]
    report.warnings += work.warnings[before[1] :]
    out = []
    for src, piece in zip(sources, pieces, strict=True):
        if piece is None and (piece := next(made)) is None:
            continue  # could not be read, skipped (the work says why)
        if piece.old_rows is None:
            (report.updated if src.doc_id in previous else report.added).append(src.doc_id)
        out.append(piece)
    report.removed = _not_given(sources, previous)
    return out


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


def _assemble_chunks(pieces: list[Piece], old: Index | None) -> tuple[pa.Table, np.ndarray]:
    """The new chunks table (documents in source order) and, per row, the old row or -1."""
    tables, origin, pos = [], [], 0
    for p in pieces:
        p.entry.first_chunk = pos
        if p.old_rows is not None and old is not None:
            start, count = p.old_rows
            tables.append(old.chunks.slice(start, count).cast(CHUNK_SCHEMA))
            origin.append(np.arange(start, start + count))
        elif p.table is not None:
            tables.append(p.table)
            origin.append(np.full(p.table.num_rows, -1))
        pos += p.entry.chunks
    table = pa.concat_tables(tables) if tables else CHUNK_SCHEMA.empty_table()
    rows = np.concatenate(origin) if origin else np.zeros(0, dtype=np.int64)
    return table, rows


def _assemble_documents(pieces: list[Piece], old: Index | None) -> pa.Table:
    old_rows = old.document_rows() if old else {}
    rows = [p.doc_row if p.doc_row is not None else old_rows[p.entry.id] for p in pieces]
    return pa.Table.from_pylist(rows, schema=DOC_SCHEMA)


def _assemble_vectors(
    pieces: list[Piece],
    texts: Sequence[str],
    origin: np.ndarray,
    old: Index | None,
    embedder: Embedder,
    progress: Progress,
) -> np.ndarray:
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    origin = origin.copy()  # -2: made by the work
    for p in pieces:  # vectors the work already made
        if p.vectors is not None:
            out[p.entry.first_chunk : p.entry.first_chunk + p.entry.chunks] = p.vectors
            origin[p.entry.first_chunk : p.entry.first_chunk + p.entry.chunks] = -2
    fresh = np.flatnonzero(origin == -1)
    progress.stage("embedding", len(fresh))
    new_vecs = embed_passages(embedder, [texts[i] for i in fresh], progress.advance)
    out[fresh] = new_vecs
    reused = np.flatnonzero(origin >= 0)
    if reused.size and old is not None:
        out[reused] = old.vectors()[origin[reused]]
    return out


@dataclass
class Assembled:
    """A new generation in memory: what a store writes (files here, or PostgreSQL)."""

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
    previous: tuple[Index | None, set[str]],
    work: Work,
    embedder: Embedder | None,
    progress: Progress,
) -> Assembled:
    """Parse, chunk and embed what changed (on ``work``), reuse the rest of ``previous``
    (the old index and the ids it holds), and count BM25's statistics."""
    old, ids = previous
    pieces = _plan(sources, old, ids, work, (config, embedder, progress), report)
    chunks, origin = _assemble_chunks(pieces, old)
    manifest = _manifest_for(config, embedder.dim if embedder else None)
    manifest.documents = [p.entry for p in pieces]
    manifest.chunks = report.chunks = chunks.num_rows
    texts = chunks.column("text").to_pylist()
    vectors = None
    if embedder is not None:
        vectors = _assemble_vectors(pieces, texts, origin, old, embedder, progress)
    progress.stage("counting terms", 1)
    stats = work.term_stats(texts, config.bm25.text)
    progress.advance()
    docs = _assemble_documents(pieces, old)
    return Assembled(report, manifest, chunks, docs, texts, vectors, stats)


def resolve_embedder(
    config: IndexConfig, embedder: Embedder | None
) -> tuple[IndexConfig, Embedder | None]:
    """The embedder the configuration names (or the one given, whose name it then takes)."""
    if config.model and embedder is None:
        embedder = make_embedder(config.model)
    if embedder is not None and config.model != embedder.name:
        config = replace(config, model=embedder.name)
    return config, embedder


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
    """Create or update the index at ``root`` from ``sources`` (atomically); ``work``:
    where parsing, chunking and embedding run (default: here, reading documents as
    ``on_error`` says; a work given reads them as its own ``on_error`` says).

    Documents of the index that ``sources`` lack are removed only with ``prune`` (else
    InputError). With ``on_error`` SKIP a document that cannot be read is left out and
    listed in the report's ``skipped``; nothing is written when no document is left."""
    root = Path(root)
    progress = progress or NoProgress()
    config, embedder = resolve_embedder(config, embedder)
    check_root(root)
    report = BuildReport(root)
    old, report.rebuilt, previous = _previous(root, config)
    _check_removals(root, sources, previous, prune)
    work = work or LocalWork(on_error)
    new = assemble(sources, report, config, (old, previous), work, embedder, progress)
    if not new.manifest.documents:
        raise InputError(f"{root}: no document could be read; the index is left as it was")
    prepare_root(root)
    gen_name = next_generation(root)
    progress.stage("writing index", 1)
    lexical = LexicalIndex(BM25Index.from_stats(new.stats, config.bm25))
    write_generation(
        root, gen_name, new.manifest, new.chunks, new.docs, new.texts, new.vectors, lexical
    )
    progress.advance()
    publish(root, gen_name)
    return report
