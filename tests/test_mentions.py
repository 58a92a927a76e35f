"""What a question names: issuers, years, quarters, document types, with their spans."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchunk.retrieve.query import mentions
from finchunk.retrieve.query.mentions import (
    Issuer,
    MentionFinder,
    MentionKind,
    YearPolicy,
    periods,
)

FINDER = MentionFinder(
    [
        Issuer("Best Buy", aliases=("BESTBUY",)),
        Issuer("Coca-Cola"),
        Issuer("AES Corporation"),
        Issuer("MGM Resorts"),
        Issuer("JPMorgan"),
        Issuer("Johnson & Johnson"),
        Issuer("American Water Works", aliases=("AMERICANWATERWORKS",)),
        Issuer("CVS Health"),
        Issuer("Apple Inc.", tickers=("AAPL",)),
        Issuer("Repsol, S.A."),
        Issuer("Banco Santander, S.A."),
        Issuer("Aurora Energía"),
    ],
    doc_types=["10-K", "10-Q", "kid", "folleto", "informe_anual"],
)


def issuers(question: str) -> tuple[str, ...]:
    return FINDER.find(question).issuers


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What did Apple Inc. report?", ("Apple Inc.",)),  # full name
        ("What did AES Corporation earn?", ("AES Corporation",)),
        ("What did AES earn?", ("AES Corporation",)),  # core name, no legal suffix
        ("¿Cuál fue el beneficio de Repsol?", ("Repsol, S.A.",)),
        ("Ratio de capital de Santander", ("Banco Santander, S.A.",)),  # generic "banco"
        ("beneficio de aurora energía", ("Aurora Energía",)),  # any case, accents
        ("Did BestBuy grow?", ("Best Buy",)),  # glued
        ("JP Morgan's net revenue", ("JPMorgan",)),  # split
        ("Coca Cola's dividends", ("Coca-Cola",)),  # possessive, hyphen
        ("Johnson & Johnson sales", ("Johnson & Johnson",)),
        ("americanwaterworks capex", ("American Water Works",)),  # an alias
        ("Which region led MGM?", ("MGM Resorts",)),  # an acronym leading the name
        ("AAPL revenue", ("Apple Inc.",)),  # a ticker in capitals
        ("aapl revenue", ()),  # not in lower case
        ("Is JnJ growing?", ("Johnson & Johnson",)),  # an abbreviation
        ("Does AMEX pay?", ()),  # abbreviates no issuer here
        ("the Consumer Health segment of Best Buy", ("Best Buy",)),  # another name's word
        ("What did Health report?", ("CVS Health",)),  # a word only it has, capitalised
        ("what did health report?", ()),
        ("¿Qué banco tiene más capital?", ()),
    ],
)
def test_issuers_named(question, expected):
    assert issuers(question) == expected


def test_a_partial_name_needs_a_capital():
    funds = MentionFinder(
        [Issuer("Meridiano Bonos Corto Plazo"), Issuer("Meridiano Acciones Europa")]
    )
    assert funds.find("¿Qué riesgo tiene invertir a corto plazo?").issuers == ()
    assert funds.find("¿Qué comisión cobra el Corto Plazo?").issuers == (
        "Meridiano Bonos Corto Plazo",
    )
    assert funds.find("gastos de meridiano acciones europa").issuers == (
        "Meridiano Acciones Europa",
    )
    assert funds.find("gastos de meridiano").issuers == ()  # shared by both


def test_an_abbreviation_counts_only_when_no_name_matched():
    found = FINDER.find("Did Best Buy beat CVS? BBY rose.")
    assert found.issuers == ("Best Buy", "CVS Health")  # "CVS" leads "CVS Health"
    only = FINDER.find("Did BBY beat JnJ?")
    assert only.issuers == ("Best Buy", "Johnson & Johnson")
    # Once a name matched, an abbreviation of another issuer adds nothing …
    assert FINDER.find("Did Best Buy beat JnJ?").issuers == ("Best Buy",)
    # … but one of the named issuer is part of its mention (its span is consumed).
    spans = [(m.kind, found.question[m.start : m.end]) for m in found.found]
    assert (MentionKind.ISSUER, "BBY") in spans


@pytest.mark.parametrize(
    ("question", "years"),
    [
        ("revenue in 2024", (2024,)),
        ("revenue in FY2022", (2022,)),
        ("revenue in FY 22 and fiscal year 2019", (2019, 2022)),
        ("FY 2021 vs FY22, fiscal 2019; 3 months", (2019, 2021, 2022)),
        ("As of FY2023Q1", (2023,)),
        ("ingresos del ejercicio 2023", (2023,)),
        ("beneficio del año 2021", (2021,)),
        ("resultados 3T24", (2024,)),
        ("Q3'24 results", (2024,)),
        ("1T2024", (2024,)),
        ("revenue of 12,500 million", ()),
        ("revenue last year", ()),
    ],
)
def test_years_named(question, years):
    assert periods(question).named_years == years


@pytest.mark.parametrize(
    ("question", "quarter"),
    [
        ("Q3 2024 revenue", 3),
        ("3Q24 revenue", 3),
        ("2021 Q1", 1),
        ("As of FY2023Q1", 1),
        ("revenue in the third quarter of 2024", 3),
        ("3rd quarter", 3),
        ("second fiscal quarter of 2023", 2),
        ("ingresos del primer trimestre", 1),
        ("ingresos del cuarto trimestre de 2024", 4),
        ("1er trimestre", 1),
        ("ingresos 3T 2024", 3),
        ("revenue in 2024", None),
        ("the 10-Q filing", None),
        # re.I matches these too; their lower case is no ordinal's (no KeyError)
        ("the \u017fecond quarter", 2),
        ("the f\u0130rst quarter", None),
    ],
)
def test_quarters_named(question, quarter):
    assert periods(question).quarter == quarter


def test_year_policies():
    q = "growth from FY2021 to 2023, as reported in fiscal 2022"
    assert periods(q, YearPolicy.ANY).years == (2021, 2022, 2023)
    assert periods(q, YearPolicy.LATEST).years == (2023,)
    assert periods(q, YearPolicy.FIRST).years == (2021,)
    # FIRST: a year with a fiscal marker before a bare one
    assert periods("In its 2023 report, what was FY2022 revenue?", YearPolicy.FIRST).years == (
        2022,
    )
    for policy in YearPolicy:
        assert periods("no year here", policy).years == ()
    assert periods(q, YearPolicy.LATEST).named_years == (2021, 2022, 2023)


@pytest.mark.parametrize(
    ("question", "types"),
    [
        ("What does the 10-K say?", ("10-K",)),
        ("In the 10K and the 10-Q", ("10-K", "10-Q")),
        ("gastos del KID de Sabadell", ("kid",)),
        ("según su documento de datos fundamentales", ("kid",)),  # a synonym
        ("¿Qué dice el folleto?", ("folleto",)),
        ("What does the prospectus say?", ("folleto",)),  # the other language
        ("el informe anual de Repsol", ("informe_anual",)),
        ("Repsol's annual report", ("informe_anual",)),
        ("a kidney", ()),
    ],
)
def test_document_types_named(question, types):
    assert FINDER.find(question).values(MentionKind.DOC_TYPE) == types


def test_only_the_document_types_given_are_found():
    assert (
        MentionFinder(doc_types=["10-K"]).find("the prospectus").values(MentionKind.DOC_TYPE) == ()
    )


def test_spans_and_residual_query():
    q = "What is Best Buy's FY2019 inventory in the 10-K? BBY rose in Q3 2018."
    found = FINDER.find(q, YearPolicy.LATEST)
    assert [(m.kind, q[m.start : m.end]) for m in found.found] == [
        (MentionKind.ISSUER, "Best"),
        (MentionKind.ISSUER, "Best Buy's"),
        (MentionKind.FISCAL_YEAR, "FY2019"),
        (MentionKind.DOC_TYPE, "10-K"),
        (MentionKind.ISSUER, "BBY"),
        (MentionKind.QUARTER, "Q3"),
        (MentionKind.YEAR, "2018"),
    ]
    assert found.years == (2019,) and found.quarter == 3
    assert found.residual() == "What is inventory in the ? rose in ."
    kept = found.residual([MentionKind.ISSUER, MentionKind.FISCAL_YEAR, MentionKind.YEAR])
    assert kept == "What is inventory in the 10-K? rose in Q3 ."
    assert FINDER.find("nothing named").residual() == "nothing named"


def test_a_ticker_keeps_itself_and_its_issuer():
    (m,) = FINDER.find("AAPL").found
    assert (m.kind, m.value, m.issuer) == (MentionKind.TICKER, "AAPL", "Apple Inc.")
    bare = MentionFinder(tickers=["MSFT"]).find("Did MSFT grow?")
    assert bare.values(MentionKind.TICKER) == ("MSFT",) and bare.issuers == ()


def test_deterministic_and_immutable():
    q = "Did JP Morgan or JnJ grow in FY22 vs 2021 per the 10-K?"
    again = MentionFinder(
        [Issuer("Johnson & Johnson"), Issuer("JPMorgan")], doc_types=["10-K"]
    ).find(q)
    assert FINDER.find(q).found == FINDER.find(q).found
    assert again.issuers == ("JPMorgan",)
    with pytest.raises(AttributeError):
        again.policy = YearPolicy.LATEST  # type: ignore[misc]


@settings(max_examples=300)
@given(st.text(alphabet="ab'’sS_ .Éé&-", max_size=16))
def test_issuer_words_are_the_token_texts(text: str) -> None:
    # _words is a fast path of _tokens for indexing names: the same words, possessives
    # joined to the word before.
    assert mentions._words(text) == tuple(t.text for t in mentions._tokens(text))


def test_issuer_words_join_possessives() -> None:
    assert mentions._words("Apple's MGM’s s 's") == ("apple", "mgm", "s", "s")
