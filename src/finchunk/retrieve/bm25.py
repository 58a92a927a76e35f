"""BM25 (Okapi, as rank_bm25's ``BM25Okapi``, the lesson's retriever) in a few numpy arrays.

The index is an inverted file: for every term, the chunks that contain it and the term's
precomputed BM25 weight in each (the eager scoring bm25s uses). A query is then one
``bincount`` over the postings of its terms: no Python loop over chunks. Scores equal
``BM25Okapi.get_scores`` (same idf with the same floor for very common terms; a query term
repeated counts again); ``tests/test_bm25.py`` checks it.

Rankings are stable: equal scores keep chunk order, so the same input ranks the same way.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.text import tokenize


@dataclass(frozen=True, slots=True)
class BM25Params:
    k1: float = 1.5
    b: float = 0.75
    #: Terms in more than half the chunks get ``epsilon * mean idf`` instead of a negative idf.
    epsilon: float = 0.25


def okapi_idf(doc_freq: np.ndarray, n_docs: int, epsilon: float) -> np.ndarray:
    """Robertson–Spärck Jones idf, negatives floored as in rank_bm25."""
    idf = np.log(n_docs - doc_freq + 0.5) - np.log(doc_freq + 0.5)
    if idf.size:
        floor = epsilon * float(idf.mean())
        idf = np.where(idf < 0, floor, idf)
    return idf


class BM25Index:
    """BM25 over a list of texts; ``search`` returns positions into that list."""

    def __init__(self, texts: Sequence[str], params: BM25Params = BM25Params()) -> None:
        self.params = params
        self.size = len(texts)
        self.vocab: dict[str, int] = {}
        self._build([tokenize(t) for t in texts])

    def _build(self, docs: list[list[str]]) -> None:
        term_ids: list[np.ndarray] = []
        tfs: list[np.ndarray] = []
        for toks in docs:
            counts = Counter(toks)
            ids = [self.vocab.setdefault(t, len(self.vocab)) for t in counts]
            term_ids.append(np.asarray(ids, dtype=np.int64))
            tfs.append(np.fromiter(counts.values(), dtype=np.float64, count=len(counts)))
        lengths = np.fromiter((len(d) for d in docs), dtype=np.float64, count=len(docs))
        doc_of = np.repeat(np.arange(len(docs), dtype=np.int64), [len(t) for t in term_ids])
        terms = np.concatenate(term_ids) if term_ids else np.zeros(0, dtype=np.int64)
        tf = np.concatenate(tfs) if tfs else np.zeros(0)
        order = np.argsort(terms, kind="stable")  # postings grouped by term, docs ascending
        self._docs = doc_of[order].astype(np.int32)
        df = np.bincount(terms, minlength=len(self.vocab)).astype(np.float64)
        self._offsets = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
        avgdl = float(lengths.mean()) if len(docs) and lengths.sum() else 1.0
        k1, b = self.params.k1, self.params.b
        norm = k1 * (1 - b + b * lengths / avgdl)
        tf_sorted = tf[order]
        idf = okapi_idf(df, len(docs), self.params.epsilon)
        self._weights = (
            idf[terms[order]] * tf_sorted * (k1 + 1) / (tf_sorted + norm[self._docs])
        ).astype(np.float32)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for ``query``; terms the index lacks add nothing."""
        ids = [self.vocab[t] for t in tokenize(query) if t in self.vocab]
        if not ids or not self.size:
            return np.zeros(self.size, dtype=np.float32)
        parts = [slice(self._offsets[i], self._offsets[i + 1]) for i in ids]
        docs = np.concatenate([self._docs[p] for p in parts])
        weights = np.concatenate([self._weights[p] for p in parts])
        return np.bincount(docs, weights=weights, minlength=self.size).astype(np.float32)

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Top ``k`` positions with scores; ``mask`` (bool per text) restricts the candidates."""
        return top_k(self.scores(query), k, mask)

    # -- persistence: plain, inspectable files ---------------------------------------------
    def save(self, directory: str | Path) -> None:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        np.save(d / "postings_docs.npy", self._docs)
        np.save(d / "postings_weights.npy", self._weights)
        np.save(d / "term_offsets.npy", self._offsets)
        meta = {"size": self.size, "params": asdict(self.params)}
        (d / "bm25.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        (d / "vocab.json").write_text(json.dumps(self.vocab, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path) -> BM25Index:
        d = Path(directory)
        try:
            meta = json.loads((d / "bm25.json").read_text(encoding="utf-8"))
            obj = cls.__new__(cls)
            obj.params = BM25Params(**meta["params"])
            obj.size = int(meta["size"])
            obj.vocab = json.loads((d / "vocab.json").read_text(encoding="utf-8"))
            obj._docs = np.load(d / "postings_docs.npy")
            obj._weights = np.load(d / "postings_weights.npy")
            obj._offsets = np.load(d / "term_offsets.npy")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{d}: not a readable BM25 index ({exc})") from exc
        return obj


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
