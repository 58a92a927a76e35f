"""BM25 that can be saved to and loaded from a directory (bm25s's own inspectable files).

Same tokenizer, parameters and tie-breaking as :class:`finchunk.retrieve.bm25.BM25Index`
(tested for equal scores); adds ``save``/``load`` and a ``mask`` on ``scores``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.bm25 import BM25Params, top_k
from finchunk.retrieve.text import query_terms, tokenize


class LexicalIndex:
    """BM25 (bm25s, Robertson) over texts; positions index the texts given to ``build``."""

    def __init__(self, model: bm25s.BM25 | None, size: int) -> None:
        self._model = model
        self.size = size
        self._vocab: dict[str, int] = dict(model.vocab_dict) if model is not None else {}

    @classmethod
    def build(cls, texts: Sequence[str], params: BM25Params | None = None) -> LexicalIndex:
        if not texts:
            return cls(None, 0)
        params = params or BM25Params()
        model = bm25s.BM25(k1=params.k1, b=params.b, method=params.method)
        model.index([tokenize(t) for t in texts], show_progress=False)
        return cls(model, len(texts))

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        if self._model is not None:
            self._model.save(str(directory), show_progress=False)

    @classmethod
    def load(cls, directory: Path, size: int) -> LexicalIndex:
        if size == 0:
            return cls(None, 0)
        if not (directory / "params.index.json").is_file():
            raise InputError(f"{directory}: BM25 index files are missing")
        model = bm25s.BM25.load(str(directory), show_progress=False, mmap=False)
        return cls(model, size)

    def scores(self, query: str, mask: np.ndarray | None = None) -> np.ndarray:
        """BM25 score per text (zeros when no query term is indexed); masked-out: -inf."""
        terms = [t for t in query_terms(query) if t in self._vocab]
        if not terms or self._model is None:
            out = np.zeros(self.size, dtype=np.float32)
        else:
            out = np.asarray(self._model.get_scores(terms), dtype=np.float32)
        if mask is not None:
            out = np.where(mask, out, np.float32(-np.inf))
        return out

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        return top_k(self.scores(query), k, mask)
