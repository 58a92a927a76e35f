"""A persisted search index: chunks, BM25, dense vectors and a manifest, in one directory.

Layout (every file inspectable with ordinary tools)::

    IDX/CURRENT                   the name of the live generation, e.g. "g000002"
    IDX/g000002/manifest.json     finchunk version, chunking strategy and parameters, model,
                                  documents (id, source, content hash, metadata, chunk range)
    IDX/g000002/chunks.parquet    id, doc_id, spans, section, page, pages, header, text, kind,
                                  metadata (JSON of the document's metadata)
    IDX/g000002/documents.parquet id, title, source, sha256, text, metadata: citations resolve
                                  against the stored text
    IDX/g000002/bm25/             bm25s's own files (params, vocabulary, CSC matrix)
    IDX/g000002/vectors.npy       float32 (chunks × dim), L2-normalised, when built --dense

Writes are atomic: a build writes a new generation directory beside the live one, then
replaces ``CURRENT`` with ``os.replace`` (atomic on POSIX and Windows) and only then deletes
older generations. A build killed at any point leaves ``CURRENT`` naming a complete
generation. Re-indexing reuses the chunks and vectors of documents whose content hash is
unchanged and drops documents no longer given.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import finchunk
from finchunk.chunk import Strategy, make_chunker
from finchunk.errors import FinchunkError, InputError, ParseError
from finchunk.files import read_bytes
from finchunk.model import Chunk, Document
from finchunk.parse import SUPPORTED_SUFFIXES, load
from finchunk.retrieve.bm25 import BM25Params
from finchunk.retrieve.dense import DenseIndex, Embedder, embed_passages, make_embedder
from finchunk.retrieve.filters import MetadataIndex, canonical_metadata
from finchunk.retrieve.hybrid import HybridIndex
from finchunk.retrieve.lexical import LexicalIndex
from finchunk.retrieve.retriever import Retriever, RetrieverKind, parse_retriever

FORMAT = 1
CURRENT = "CURRENT"
MANIFEST = "manifest.json"
CHUNKS = "chunks.parquet"
DOCUMENTS = "documents.parquet"
BM25_DIR = "bm25"
VECTORS = "vectors.npy"
META_SUFFIX = ".meta.json"
#: Generation directories, live (``g000002``) or being written (``.g000003.tmp``).
_GENERATION = re.compile(r"g\d{6}|\.g\d{6}\.tmp")


class IndexMismatchError(FinchunkError):
    """The index was built by another finchunk version or format, or with another model."""


# --- configuration and sources ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IndexConfig:
    """How chunks are made and embedded; part of the manifest (a change rebuilds all)."""

    strategy: Strategy = Strategy.STRUCTURE
    size: int | None = None
    overlap: int | None = None
    header: bool = False
    model: str | None = None  # embedder name; None: no dense vectors

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
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
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


# --- manifest --------------------------------------------------------------------------------


@dataclass
class DocEntry:
    id: str
    title: str
    source: str
    sha256: str
    metadata: dict[str, str]
    first_chunk: int
    chunks: int


@dataclass
class Manifest:
    format: int
    finchunk_version: str
    chunking: dict[str, Any]
    bm25: dict[str, Any]
    dense: dict[str, Any] | None
    documents: list[DocEntry] = field(default_factory=list)
    chunks: int = 0

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=2, sort_keys=False) + "\n"

    @classmethod
    def from_json(cls, path: Path) -> Manifest:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            docs = [DocEntry(**d) for d in raw.pop("documents")]
            return cls(documents=docs, **raw)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise InputError(f"{path}: not a finchunk index manifest ({exc})") from exc

    @property
    def model(self) -> str | None:
        return self.dense["model"] if self.dense else None


def _manifest_for(config: IndexConfig, dim: int | None) -> Manifest:
    return Manifest(
        format=FORMAT,
        finchunk_version=finchunk.__version__,
        chunking=config.chunking(),
        bm25=asdict(BM25Params()),
        dense={"model": config.model, "dim": dim} if config.model else None,
    )


# --- generations ----------------------------------------------------------------------------


def _live_generation(root: Path) -> Path | None:
    pointer = root / CURRENT
    if not pointer.is_file():
        return None
    name = pointer.read_text(encoding="utf-8").strip()
    gen = root / name
    if not name or not (gen / MANIFEST).is_file():
        raise InputError(f"{root}: {CURRENT} names {name!r}, which is not a complete index")
    return gen


def _next_generation(root: Path) -> str:
    nums = [int(p.name[1:]) for p in root.glob("g[0-9]*") if p.name[1:].isdigit()]
    return f"g{max(nums, default=0) + 1:06d}"


def _fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _publish(root: Path, gen_name: str) -> None:
    """Point CURRENT at ``gen_name`` atomically, then delete every other generation."""
    tmp = root / f"{CURRENT}.tmp"
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(gen_name + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, root / CURRENT)
    _fsync_dir(root)
    for p in root.iterdir():
        if p.is_dir() and p.name != gen_name and _GENERATION.fullmatch(p.name):
            shutil.rmtree(p, ignore_errors=True)


def _prepare_root(root: Path) -> None:
    if root.exists() and not root.is_dir():
        raise InputError(f"{root}: exists and is not a directory")
    ours = (CURRENT, f"{CURRENT}.tmp")
    foreign = (
        [p for p in root.iterdir() if not _GENERATION.fullmatch(p.name) and p.name not in ours]
        if root.is_dir()
        else []
    )
    if foreign and not (root / CURRENT).is_file():
        raise InputError(f"{root}: directory is not empty and is not a finchunk index")
    root.mkdir(parents=True, exist_ok=True)


# --- chunk tables ----------------------------------------------------------------------------

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


def _chunk_table(chunks: Sequence[Chunk], meta_json: str) -> pa.Table:
    return pa.table(
        {
            "id": [c.id for c in chunks],
            "doc_id": [c.doc_id for c in chunks],
            "spans": [[list(s) for s in c.spans] for c in chunks],
            "section": [list(c.section) for c in chunks],
            "page": [c.page for c in chunks],
            "pages": [list(c.pages) for c in chunks],
            "header": [c.header for c in chunks],
            "text": [c.text for c in chunks],
            "kind": [c.kind for c in chunks],
            "metadata": [meta_json] * len(chunks),
        },
        schema=CHUNK_SCHEMA,
    )


DOC_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("title", pa.string()),
        ("source", pa.string()),
        ("sha256", pa.string()),
        ("text", pa.string()),
        ("metadata", pa.string()),
    ]
)


# --- build -----------------------------------------------------------------------------------


@dataclass
class BuildReport:
    path: Path
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
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
        why = f" (full rebuild: {self.rebuilt})" if self.rebuilt else ""
        return ", ".join(parts) + why


@dataclass
class _Piece:
    """One document's rows in the new index: reused from the old one, or fresh."""

    entry: DocEntry
    old_rows: tuple[int, int] | None = None
    table: pa.Table | None = None
    doc_row: dict[str, Any] | None = None


def _previous(root: Path, config: IndexConfig) -> tuple[Index | None, str | None, set[str]]:
    """The live index when its chunks and vectors can be reused (else why not), and the ids
    of the documents it holds."""
    gen = _live_generation(root)
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


def _fresh_piece(src: Source, chunker: Any) -> _Piece:
    doc = src.loader()
    meta = canonical_metadata(doc.metadata)
    meta_json = json.dumps(meta, ensure_ascii=False, sort_keys=True)
    chunks = chunker.chunk(doc)
    entry = DocEntry(doc.id, doc.title, src.source, src.sha256, meta, 0, len(chunks))
    row = {
        "id": doc.id,
        "title": doc.title,
        "source": src.source,
        "sha256": src.sha256,
        "text": doc.text,
        "metadata": meta_json,
    }
    return _Piece(entry, table=_chunk_table(chunks, meta_json), doc_row=row)


def _plan(
    sources: Sequence[Source],
    old: Index | None,
    previous: set[str],
    config: IndexConfig,
    progress: Progress,
    report: BuildReport,
) -> list[_Piece]:
    chunker = make_chunker(
        config.strategy, size=config.size, overlap=config.overlap, header=config.header
    )
    old_docs = {d.id: d for d in old.manifest.documents} if old else {}
    progress.stage("parsing and chunking", len(sources))
    pieces = []
    for src in sources:
        prev = old_docs.get(src.doc_id)
        if prev is not None and prev.sha256 == src.sha256:
            e = DocEntry(**asdict(prev))
            pieces.append(_Piece(e, old_rows=(prev.first_chunk, prev.chunks)))
            report.unchanged.append(src.doc_id)
        else:
            pieces.append(_fresh_piece(src, chunker))
            (report.updated if src.doc_id in previous else report.added).append(src.doc_id)
        progress.advance()
    given = {s.doc_id for s in sources}
    report.removed = sorted(d for d in previous if d not in given)
    return pieces


def _assemble_chunks(pieces: list[_Piece], old: Index | None) -> tuple[pa.Table, np.ndarray]:
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


def _assemble_documents(pieces: list[_Piece], old: Index | None) -> pa.Table:
    old_rows = old.document_rows() if old else {}
    rows = [p.doc_row if p.doc_row is not None else old_rows[p.entry.id] for p in pieces]
    return pa.Table.from_pylist(rows, schema=DOC_SCHEMA)


def _assemble_vectors(
    texts: Sequence[str],
    origin: np.ndarray,
    old: Index | None,
    embedder: Embedder,
    progress: Progress,
) -> np.ndarray:
    fresh = np.flatnonzero(origin < 0)
    progress.stage("embedding", len(fresh))
    new_vecs = embed_passages(embedder, [texts[i] for i in fresh], progress.advance)
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    out[fresh] = new_vecs
    reused = np.flatnonzero(origin >= 0)
    if reused.size and old is not None:
        out[reused] = old.vectors()[origin[reused]]
    return out


def build_index(
    sources: Sequence[Source],
    root: str | Path,
    config: IndexConfig = IndexConfig(),
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """Create or update the index at ``root`` from ``sources`` (atomically)."""
    root = Path(root)
    progress = progress or NoProgress()
    if config.model and embedder is None:
        embedder = make_embedder(config.model)
    if embedder is not None and config.model != embedder.name:
        config = IndexConfig(
            config.strategy, config.size, config.overlap, config.header, embedder.name
        )
    _prepare_root(root)
    report = BuildReport(root)
    old, report.rebuilt, previous = _previous(root, config)
    pieces = _plan(sources, old, previous, config, progress, report)
    chunks, origin = _assemble_chunks(pieces, old)
    manifest = _manifest_for(config, embedder.dim if embedder else None)
    manifest.documents = [p.entry for p in pieces]
    manifest.chunks = report.chunks = chunks.num_rows
    texts = chunks.column("text").to_pylist()
    vectors = None
    if embedder is not None:
        vectors = _assemble_vectors(texts, origin, old, embedder, progress)
    gen_name = _next_generation(root)
    _write_generation(
        root, gen_name, manifest, chunks, _assemble_documents(pieces, old), texts, vectors, progress
    )
    _publish(root, gen_name)
    return report


def _write_generation(
    root: Path,
    gen_name: str,
    manifest: Manifest,
    chunks: pa.Table,
    docs: pa.Table,
    texts: Sequence[str],
    vectors: np.ndarray | None,
    progress: Progress,
) -> None:
    """Write a complete generation under a hidden name, then rename it into place."""
    tmp = root / f".{gen_name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    progress.stage("writing index", 1)
    pq.write_table(chunks, tmp / CHUNKS)
    pq.write_table(docs, tmp / DOCUMENTS)
    LexicalIndex.build(texts).save(tmp / BM25_DIR)
    if vectors is not None:
        np.save(tmp / VECTORS, vectors)
    (tmp / MANIFEST).write_text(manifest.to_json(), encoding="utf-8")
    for f in tmp.rglob("*"):
        if f.is_file():
            with f.open("rb") as fh:
                os.fsync(fh.fileno())
    os.replace(tmp, root / gen_name)
    progress.advance()


# --- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A chunk as stored in the index."""

    position: int
    id: str
    doc_id: str
    spans: tuple[tuple[int, int], ...]
    section: tuple[str, ...]
    page: int | None
    header: str
    text: str


class Index:
    """A finchunk index opened for reading."""

    def __init__(self, root: Path, gen: Path, manifest: Manifest) -> None:
        self.root = root
        self.gen = gen
        self.manifest = manifest
        self.chunks: pa.Table = pq.read_table(gen / CHUNKS)
        if self.chunks.num_rows != manifest.chunks:
            raise InputError(
                f"{gen}: {CHUNKS} has {self.chunks.num_rows} rows, manifest says {manifest.chunks}"
            )
        self._lexical: LexicalIndex | None = None
        self._vectors: np.ndarray | None = None
        self._dense: dict[str, DenseIndex] = {}

    @classmethod
    def open(cls, path: str | Path) -> Index:
        root = Path(path)
        if not root.is_dir():
            raise InputError(f"{root}: no such index directory")
        gen = _live_generation(root)
        if gen is None:
            raise InputError(
                f"{root}: not a finchunk index (no {CURRENT} file); build one "
                f"with `finchunk index FILES -o {root}`"
            )
        manifest = Manifest.from_json(gen / MANIFEST)
        _check_version(root, manifest)
        return cls(root, gen, manifest)

    # metadata ---------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.manifest.chunks

    @cached_property
    def doc_metadata(self) -> list[dict[str, str]]:
        return [d.metadata for d in self.manifest.documents]

    @cached_property
    def meta_index(self) -> MetadataIndex:
        """The documents' metadata prepared for filters (built on first use)."""
        return MetadataIndex(self.doc_metadata)

    @cached_property
    def chunk_doc(self) -> np.ndarray:
        """Per chunk, the position of its document in ``manifest.documents``."""
        counts = [d.chunks for d in self.manifest.documents]
        return np.repeat(np.arange(len(counts)), counts)

    def chunk(self, i: int) -> ChunkRecord:
        r = self.chunks.slice(i, 1).to_pylist()[0]
        return ChunkRecord(
            i,
            r["id"],
            r["doc_id"],
            tuple(tuple(s) for s in r["spans"]),
            tuple(r["section"]),
            r["page"],
            r["header"],
            r["text"],
        )

    def document_rows(self) -> dict[str, dict[str, Any]]:
        return {r["id"]: r for r in pq.read_table(self.gen / DOCUMENTS).to_pylist()}

    @cached_property
    def _doc_texts(self) -> dict[str, str]:
        t = pq.read_table(self.gen / DOCUMENTS, columns=["id", "text"])
        return dict(zip(t.column("id").to_pylist(), t.column("text").to_pylist(), strict=True))

    def document_text(self, doc_id: str) -> str:
        try:
            return self._doc_texts[doc_id]
        except KeyError:
            raise InputError(f"{self.root}: no document {doc_id!r} in the index") from None

    @cached_property
    def _titles(self) -> dict[str, str]:
        return {d.id: d.title for d in self.manifest.documents}

    def title(self, doc_id: str) -> str:
        return self._titles.get(doc_id, doc_id)

    # retrieval --------------------------------------------------------------------------------
    def lexical(self) -> LexicalIndex:
        if self._lexical is None:
            self._lexical = LexicalIndex.load(self.gen / BM25_DIR, self.size)
        return self._lexical

    def vectors(self) -> np.ndarray:
        if self._vectors is None:
            if self.manifest.dense is None or not (self.gen / VECTORS).is_file():
                raise InputError(
                    f"{self.root}: this index has no dense vectors; rebuild it "
                    "with `finchunk index ... --dense`"
                )
            self._vectors = np.load(self.gen / VECTORS, mmap_mode="r")
        return self._vectors

    def dense(self, embedder: Embedder | None = None) -> DenseIndex:
        model = self.manifest.model
        vectors = self.vectors()
        emb = embedder or make_embedder(model or "")
        if emb.name != model:
            raise IndexMismatchError(
                f"{self.root}: index vectors were made with model {model!r}, but the query "
                f"embedder is {emb.name!r}; use the same model or rebuild the index"
            )
        if emb.name not in self._dense:
            self._dense[emb.name] = DenseIndex(np.asarray(vectors), emb)
        return self._dense[emb.name]

    def retriever(
        self, kind: RetrieverKind | str = RetrieverKind.BM25, embedder: Embedder | None = None
    ) -> Retriever:
        k = kind if isinstance(kind, RetrieverKind) else parse_retriever(kind)
        if k is RetrieverKind.BM25:
            return self.lexical()
        if k is RetrieverKind.DENSE:
            return self.dense(embedder)
        return HybridIndex(self.lexical(), self.dense(embedder))


def _check_version(root: Path, m: Manifest) -> None:
    if m.format != FORMAT or m.finchunk_version != finchunk.__version__:
        raise IndexMismatchError(
            f"{root}: index was built by finchunk {m.finchunk_version} (format {m.format}); "
            f"this is finchunk {finchunk.__version__} (format {FORMAT}): rebuild it with "
            "`finchunk index`"
        )
