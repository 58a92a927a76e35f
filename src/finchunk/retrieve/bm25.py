"""BM25 over chunk texts, built on bm25s (Robertson's variant, as rank_bm25's BM25Okapi).

Scoring is vectorised: one sparse matrix-vector product per query. Rankings are stable:
equal scores keep chunk order, so the same input always ranks the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from finchunk.retrieve.text import query_terms, tokenize


@dataclass(frozen=True, slots=True)
class BM25Params:
    k1: float = 1.5
    b: float = 0.75
    method: str = "robertson"


class BM25Index:
    """A BM25 index over a list of texts; ``search`` returns positions into that list."""

    def __init__(self, texts: Sequence[str], params: BM25Params = BM25Params()) -> None:
        self.size = len(texts)
        self._model = bm25s.BM25(k1=params.k1, b=params.b, method=params.method)
        corpus = [tokenize(t) for t in texts]
        if self.size:
            self._model.index(corpus, show_progress=False)
            self._vocab: dict[str, int] = self._model.vocab_dict
        else:
            self._vocab = {}

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for ``query`` (zeros when no query term is indexed)."""
        terms = [t for t in query_terms(query) if t in self._vocab]
        if not terms or not self.size:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._model.get_scores(terms), dtype=np.float32)

    def search(
        self, query: str, k: int, mask: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """Top ``k`` positions with scores; ``mask`` (bool per text) restricts the candidates."""
        return top_k(self.scores(query), k, mask)


def top_k(scores: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Indices of the ``k`` best scores, ties broken by position (stable).

    A partial selection finds the k-th best score; only candidates at or above it are
    sorted, so a query costs O(n + c log c) rather than a full sort.
    """
    candidates = np.flatnonzero(mask) if mask is not None else None
    pool = scores if candidates is None else scores[candidates]
    if k <= 0 or pool.size == 0:
        return []
    if k < pool.size:
        kth = np.partition(-pool, k - 1)[k - 1]
        keep = np.flatnonzero(-pool <= kth)
    else:
        keep = np.arange(pool.size)
    order = keep[np.argsort(-pool[keep], kind="stable")[:k]]
    idx = order if candidates is None else candidates[order]
    return [(int(i), float(scores[i])) for i in idx]
