"""A toy first-stage retriever in one module: it ranks texts by how many distinct query
words they contain. Registering it makes ``toy`` a retriever everywhere one is named."""

from __future__ import annotations

import numpy as np

from finchunk.retrieve.base import Hits, candidates
from finchunk.retrieve.query.retriever import RetrieverOptions, register_retriever
from finchunk.retrieve.query.texts import TextSource


class WordOverlap:
    def __init__(self, texts: list[str]) -> None:
        self.words = [set(t.lower().split()) for t in texts]

    @property
    def size(self) -> int:
        return len(self.words)

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        q = set(query.lower().split())
        scores = np.array([len(q & w) for w in self.words], dtype=np.float32)
        pool = candidates(self.size, mask)
        pool = np.flatnonzero(scores > 0) if pool is None else pool[scores[pool] > 0]
        return Hits.top(scores, k, pool)


def make(source: TextSource, options: RetrieverOptions) -> WordOverlap:
    return WordOverlap(list(source.texts))


register_retriever("toy", make)
