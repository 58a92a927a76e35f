"""A toy reranker in one module: shorter texts first, with negative scores (as a
cross-encoder's logits may be). Registering it makes ``FIRST/toy-short@N`` usable."""

from __future__ import annotations

import numpy as np

from finchunk.retrieve.query.retriever import RetrieverOptions, register_reranker
from finchunk.retrieve.query.texts import TextSource


class Shortest:
    def __init__(self, texts: list[str]) -> None:
        self.lengths = np.array([len(t) for t in texts], dtype=np.float32)

    def score(self, query: str, positions: np.ndarray) -> np.ndarray:
        return -self.lengths[positions]


def make(source: TextSource, options: RetrieverOptions) -> Shortest:
    return Shortest(list(source.texts))


register_reranker("toy-short", make)
