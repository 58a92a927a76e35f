"""The ``ask`` router: figure questions (EN/ES) to the fact store, the rest to cited text."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from finchunk.ask import (
    AskOptions,
    FiscalPeriod,
    Metric,
    Ratio,
    Route,
    ask,
    find_measure,
    find_period,
)
from finchunk.errors import InputError
from finchunk.facts import FactStore, Period
from finchunk.facts.model import Fact, Filing, ParsedFacts
from finchunk.retrieve.build import IndexConfig, build_index, file_sources

D = date.fromisoformat


def _p(start: str, end: str) -> Period:
    return Period.duration(D(start), D(end))


FY24 = _p("2024-01-01", "2024-12-31")
Q1, Q2, Q3 = (
    _p("2024-01-01", "2024-03-31"),
    _p("2024-04-01", "2024-06-30"),
    _p("2024-07-01", "2024-09-30"),
)
M9 = _p("2024-01-01", "2024-09-30")
K = Filing("0000000042-25-000001", "10-K", D("2025-02-10"))
Q = Filing("0000000042-24-000030", "10-Q", D("2024-11-05"))


def _fact(concept: str, value: str, period: Period, filing: Filing, unit: str = "USD") -> Fact:
    return Fact(
        cik=42, concept=concept, unit=unit, period=period, value=Decimal(value), filing=filing
    )


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    facts = [
        _fact("us-gaap:Revenues", "1000", FY24, K),
        _fact("us-gaap:Revenues", "300", Q1, Q),
        _fact("us-gaap:Revenues", "200", Q2, Q),
        _fact("us-gaap:Revenues", "210", Q3, Q),
        _fact("us-gaap:Revenues", "710", M9, Q),
        _fact("us-gaap:GrossProfit", "420", FY24, K),
        _fact("us-gaap:NetIncomeLoss", "125", FY24, K),
        _fact("us-gaap:Assets", "5400", Period.instant(D("2024-12-31")), K),
    ]
    path = tmp_path / "facts.sqlite"
    with FactStore(path) as store:
        store.add(ParsedFacts(source="hand-made", facts=facts, entity_name="Acme Corp"))
    return path


@pytest.fixture
def index_path(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "acme.md").write_text(
        "# Acme Corp 10-K 2024\n\n## Risk factors\n\nOur suppliers are concentrated in one "
        "region; a disruption there could delay shipments.\n\n## Strategy\n\nWe expand the "
        "cloud business.\n\n## Dividends\n\nThe board proposes no dividend.\n\n"
        "## Employees\n\nWe employ 1,200 people.\n",
        encoding="utf-8",
    )
    build_index(file_sources([docs]), tmp_path / "idx", IndexConfig())
    return tmp_path / "idx"


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        ("What was Acme's revenue in FY2024?", Metric.REVENUE),
        ("¿Cuáles fueron los ingresos de Acme en 2024?", Metric.REVENUE),
        ("¿Cuál fue el beneficio por acción de Acme en 2024?", Metric.EPS),
        ("Beneficio neto de Acme en el ejercicio 2024", Metric.NET_INCOME),
        ("Acme gross margin 2024", Ratio.GROSS_MARGIN),
        ("margen bruto de Acme en 2024", Ratio.GROSS_MARGIN),
        ("Acme gross profit 2024", Metric.GROSS_PROFIT),
        ("activo total de Acme a cierre de 2024", Metric.TOTAL_ASSETS),
        ("Who supplies Acme?", None),
    ],
)
def test_measures_in_english_and_spanish(question, measure):
    assert find_measure(question) == measure


@pytest.mark.parametrize(
    ("question", "period"),
    [
        ("revenue in FY2024", FiscalPeriod(2024)),
        ("revenue in FY24", FiscalPeriod(2024)),
        ("Q4 2024 revenue", FiscalPeriod(2024, 4)),
        ("revenue in the fourth quarter of 2024", FiscalPeriod(2024, 4)),
        ("ingresos del cuarto trimestre de 2024", FiscalPeriod(2024, 4)),
        ("ingresos 3T 2024", FiscalPeriod(2024, 3)),
        ("ingresos del ejercicio 2023", FiscalPeriod(2023)),
        ("revenue last year", None),
    ],
)
def test_fiscal_periods(question, period):
    assert find_period(question) == period


def test_figure_question_is_answered_from_facts_with_its_filing(store_path, index_path):
    opts = AskOptions(index=index_path, facts=store_path)
    ans = ask("What was Acme's revenue in fiscal 2024?", opts)
    assert ans.route is Route.FACTS and "revenue of Acme Corp for FY2024" in ans.reason
    assert ans.fact.value == Decimal("1000") and ans.fact.answers[0].filing == K
    es = ask("¿Cuáles fueron los ingresos de Acme en 2024?", opts)
    assert es.route is Route.FACTS and es.fact.value == Decimal("1000")
    data = json.loads(json.dumps(ans.to_json()))
    assert data["fact"]["sources"][0]["accn"] == K.accn and data["fact"]["value"] == "1000"


def test_fourth_quarter_is_derived_and_margin_computed(store_path):
    opts = AskOptions(facts=store_path)
    q4 = ask("Acme revenue in Q4 2024", opts)
    assert q4.route is Route.FACTS and q4.fact.value == Decimal("290")
    assert q4.fact.answers[0].derived is not None and q4.fact.answers[0].filing is None
    margin = ask("¿Cuál fue el margen bruto de Acme en 2024?", opts)
    assert margin.fact.value == Decimal("42.00") and margin.fact.unit == "%"
    assert [a.concept for a in margin.fact.answers] == ["us-gaap:GrossProfit", "us-gaap:Revenues"]
    assert "GrossProfit / us-gaap:Revenues" in margin.fact.formula


def test_as_of_before_the_10k_has_no_fact_and_falls_back_to_text(store_path, index_path):
    opts = AskOptions(index=index_path, facts=store_path, as_of=D("2024-12-31"))
    ans = ask("What was Acme's net income in 2024?", opts)
    assert ans.route is Route.TEXT and "no value" in ans.reason


def test_other_questions_go_to_text_search_with_citations(store_path, index_path):
    opts = AskOptions(index=index_path, facts=store_path)
    ans = ask("Are Acme's suppliers concentrated?", opts)
    assert ans.route is Route.TEXT and "no financial-statement figure" in ans.reason
    assert ans.hits and "suppliers" in ans.hits[0].citations[0]
    unknown = ask("What was Globex revenue in 2024?", opts)
    assert unknown.route is Route.TEXT and "names no entity of the fact store" in unknown.reason
    part = ask("What was Acme's cloud revenue in 2024?", opts)
    assert part.route is Route.TEXT and "'cloud revenue', a part of revenue" in part.reason
    part = ask("¿Cuáles fueron los ingresos por servicios de Acme en 2024?", opts)
    assert part.route is Route.TEXT and "ingresos por servicios" in part.reason
    for plain in (
        "What were Acme's total revenues in FY2024?",
        "Acme Q4 2024 revenue",
        "Acme Corp revenue for fiscal 2024",
    ):
        assert ask(plain, opts).route is Route.FACTS, plain
    no_year = ask("What is Acme's revenue?", opts)
    assert no_year.route is Route.TEXT and "no fiscal year" in no_year.reason


def test_without_a_store_or_index_says_so(index_path, store_path):
    ans = ask("Acme revenue 2024", AskOptions(index=index_path))
    assert ans.route is Route.TEXT and "no --facts store" in ans.reason
    ans = ask("Who supplies Acme?", AskOptions(facts=store_path))
    assert ans.route is Route.NONE and "no --index" in ans.reason
    with pytest.raises(InputError, match="--index"):
        ask("anything", AskOptions())
    with pytest.raises(InputError, match="no such fact store"):
        ask("Acme revenue 2024", AskOptions(facts=store_path.with_name("missing.sqlite")))
