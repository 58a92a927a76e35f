"""``ask`` on the real Apple and NVIDIA companyfacts in ../shared/data/edgar (skipped with a
reason when absent): everyday figure names reach the fact store, EPS is diluted unless asked
otherwise, values read as a person reads them, and the answer says which filing it is from."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.ask import AskOptions, Route, ask
from finchunk.cli import app
from finchunk.facts import FactStore

AAPL_10K_FY2025 = "0000320193-25-000079"


@pytest.fixture(scope="module")
def store(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    edgar = shared_data / "edgar"
    files = [edgar / "AAPL" / "CIK0000320193.json", edgar / "NVDA" / "CIK0001045810.json"]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        pytest.skip(f"companyfacts files absent: {', '.join(missing)}")
    path = tmp_path_factory.mktemp("edgar-facts") / "facts.sqlite"
    with FactStore(path) as facts:
        facts.load(files)
    return path


@pytest.mark.parametrize(
    ("question", "concept", "value", "display"),
    [
        (
            "How much cash did Apple have at the end of fiscal 2024?",
            "us-gaap:CashAndCashEquivalentsAtCarryingValue",
            "29943000000",
            "$29,943 million",
        ),
        (
            "What was Apple's diluted EPS in fiscal 2024?",
            "us-gaap:EarningsPerShareDiluted",
            "6.08",
            "6.08 USD/share",
        ),
        (
            "What was Apple's basic earnings per share in fiscal 2024?",
            "us-gaap:EarningsPerShareBasic",
            "6.11",
            "6.11 USD/share",
        ),
        (
            "What were Apple's net sales in fiscal 2024?",
            "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
            "391035000000",
            "$391,035 million",
        ),
        (
            "What was Apple's net profit in fiscal 2024?",
            "us-gaap:NetIncomeLoss",
            "93736000000",
            "$93,736 million",
        ),
        (
            "What were Apple's total assets at the end of fiscal 2024?",
            "us-gaap:Assets",
            "364980000000",
            "$364,980 million",
        ),
        (
            "How much operating income did NVIDIA report in fiscal 2024?",
            "us-gaap:OperatingIncomeLoss",
            "32972000000",
            "$32,972 million",
        ),
    ],
)
def test_everyday_figure_names_reach_the_fact_store(store, question, concept, value, display):
    ans = ask(question, AskOptions(facts=store))
    assert ans.route is Route.FACTS, ans.reason
    assert ans.fact.answers[0].concept == concept
    assert ans.fact.value == Decimal(value) and ans.fact.display == display
    data = ans.to_json()["fact"]
    assert (data["value"], data["display"]) == (value, display)
    assert data["sources"][0]["value"] == value and data["sources"][0]["display"] == display


def test_plain_eps_is_diluted_and_the_answer_says_so(store):
    ans = ask("What was Apple's EPS in fiscal 2024?", AskOptions(facts=store))
    assert ans.fact.answers[0].concept == "us-gaap:EarningsPerShareDiluted"
    assert any("read as diluted" in n for n in ans.notes)
    diluted = ask("What was Apple's diluted EPS in fiscal 2024?", AskOptions(facts=store))
    assert not diluted.notes


def test_gross_margin_is_a_percentage(store):
    ans = ask("What was Apple's gross margin in fiscal 2024?", AskOptions(facts=store))
    assert ans.fact.display == "46.21 %" and ans.fact.unit == "%"


def test_a_part_of_a_figure_still_goes_to_text(store):
    for question, part in (
        ("What was Apple's iPhone revenue in fiscal 2024?", "iphone revenue"),
        ("How much revenue did NVIDIA's compute segment make in fiscal 2024?", "compute segment"),
    ):
        ans = ask(question, AskOptions(facts=store))
        assert ans.route is Route.NONE and f"{part!r}, a part of revenue" in ans.reason


def test_without_as_of_the_latest_filing_is_named(store):
    ans = ask("What were Apple's net sales in fiscal 2024?", AskOptions(facts=store))
    assert ans.fact.basis == "as of today: the FY2025 10-K, filed 2025-10-31"
    assert ans.fact.answers[0].filing.accn == AAPL_10K_FY2025
    assert ans.to_json()["fact"]["basis"] == ans.fact.basis


def test_as_of_names_the_filing_known_then(store):
    """NVIDIA's FY2024 diluted EPS before and after its 2024 ten-for-one split."""
    q = "What was NVIDIA's diluted EPS in fiscal 2024?"
    then = ask(q, AskOptions(facts=store, as_of=date(2024, 3, 1)))
    assert then.fact.display == "11.93 USD/share"
    assert then.fact.basis == "as of 2024-03-01: the FY2024 10-K, filed 2024-02-21"
    now = ask(q, AskOptions(facts=store))
    assert now.fact.display == "1.19 USD/share" and now.fact.basis.startswith("as of today: ")


def test_cli_answer_reads_well(store):
    result = CliRunner().invoke(
        app, ["ask", "What were Apple's net sales in fiscal 2024?", "--facts", str(store)]
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Apple Inc. revenue FY2024: $391,035 million" in text
    assert "as of today: the FY2025 10-K, filed 2025-10-31" in text
    assert "391035000000" not in text


def test_entity_not_in_store_names_what_it_holds_and_exits_2(store):
    q = "What was Tesla's revenue in fiscal 2024?"
    ans = ask(q, AskOptions(facts=store))
    assert ans.route is Route.NONE
    assert "no entity of the fact store (it holds Apple Inc., NVIDIA CORP)" in ans.reason
    result = CliRunner().invoke(app, ["ask", q, "--facts", str(store), "--json"])
    assert result.exit_code == 2
    assert json.loads(result.output)["route"] == "none"


def test_facts_get_suggests_the_concept_apple_reports(store):
    runner = CliRunner()
    base = ["facts", "get", "--db", str(store), "--cik", "320193", "--fiscal-year", "2024"]
    result = runner.invoke(app, [*base, "--concept", "us-gaap:Revenues"])
    assert result.exit_code == 1, result.output  # a query that found no value
    lines = result.output.splitlines()
    assert "no value" in lines[0]
    assert "reports us-gaap:Revenues for periods up to 2018-09-29" in result.output
    assert lines[3].startswith(
        "  us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax (Revenue from Contract"
    )
    unprefixed = runner.invoke(app, [*base, "--concept", "EarningsPerShareDiluted", "--json"])
    assert unprefixed.exit_code == 0, unprefixed.output
    data = json.loads(unprefixed.output)
    assert (data["concept"], data["value"]) == ("us-gaap:EarningsPerShareDiluted", "6.08")
