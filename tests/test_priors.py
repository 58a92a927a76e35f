"""Document cards and priors for shared indexes: cards from metadata, the prior lifting the
right document in template-like documents, two-stage search, the filter's year policy."""

from __future__ import annotations

import numpy as np
import pytest

from finchunk.errors import InputError
from finchunk.evaluate.runs import Query, rank
from finchunk.model import Chunk, Document
from finchunk.retrieve.query.cards import DocumentMap, card_text, document_card
from finchunk.retrieve.query.filters import AutoFilterPolicy, FilterField, MetadataIndex
from finchunk.retrieve.query.mentions import YearPolicy
from finchunk.retrieve.query.priors import PriorMode, PriorParams, scaled
from finchunk.retrieve.query.retriever import RetrieverOptions, make_retriever
from finchunk.retrieve.query.texts import InMemoryTexts

# Two filings alike in every chunk but the issuer (and year) their card names.
_BODY = [
    "Revenue grew on higher volumes and prices in every segment.",
    "The effective tax rate was lower than the prior year.",
    "Capital expenditure rose to fund new capacity and maintenance.",
]
_META = [
    {"company": "Aurora Energy Corporation", "ticker": "AUR", "form": "10-K", "fiscal_year": 2022},
    {"company": "Boreal Telecom Inc.", "ticker": "BOR", "form": "10-K", "fiscal_year": 2023},
]


def _docs() -> list[Document]:
    return [
        Document(f"d{i}", "\n\n".join(_BODY), title=f"Annual report {i}", metadata=m)
        for i, m in enumerate(_META)
    ]


def _source() -> tuple[list[str], InMemoryTexts]:
    texts = _BODY + _BODY  # document 0's chunks, then document 1's: identical texts
    doc_ids = ["d0"] * 3 + ["d1"] * 3
    return doc_ids, InMemoryTexts(texts, DocumentMap.of(doc_ids, _docs()))


def test_card_from_metadata_in_any_spelling() -> None:
    card = card_text("Annual report", _META[0])
    lines = card.split("\n")
    assert lines[0] == "Annual report"
    for expected in ("Aurora Energy Corporation", "aurora", "AUR", "10-K", "10K", "FY2022"):
        assert any(expected == line for line in lines), (expected, lines)
    spanish = card_text("Informe anual", {"emisor": "Aurora Energía", "anio": 2023, "tipo": "kid"})
    assert "Aurora Energía" in spanish and "FY2023" in spanish and "kid" in spanish
    assert len(lines) == len(set(lines))  # each item once


def test_document_card_takes_the_lead() -> None:
    doc = _docs()[0]
    assert document_card(doc, lead_chars=7).endswith("Revenue")
    assert "Revenue" not in document_card(doc)


def test_prior_lifts_the_named_documents_chunks() -> None:
    _, source = _source()
    plain = make_retriever("bm25", source)
    hits = plain.search("Boreal effective tax rate", 2)
    assert hits.positions.tolist() == [1, 4]  # the same text twice: chunk order
    for name in ("bm25-prior", "bm25-words-prior", "bm25-docs"):
        lifted = make_retriever(name, source).search("Boreal effective tax rate", 2)
        assert lifted.positions[0] == 4, name
    by_ticker = make_retriever("bm25-prior", source).search("AUR tax rate", 1)
    assert by_ticker.positions.tolist() == [1]


def test_two_stage_picks_documents_then_chunks() -> None:
    _, source = _source()
    opts = RetrieverOptions(prior=PriorParams(documents=1))
    hits = make_retriever("bm25-docs", source, opts).search("Aurora revenue capital", 6)
    docs = source.documents.groups[hits.positions]
    assert docs[:2].tolist() == [0, 0]  # the chosen document's chunks first, then the rest
    assert set(docs[2:].tolist()) == {1}
    unknown = make_retriever("bm25-docs", source, opts).search("revenue", 6)
    plain = make_retriever("bm25", source).search("revenue", 6)
    assert unknown.positions.tolist() == plain.positions.tolist()  # no card matched


def test_prior_needs_documents_and_is_deterministic() -> None:
    with pytest.raises(InputError, match="document"):
        make_retriever("bm25-prior", ["a text", "another"])
    doc_ids, source = _source()
    pairs = list(zip(doc_ids, source.texts, strict=True))
    chunks = [Chunk(f"c{i}", d, ((0, 1),), t) for i, (d, t) in enumerate(pairs)]
    q = [Query("q", "Boreal capital expenditure")]
    runs = [rank(q, chunks, "bm25-prior", 3, documents=_docs()) for _ in range(2)]
    assert runs[0].get("q") == runs[1].get("q")
    assert runs[0].get("q")[0].doc_id == "d1"
    sub = source.subset(np.array([3, 4, 5]))
    assert make_retriever("bm25-prior", sub).search("Boreal tax", 1).positions.tolist() == [1]


def test_scaled_keeps_order_in_unit_range() -> None:
    s = scaled(np.array([2.0, 4.0, 1.0]))
    assert s.tolist() == [0.5, 1.0, 0.25]
    neg = scaled(np.array([-1.0, 1.0]))
    assert neg.tolist() == [0.0, 1.0]
    assert PriorMode("two-stage") is PriorMode.TWO_STAGE


def test_filter_year_policy_keeps_the_filing_of_a_forecast_year() -> None:
    metas = [
        {"issuer": "Aurora Energy", "year": "2022"},
        {"issuer": "Aurora Energy", "year": "2023"},
        {"issuer": "Boreal Telecom", "year": "2023"},
    ]
    index = MetadataIndex(metas)
    question = "What capital expenditure does Aurora Energy expect for 2024?"
    latest = AutoFilterPolicy(frozenset(FilterField), YearPolicy.LATEST)
    # no filing for 2024: the year is dropped, every Aurora filing kept
    assert index.mask(index.relax(index.auto_filters(question, latest))).tolist() == [
        True,
        True,
        False,
    ]
    prior = AutoFilterPolicy(frozenset(FilterField), YearPolicy.LATEST_AND_PRIOR)
    kept = index.mask(index.relax(index.auto_filters(question, prior)))
    assert kept.tolist() == [False, True, False]  # the 2023 filing that forecasts 2024
    issuer_only = AutoFilterPolicy(frozenset({FilterField.ISSUER}))
    assert [str(f) for f in index.auto_filters(question, issuer_only)] == ["issuer=Aurora Energy"]


def test_a_document_map_uses_the_metadata_index_it_is_given() -> None:
    metas = [{"issuer": "Acme Corporation"}, {"issuer": "Beta Holdings"}]
    given = MetadataIndex(metas)
    docs = DocumentMap([0, 1, 1], ["Acme", "Beta"], metas, given)
    assert docs.meta_index is given
    assert docs.named("What did Acme earn?").tolist() == [True, False]
    with pytest.raises(ValueError, match="metadata index of 2 for 1 cards"):
        DocumentMap([0], ["Acme"], metas[:1], given)
