"""Hybrid retrieval: BM25 and dense rankings fused, by rank or by score.

Each retriever ranks its top ``depth``; BM25 only ranks texts that share a term with the
query. The fused ranking holds the texts either ranks, ties in text order, as everywhere in
finchunk. Two fusions (:class:`RRFParams` for ``hybrid``, :class:`ConvexParams` for
``hybrid-cc``):

* reciprocal-rank fusion: ``fused(d) = sum over retrievers of 1 / (c + rank(d))`` (rank 1 is
  the best);
* convex combination: ``fused(d) = (1 − w) · bm25'(d) + w · dense'(d)``, each retriever's
  scores min–max scaled over its own top ``depth`` (its best hit 1, its last 0; a text it
  does not rank counts 0), as Bruch, Gai & Ingber ("An Analysis of Fusion Functions for
  Hybrid Retrieval", 2023) compare it with RRF and Weaviate's relative-score fusion runs
  it. A rank keeps how far apart two scores are only in their order; the scaled score keeps
  it, so a passage one retriever scores far above the rest outranks one both rank middling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits, Retriever


@dataclass(frozen=True, slots=True)
class RRFParams:
    c: int = 60
    depth: int = 100

    def fuse(self, rankings: Sequence[Hits], size: int) -> np.ndarray:
        return rrf_fuse(rankings, size, self)


@dataclass(frozen=True, slots=True)
class ConvexParams:
    """``weight``: the dense ranking's share (BM25 has ``1 − weight``); ``depth``: the hits
    of each that are fused. Chosen on the development sets (``bench/rerank.py``; see the
    README's retriever notes): weight 0.4 over depth 100 lost no question at recall@5 on
    the EDGAR dev set per filing or on the demo corpus."""

    weight: float = 0.4
    depth: int = 100

    def __post_init__(self) -> None:
        if not 0.0 <= self.weight <= 1.0:
            raise InputError(f"hybrid-cc: weight must be between 0 and 1, got {self.weight}")
        if self.depth < 1:
            raise InputError(f"hybrid-cc: depth must be at least 1, got {self.depth}")

    def fuse(self, rankings: Sequence[Hits], size: int) -> np.ndarray:
        lexical, dense = rankings
        return convex_fuse((lexical, dense), (1.0 - self.weight, self.weight), size)


def min_max(scores: np.ndarray) -> np.ndarray:
    """Scores scaled to [0, 1] over themselves (float64): the best 1, the worst 0; equal
    scores (one hit, or a tie throughout) all 1."""
    x = scores.astype(np.float64)
    if not x.size:
        return x
    low, span = float(x.min()), float(x.max() - x.min())
    return (x - low) / span if span > 0 else np.ones(x.size)


def convex_fuse(rankings: Sequence[Hits], weights: Sequence[float], size: int) -> np.ndarray:
    """``sum of weight × min–max scaled score`` per text (float64; 0 for texts no ranking
    holds), each ranking scaled over its own hits (a ranking holds a position once)."""
    fused = np.zeros(size, dtype=np.float64)
    for hits, weight in zip(rankings, weights, strict=True):
        fused[hits.positions] += weight * min_max(hits.scores)
    return fused


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
    """Two retrievers over the same texts (BM25 and dense) fused as ``params`` says (RRF or
    the convex combination); it ranks the texts that either ranks in its top ``depth``."""

    def __init__(
        self,
        lexical: Retriever,
        dense: Retriever,
        params: RRFParams | ConvexParams = RRFParams(),
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
        fused = self.params.fuse(rankings, self.size)
        ranked = np.unique(np.concatenate([h.positions[:depth] for h in rankings]))
        return Hits.top(fused, k, ranked)
