"""Second stages: re-score the top ``depth`` hits of any retriever with a reranker.

``Reranked(first, reranker, depth).search(q, k)`` asks ``first`` for its best
``max(depth, k)`` hits, scores the best ``depth`` of them with ``reranker.score(q,
positions)`` and returns the ``k`` best by the new score (ties keep the first stage's
order). Scores may be any real number: a cross-encoder's negative logits are hits like any
other. Asked for more than ``depth`` hits (a delivery that reads deeper to keep one chunk
per page, a budget), the hits below ``depth`` follow in the first stage's order, scored
below every reranked one (:func:`below`): the reranking is always the one measured at its
depth, and a reranker that embeds its candidates embeds ``depth`` of them, never more.

With a fusion ``weight`` (``bm25/dense@50+0.5``) the candidates are ranked instead by
``(1 - weight) * first + weight * reranker``, each score min–max scaled to [0, 1] over the
candidates (:func:`fuse_scores`): the first stage's evidence is kept rather than thrown
away, which a reranker weaker than the first stage on some questions needs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from finchunk.retrieve.base import Hits, Reranker, Retriever
from finchunk.retrieve.neural.dense import Embedder, embed_passages

DEFAULT_DEPTH = 50


def minmax(scores: np.ndarray) -> np.ndarray:
    """``scores`` scaled to [0, 1], as float64. All equal (one candidate): all 1, each
    is the best there is (a lone hit of a fused rerank scores 1, not 0)."""
    s = np.asarray(scores, dtype=np.float64)
    if not s.size:
        return s
    low, span = float(s.min()), float(s.max() - s.min())
    return (s - low) / span if span > 0 else np.ones(s.size)


def fuse_scores(first: np.ndarray, second: np.ndarray, weight: float) -> np.ndarray:
    """``(1 - weight) * minmax(first) + weight * minmax(second)`` (float32)."""
    fused = (1.0 - weight) * minmax(first) + weight * minmax(second)
    return fused.astype(np.float32)


def below(scores: np.ndarray, floor: float) -> np.ndarray:
    """``scores`` (a first stage's, best first) shifted so that the best is 1 below
    ``floor``: the unreranked tail of a ranking keeps its order and its gaps, under the
    reranked head (float32)."""
    s = np.asarray(scores, dtype=np.float64)
    return (s - s[0] + floor - 1.0).astype(np.float32) if s.size else s.astype(np.float32)


class Reranked:
    """A first-stage retriever whose top hits a reranker re-scores; with ``weight`` (0–1)
    the two stages' scores are fused (:func:`fuse_scores`), without it the reranker's
    score decides alone."""

    def __init__(
        self,
        first: Retriever,
        reranker: Reranker,
        depth: int = DEFAULT_DEPTH,
        weight: float | None = None,
    ) -> None:
        if weight is not None and not 0.0 <= weight <= 1.0:
            raise ValueError(f"fusion weight must be between 0 and 1, got {weight}")
        self.first = first
        self.reranker = reranker
        self.depth = depth
        self.weight = weight

    @property
    def size(self) -> int:
        return self.first.size

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        pool = self.first.search(query, max(self.depth, k), mask)
        if not len(pool) or k <= 0:
            return Hits.empty()
        head, tail = pool[: self.depth], pool[self.depth : k]
        scores = np.asarray(self.reranker.score(query, head.positions), dtype=np.float32)
        if self.weight is not None:
            scores = fuse_scores(head.scores, scores, self.weight)
        order = np.argsort(-scores, kind="stable")[:k]
        ranked = Hits(head.positions[order], scores[order])
        if not len(tail):
            return ranked
        return Hits(
            np.concatenate([ranked.positions, tail.positions]),
            np.concatenate([ranked.scores, below(tail.scores, float(ranked.scores[-1]))]),
        )


class CandidateVectors:
    """Passage vectors of one embedder, computed only for the positions asked for and kept
    (a reranker embeds its candidates, not the corpus); ``stored`` vectors, when there are
    some (a persisted index's), are read instead."""

    def __init__(
        self, texts: Sequence[str], embedder: Embedder, stored: np.ndarray | None = None
    ) -> None:
        self.texts = texts
        self.embedder = embedder
        self.stored = stored
        self._rows: dict[int, np.ndarray] = {}

    def __call__(self, positions: np.ndarray) -> np.ndarray:
        if self.stored is not None:
            return np.asarray(self.stored[positions], dtype=np.float32)
        wanted = positions.tolist()
        missing = sorted({p for p in wanted if p not in self._rows})
        if missing:
            vecs = embed_passages(self.embedder, [self.texts[p] for p in missing])
            self._rows.update(zip(missing, vecs, strict=True))
        if not wanted:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._rows[p] for p in wanted])


class DenseReranker:
    """Cosine similarity of the question to each candidate's passage vector."""

    def __init__(self, vectors: CandidateVectors) -> None:
        self.vectors = vectors

    def score(self, query: str, positions: np.ndarray) -> np.ndarray:
        q = self.vectors.embedder.embed_queries([query])[0]
        return self.vectors(positions) @ q
