"""Document priors for shared indexes: the question scored against each document's card
(:mod:`finchunk.retrieve.query.cards`), combined with any first stage's chunk scores.

Two modes (:class:`PriorMode`):

* ``fuse`` — ``score(chunk) = chunk score / best chunk score + weight × card score of its
  document`` (both in [0, 1]; a first stage with negative scores is min–max scaled);
* ``two-stage`` — the ``documents`` best documents by card score first (among those the
  first stage reached), then chunks: every chunk of a chosen document ranks above every other
  chunk, each group in the first stage's order. A question that matches no card ranks as the
  first stage does.

Only what the first stage ranks is ranked (BM25: the chunks its postings touch); ties keep
the first stage's order, so the same input ranks the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from finchunk.retrieve.base import Hits, Retriever
from finchunk.retrieve.lexical.analyzers import Analyzer
from finchunk.retrieve.lexical.bm25 import BM25Params
from finchunk.retrieve.query.cards import DocumentMap


class PriorMode(StrEnum):
    FUSE = "fuse"
    TWO_STAGE = "two-stage"


@dataclass(frozen=True, slots=True)
class PriorParams:
    """``weight``: the card score's weight against the chunk score (fuse); ``documents``:
    documents kept (two-stage); ``named``: weight of an issuer the question names against
    card BM25 in the card score."""

    weight: float = 2.0
    documents: int = 2
    named: float = 1.0


def scaled(scores: np.ndarray) -> np.ndarray:
    """Scores in [0, 1]: divided by the best when none is negative, else min–max."""
    if not scores.size:
        return scores.astype(np.float64)
    low = min(0.0, float(scores.min()))
    span = float(scores.max()) - low
    return (scores - low) / span if span > 0 else np.zeros(scores.size)


def top_documents(prior: np.ndarray, reached: np.ndarray, m: int) -> np.ndarray:
    """The ``m`` best documents by ``prior`` among ``reached`` (positions), scoring above
    0; ties by position."""
    pool = reached[prior[reached] > 0]
    return Hits.top(prior, m, pool).positions


class PriorRetriever:
    """A first stage with a document prior (see the module's docstring)."""

    def __init__(
        self,
        first: Retriever,
        documents: DocumentMap,
        analyzer: Analyzer,
        bm25: BM25Params,
        mode: PriorMode = PriorMode.FUSE,
        params: PriorParams = PriorParams(),
    ) -> None:
        if documents.groups.shape != (first.size,):
            raise ValueError(
                f"document map covers {documents.groups.size} texts, retriever {first.size}"
            )
        self.first, self.documents = first, documents
        self.analyzer, self.bm25, self.mode, self.params = analyzer, bm25, mode, params

    @property
    def size(self) -> int:
        return self.first.size

    def document_scores(self, query: str) -> np.ndarray:
        """Per document, its card score for ``query`` in [0, 1]."""
        return self.documents.scores(query, self.analyzer, self.bm25, self.params.named)

    def boost(self, query: str, docs: np.ndarray) -> np.ndarray:
        """What the prior adds to each hit, given the hits' documents."""
        prior = self.document_scores(query)
        if self.mode is PriorMode.FUSE:
            return self.params.weight * prior[docs]
        chosen = top_documents(prior, np.unique(docs), self.params.documents)
        return 2.0 * np.isin(docs, chosen)  # above any scaled chunk score

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        hits = self.first.search(query, self.size, mask)
        if k <= 0 or not len(hits):
            return Hits.empty()
        docs = self.documents.groups[hits.positions]
        fused = scaled(hits.scores) + self.boost(query, docs)
        best = Hits.top(fused.astype(np.float32), k)  # ties: the first stage's order
        return Hits(hits.positions[best.positions], best.scores)
