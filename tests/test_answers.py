"""Answers that read well, on hand-made data: figures as a person reads them, what counts as
"a part of" a figure, the filing an answer is known from, an entity the store lacks, and
concept names (unprefixed, or not reported) in ``facts get``."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.ask import AskOptions, Metric, Route, ask, find_measure_match, narrowing
from finchunk.cli import app
from finchunk.errors import InputError
from finchunk.facts import FactStore, Period
from finchunk.facts.model import Fact, Filing, ParsedFacts
from finchunk.facts.values import display_value

D = date.fromisoformat
runner = CliRunner()


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        ("391035000000", "USD", "$391,035 million"),
        ("1500000000000", "USD", "$1,500,000 million"),
        ("-1234500000", "USD", "-$1,234.5 million"),
        ("1234567.891", "USD", "$1.23 million"),
        ("512300", "USD", "$512,300"),
        ("-0.4", "USD", "-$0.4"),
        ("1234500000", "EUR", "€1,234.5 million"),
        ("12000000", "CHF", "CHF 12 million"),
        ("6.08", "USD/shares", "6.08 USD/share"),
        ("6.1", "USD/shares", "6.10 USD/share"),
        ("0.125", "EUR/shares", "0.125 EUR/share"),
        ("46.21", "%", "46.21 %"),
        ("42", "%", "42.00 %"),
        ("15116786000", "shares", "15,116.79 million shares"),
        ("1234", "shares", "1,234 shares"),
        ("0.21", "pure", "0.21 pure"),
        ("1234.5", None, "1,234.5"),
    ],
)
def test_display_value(value, unit, shown):
    assert display_value(Decimal(value), unit) == shown


@pytest.mark.parametrize(
    ("question", "part"),
    [
        ("How much cash did Acme have at the end of 2024?", None),
        ("What was Acme's diluted EPS in 2024?", None),
        ("What was the amount of Acme's consolidated net sales in 2024?", None),
        ("What total revenue did Acme report for fiscal 2024?", None),
        ("Acme reported revenue 2024", None),
        ("What was Acme's cloud revenue in 2024?", "cloud revenue"),
        ("Acme revenue by segment 2024", "revenue by segment"),
        ("How much revenue did Acme's services segment generate in 2024?", "services segment"),
        ("ingresos por servicios de Acme en 2024", "ingresos por servicios"),
    ],
)
def test_what_narrows_a_figure_and_what_restates_it(question, part):
    match = find_measure_match(question)
    assert match is not None
    assert narrowing(question, match, "Acme Corp") == part


@pytest.mark.parametrize(
    ("question", "metric", "assumed"),
    [
        ("Acme EPS 2024", Metric.EPS, True),
        ("Acme diluted earnings per share 2024", Metric.EPS, False),
        ("Acme basic EPS 2024", Metric.EPS_BASIC, False),
        ("BPA diluido de Acme en 2024", Metric.EPS, False),
    ],
)
def test_eps_is_diluted_unless_basic_is_asked(question, metric, assumed):
    match = find_measure_match(question)
    assert match.what is metric
    assert (match.reading() is not None) is assumed


K = Filing("0000000042-25-000001", "10-K", D("2025-02-10"))
FY24 = Period.duration(D("2024-01-01"), D("2024-12-31"))


def _fact(concept: str, value: str, unit: str = "USD", fy: int | None = 2024) -> Fact:
    return Fact(42, concept, unit, FY24, Decimal(value), K, fy=fy, fp="FY" if fy else None)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "facts.sqlite"
    facts = [
        _fact("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "1000000000"),
        _fact("us-gaap:EarningsPerShareDiluted", "1.5", "USD/shares"),
        _fact("us-gaap:EarningsPerShareBasic", "1.52", "USD/shares"),
        _fact("us-gaap:CostOfRevenue", "600000000"),
        _fact("us-gaap:Liabilities", "5"),
        _fact("acme:Liabilities", "6"),
    ]
    labels = {
        "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax": (
            "Revenue from Contract with Customer, Excluding Assessed Tax"
        ),
        "us-gaap:CostOfRevenue": "Cost of Revenue",
    }
    with FactStore(path) as store:
        store.add(ParsedFacts("hand-made", facts, entity_name="Acme Corp", labels=labels))
    return path


def test_answer_names_the_filing_it_is_known_from(store_path):
    ans = ask("What was Acme's diluted EPS in fiscal 2024?", AskOptions(facts=store_path))
    assert ans.fact.display == "1.50 USD/share"
    assert ans.fact.basis == "as of today: the FY2024 10-K, filed 2025-02-10"
    later = ask("Acme EPS 2024", AskOptions(facts=store_path, as_of=D("2025-03-01")))
    assert later.fact.basis == "as of 2025-03-01: the FY2024 10-K, filed 2025-02-10"
    assert later.notes and "diluted" in later.notes[0]
    basic = ask("Acme basic EPS 2024", AskOptions(facts=store_path))
    assert basic.fact.value == Decimal("1.52")


def test_entity_not_in_store_lists_the_entities_and_exits_2(store_path):
    q = "What was Globex revenue in 2024?"
    ans = ask(q, AskOptions(facts=store_path))
    assert ans.route is Route.NONE and "(it holds Acme Corp)" in ans.reason
    result = runner.invoke(app, ["ask", q, "--facts", str(store_path)])
    assert result.exit_code == 2
    assert "it holds Acme Corp" in " ".join(result.output.split())
    answered = runner.invoke(app, ["ask", "Acme revenue 2024", "--facts", str(store_path)])
    assert answered.exit_code == 0 and "$1,000 million" in answered.output


def _get(db: Path, concept: str, *more: str):
    args = ["facts", "get", "--db", str(db), "--cik", "42", "--concept", concept]
    return runner.invoke(app, [*args, "--fiscal-year", "2024", *more])


def test_unprefixed_concept_is_accepted_when_one_taxonomy_has_it(store_path):
    result = _get(store_path, "EarningsPerShareDiluted", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["concept"] == "us-gaap:EarningsPerShareDiluted"
    ambiguous = _get(store_path, "Liabilities")
    assert ambiguous.exit_code == 2
    assert "several taxonomies (acme:Liabilities, us-gaap:Liabilities)" in ambiguous.output
    with FactStore(store_path) as store:
        with pytest.raises(InputError, match="several taxonomies"):
            store.get(42, "Liabilities", fiscal_year=2024)
        assert store.get(42, "CostOfRevenue", fiscal_year=2024).value == Decimal("600000000")


def test_a_concept_the_entity_does_not_report_gets_suggestions(store_path):
    result = _get(store_path, "us-gaap:Revenues")
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert "has no facts for us-gaap:Revenues" in lines[0]
    assert lines[2] == (
        "  us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax (Revenue from Contract "
        "with Customer, Excluding Assessed Tax), up to 2024-12-31"
    )
    assert "us-gaap:CostOfRevenue (Cost of Revenue)" in result.output
    unprefixed = _get(store_path, "Revenues")
    assert unprefixed.exit_code == 2 and "RevenueFromContractWithCustomer" in unprefixed.output


def test_no_value_for_the_period_says_when_the_concept_was_reported(store_path):
    result = runner.invoke(
        app,
        ["facts", "get", "--db", str(store_path), "--cik", "42", "--concept",
         "us-gaap:CostOfRevenue", "--fiscal-year", "2023", "--json"],
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # the JSON is printed, but there is no value
    data = json.loads(result.output)
    assert data["value"] is None and data["suggestions"]["asked_last_end"] == "2024-12-31"
    similar = [s["concept"] for s in data["suggestions"]["similar"]]
    assert similar[0] == "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
