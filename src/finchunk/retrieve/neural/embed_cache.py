"""Passage vectors cached on disk by (model, exact text): a rerun embeds only new texts.

Layout (plain NumPy files, inspectable with ``np.load``)::

    CACHE/embeddings/<model slug>/<shard>.vecs.npy   float32 (n × dim)
    CACHE/embeddings/<model slug>/<shard>.keys.npy   uint8 (n × 16): blake2b-128 of each text

``CACHE`` is ``$FINCHUNK_CACHE_DIR``, else ``$XDG_CACHE_HOME/finchunk``, else
``~/.cache/finchunk``; ``FINCHUNK_CACHE_DIR=off`` turns caching off. The model slug comes
from the embedder's name, which carries its package version, so a new model never reads an
old model's vectors.

Writes are atomic and incremental: missing texts are embedded in batches, and every
``SHARD`` texts a shard is written (vectors first, then keys; a shard counts only once its
keys file exists), so an interrupted job keeps what it finished and a rerun resumes. A
shard that cannot be read, or whose two files disagree, is skipped (``damaged``): its
texts are embedded again, never read as wrong vectors.
Several processes may share a cache: shard names never collide and a vector is a pure
function of (model, text), so duplicates are harmless.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from finchunk.files import cache_root

#: Texts per shard file at most; a shard is also written once :data:`FLUSH_S` seconds of
#: embedding have passed since the last one, so an interruption loses at most a shard or
#: about that much work (a slow model makes ~3 vectors a second: 2048 texts were 11 minutes).
SHARD = 2048
FLUSH_S = 30.0


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "model"


class EmbeddingCache:
    """The cached vectors of one model (``name``, ``dim``), loaded on first use."""

    def __init__(self, root: Path, name: str, dim: int) -> None:
        self.dir = root / "embeddings" / _slug(name)
        self.dim = dim
        self._where: dict[bytes, tuple[int, int]] | None = None
        self._shards: list[Path] = []
        self._vecs: dict[int, np.ndarray] = {}
        self.hits = 0
        self.misses = 0
        #: Key files of shards skipped as damaged (their texts are embedded again).
        self.damaged: list[Path] = []

    def _index(self) -> dict[bytes, tuple[int, int]]:
        if self._where is None:
            self._where = {}
            for keys_file in sorted(self.dir.glob("*.keys.npy")):
                shard = self._read_shard(keys_file)
                if shard is None:  # damaged: its texts are embedded again, as if never cached
                    self.damaged.append(keys_file)
                    continue
                self._add_shard(keys_file, *shard)
        return self._where

    def _read_shard(self, keys_file: Path) -> tuple[np.ndarray, np.ndarray] | None:
        """A shard's keys and (memory-mapped) vectors, or None when either file cannot be
        read or their shapes disagree (a cut-short copy, another model's dimension)."""
        vecs_file = Path(str(keys_file).removesuffix(".keys.npy") + ".vecs.npy")
        try:
            keys = np.load(keys_file)
            vecs = np.load(vecs_file, mmap_mode="r")
        except (OSError, EOFError, ValueError):
            return None
        good_keys = keys.dtype == np.uint8 and keys.ndim == 2 and keys.shape[1] == 16
        good_vecs = vecs.dtype == np.float32 and vecs.shape == (len(keys), self.dim)
        return (keys, vecs) if good_keys and good_vecs else None

    def _add_shard(self, keys_file: Path, keys: np.ndarray, vecs: np.ndarray) -> None:
        n = len(self._shards)
        self._vecs[n] = vecs
        self._shards.append(keys_file)
        where = self._where if self._where is not None else {}
        for row, k in enumerate(keys):
            where.setdefault(k.tobytes(), (n, row))

    def get(self, keys: Sequence[bytes]) -> tuple[np.ndarray, list[int]]:
        """Vectors for the keys found (zeros elsewhere) and the indexes not found."""
        where = self._index()
        out = np.zeros((len(keys), self.dim), dtype=np.float32)
        missing = []
        for i, k in enumerate(keys):
            found = where.get(k)
            if found is None:
                missing.append(i)
            else:
                out[i] = self._vecs[found[0]][found[1]]
        return out, missing

    def put(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Write one shard atomically."""
        if not len(keys):
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        stem = self.dir / f"{time.time_ns():020d}-{os.getpid()}"
        key_arr = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 16)
        _atomic_save(Path(f"{stem}.vecs.npy"), np.ascontiguousarray(vectors, dtype=np.float32))
        _atomic_save(Path(f"{stem}.keys.npy"), key_arr)
        self._index()
        self._add_shard(Path(f"{stem}.keys.npy"), key_arr, np.asarray(vectors, dtype=np.float32))


def _atomic_save(path: Path, array: np.ndarray) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as fh:
        np.save(fh, array)
    os.replace(tmp, path)


_OPEN: dict[tuple[Path, str], EmbeddingCache] = {}


def cache_for(name: str, dim: int) -> EmbeddingCache | None:
    """The process's cache of one model (None when caching is off)."""
    root = cache_root()
    if root is None:
        return None
    key = (root, name)
    if key not in _OPEN:
        _OPEN[key] = EmbeddingCache(root, name, dim)
    return _OPEN[key]


def cached_embed(
    embed: Callable[[Sequence[str]], np.ndarray],
    texts: Sequence[str],
    cache: EmbeddingCache,
    batch: int,
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Vectors of ``texts``: cached ones read, the others embedded ``batch`` at a time and
    written every :data:`SHARD` texts. ``on_batch(n)`` counts texts done, found or made."""
    keys = [text_key(t) for t in texts]
    out, missing = cache.get(keys)
    first: dict[bytes, int] = {}
    for i in missing:
        first.setdefault(keys[i], i)
    todo = list(first.values())  # each distinct missing text once
    cache.hits += len(texts) - len(missing)
    cache.misses += len(todo)
    if on_batch and len(texts) > len(todo):
        on_batch(len(texts) - len(todo))
    part: list[int] = []
    vecs: list[np.ndarray] = []
    since = time.monotonic()
    for start in range(0, len(todo), SHARD):
        shard = todo[start : start + SHARD]
        for b in range(0, len(shard), batch):
            at = shard[b : b + batch]
            vecs.append(embed([texts[i] for i in at]))
            part += at
            if on_batch:
                on_batch(len(at))
            if b + batch >= len(shard) or time.monotonic() - since >= FLUSH_S:
                made = np.concatenate(vecs).astype(np.float32)
                cache.put([keys[i] for i in part], made)
                for i, v in zip(part, made, strict=True):
                    out[i] = v
                part, vecs, since = [], [], time.monotonic()
    for i in missing:
        out[i] = out[first[keys[i]]]
    return out
