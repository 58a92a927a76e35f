"""Everyday phrasings of figure questions over the five companies whose companyfacts JSON is in
../shared/data/edgar (skipped with a reason when absent): tickers, common and brand names,
"FY24", "last year", EPS, operating and free cash flow, shares outstanding. Every expected
value is read from the companyfacts JSON here, independently of the fact store: the period is
the one the fiscal year's own annual report (fy/fp in the JSON) gives for the concept, and the
value is the latest filed for that exact period. The table in docs/ask.md is this list,
answered; the test fails when it is stale (FINCHUNK_WRITE_DOCS=1 rewrites it)."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest

from finchunk.ask import AskAnswer, AskOptions, Route, ask
from finchunk.facts import FactStore
from finchunk.facts.instance import FilingOverride
from finchunk.facts.values import display_value

DOC = Path(__file__).resolve().parents[1] / "docs" / "ask.md"
START, END = "<!-- phrasings:start -->", "<!-- phrasings:end -->"

COMPANYFACTS = {
    "AAPL": "AAPL/CIK0000320193.json",
    "NVDA": "NVDA/CIK0001045810.json",
    "GOOGL": "GOOGL/CIK0001652044.json",
    "TSLA": "TSLA/tsla_facts.json",
    "LPA": "LPA/lpa_facts.json",
}
#: Filings loaded beside the JSON for their dei:TradingSymbol (accession and filed date as
#: MANIFEST.md gives them): companyfacts JSON names no ticker.
FILINGS = {
    "AAPL/aapl-10-k-2024-11-01.html": ("0000320193-24-000123", "2024-11-01"),
    "GOOGL/googl-10-k-2025-02-05.html": ("0001652044-25-000014", "2025-02-05"),
}

REV_AAPL = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
OCF = "us-gaap:NetCashProvidedByUsedInOperatingActivities"
CAPEX = "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment"
CAPEX_NVDA = "us-gaap:PaymentsToAcquireProductiveAssets"
SHARES = "us-gaap:CommonStockSharesOutstanding"
LATEST = 0  # the year of "last year": the latest annual report's


@dataclass(frozen=True)
class Case:
    question: str
    company: str
    concepts: tuple[str, ...]  # one: the value; two: a margin (÷ × 100) or a difference (−)
    year: int  # LATEST for the latest annual report's
    quarter: int | None = None
    combine: str = ""  # "ratio" or "difference" for two concepts


def _c(q: str, co: str, concept: str, year: int, quarter: int | None = None) -> Case:
    return Case(q, co, (concept,), year, quarter)


CASES = [
    # the phrasings a new user found refused or misread
    _c("AAPL FY24 sales", "AAPL", REV_AAPL, 2024),
    _c("What was Google's net income in 2024?", "GOOGL", "us-gaap:NetIncomeLoss", 2024),
    _c("How much did Apple earn per share in 2024?", "AAPL", "us-gaap:EarningsPerShareDiluted",
       2024),
    _c("What was Apple's operating cash flow in fiscal 2024?", "AAPL", OCF, 2024),
    Case("What was Apple's free cash flow in FY2024?", "AAPL", (OCF, CAPEX), 2024, None,
         "difference"),
    _c("How many shares outstanding did Apple have in FY2024?", "AAPL", SHARES, 2024),
    _c("What was Apple's revenue last year?", "AAPL", REV_AAPL, LATEST),
    # tickers, common and brand names
    _c("GOOGL net income FY2023", "GOOGL", "us-gaap:NetIncomeLoss", 2023),
    _c("Alphabet revenue fiscal 2024", "GOOGL", "us-gaap:Revenues", 2024),
    _c("NVDA revenue FY2025", "NVDA", "us-gaap:Revenues", 2025),
    _c("TSLA total assets FY2021", "TSLA", "us-gaap:Assets", 2021),
    _c("LPA revenue 2024", "LPA", "ifrs-full:Revenue", 2024),
    _c("Logistic Properties of the Americas net income 2023", "LPA",
       "ifrs-full:ProfitLossAttributableToOwnersOfParent", 2023),
    _c("apple revenue 2023", "AAPL", REV_AAPL, 2023),
    Case("GOOG operating margin 2024", "GOOGL", ("us-gaap:OperatingIncomeLoss", "us-gaap:Revenues"),
         2024, None, "ratio"),
    # cash flow, capital expenditures, free cash flow
    _c("NVIDIA's capex in fiscal 2025", "NVDA", CAPEX_NVDA, 2025),
    _c("What were Apple's capital expenditures in fiscal 2023?", "AAPL", CAPEX, 2023),
    _c("What was the operating cash flow of Alphabet in 2023?", "GOOGL", OCF, 2023),
    _c("Apple's cash flow from operations in 2023", "AAPL", OCF, 2023),
    Case("Google's free cash flow in 2024", "GOOGL", (OCF, CAPEX), 2024, None, "difference"),
    Case("Nvidia free cash flow last year", "NVDA", (OCF, CAPEX_NVDA), LATEST, None, "difference"),
    Case("Tesla free cash flow 2021", "TSLA", (OCF, CAPEX), 2021, None, "difference"),
    # shares outstanding: the balance sheet's, or the annual report cover's (IFRS filer)
    _c("Google shares outstanding 2024", "GOOGL", SHARES, 2024),
    _c("Tesla shares outstanding 2021", "TSLA", SHARES, 2021),
    _c("What were NVIDIA's shares outstanding in fiscal 2024?", "NVDA", SHARES, 2024),
    _c("LPA shares outstanding 2024", "LPA", "dei:EntityCommonStockSharesOutstanding", 2024),
    # "last year"
    _c("Tesla's revenue last year", "TSLA", "us-gaap:Revenues", LATEST),
    _c("What were Google's sales last year?", "GOOGL", "us-gaap:Revenues", LATEST),
    _c("Nvidia's net income last fiscal year", "NVDA", "us-gaap:NetIncomeLoss", LATEST),
    # EPS
    _c("What was Alphabet's diluted EPS for 2024?", "GOOGL", "us-gaap:EarningsPerShareDiluted",
       2024),
    _c("How much did Tesla earn per share in 2021?", "TSLA", "us-gaap:EarningsPerShareDiluted",
       2021),
    _c("Nvidia earnings per share FY2025", "NVDA", "us-gaap:EarningsPerShareDiluted", 2025),
    _c("What was Apple's basic EPS in FY2024?", "AAPL", "us-gaap:EarningsPerShareBasic", 2024),
    # other statement lines, margins, quarters, Spanish
    _c("How much revenue did Nvidia make in fiscal 2024?", "NVDA", "us-gaap:Revenues", 2024),
    _c("Alphabet's total assets at the end of 2024", "GOOGL", "us-gaap:Assets", 2024),
    _c("Apple's cash at the end of FY2024", "AAPL",
       "us-gaap:CashAndCashEquivalentsAtCarryingValue", 2024),
    _c("Apple total liabilities FY2022", "AAPL", "us-gaap:Liabilities", 2022),
    _c("NVIDIA stockholders equity fiscal 2025", "NVDA", "us-gaap:StockholdersEquity", 2025),
    _c("Tesla operating income 2020", "TSLA", "us-gaap:OperatingIncomeLoss", 2020),
    _c("Tesla's gross profit in 2021", "TSLA", "us-gaap:GrossProfit", 2021),
    _c("LPA total assets 2024", "LPA", "ifrs-full:Assets", 2024),
    Case("Apple gross margin FY23", "AAPL", ("us-gaap:GrossProfit", REV_AAPL), 2023, None, "ratio"),
    _c("Apple's revenue in the third quarter of fiscal 2024", "AAPL", REV_AAPL, 2024, 3),
    _c("Apple Q4 2024 revenue", "AAPL", REV_AAPL, 2024, 4),
    _c("¿Cuáles fueron los ingresos de Apple en 2024?", "AAPL", REV_AAPL, 2024),
    _c("Beneficio neto de Tesla en el ejercicio 2021", "TSLA", "us-gaap:NetIncomeLoss", 2021),
]  # fmt: skip


# --- the companyfacts JSON, read on its own ------------------------------------------------------


@pytest.fixture(scope="module")
def edgar(shared_data: Path) -> Path:
    path = shared_data / "edgar"
    missing = [f for f in [*COMPANYFACTS.values(), *FILINGS] if not (path / f).is_file()]
    if missing:
        pytest.skip(f"EDGAR files absent under {path}: {', '.join(missing)}")
    return path


@cache
def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _rows(edgar: Path, company: str, concept: str) -> list[dict]:
    taxonomy, _, name = concept.partition(":")
    units = _json(edgar / COMPANYFACTS[company])["facts"][taxonomy][name]["units"]
    assert len(units) == 1, f"{concept}: several units"
    return next(iter(units.values()))


def _days(row: dict) -> int:
    if "start" not in row or row["start"] is None:
        return 0
    return (date.fromisoformat(row["end"]) - date.fromisoformat(row["start"])).days + 1


def _annual_report(row: dict) -> bool:
    return row["fp"] == "FY" and row["form"].split("/")[0] in ("10-K", "20-F")


def latest_year(edgar: Path, company: str, concepts: tuple[str, ...]) -> int:
    """The fiscal year of the latest annual report that gives every concept."""
    years = [{r["fy"] for r in _rows(edgar, company, c) if _annual_report(r)} for c in concepts]
    return max(set.intersection(*years))


@cache
def fiscal_year(edgar: Path, company: str, year: int) -> tuple[str, str]:
    """(start, end) of fiscal year ``year``: the latest annual period its own annual report
    (fy/fp of the JSON) gives, by most facts."""
    spans: Counter[tuple[str, str]] = Counter()
    for concepts in _json(edgar / COMPANYFACTS[company])["facts"].values():
        for body in concepts.values():
            for rows in body["units"].values():
                spans.update(
                    (r["start"], r["end"])
                    for r in rows
                    if _annual_report(r) and r["fy"] == year and 350 <= _days(r) <= 380
                )
    last = max(end for _, end in spans)
    return max((s for s in spans if s[1] == last), key=lambda s: spans[s])


def expected_value(edgar: Path, company: str, concept: str, year: int, quarter: int | None):
    """The latest filed value for the fiscal year's period (an instant concept: at its last
    day, else the latest instant the annual report itself gives, as a cover page does), or
    for Q3 the third-quarter report's quarter; Q4 is the year less its first nine months."""
    rows = _rows(edgar, company, concept)

    def latest_for(start: str | None, end: str) -> Decimal:
        same = [r for r in rows if r.get("start") == start and r["end"] == end]
        best = max(same, key=lambda r: (r["filed"], r["accn"]))
        return Decimal(str(best["val"]))

    if quarter in (None, 4):
        start, end = fiscal_year(edgar, company, year)
        if any(not _days(r) for r in rows):  # an instant concept
            if any(r["end"] == end for r in rows):
                return latest_for(None, end)
            own = [r for r in rows if _annual_report(r) and r["fy"] == year]
            return latest_for(None, max(r["end"] for r in own))
        value = latest_for(start, end)
        if quarter is None:
            return value
        nine = [r for r in rows if r.get("start") == start and 260 <= _days(r) <= 285]
        first_nine = max(nine, key=lambda r: r["end"])
        return value - latest_for(first_nine["start"], first_nine["end"])
    own = [r for r in rows if r["fp"] == f"Q{quarter}" and r["fy"] == year]
    period = max((r for r in own if 80 <= _days(r) <= 100), key=lambda r: r["end"])
    return latest_for(period["start"], period["end"])


def expected(edgar: Path, case: Case) -> tuple[int, Decimal]:
    year = case.year or latest_year(edgar, case.company, case.concepts)
    values = [expected_value(edgar, case.company, c, year, case.quarter) for c in case.concepts]
    if case.combine == "ratio":
        return year, (values[0] / values[1] * 100).quantize(Decimal("0.01"))
    if case.combine == "difference":
        return year, values[0] - values[1]
    return year, values[0]


# --- the store and the answers -----------------------------------------------------------------


@pytest.fixture(scope="module")
def store(edgar: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("selectolax", reason="loading inline XBRL needs the html extra")
    path = tmp_path_factory.mktemp("everyday") / "facts.sqlite"
    with FactStore(path) as facts:
        facts.load([edgar / f for f in COMPANYFACTS.values()])
        for name, (accn, filed) in FILINGS.items():
            given = FilingOverride(accn=accn, filed=date.fromisoformat(filed))
            facts.load([edgar / name], given)
    return path


@pytest.fixture(scope="module")
def answers(store: Path) -> dict[str, AskAnswer]:
    return {c.question: ask(c.question, AskOptions(facts=store)) for c in CASES}


def test_there_are_at_least_thirty_phrasings_over_the_five_companies():
    assert len({c.question for c in CASES}) == len(CASES) >= 30
    assert {c.company for c in CASES} == set(COMPANYFACTS)


@pytest.mark.parametrize("case", CASES, ids=[c.question for c in CASES])
def test_everyday_phrasing_gets_the_companyfacts_value(edgar, answers, case):
    ans = answers[case.question]
    assert ans.route is Route.FACTS, ans.reason
    year, value = expected(edgar, case)
    f = ans.fact
    assert [a.concept for a in f.answers] == list(case.concepts)
    assert (f.period.year, f.period.quarter) == (year, case.quarter)
    assert f.value == value, (f.value, value)
    cik = int(_json(edgar / COMPANYFACTS[case.company])["cik"])
    assert f.cik == cik
    if case.combine == "difference":
        assert f.formula is not None and " − ".join(case.concepts) in f.formula
    if case.year == LATEST:
        assert any(f"is read as FY{year}" in n for n in ans.notes), ans.notes


def test_a_year_the_file_does_not_reach_names_the_years_it_has(edgar, store):
    ans = ask("What was Tesla's revenue in FY2024?", AskOptions(facts=store))
    assert ans.route is Route.NONE
    last = latest_year(edgar, "TSLA", ("us-gaap:Revenues",))
    assert "Tesla's revenue: no value for FY2024; the store has FY" in ans.reason
    assert f"–FY{last}" in ans.reason and last == 2021


# --- the table in docs/ask.md --------------------------------------------------------------------


def _row(case: Case, ans: AskAnswer) -> str:
    f = ans.fact
    period = str(f.period)
    if f.answers[0].derived is not None:
        period += f" (derived: {f.answers[0].derived.method})"
    concepts = f.formula.split(" = ")[-1] if f.formula else f.answers[0].concept
    display = display_value(f.value, f.unit)
    return f"| {case.question} | {f.entity} | `{concepts}` | {period} | {display} |"


def table(answers: dict[str, AskAnswer]) -> str:
    head = [
        "| Phrasing | Entity | Concept (or formula) | Period | Value |",
        "|---|---|---|---|---|",
    ]
    return "\n".join(head + [_row(c, answers[c.question]) for c in CASES])


def test_the_table_in_docs_is_this_list_answered(answers):
    text = DOC.read_text(encoding="utf-8")
    before, _, rest = text.partition(START)
    _, _, after = rest.partition(END)
    fresh = f"{before}{START}\n{table(answers)}\n{END}{after}"
    assert START in text and END in text
    if os.environ.get("FINCHUNK_WRITE_DOCS") == "1":
        DOC.write_text(fresh, encoding="utf-8")
        return
    assert text == fresh, "docs/ask.md is stale: rerun with FINCHUNK_WRITE_DOCS=1"
