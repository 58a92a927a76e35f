"""Pseudo-relevance feedback for BM25: RM3 (Lavrenko & Croft 2001; Abdul-Jaleel et al. 2004),
as Anserini runs it.

A first BM25 pass ranks the texts; the top ``docs`` are taken as relevant. Each lends its
terms in proportion to how often they occur in it (``tf / length``) times its first-pass
score; the ``terms`` heaviest form the relevance model ``P(t | R)`` (scaled to sum 1), which
is interpolated with the query's own term distribution ``P(t | Q)`` (a term's count over the
query's terms): ``weight * P(t | Q) + (1 - weight) * P(t | R)``. A second BM25 pass scores
that weighted query. A question that says "revenue" of a filing whose tables say "net
sales" gains "net" and "sales" when the passages BM25 finds first use both.

Terms come from the index's own text pipeline (stop words out, marks split, fiscal years
normalised); numeric terms are never fed back (figures do not say what a question is about).
Everything is deterministic: ties in the relevance model are broken by the term itself.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.lexical.lexical import LexicalIndex


@dataclass(frozen=True, slots=True)
class FeedbackParams:
    """RM3's parameters: how many first-pass texts are taken as relevant (``docs``), how
    many of their terms expand the query (``terms``), and the original query's share of
    the final weights (``weight``, 0 to 1; 1 is no feedback). Anserini's defaults are
    10 / 10 / 0.5."""

    docs: int = 10
    terms: int = 10
    weight: float = 0.5

    def __post_init__(self) -> None:
        for name in ("docs", "terms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"feedback {name} must be a whole number of at least 1")
        w = self.weight
        if isinstance(w, bool) or not isinstance(w, int | float) or not 0.0 <= w <= 1.0:
            raise InputError(f"feedback weight must be between 0 and 1, got {w!r}")
        object.__setattr__(self, "weight", float(w))


def _fed_back(term: str) -> bool:
    return not term.isdigit() and len(term) > 1


def relevance_model(
    term_lists: Sequence[Sequence[str]], scores: Sequence[float], n_terms: int
) -> dict[str, float]:
    """``P(t | R)`` over the ``n_terms`` heaviest terms of the feedback texts (each text's
    terms, its first-pass score), scaled to sum 1; ties broken by the term."""
    model: dict[str, float] = {}
    for terms, score in zip(term_lists, scores, strict=True):
        kept = [t for t in terms if _fed_back(t)]
        if not kept or not score > 0:
            continue
        share = float(score) / len(kept)
        for term, count in Counter(kept).items():
            model[term] = model.get(term, 0.0) + count * share
    top = sorted(model.items(), key=lambda kv: (-kv[1], kv[0]))[:n_terms]
    total = math.fsum(w for _, w in top)
    return {t: w / total for t, w in top} if total > 0 else {}


def interpolate(
    query_terms: Sequence[str], model: dict[str, float], weight: float
) -> dict[str, float]:
    """``weight * P(t | Q) + (1 - weight) * P(t | R)``, in first-seen order (the query's
    terms, then the model's)."""
    out: dict[str, float] = {}
    if query_terms:
        for term, count in Counter(query_terms).items():
            out[term] = weight * count / len(query_terms)
    for term, p in model.items():
        out[term] = out.get(term, 0.0) + (1.0 - weight) * p
    return out


class FeedbackRetriever:
    """BM25 with RM3 feedback over ``texts`` (what ``lexical`` indexed, in order)."""

    def __init__(self, lexical: LexicalIndex, texts: Sequence[str], params: FeedbackParams) -> None:
        if lexical.size != len(texts):
            raise ValueError(f"BM25 over {lexical.size} texts, feedback over {len(texts)}")
        self.lexical = lexical
        self.texts = texts
        self.params = params

    @property
    def size(self) -> int:
        return self.lexical.size

    def expanded(self, query: str, mask: np.ndarray | None = None) -> dict[str, float]:
        """The weighted query the second pass scores (the query's own terms alone when the
        first pass finds nothing)."""
        pipeline = self.lexical.params.text
        query_terms = pipeline.tokens(self.lexical.analyzer.expand(query))
        first = self.lexical.search(query, self.params.docs, mask)
        lists = [pipeline.words(self.texts[p])[0] for p in first.positions.tolist()]
        model = relevance_model(lists, first.scores.tolist(), self.params.terms)
        return interpolate(query_terms, model, self.params.weight)

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        if self.params.weight >= 1.0:
            return self.lexical.search(query, k, mask)
        return self.lexical.bm25.search_weighted(self.expanded(query, mask), k, mask)
