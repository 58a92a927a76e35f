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
from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.config import IndexConfig

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


# --- entities by ticker, common name, initials and brand; "last year"; missing years ----------


def _annual(cik: int, concept: str, year: int, value: str, filed: str) -> Fact:
    period = _p(f"{year}-01-01", f"{year}-12-31")
    filing = Filing(f"{cik:010d}-{filed[2:4]}-000001", "10-K", D(filed))
    return Fact(cik, concept, "USD", period, Decimal(value), filing)


@pytest.fixture
def names_path(tmp_path: Path) -> Path:
    path = tmp_path / "names.sqlite"
    jnj = [_annual(200, "us-gaap:Revenues", 2024, "88800000000", "2025-02-13")]
    alphabet = [_annual(1652044, "us-gaap:Revenues", 2024, "350018000000", "2025-02-05")]
    globex = [
        _annual(300, "us-gaap:Revenues", y, str(y), f"{y + 1}-03-01") for y in (2019, 2020, 2022)
    ] + [
        _annual(300, f"us-gaap:{name}", 2022, value, "2023-03-01")
        for name, value in (
            ("NetCashProvidedByUsedInOperatingActivities", "900"),
            ("PaymentsToAcquirePropertyPlantAndEquipment", "250"),
        )
    ]
    with FactStore(path) as store:
        store.add(ParsedFacts("jnj", jnj, entity_name="Johnson & Johnson", tickers=("JNJ",)))
        store.add(ParsedFacts("googl", alphabet, entity_name="ALPHABET INC."))
        store.add(ParsedFacts("globex", globex, entity_name="Globex Holdings plc"))
    return path


@pytest.mark.parametrize(
    ("question", "cik"),
    [
        ("JNJ revenue 2024", 200),
        ("J&J revenue 2024", 200),
        ("JnJ revenue 2024", 200),
        ("What was Johnson & Johnson's revenue in FY24?", 200),
        ("What was Google's revenue in fiscal 2024?", 1652044),
        ("alphabet revenue 2024", 1652044),
        ("Globex revenue 2022", 300),
        ("What were Globex Holdings' sales in 2022?", 300),
    ],
)
def test_entities_by_ticker_initials_common_and_brand_name(names_path, question, cik):
    ans = ask(question, AskOptions(facts=names_path))
    assert ans.fact is not None and ans.fact.cik == cik, ans.reason


def test_common_name_drops_the_legal_form():
    from finchunk.facts.entities import common_name

    assert [
        common_name(n)
        for n in ("Apple Inc.", "Tesla, Inc.", "NVIDIA CORP", "Wells Fargo & Company", "Acme")
    ] == ["Apple", "Tesla", "NVIDIA", "Wells Fargo", "Acme"]


def test_last_year_is_the_latest_fiscal_year_in_the_store_as_of(names_path):
    ans = ask("What was Globex's revenue last year?", AskOptions(facts=names_path))
    assert ans.fact.period == FiscalPeriod(2022) and ans.fact.value == Decimal("2022")
    assert "'last year' is read as FY2022" in ans.notes[0]
    then = ask("Globex revenue last year", AskOptions(facts=names_path, as_of=D("2022-12-31")))
    assert then.fact.period == FiscalPeriod(2020) and "as of 2022-12-31" in then.notes[0]


def test_a_missing_year_names_the_years_the_store_has(names_path):
    ans = ask("What was Globex's revenue in FY2023?", AskOptions(facts=names_path))
    assert ans.route is Route.NONE
    assert ans.reason.startswith(
        "Globex Holdings' revenue: no value for FY2023; the store has FY2019–FY2020, FY2022"
    )
    eps = ask("Globex EPS 2022", AskOptions(facts=names_path))
    assert "the store has it for no fiscal year" in eps.reason


def test_free_cash_flow_is_operating_cash_flow_less_capex(names_path):
    ans = ask("What was Globex's free cash flow in 2022?", AskOptions(facts=names_path))
    assert ans.fact.value == Decimal("650") and ans.fact.unit == "USD"
    assert ans.fact.formula == (
        "free cash flow = operating cash flow − capital expenditures = "
        "us-gaap:NetCashProvidedByUsedInOperatingActivities − "
        "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
    )
    assert "computed from" in ans.reason
    ocf = ask("Globex operating cash flow 2022", AskOptions(facts=names_path))
    assert ocf.fact.answers[0].concept == "us-gaap:NetCashProvidedByUsedInOperatingActivities"


def test_without_tickers_the_refusal_says_where_they_come_from(store_path):
    ans = ask("What was ACME revenue in 2024?", AskOptions(facts=store_path))
    assert ans.fact is not None  # the abbreviation rule: "ACME" is Acme Corp's name
    refused = ask("What was XYZ revenue in 2024?", AskOptions(facts=store_path))
    assert "it knows no ticker" in refused.reason and "dei:TradingSymbol" in refused.reason


def test_facts_get_takes_a_ticker_or_a_name_for_cik(names_path):
    from typer.testing import CliRunner

    from finchunk.cli import app

    runner = CliRunner()
    base = ["facts", "get", "--db", str(names_path), "--concept", "Revenues"]
    for who in ("JNJ", "jnj", "200", "0000000200", "Johnson & Johnson", "J&J"):
        got = runner.invoke(app, [*base, "--cik", who, "--fiscal-year", "2024"])
        assert got.exit_code == 0, (who, got.output)
        assert ": $88,800 million (10-K" in got.output
    none = runner.invoke(app, [*base, "--cik", "JNJ", "--fiscal-year", "2021"])
    assert none.exit_code == 1 and "no value" in none.output
    unknown = runner.invoke(app, [*base, "--cik", "MSFT", "--fiscal-year", "2024"])
    assert unknown.exit_code == 2 and "Traceback" not in unknown.output
    text = " ".join(unknown.output.split())
    assert "--cik 'MSFT' is neither a CIK nor a ticker or name" in text
    assert "tickers known: JNJ" in text
