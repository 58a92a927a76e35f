"""Hybrid retrieval: reciprocal-rank fusion (RRF) of BM25 and dense rankings.

``fused(d) = sum over retrievers of 1 / (c + rank(d))`` for the documents a retriever ranks
in its top ``depth`` (rank 1 is the best); BM25 only ranks texts that share a term with the
query. Ties keep text order, as everywhere in finchunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from finchunk.retrieve.base import Hits, Retriever


@dataclass(frozen=True, slots=True)
class RRFParams:
    c: int = 60
    depth: int = 100


def rrf_fuse(rankings: Sequence[Hits], size: int, params: RRFParams = RRFParams()) -> np.ndarray:
    """Fused RRF score per text (float32; 0 for texts no ranking holds) from each
    retriever's top ``params.depth`` hits."""
    fused = np.zeros(size, dtype=np.float64)
    for hits in rankings:
        idx = hits.positions[: params.depth]
        fused[idx] += 1.0 / (params.c + np.arange(1, len(idx) + 1))
    return fused.astype(np.float32)


def rrf_scores(
    score_lists: Sequence[np.ndarray],
    mask: np.ndarray | None = None,
    params: RRFParams = RRFParams(),
    *,
    positive_only: Sequence[bool] = (),
) -> np.ndarray:
    """:func:`rrf_fuse` from full score arrays (masked-out texts get -inf).

    ``positive_only[i]`` means retriever ``i`` ranks only texts scoring above zero (BM25:
    a text without any query term is not "ranked last", it is not ranked at all).
    """
    n = len(score_lists[0]) if score_lists else 0
    rankings = []
    for i, scores in enumerate(score_lists):
        keep = np.isfinite(scores) if mask is None else (mask & np.isfinite(scores))
        if i < len(positive_only) and positive_only[i]:
            keep = keep & (scores > 0)
        rankings.append(Hits.top(scores, params.depth, np.flatnonzero(keep)))
    fused = rrf_fuse(rankings, n, params)
    if mask is not None:
        fused[~mask] = -np.inf
    return fused


class HybridIndex:
    """RRF of two retrievers over the same texts (BM25 and dense); it ranks the texts that
    either ranks in its top ``depth``."""

    def __init__(
        self, lexical: Retriever, dense: Retriever, params: RRFParams = RRFParams()
    ) -> None:
        self.lexical = lexical
        self.dense = dense
        self.params = params

    @property
    def size(self) -> int:
        return self.lexical.size

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        depth = self.params.depth
        rankings = [self.lexical.search(query, depth, mask), self.dense.search(query, depth, mask)]
        fused = rrf_fuse(rankings, self.size, self.params)
        ranked = np.unique(np.concatenate([h.positions[:depth] for h in rankings]))
        return Hits.top(fused, k, ranked)
