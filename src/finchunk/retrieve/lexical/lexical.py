"""BM25 as a retriever: the core :class:`~finchunk.retrieve.lexical.bm25.BM25Index` with the
parameters and query expansion of an :class:`~finchunk.retrieve.lexical.analyzers.Analyzer`, saved
as its plain files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.lexical.analyzers import PLAIN, Analyzer
from finchunk.retrieve.lexical.bm25 import BM25Index, BM25Params


class LexicalIndex:
    """BM25 over texts; positions index the texts given to ``build``."""

    def __init__(self, bm25: BM25Index, analyzer: Analyzer = PLAIN) -> None:
        self.bm25 = bm25
        self.analyzer = analyzer

    @property
    def size(self) -> int:
        return self.bm25.size

    @classmethod
    def build(
        cls,
        texts: Sequence[str],
        params: BM25Params | None = None,
        analyzer: Analyzer = PLAIN,
    ) -> LexicalIndex:
        """BM25 with ``analyzer``'s parameters derived from ``params`` (default: the
        default parameters)."""
        return cls(BM25Index(texts, analyzer.params(params or BM25Params())), analyzer)

    @property
    def params(self) -> BM25Params:
        return self.bm25.params

    def with_analyzer(self, analyzer: Analyzer) -> LexicalIndex:
        """The same index, queries expanded by ``analyzer`` (its parameters must be these)."""
        return self if analyzer is self.analyzer else LexicalIndex(self.bm25, analyzer)

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
        out = self.bm25.scores(self.analyzer.expand(query))
        if mask is not None:
            out = np.where(mask, out, np.float32(-np.inf))
        return out

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        return self.bm25.search(self.analyzer.expand(query), k, mask)
