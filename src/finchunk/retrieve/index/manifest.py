"""An index's files: the manifest and documents list of a generation, publishing a new
generation (``CURRENT`` replaced atomically, then what no reader holds deleted), and where
each segment row sits in the index (:func:`segment_positions`, :func:`document_positions`).
The layout on disk is described in :mod:`finchunk.retrieve.index.store`."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import finchunk
from finchunk.errors import FinchunkError, InputError
from finchunk.files import index_file, loads
from finchunk.retrieve.index.locks import LOCK, claim_unread
from finchunk.retrieve.index.segments import (
    fsync_tree,
    positions_of,
)
from finchunk.retrieve.lexical.bm25 import BM25Params

#: 3: each segment holds its documents' card postings (``cards/``), each entry its card.
#: 4: each documents row holds its document's layout (elements and pages) for evidence
#: delivery (:mod:`finchunk.retrieve.index.layout`).
FORMAT = 4
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
    card: str = ""  # its card (finchunk.retrieve.query.cards.card_text), made when it was indexed


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
    reader holds (:mod:`finchunk.retrieve.index.locks`) and every segment that neither the new
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
