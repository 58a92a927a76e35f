"""BM25 for the persisted index: the core :class:`~finchunk.retrieve.bm25.BM25Index` plus a
``mask`` on ``scores`` (masked-out texts get -inf), saved as its plain ``.npy``/JSON files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.bm25 import BM25Index, BM25Params, top_k


class LexicalIndex:
    """BM25 over texts; positions index the texts given to ``build``."""

    def __init__(self, bm25: BM25Index) -> None:
        self.bm25 = bm25
        self.size = bm25.size

    @classmethod
    def build(cls, texts: Sequence[str], params: BM25Params | None = None) -> LexicalIndex:
        return cls(BM25Index(texts, params or BM25Params()))

    @property
    def params(self) -> BM25Params:
        return self.bm25.params

    def save(self, directory: Path) -> None:
        self.bm25.save(directory)

    @classmethod
    def load(cls, directory: Path, size: int) -> LexicalIndex:
        bm25 = BM25Index.load(directory)
        if bm25.size != size:
            raise InputError(f"{directory}: BM25 index has {bm25.size} texts, expected {size}")
        return cls(bm25)

    def scores(self, query: str, mask: np.ndarray | None = None) -> np.ndarray:
        """BM25 score per text (zeros when no query term is indexed); masked-out: -inf."""
        out = self.bm25.scores(query)
        if mask is not None:
            out = np.where(mask, out, np.float32(-np.inf))
        return out

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        return top_k(self.bm25.scores(query), k, mask)
