"""BM25 (Okapi, as rank_bm25's ``BM25Okapi``, the lesson's retriever) in a few numpy arrays.

The index is an inverted file: for every term, the chunks that contain it and the term's
precomputed BM25 weight in each (the eager scoring bm25s uses). A query touches only the
postings of its terms: their weights are summed per chunk (one ``bincount`` over the
chunks the postings name, no Python loop and no pass over the whole corpus), and only those
chunks are ranked. Scores equal ``BM25Okapi.get_scores`` (same idf with the same floor for
very common terms; a query term repeated counts again); ``tests/test_bm25.py`` checks it.

``search`` ranks the chunks that share a term with the query (BM25 gives the others no
score); ``scores`` gives the full array, as rank_bm25 does.

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
from finchunk.retrieve.base import Hits
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

    def _postings(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """Chunk ids and weights of every posting of the query's terms, term by term."""
        ids = [self.vocab[t] for t in tokenize(query) if t in self.vocab]
        if not ids or not self.size:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float32)
        parts = [slice(self._offsets[i], self._offsets[i + 1]) for i in ids]
        docs = np.concatenate([self._docs[p] for p in parts])
        weights = np.concatenate([self._weights[p] for p in parts])
        return docs, weights

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for ``query``; terms the index lacks add nothing."""
        docs, weights = self._postings(query)
        if not docs.size:
            return np.zeros(self.size, dtype=np.float32)
        return np.bincount(docs, weights=weights, minlength=self.size).astype(np.float32)

    def matched(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """The chunks sharing a term with ``query`` (ascending) and their BM25 scores.

        Sums per chunk in posting order, as :meth:`scores` does, so the values are equal.
        """
        docs, weights = self._postings(query)
        if not docs.size:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if docs.size * 8 > self.size:  # dense enough: one pass over the chunks is cheaper
            full = np.bincount(docs, weights=weights, minlength=self.size)
            positions = np.flatnonzero(np.bincount(docs, minlength=self.size))
            return positions, full[positions].astype(np.float32)
        positions, inverse = np.unique(docs, return_inverse=True)
        sums = np.bincount(inverse, weights=weights, minlength=positions.size)
        return positions.astype(np.int64), sums.astype(np.float32)

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        """Top ``k`` chunks sharing a term with ``query``; ``mask`` (bool per text)
        restricts the candidates."""
        positions, scores = self.matched(query)
        if mask is not None:
            keep = mask[positions]
            positions, scores = positions[keep], scores[keep]
        found = Hits.top(scores, k)
        return Hits(positions[found.positions], found.scores)

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
