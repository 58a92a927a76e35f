"""RM3 pseudo-relevance feedback: the relevance model and interpolation by hand, weighted BM25
queries equal to plain ones, expansion across a vocabulary gap, parameters validated."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from finchunk.errors import InputError
from finchunk.retrieve.lexical.bm25 import BM25Index
from finchunk.retrieve.lexical.feedback import (
    FeedbackParams,
    FeedbackRetriever,
    interpolate,
    relevance_model,
)
from finchunk.retrieve.lexical.lexical import LexicalIndex
from finchunk.retrieve.query.retriever import RetrieverOptions, make_retriever

TEXTS = [
    "Revenue grew: net sales in Greater China rose.",
    "| Greater China net sales | 66,952 | 72,559 |",
    "Net sales of services, and the weather in spring.",
    "The weather was mild; employees worked remotely.",
]


def test_relevance_model_by_hand():
    # net: 2/3 of text 1 (score 2); sales: 1/3 of text 1 + 1/2 of text 2 (score 1)
    model = relevance_model([["net", "sales", "net"], ["sales", "growth"]], [2.0, 1.0], 2)
    net, sales = 2 / 3 * 2, 1 / 3 * 2 + 1 / 2 * 1
    assert list(model) == ["net", "sales"]
    assert math.isclose(model["net"], net / (net + sales))
    assert math.isclose(model["sales"], sales / (net + sales))


def test_numbers_and_single_characters_are_not_fed_back():
    model = relevance_model([["66", "952", "x", "china"]], [1.0], 10)
    assert model == {"china": 1.0}


def test_ties_are_broken_by_the_term():
    assert list(relevance_model([["b", "a", "bb", "aa"]], [1.0], 1)) == ["aa"]


def test_interpolation_by_hand():
    out = interpolate(["revenue", "revenue", "china"], {"net": 0.5, "sales": 0.5}, 0.5)
    assert out == pytest.approx({"revenue": 1 / 3, "china": 1 / 6, "net": 0.25, "sales": 0.25})
    assert math.isclose(sum(out.values()), 1.0)


def test_weighted_query_of_counts_scores_as_the_plain_query():
    bm25 = BM25Index(TEXTS)
    for k in (4, 2):  # every chunk (summed where touched), fewer (the dense top k's floor)
        plain = bm25.search("net sales net china", k)
        counts = Counter(bm25.params.text.tokens("net sales net china"))  # prefix terms too
        assert counts["net"] == counts["net*"] == 2
        weighted = bm25.search_weighted({t: float(c) for t, c in counts.items()}, k)
        assert weighted.positions.tolist() == plain.positions.tolist()
        assert weighted.scores.tolist() == pytest.approx(plain.scores.tolist(), rel=1e-6)


def test_feedback_crosses_a_vocabulary_gap():
    """ "revenue" is only in text 0; the terms text 0 lends ("net", "sales", "china") find
    the table row that never says revenue."""
    lexical = LexicalIndex.build(TEXTS)
    assert lexical.search("revenue", 4).positions.tolist() == [0]
    rm3 = FeedbackRetriever(lexical, TEXTS, FeedbackParams(docs=1, terms=5, weight=0.5))
    found = rm3.search("revenue", 4).positions.tolist()
    assert found[0] == 0 and 1 in found
    assert rm3.search("revenue", 4) == rm3.search("revenue", 4)  # deterministic


def test_weight_one_is_bm25_and_masks_hold():
    lexical = LexicalIndex.build(TEXTS)
    same = FeedbackRetriever(lexical, TEXTS, FeedbackParams(weight=1))
    assert same.search("net sales", 3) == lexical.search("net sales", 3)
    rm3 = FeedbackRetriever(lexical, TEXTS, FeedbackParams(docs=2))
    mask = [True, False, True, True]
    hits = rm3.search("net sales", 4, np.array(mask))
    assert 1 not in hits.positions.tolist() and len(hits)


def test_the_factory_names_rm3_retrievers():
    opts = RetrieverOptions(feedback=FeedbackParams(docs=1, terms=5, weight=0.5))
    for name in ("bm25-rm3", "bm25-words-rm3"):
        hits = make_retriever(name, TEXTS, opts).search("revenue", 4)
        assert 1 in hits.positions.tolist()


@pytest.mark.parametrize(
    "bad", [dict(docs=0), dict(terms=-1), dict(docs=2.5), dict(weight=1.5), dict(weight=True)]
)
def test_feedback_parameters_are_validated(bad):
    with pytest.raises(InputError):
        FeedbackParams(**bad)
