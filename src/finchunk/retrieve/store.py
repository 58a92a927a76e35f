"""The on-disk index: manifest, generations, segments, publishing, and reading.

Layout (every file inspectable with ordinary tools)::

    IDX/CURRENT                   the name of the live generation, e.g. "g000002"
    IDX/g000002/manifest.json     finchunk version, chunking strategy and parameters, model,
                                  BM25 parameters and corpus statistics, the segments
    IDX/g000002/documents.json    the documents, one JSON list in index order (id, source,
                                  content hash, metadata, chunk range; which segment and
                                  rows hold them; file stats); ``jq -c '.[]'`` lists them
    IDX/g000002/live_df/S.npy     live document frequencies of segment S, when some of its
                                  documents were replaced or removed
    IDX/g000002/live_card_df/S.npy  the same for the cards of segment S
    IDX/s000001/                  a segment (:mod:`finchunk.retrieve.segments`), immutable:
      chunks.parquet              chunk records (:data:`finchunk.records.CHUNK_SCHEMA`)
      documents.parquet           id, title, source, sha256, text, metadata: citations
                                  resolve against the stored text
      bm25/                       BM25 postings (:mod:`finchunk.retrieve.postings`): sorted
                                  terms, varint postings, lengths; memory-mapped
      cards/                      BM25 postings of the documents' cards, one per documents row
      vectors.npy                 float32 (chunks × dim), L2-normalised, when built --dense

Writes are atomic: a build (:mod:`finchunk.retrieve.build`) writes its segment and then a
new generation directory under hidden names, renamed into place; :func:`publish` replaces
``CURRENT`` with ``os.replace`` (atomic on POSIX and Windows) and only then deletes older
generations and the segments the live one does not use, but for generations an open
:class:`Index` still reads (:mod:`finchunk.retrieve.locks`: an index opened is a snapshot).
A build killed at any point leaves ``CURRENT`` naming a complete generation.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import finchunk
from finchunk.errors import DamagedIndexError, FinchunkError, InputError
from finchunk.files import index_file, loads
from finchunk.records import CHUNK_SCHEMA, ChunkRecord
from finchunk.retrieve.bm25 import BM25Index, BM25Params, CorpusStats, SegmentPart
from finchunk.retrieve.kinds import DEFAULT_EMBEDDER, RetrieverKind
from finchunk.retrieve.locks import LOCK, GenerationHold, claim_unread, hold_live
from finchunk.retrieve.locks import IndexBusyError as IndexBusyError  # its home before locks
from finchunk.retrieve.locks import writer_lock as writer_lock
from finchunk.retrieve.postings import Segment
from finchunk.retrieve.segments import (
    BM25_DIR,
    CARDS_DIR,
    CHUNKS,
    DOCUMENTS,
    SPLADE_DIR,
    VECTORS,
    fsync_tree,
    positions_of,
    read_rows,
)
from finchunk.retrieve.segments import DOC_SCHEMA as DOC_SCHEMA  # its home before segments

if TYPE_CHECKING:  # the retriever stack is imported when a retriever is asked for: a build
    # or an update, which reads an index too, does not pay for it
    from finchunk.retrieve.analyzers import Analyzer
    from finchunk.retrieve.base import Retriever
    from finchunk.retrieve.cards import DocumentMap
    from finchunk.retrieve.deliver import ChunkFacts
    from finchunk.retrieve.dense import DenseIndex, Embedder
    from finchunk.retrieve.filters import MetadataIndex
    from finchunk.retrieve.lexical import LexicalIndex
    from finchunk.retrieve.priors import PriorParams
    from finchunk.retrieve.rerank import CandidateVectors
    from finchunk.retrieve.retriever import InMemoryTexts, RetrieverSpec
    from finchunk.retrieve.splade import Impacts

#: 3: each segment holds its documents' card postings (``cards/``), each entry its card.
FORMAT = 3
CURRENT = "CURRENT"
MANIFEST = "manifest.json"
LIVE_DF = "live_df"
LIVE_CARD_DF = "live_card_df"
#: Per segment whose rows are not simply the index's positions, each row's position.
POSITIONS = "positions"
#: The documents of a generation, a JSON list (read when first needed).
DOCUMENTS_LIST = "documents.json"
#: Generation directories, live (``g000002``) or being written (``.g000003.tmp``).
_GENERATION = re.compile(r"g\d{6}|\.g\d{6}\.tmp")
#: Segment directories, live (``s000002``) or being written (``.s000003.tmp``).
_SEGMENT = re.compile(r"s\d{6}|\.s\d{6}\.tmp")


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
    segment: str = ""
    segment_row: int = 0  # its first chunk's row in the segment
    doc_row: int = 0  # its row in the segment's documents.parquet
    stat: list[int] | None = None  # sizes and mtimes of its file (and sidecar) when indexed
    card: str = ""  # its card (finchunk.retrieve.cards.card_text), made when it was indexed


@dataclass
class Manifest:
    format: int
    finchunk_version: str
    chunking: dict[str, Any]
    bm25: dict[str, Any]
    dense: dict[str, Any] | None
    documents: list[DocEntry] = field(default_factory=list)
    chunks: int = 0
    segments: dict[str, int] = field(default_factory=dict)  # name → its chunk rows
    bm25_stats: dict[str, Any] = field(default_factory=dict)  # CorpusStats of the live chunks
    live_df: list[str] = field(default_factory=list)  # segments with a live_df file
    card_stats: dict[str, Any] = field(default_factory=dict)  # CorpusStats of the live cards
    live_card_df: list[str] = field(default_factory=list)  # segments with a live_card_df file
    positions: list[str] = field(default_factory=list)  # segments with a positions file
    listing: str = ""  # digest of the files' ids, paths and stats (build._listing)
    splade: dict[str, Any] | None = None  # {"model", "scale"} of stored SPLADE impacts

    def to_json(self) -> str:
        """The manifest without its documents (:meth:`documents_json`), a field per line."""
        dump = json.JSONEncoder(ensure_ascii=False).encode
        head = [f'  "{k}": {dump(v)}' for k, v in vars(self).items() if k != "documents"]
        return "{\n" + ",\n".join(head) + "\n}\n"

    def documents_json(self) -> bytes:
        """The documents as one JSON list (UTF-8), encoded by msgspec straight from the
        entries: the standard library's encoder, fed a dict per entry, took 0.12-0.17 s
        for 10k documents, msgspec 0.015 s (the same JSON values)."""
        return msgspec.json.encode(self.documents) + b"\n"

    @classmethod
    def from_json(cls, path: Path, documents: bool = True) -> Manifest:
        """The manifest at ``path`` (a generation's ``manifest.json``), with its documents
        (read from the ``documents.json`` beside it) unless ``documents`` is False."""
        try:
            manifest = cls(**loads(path.read_bytes()))
            if documents:
                manifest.documents = read_documents(path.parent)
            return manifest
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise InputError(f"{path}: not a finchunk index manifest ({exc})") from exc

    @property
    def bm25_params(self) -> BM25Params:
        """The BM25 parameters and text pipeline the index was built with (search uses them)."""
        return BM25Params.from_dict(self.bm25)

    @property
    def model(self) -> str | None:
        return self.dense["model"] if self.dense else None

    @property
    def splade_model(self) -> str | None:
        """The SPLADE model whose document weights the segments store (None: none)."""
        return self.splade["model"] if self.splade else None


@cache
def _documents_decoder() -> msgspec.json.Decoder[list[DocEntry]]:
    return msgspec.json.Decoder(list[DocEntry])


def read_documents(gen: Path) -> list[DocEntry]:
    """The documents of generation ``gen``, decoded and checked against :class:`DocEntry`
    in one pass (``json.loads`` then a ``DocEntry`` per dict took 2.5x as long)."""
    path = gen / DOCUMENTS_LIST
    try:
        return _documents_decoder().decode(path.read_bytes())
    except (OSError, msgspec.DecodeError) as exc:
        raise InputError(f"{path}: not a finchunk index's documents ({exc})") from exc


# --- generations ----------------------------------------------------------------------------


def index_array(path: Path) -> np.ndarray:
    """An index's array, memory-mapped; a damaged file is an error naming it."""
    with index_file(path):
        return np.load(path, mmap_mode="r")


def _table(path: Path) -> pa.Table:
    """An index's Parquet table; a damaged file is an error naming it."""
    with index_file(path):
        return pq.read_table(path)


def _live(root: Path) -> Path:
    """The live generation, or an error saying ``root`` is no index."""
    gen = live_generation(root)
    if gen is None:
        raise InputError(
            f"{root}: not a finchunk index (no {CURRENT} file); build one "
            f"with `finchunk index FILES -o {root}`"
        )
    return gen


def live_generation(root: Path) -> Path | None:
    pointer = root / CURRENT
    if not pointer.is_file():
        return None
    with index_file(pointer):
        name = pointer.read_text(encoding="utf-8").strip()
    gen = root / name
    if not name or not (gen / MANIFEST).is_file():
        raise InputError(f"{root}: {CURRENT} names {name!r}, which is not a complete index")
    return gen


def next_generation(root: Path, prefix: str = "g") -> str:
    """The next unused generation (``g``) or segment (``s``) name."""
    nums = [int(p.name[1:]) for p in root.glob(f"{prefix}[0-9]*") if p.name[1:].isdecimal()]
    return f"{prefix}{max(nums, default=0) + 1:06d}"


def _fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(root: Path, gen_name: str, segments: Sequence[str]) -> None:
    """Point CURRENT at ``gen_name`` atomically, then delete every other generation no
    reader holds (:mod:`finchunk.retrieve.locks`) and every segment that neither the new
    generation (``segments``) nor a held one uses, partial ones included."""
    tmp = root / f"{CURRENT}.tmp"
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(gen_name + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, root / CURRENT)
    _fsync_dir(root)
    _delete_unread(root, {gen_name, *segments})


def _delete_unread(root: Path, keep: set[str]) -> None:
    """Delete the generation and segment folders not in ``keep``, but for the generations
    a reader still holds and the segments they use (left for a later build to delete)."""
    ours = [p for p in sorted(root.iterdir()) if p.name not in keep and p.is_dir()]
    generations = [p for p in ours if _GENERATION.fullmatch(p.name)]
    segments = [p for p in ours if _SEGMENT.fullmatch(p.name)]
    with ExitStack() as claims:  # each unread generation stays claimed until it is deleted
        doomed: list[Path] = []
        for gen in generations:
            if claims.enter_context(claim_unread(gen, MANIFEST)):
                doomed.append(gen)
            else:
                keep |= _segments_read_by(gen, segments)
        for p in [*doomed, *(s for s in segments if s.name not in keep)]:
            shutil.rmtree(p, ignore_errors=True)


def _segments_read_by(gen: Path, candidates: list[Path]) -> set[str]:
    """The segments a held generation uses (all ``candidates`` when its manifest cannot be
    read: nothing it may use is deleted)."""
    try:
        return set(Manifest.from_json(gen / MANIFEST, documents=False).segments)
    except InputError:
        return {p.name for p in candidates}


def check_root(root: Path) -> None:
    """InputError unless ``root`` is absent, empty or an index (nothing is created)."""
    if root.exists() and not root.is_dir():
        raise InputError(f"{root}: exists and is not a directory")
    ours = (CURRENT, f"{CURRENT}.tmp", LOCK)
    foreign = (
        [
            p
            for p in root.iterdir()
            if not (_GENERATION.fullmatch(p.name) or _SEGMENT.fullmatch(p.name))
            and p.name not in ours
        ]
        if root.is_dir()
        else []
    )
    if foreign and not (root / CURRENT).is_file():
        raise InputError(f"{root}: directory is not empty and is not a finchunk index")


# --- generations ------------------------------------------------------------------------------


def write_generation(
    root: Path,
    gen_name: str,
    manifest: Manifest,
    live_df: dict[str, np.ndarray],
    positions: dict[str, np.ndarray] | None = None,
    card_df: dict[str, np.ndarray] | None = None,
) -> None:
    """Write a generation (manifest, documents, live document frequencies of chunks and of
    cards, and the row positions of segments that are not the index in order) under a
    hidden name, then rename it into place (it goes live when :func:`publish` points
    ``CURRENT`` at it)."""
    tmp = root / f".{gen_name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    folders = ((LIVE_DF, live_df), (POSITIONS, positions or {}), (LIVE_CARD_DF, card_df or {}))
    for folder, arrays in folders:
        if arrays:
            (tmp / folder).mkdir()
            for name, values in arrays.items():
                np.save(tmp / folder / f"{name}.npy", values)
    manifest.live_df = sorted(live_df)
    manifest.positions = sorted(positions or {})
    manifest.live_card_df = sorted(card_df or {})
    (tmp / DOCUMENTS_LIST).write_bytes(manifest.documents_json())
    (tmp / MANIFEST).write_text(manifest.to_json(), encoding="utf-8")
    fsync_tree(tmp)
    os.replace(tmp, root / gen_name)


# --- reading ---------------------------------------------------------------------------------


class Index:
    """A finchunk index opened for reading: a snapshot of the generation live when it was
    opened, read however many builds publish after it (:mod:`finchunk.retrieve.locks`)
    until it is closed (``close``, or a ``with`` block) or collected."""

    def __init__(
        self,
        root: Path,
        gen: Path,
        manifest: Manifest,
        documents: bool = True,
        hold: GenerationHold | None = None,
    ) -> None:
        """``documents`` False: ``manifest`` was read without its documents, which are
        read when first needed (a BM25 or dense search needs none). ``hold``: the lock
        that keeps ``gen`` from being deleted while this index reads it."""
        self.root = root
        self.gen = gen
        self._hold = hold or GenerationHold(gen, None)
        self._manifest = manifest
        self._documents_read = False
        if documents:
            self._check_documents()
        missing = [s for s in manifest.segments if not (root / s / CHUNKS).is_file()]
        if missing:
            raise DamagedIndexError(root / missing[0] / CHUNKS, "the file is gone")
        self._lexical: dict[BM25Params, LexicalIndex] = {}
        self._vectors: np.ndarray | None = None
        self._dense: dict[str, DenseIndex] = {}
        self._candidates: dict[str, CandidateVectors] = {}
        self._impacts: list[Impacts] | None = None

    @classmethod
    def open(
        cls, path: str | Path, manifest: Manifest | None = None, *, hold: bool = True
    ) -> Index:
        """The live generation at ``path`` (``manifest``: its manifest, already read).
        ``hold`` False: the generation is not protected from the next build's cleanup
        (what a build reads of the index it replaces)."""
        root = Path(path)
        if not root.is_dir():
            raise InputError(f"{root}: no such index directory")
        taken = hold_live(lambda: _live(root), MANIFEST) if hold else None
        gen = taken.gen if taken else _live(root)
        try:
            documents = manifest is not None
            manifest = manifest or Manifest.from_json(gen / MANIFEST, documents=False)
            _check_version(root, manifest)
            return cls(root, gen, manifest, documents, taken)
        except BaseException:
            if taken:
                taken.release()
            raise

    def close(self) -> None:
        """Let later builds delete this index's generation (reads after this may fail)."""
        self._hold.release()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def header(self) -> Manifest:
        """The manifest, its documents perhaps not read yet: for every field but them."""
        return self._manifest

    @property
    def manifest(self) -> Manifest:
        """The manifest with its documents (read on first use)."""
        if not self._documents_read:
            self._manifest.documents = read_documents(self.gen)
            self._check_documents()
        return self._manifest

    def _check_documents(self) -> None:
        m = self._manifest
        listed = sum(d.chunks for d in m.documents)
        if listed != m.chunks:
            raise InputError(
                f"{self.gen}: documents hold {listed} chunks, manifest says {m.chunks}"
            )
        self._documents_read = True

    # segments -------------------------------------------------------------------------------
    @cached_property
    def positions(self) -> dict[str, np.ndarray | None]:
        """Per segment, each row's position in the index (-1: replaced or removed); None
        when the index is that one segment, every row live and in order. Stored in the
        generation by the build (:func:`segment_positions`), memory-mapped here."""
        head, folder = self.header, self.gen / POSITIONS
        return {
            name: index_array(folder / f"{name}.npy") if name in head.positions else None
            for name in head.segments
        }

    def _gather(self) -> np.ndarray | None:
        """For each position, its row in the segments' rows laid end to end (None: the
        rows are the positions); worked out once."""
        return self._gathered

    @cached_property
    def _gathered(self) -> np.ndarray | None:
        if all(p is None for p in self.positions.values()):
            return None
        out = np.empty(self.size, dtype=np.int64)
        offset = 0
        for name, size in self.header.segments.items():
            pos = self.positions[name]
            live = np.flatnonzero(pos >= 0)
            out[pos[live]] = offset + live
            offset += size
        return out

    @cached_property
    def chunks(self) -> pa.Table:
        """The chunk records in index order (read on first use: opening an index reads only
        its manifest)."""
        tables = [_table(self.root / s / CHUNKS) for s in self.header.segments]
        table = pa.concat_tables(tables) if tables else CHUNK_SCHEMA.empty_table()
        gather = self._gather()
        return table if gather is None else table.take(pa.array(gather))

    def segment_rows(self, name: str) -> pa.Table:
        """The chunk rows of segment ``name``, live or not, in segment order."""
        return _table(self.root / name / CHUNKS)

    # metadata ---------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.header.chunks

    @cached_property
    def doc_metadata(self) -> list[dict[str, str]]:
        return [d.metadata for d in self.manifest.documents]

    @cached_property
    def meta_index(self) -> MetadataIndex:
        """The documents' metadata prepared for filters (built on first use)."""
        from finchunk.retrieve.filters import MetadataIndex

        return MetadataIndex(self.doc_metadata)

    @cached_property
    def chunk_doc(self) -> np.ndarray:
        """Per chunk, the position of its document in ``manifest.documents``."""
        counts = [d.chunks for d in self.manifest.documents]
        return np.repeat(np.arange(len(counts)), counts)

    @cached_property
    def chunk_facts(self) -> ChunkFacts:
        """Per chunk: its document's position, its first page (-1: none), its text length."""
        from finchunk.retrieve.deliver import ChunkFacts

        pages = self.chunks.column("page").to_pylist()
        return ChunkFacts(
            self.chunk_doc,
            np.array([-1 if p is None else p for p in pages], dtype=np.int64),
            np.array([len(t) for t in self.texts], dtype=np.int64),
        )

    def chunk(self, i: int) -> ChunkRecord:
        """The record of the chunk at row ``i`` (read from its segment's row group alone
        unless every chunk is already in memory)."""
        if "chunks" in self.__dict__:
            return ChunkRecord.from_row(self.chunks.slice(i, 1).to_pylist()[0])
        if not 0 <= i < self.size:
            raise IndexError(f"chunk {i} of an index of {self.size}")
        segment, row = self._where(i)
        table = read_rows(self.root / segment / CHUNKS, np.array([row]))
        return ChunkRecord.from_row(table.to_pylist()[0])  # (written in CHUNK_SCHEMA)

    def _where(self, i: int) -> tuple[str, int]:
        """The segment and row that hold position ``i``."""
        seg, rows = self._locate(np.array([i], dtype=np.int64))
        return list(self.header.segments)[int(seg[0])], int(rows[0])

    def _locate(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per position, the index of the segment (in manifest order) and its row there."""
        sizes = np.array(list(self.header.segments.values()), dtype=np.int64)
        gather = self._gather()
        if gather is None:
            return np.zeros(positions.size, dtype=np.int64), positions
        ends = np.cumsum(sizes)
        g = gather[positions]
        seg = np.searchsorted(ends, g, side="right")
        return seg, g - (ends - sizes)[seg]

    def texts_at(self, positions: np.ndarray) -> list[str]:
        """The indexed texts of the chunks at ``positions`` (only their row groups read)."""
        if "texts" in self.__dict__:
            return [self.texts[i] for i in positions.tolist()]
        names = list(self.header.segments)
        seg, rows = self._locate(np.asarray(positions, dtype=np.int64))
        out: list[str] = [""] * len(seg)
        for k in sorted(set(seg.tolist())):
            at = np.flatnonzero(seg == k)
            table = read_rows(self.root / names[k] / CHUNKS, rows[at], ["text"])
            for i, text in zip(at.tolist(), table.column("text").to_pylist(), strict=True):
                out[i] = text
        return out

    def subset(self, positions: np.ndarray, vectors: bool = True) -> InMemoryTexts:
        """The chunks at ``positions`` as a source of their own (their own BM25
        statistics), reading only their texts; stored vectors are sliced (``vectors``:
        whether to read them at all)."""
        from finchunk.retrieve.retriever import InMemoryTexts

        model = self.header.model
        stored = {} if model is None or not vectors else {model: self.vectors()[positions]}

        def documents() -> DocumentMap:
            return self.documents.subset(positions)

        impacts = None
        if self.header.splade_model is not None:

            def impacts_at(at: np.ndarray) -> Impacts:
                return self.splade_impacts(positions[at])

            impacts = (self.header.splade_model, impacts_at)
        return InMemoryTexts(self.texts_at(positions), documents, stored, impacts)

    def document_rows(self) -> dict[str, dict[str, Any]]:
        """The live documents' rows by id (each segment's rows that the manifest uses)."""
        live: dict[str, set[int]] = {}
        for d in self.manifest.documents:
            live.setdefault(d.segment, set()).add(d.doc_row)
        out = {}
        for name in self.header.segments:
            rows = _table(self.root / name / DOCUMENTS).to_pylist()
            out.update({r["id"]: r for i, r in enumerate(rows) if i in live.get(name, ())})
        return out

    def document_text(self, doc_id: str) -> str:
        """The text of document ``doc_id`` (its segment's row group alone is read)."""
        entry = self._entries.get(doc_id)
        if entry is None:
            raise InputError(f"{self.root}: no document {doc_id!r} in the index")
        path = self.root / entry.segment / DOCUMENTS
        return str(read_rows(path, np.array([entry.doc_row]), ["text"]).column("text")[0])

    @cached_property
    def _entries(self) -> dict[str, DocEntry]:
        return {d.id: d for d in self.manifest.documents}

    def title(self, doc_id: str) -> str:
        entry = self._entries.get(doc_id)
        return doc_id if entry is None else entry.title

    # retrieval: the index is a TextSource for the retriever factory ------------------------
    @cached_property
    def texts(self) -> list[str]:
        """The indexed text of every chunk, in row order."""
        return self.chunks.column("text").to_pylist()

    @cached_property
    def documents(self) -> DocumentMap:
        """Each chunk's document and the documents' cards (made when each document was
        indexed: a search of 10k documents no longer spends 0.4 s making them), for
        retrievers with a document prior."""
        from finchunk.retrieve.analyzers import PLAIN
        from finchunk.retrieve.cards import DocumentMap
        from finchunk.retrieve.lexical import LexicalIndex

        cards = [d.card for d in self.manifest.documents]
        stored = {(PLAIN, self.header.bm25_params): LexicalIndex(self.stored_cards())}
        return DocumentMap(
            self.chunk_doc, cards, self.doc_metadata, self.meta_index, stored, canonical=True
        )

    def stored_cards(self) -> BM25Index:
        """BM25 of the documents' cards, from the segments' card postings with the live
        cards' statistics: what BM25 over every card (in document order) would give."""
        segments = {n: Segment.load(self.root / n / CARDS_DIR) for n in self.header.segments}
        positions = document_positions(self.manifest, {n: s.size for n, s in segments.items()})
        parts = self._parts(segments, positions, LIVE_CARD_DF, self.header.live_card_df)
        stats = CorpusStats(**self.header.card_stats)
        return BM25Index.from_parts(
            self.header.bm25_params, parts, stats, len(self.manifest.documents)
        )

    def _parts(
        self,
        segments: Mapping[str, Segment],
        positions: Mapping[str, np.ndarray | None],
        live_folder: str,
        live: Sequence[str],
    ) -> list[SegmentPart]:
        """The segments as BM25 parts: their rows at ``positions``, and the generation's
        live document frequencies for the segments named in ``live`` (memory-mapped)."""
        parts = []
        for name, segment in segments.items():
            df = None
            if name in live:
                df = index_array(self.gen / live_folder / f"{name}.npy")
            parts.append(SegmentPart(segment, positions[name], df))
        return parts

    def lexical(
        self, analyzer: Analyzer | None = None, params: BM25Params | None = None
    ) -> LexicalIndex:
        """The stored BM25 index (``params`` default: the stored ones; ``analyzer``: the
        plain one); an analyzer or parameters giving other parameters are built from the
        stored texts (once)."""
        from finchunk.retrieve.analyzers import PLAIN
        from finchunk.retrieve.lexical import LexicalIndex

        analyzer = PLAIN if analyzer is None else analyzer
        stored = self.header.bm25_params
        key = analyzer.params(params or stored)
        if key not in self._lexical:
            if key == stored:
                self._lexical[key] = LexicalIndex(self.stored_bm25())
            else:
                self._lexical[key] = LexicalIndex.build(self.texts, key)
        return self._lexical[key].with_analyzer(analyzer)

    def stored_bm25(self) -> BM25Index:
        """The BM25 index of the segments, memory-mapped, with the live chunks' statistics."""
        segments = {n: Segment.load(self.root / n / BM25_DIR) for n in self.header.segments}
        parts = self._parts(segments, self.positions, LIVE_DF, self.header.live_df)
        stats = CorpusStats(**self.header.bm25_stats)
        return BM25Index.from_parts(self.header.bm25_params, parts, stats, self.size)

    def vectors(self) -> np.ndarray:
        if self._vectors is None:
            files = [self.root / s / VECTORS for s in self.header.segments]
            if self.header.dense is None or not all(f.is_file() for f in files):
                raise InputError(
                    f"{self.root}: this index has no dense vectors; rebuild it "
                    "with `finchunk index ... --dense`"
                )
            parts = [index_array(f) for f in files]
            gather = self._gather()
            if gather is None:
                self._vectors = parts[0] if parts else np.zeros((0, self.header.dense["dim"]))
            else:
                self._vectors = np.concatenate(parts)[gather]
        return self._vectors

    def impacts_for(self, model: str) -> Callable[[np.ndarray], Impacts] | None:
        """:meth:`splade_impacts` when the index stores ``model``'s impacts on today's grid,
        else None (a SPLADE rerank then encodes its candidates)."""
        from finchunk.retrieve.splade import IMPACT_SCALE

        splade = self.header.splade
        if splade is None or splade.get("model") != model or splade.get("scale") != IMPACT_SCALE:
            return None
        return self.splade_impacts

    def splade_impacts(self, positions: np.ndarray) -> Impacts:
        """The stored SPLADE impacts of the chunks at ``positions`` (in that order), read
        from their segments' memory-mapped rows; the index must store them
        (:attr:`Manifest.splade_model`)."""
        from finchunk.retrieve.splade import IMPACT_SCALE, Impacts

        splade = self.header.splade
        if splade is None or splade.get("scale") != IMPACT_SCALE:
            raise InputError(f"{self.root}: this index stores no SPLADE impacts of this grid")
        if self._impacts is None:
            self._impacts = [Impacts.load(self.root / s / SPLADE_DIR) for s in self.header.segments]
        seg, rows = self._locate(np.asarray(positions, dtype=np.int64))
        order = np.argsort(seg, kind="stable")
        parts = [
            self._impacts[k].take(rows[order][seg[order] == k])
            for k in sorted(set(seg.tolist()))
        ]
        together = Impacts.concat(parts)
        back = np.empty_like(order)
        back[order] = np.arange(order.size)
        return together.take(back)

    def dense(self, embedder: Embedder | None = None) -> DenseIndex:
        from finchunk.retrieve.dense import DenseIndex, make_embedder

        model = self.header.model
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
        from finchunk.retrieve.rerank import CandidateVectors

        if embedder.name not in self._candidates:
            stored = self.vectors() if self.header.model == embedder.name else None
            self._candidates[embedder.name] = CandidateVectors(self.texts, embedder, stored)
        return self._candidates[embedder.name]

    def retriever(
        self,
        spec: RetrieverSpec | RetrieverKind | str = RetrieverKind.BM25,
        embedder: Embedder | None = None,
        kept: np.ndarray | None = None,
        prior: PriorParams | None = None,
        reranker: str | None = None,
    ) -> Retriever:
        """A retriever from the factory over this index (dense parts use the index's own
        model unless ``embedder`` is given). ``kept``: positions (ascending) to build it
        on alone, scoring with their own statistics; it still answers in index positions.
        ``prior``: the document prior's parameters (default: :class:`PriorParams`');
        ``reranker``: the ``model`` reranker's model."""
        from finchunk.retrieve.retriever import (
            RetrieverOptions,
            Within,
            make_retriever,
            parse_retriever,
        )

        model = embedder if embedder is not None else (self.header.model or DEFAULT_EMBEDDER)
        options = RetrieverOptions(embedder=model, bm25=self.header.bm25_params, reranker=reranker)
        if prior is not None:
            options = replace(options, prior=prior)
        if kept is None:
            return make_retriever(spec, self, options)
        embeds = parse_retriever(spec).needs_embedder
        if embeds:  # an unfiltered search's checks (vectors, the same model); its embedder
            options = replace(options, embedder=self.dense(embedder).embedder)
        sub = self.subset(kept, vectors=embeds)
        return Within(kept, make_retriever(spec, sub, options), self.size)


def segment_positions(manifest: Manifest) -> dict[str, np.ndarray | None]:
    """Per segment of ``manifest``, each row's position in the index (-1: not live); None
    for the one segment of an index whose rows are all live and in order."""
    rows: dict[str, list[tuple[int, int, int]]] = {s: [] for s in manifest.segments}
    for d in manifest.documents:
        rows[d.segment].append((d.segment_row, d.chunks, d.first_chunk))
    out: dict[str, np.ndarray | None] = {}
    for name, size in manifest.segments.items():
        pos = positions_of(size, rows[name])
        identity = len(rows) == 1 and size == manifest.chunks
        out[name] = None if identity and bool((pos == np.arange(size)).all()) else pos
    return out


def document_positions(
    manifest: Manifest, sizes: Mapping[str, int]
) -> dict[str, np.ndarray | None]:
    """Per segment of ``manifest`` (``sizes``: its documents rows), each row's position in
    the index's document order (-1: not live); None for the one segment whose rows are
    all live and in order."""
    docs, names = manifest.documents, list(manifest.segments)
    code = {name: i for i, name in enumerate(names)}
    seg = np.fromiter((code[d.segment] for d in docs), np.int64, len(docs))
    row = np.fromiter((d.doc_row for d in docs), np.int64, len(docs))
    at = np.arange(len(docs), dtype=np.int64)
    out: dict[str, np.ndarray | None] = {}
    for i, name in enumerate(names):
        here = seg == i
        out[name] = pos = np.full(sizes[name], -1, dtype=np.int64)
        pos[row[here]] = at[here]
    if len(out) == 1:
        ((name, only),) = out.items()
        if only is not None and bool((only == np.arange(only.size)).all()):
            return {name: None}
    return out


def _check_version(root: Path, m: Manifest) -> None:
    if m.format != FORMAT or m.finchunk_version != finchunk.__version__:
        raise IndexMismatchError(
            f"{root}: index was built by finchunk {m.finchunk_version} (format {m.format}); "
            f"this is finchunk {finchunk.__version__} (format {FORMAT}): rebuild it with "
            "`finchunk index`"
        )
