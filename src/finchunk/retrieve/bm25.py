"""BM25 (Okapi, as rank_bm25's ``BM25Okapi``, the lesson's retriever) in a few numpy arrays.

The index is an inverted file: for every term, the chunks that contain it and the term's
precomputed BM25 weight in each (the eager scoring bm25s uses). A query touches only the
postings of its terms: their weights are summed per chunk (one ``bincount`` over the
chunks the postings name, no Python loop and no pass over the whole corpus), and only those
chunks are ranked. With :data:`LESSON_PARAMS` scores equal ``BM25Okapi.get_scores`` (same
idf with the same floor for very common terms; a query term repeated counts again);
``tests/test_bm25.py`` checks it.

Terms and lengths come from the parameters' :class:`~finchunk.retrieve.text.TextPipeline`,
for texts and queries alike; the length a text is normalised by counts the terms the
pipeline counts (with ``numbers="uncounted"``, words only: a table's figures still match
but do not make it "long"). The parameters, pipeline included, are saved with the index.

``search`` ranks the chunks that share a term with the query (BM25 gives the others no
score); ``scores`` gives the full array, as rank_bm25 does.

Rankings are stable: equal scores keep chunk order, so the same input ranks the same way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.bm25_stats import TermStats, count_terms
from finchunk.retrieve.text import LESSON_TEXT, TextPipeline


@dataclass(frozen=True, slots=True)
class BM25Params:
    """BM25's parameters and the text pipeline its terms and lengths come from.

    ``k1``: term-frequency saturation (> 0); ``b``: length normalisation, 0 (none) to 1
    (full); ``epsilon``: terms in more than half the chunks get ``epsilon * mean idf``
    instead of a negative idf (as rank_bm25). The defaults were chosen on development data
    (``bench/lexical_ablation.py``); :data:`LESSON_PARAMS` is the lesson's BM25 exactly.
    """

    k1: float = 0.9
    b: float = 0.5
    epsilon: float = 0.25
    text: TextPipeline = field(default_factory=TextPipeline)

    def __post_init__(self) -> None:
        for name in ("k1", "b", "epsilon"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(f"BM25 {name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise InputError(f"BM25 {name} must be finite, got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.k1 <= 0:
            raise InputError(f"BM25 k1 must be greater than 0, got {self.k1}")
        if not 0 <= self.b <= 1:
            raise InputError(f"BM25 b must be between 0 and 1, got {self.b}")
        if self.epsilon < 0:
            raise InputError(f"BM25 epsilon must be at least 0, got {self.epsilon}")
        if isinstance(self.text, dict):
            object.__setattr__(self, "text", TextPipeline.from_dict(self.text))
        if not isinstance(self.text, TextPipeline):
            raise InputError(f"BM25 text must be a text pipeline, got {self.text!r}")

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> BM25Params:
        """From :func:`dataclasses.asdict` output (an index's ``bm25.json``, a manifest);
        without ``text`` (older indexes) the lesson's text."""
        try:
            return cls(**{"text": asdict(LESSON_TEXT), **raw})
        except TypeError as exc:
            raise InputError(f"BM25 parameters: {exc}") from None


#: The lesson's BM25 (rank_bm25's ``BM25Okapi`` defaults over :func:`tokenize`).
LESSON_PARAMS = BM25Params(k1=1.5, b=0.75, epsilon=0.25, text=LESSON_TEXT)


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
        self._index(count_terms(texts, params.text))

    @classmethod
    def from_stats(cls, stats: TermStats, params: BM25Params = BM25Params()) -> BM25Index:
        """The index of counted (or merged, :mod:`finchunk.retrieve.bm25_stats`) statistics:
        equal to building it from the texts."""
        obj = cls.__new__(cls)
        obj.params = params
        obj.size = stats.size
        obj._index(stats)
        return obj

    def _index(self, stats: TermStats) -> None:
        self.vocab = {t: i for i, t in enumerate(stats.vocab)}
        lengths, terms, tf = stats.lengths, stats.terms, stats.tf
        order = np.argsort(terms, kind="stable")  # postings grouped by term, docs ascending
        self._docs = stats.text_of[order].astype(np.int32)
        df = stats.doc_freq()
        self._offsets = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
        avgdl = stats.avg_length()
        k1, b = self.params.k1, self.params.b
        norm = k1 * (1 - b + b * lengths / avgdl)
        tf_sorted = tf[order]
        idf = okapi_idf(df, stats.size, self.params.epsilon)
        self._weights = (
            idf[terms[order]] * tf_sorted * (k1 + 1) / (tf_sorted + norm[self._docs])
        ).astype(np.float32)

    def _postings(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """Chunk ids and weights of every posting of the query's terms, term by term."""
        ids = [self.vocab[t] for t in self.params.text.tokens(query) if t in self.vocab]
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
            obj.params = BM25Params.from_dict(meta["params"])
            obj.size = int(meta["size"])
            obj.vocab = json.loads((d / "vocab.json").read_text(encoding="utf-8"))
            obj._docs = np.load(d / "postings_docs.npy")
            obj._weights = np.load(d / "postings_weights.npy")
            obj._offsets = np.load(d / "term_offsets.npy")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{d}: not a readable BM25 index ({exc})") from exc
        except InputError as exc:
            raise InputError(f"{d}: {exc}") from None
        return obj
