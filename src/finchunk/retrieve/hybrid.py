"""Hybrid retrieval: reciprocal-rank fusion (RRF) of BM25 and dense rankings.

``fused(d) = sum over retrievers of 1 / (c + rank(d))`` for the documents a retriever ranks
in its top ``depth`` (rank 1 is the best); BM25 only ranks texts that share a term with the
query. Ties keep text order, as everywhere in finchunk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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


def fused_parts(retriever: str) -> tuple[str, ...]:
    """The retrievers a fused one combines: ``hybrid`` → ``bm25``, ``dense``; a fused
    rerank ``FIRST/R@D+W`` → ``FIRST``, ``FIRST/R@D`` (the reranker alone on the same
    candidates) and ``R`` as a first stage; anything else: nothing."""
    if retriever == "hybrid":
        return ("bm25", "dense")
    first, slash, rest = retriever.partition("/")
    if not slash or "+" not in rest:
        return ()
    plain = rest.partition("+")[0]
    return (first, f"{first}/{plain}", plain.partition("@")[0])


def fusion_warnings(
    rows: Sequence[Mapping[str, Any]],
    measure: str = "recall",
    setting: Sequence[str] = ("strategy", "header", "k"),
) -> list[str]:
    """Lines for each setting where a fused retriever (:func:`fused_parts`) scores below
    one of its parts alone on ``measure``.

    ``rows``: report rows (``finchunk eval``'s by default; the FinanceBench bench's with
    ``measure="page_accuracy"`` and ``scope`` in ``setting``), each with ``retriever``;
    a fused retriever is compared with the parts the same setting holds.
    """
    groups: dict[tuple[Any, ...], dict[str, float]] = {}
    for r in rows:
        key = tuple(r.get(f) for f in setting)
        groups.setdefault(key, {})[str(r["retriever"])] = float(r[measure])
    out = []
    for key, by in groups.items():
        where = " ".join(_setting(f, v) for f, v in zip(setting, key, strict=True))
        for name, value in by.items():
            parts = [p for p in fused_parts(name) if p in by]
            if not parts:
                continue
            best = max(parts, key=lambda p: by[p])
            if value < by[best]:
                out.append(
                    f"{where}: {name} {measure} {value:.3f} is below {best} alone ({by[best]:.3f})"
                )
    return out


def _setting(field: str, value: Any) -> str:
    if field == "header":
        return f"header={'on' if value else 'off'}"
    if field in ("k", "scope"):
        return f"{field}={value}"
    return str(value)
