"""Query rules of the point-in-time fact store, each on a small hand-made store: exact periods,
inclusive as-of, latest filing wins, ties, amendments, dimensions, fiscal calendar, derived Q4
and its refusals, history and frames."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchunk.errors import InputError
from finchunk.facts import FactStore, Period
from finchunk.facts.model import Fact, Filing, ParsedFacts

D = date.fromisoformat
FY2020 = Period.duration(D("2020-01-01"), D("2020-12-31"))


def fact(
    value: int | str = 100,
    *,
    concept: str = "us-gaap:Revenues",
    period: Period = FY2020,
    accn: str = "0000000001-21-000001",
    form: str = "10-K",
    filed: str = "2021-02-01",
    unit: str = "USD",
    cik: int = 42,
    dims: tuple[tuple[str, str], ...] = (),
) -> Fact:
    return Fact(
        cik=cik,
        concept=concept,
        unit=unit,
        period=period,
        value=Decimal(value),
        filing=Filing(accn=accn, form=form, filed=D(filed)),
        dims=dims,
    )


def store_with(*facts: Fact) -> FactStore:
    store = FactStore(":memory:")
    store.add(ParsedFacts(source="hand-made", facts=list(facts)))
    return store


# ---- exact periods, as-of, latest filing ---------------------------------------------------


def test_only_the_exact_period_answers():
    store = store_with(fact(100))
    assert store.get(42, "us-gaap:Revenues", period=FY2020).value == 100
    near = Period.duration(D("2020-01-02"), D("2020-12-31"))
    answer = store.get(42, "us-gaap:Revenues", period=near)
    assert answer.value is None and "exact" in answer.reason
    assert store.get(42, "us-gaap:Revenues", period=Period.instant(D("2020-12-31"))).value is None


def test_as_of_is_inclusive():
    store = store_with(fact(100, filed="2021-02-01"))
    before = store.get(42, "us-gaap:Revenues", period=FY2020, as_of=D("2021-01-31"))
    assert before.value is None and "2021-01-31" in before.reason
    on_the_day = store.get(42, "us-gaap:Revenues", period=FY2020, as_of=D("2021-02-01"))
    assert on_the_day.value == 100 and on_the_day.filing.filed == D("2021-02-01")


def test_latest_filing_wins_whatever_the_form():
    store = store_with(
        fact(100, accn="0000000001-21-000001", form="10-K", filed="2021-02-01"),
        fact(101, accn="0000000001-21-000050", form="8-K", filed="2021-04-01"),
        fact(102, accn="0000000001-22-000001", form="10-K", filed="2022-02-01"),
    )
    asked = {
        d: store.get(42, "us-gaap:Revenues", period=FY2020, as_of=D(d))
        for d in ("2021-03-31", "2021-04-01", "2022-01-31", "2022-02-01")
    }
    assert [a.value for a in asked.values()] == [100, 101, 101, 102]
    assert asked["2021-04-01"].filing.form == "8-K"
    assert store.get(42, "us-gaap:Revenues", period=FY2020).value == 102


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_same_day_ties_go_to_the_higher_accession(order):
    facts = [
        fact(100, accn="0000000001-21-000007", filed="2021-02-01"),
        fact(105, accn="0000000001-21-000009", filed="2021-02-01"),
    ]
    store = store_with(*(facts[i] for i in order))
    answer = store.get(42, "us-gaap:Revenues", period=FY2020, as_of=D("2021-02-01"))
    assert answer.value == 105 and answer.filing.accn == "0000000001-21-000009"


def test_amendment_that_restates_wins_only_from_its_filed_date():
    store = store_with(
        fact(100, form="10-K", filed="2021-02-01"),
        fact(90, accn="0000000001-21-000099", form="10-K/A", filed="2021-06-15"),
    )
    assert store.get(42, "us-gaap:Revenues", period=FY2020, as_of=D("2021-06-14")).value == 100
    after = store.get(42, "us-gaap:Revenues", period=FY2020, as_of=D("2021-06-15"))
    assert after.value == 90 and after.filing.form == "10-K/A"


def test_amendment_with_only_cover_facts_leaves_financials_alone():
    cover = fact(
        5_000_000,
        concept="dei:EntityPublicFloat",
        period=Period.instant(D("2020-06-30")),
        accn="0000000001-21-000099",
        form="10-K/A",
        filed="2021-04-30",
    )
    store = store_with(fact(100), cover)
    revenue = store.get(42, "us-gaap:Revenues", period=FY2020, as_of=D("2021-12-31"))
    assert revenue.value == 100 and revenue.filing.form == "10-K"
    assert [o.filing.form for o in store.history(42, "us-gaap:Revenues", FY2020)] == ["10-K"]
    float_ = store.get(42, "dei:EntityPublicFloat", period=Period.instant(D("2020-06-30")))
    assert float_.value == 5_000_000 and float_.filing.form == "10-K/A"


def test_instant_and_duration_are_different_facts():
    year_end = Period.instant(D("2020-12-31"))
    store = store_with(
        fact(700, concept="us-gaap:Cash", period=year_end),
        fact(30, concept="us-gaap:Cash", period=FY2020),  # odd, but must not be confused
    )
    assert store.get(42, "us-gaap:Cash", period=year_end).value == 700
    assert store.get(42, "us-gaap:Cash", period=FY2020).value == 30


def test_dimensional_facts_are_not_the_entity_wide_value():
    seg = {"us-gaap:StatementBusinessSegmentsAxis": "tiny:WidgetsMember"}
    store = store_with(
        fact(400, dims=tuple(seg.items()), accn="0000000001-21-000002", filed="2021-03-01"),
        fact(1000),
    )
    assert store.get(42, "us-gaap:Revenues", period=FY2020).value == 1000
    assert store.get(42, "us-gaap:Revenues", period=FY2020, dims=seg).value == 400
    only_segment = store_with(fact(400, dims=tuple(seg.items())))
    assert only_segment.get(42, "us-gaap:Revenues", unit="USD", period=FY2020).value is None
    with pytest.raises(InputError, match="entity-wide"):
        only_segment.get(42, "us-gaap:Revenues", period=FY2020)
    assert [r.value for r in store.frame("us-gaap:Revenues", FY2020)] == [1000]


def test_values_stay_decimal():
    store = store_with(fact("1.53", concept="us-gaap:EarningsPerShareBasic", unit="USD/shares"))
    answer = store.get(42, "us-gaap:EarningsPerShareBasic", period=FY2020)
    assert answer.value == Decimal("1.53") and isinstance(answer.value, Decimal)


def test_unit_must_be_chosen_when_several():
    store = store_with(fact(100, unit="USD"), fact(90, unit="EUR"))
    with pytest.raises(InputError, match="EUR, USD"):
        store.get(42, "us-gaap:Revenues", period=FY2020)
    assert store.get(42, "us-gaap:Revenues", period=FY2020, unit="EUR").value == 90
    with pytest.raises(InputError, match="no facts"):
        store.get(42, "us-gaap:Nothing", period=FY2020)


def test_period_arguments_are_checked():
    store = store_with(fact(100))
    with pytest.raises(InputError):
        store.get(42, "us-gaap:Revenues")
    with pytest.raises(InputError):
        store.get(42, "us-gaap:Revenues", period=FY2020, fiscal_year=2020)
    with pytest.raises(InputError):
        store.get(42, "us-gaap:Revenues", fiscal_year=2020, quarter=5)


# ---- loading --------------------------------------------------------------------------------


def test_loading_twice_is_idempotent_and_conflicts_are_reported():
    store = store_with(fact(100))
    again = store.add(ParsedFacts(source="again", facts=[fact(100)]))
    assert (again.inserted, again.already_present, again.conflicts) == (0, 1, [])
    clash = store.add(ParsedFacts(source="clash", facts=[fact(999)]))
    assert clash.inserted == 0 and len(clash.conflicts) == 1 and "999" in clash.conflicts[0]
    assert store.get(42, "us-gaap:Revenues", period=FY2020).value == 100


def test_store_persists_in_a_file(tmp_path):
    path = tmp_path / "facts.sqlite"
    with FactStore(path) as store:
        store.add(ParsedFacts(source="x", facts=[fact(100)]))
    with FactStore(path) as store:
        assert store.get(42, "us-gaap:Revenues", period=FY2020).value == 100


# ---- history and frame ----------------------------------------------------------------------


def test_history_lists_every_filing_in_filed_order_up_to_as_of():
    store = store_with(
        fact(102, accn="0000000001-22-000001", filed="2022-02-01"),
        fact(100, accn="0000000001-21-000001", filed="2021-02-01"),
        fact(100, accn="0000000001-21-000050", form="10-Q", filed="2021-05-01"),
    )
    rows = store.history(42, "us-gaap:Revenues", FY2020, as_of=D("2022-01-31"))
    assert [(r.value, r.filing.accn) for r in rows] == [
        (100, "0000000001-21-000001"),
        (100, "0000000001-21-000050"),
    ]
    assert len(store.history(42, "us-gaap:Revenues", FY2020)) == 3


def test_frame_gives_one_value_per_entity_as_known():
    store = store_with(
        fact(100, cik=1, filed="2021-02-01"),
        fact(110, cik=1, accn="0000000001-21-000090", form="10-K/A", filed="2021-08-01"),
        fact(200, cik=2, accn="0000000002-21-000001", filed="2021-03-01"),
        fact(300, cik=3, accn="0000000003-22-000001", filed="2022-03-01"),
    )
    rows = store.frame("us-gaap:Revenues", FY2020, as_of=D("2021-06-30"))
    assert [(r.cik, r.value) for r in rows] == [(1, 100), (2, 200)]
    rows = store.frame("us-gaap:Revenues", FY2020)
    assert [(r.cik, r.value) for r in rows] == [(1, 110), (2, 200), (3, 300)]


# ---- fiscal calendar and Q4 -----------------------------------------------------------------


def _p(start: str, end: str) -> Period:
    return Period.duration(D(start), D(end))


# A 52/53-week filer whose year ends on the last Saturday of September.
FY24 = _p("2023-10-01", "2024-09-28")  # 52 weeks
FY23 = _p("2022-09-25", "2023-09-30")  # 53 weeks
Q1, Q2, Q3, Q4 = (
    _p("2023-10-01", "2023-12-30"),
    _p("2023-12-31", "2024-03-30"),
    _p("2024-03-31", "2024-06-29"),
    _p("2024-06-30", "2024-09-28"),
)
H1, M9 = _p("2023-10-01", "2024-03-30"), _p("2023-10-01", "2024-06-29")
K24 = dict(accn="0000000001-24-000100", form="10-K", filed="2024-11-01")
Q3_10Q = dict(accn="0000000001-24-000080", form="10-Q", filed="2024-08-02")


def _quarterly(concept="us-gaap:Revenues", unit="USD", nine_months=True) -> list[Fact]:
    c = dict(concept=concept, unit=unit)
    facts = [
        fact(1000, period=FY24, **c, **K24),
        fact(900, period=FY23, **c, accn="0000000001-23-000100", filed="2023-11-03"),
        fact(200, period=Q1, **c, accn="0000000001-24-000010", form="10-Q", filed="2024-02-02"),
        fact(250, period=Q2, **c, accn="0000000001-24-000040", form="10-Q", filed="2024-05-03"),
        fact(450, period=H1, **c, accn="0000000001-24-000040", form="10-Q", filed="2024-05-03"),
        fact(260, period=Q3, **c, **Q3_10Q),
    ]
    if nine_months:
        facts.append(fact(710, period=M9, **c, **Q3_10Q))
    return facts


def test_fiscal_year_is_the_one_ending_in_that_calendar_year():
    store = store_with(*_quarterly())
    fy = store.get(42, "us-gaap:Revenues", fiscal_year=2024)
    assert fy.value == 1000 and fy.period == FY24
    fy23 = store.get(42, "us-gaap:Revenues", fiscal_year=2023)
    assert fy23.value == 900 and fy23.period.days == 371  # the 53-week year
    assert store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=2).period == Q2
    missing = store.get(42, "us-gaap:Revenues", fiscal_year=2019)
    assert missing.value is None and "2019" in missing.reason


def test_q4_derived_from_nine_month_ytd():
    store = store_with(*_quarterly())
    q4 = store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4, as_of=D("2024-11-01"))
    assert q4.value == 1000 - 710 and q4.period == Q4 and q4.filing is None
    assert q4.derived.method == "FY-9M"
    assert [(i.period, i.sign) for i in q4.derived.inputs] == [(FY24, 1), (M9, -1)]


def test_q4_derived_from_three_quarters_when_no_ytd():
    store = store_with(*_quarterly(nine_months=False))
    q4 = store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4)
    assert q4.value == 1000 - 200 - 250 - 260 and q4.derived.method == "FY-Q1-Q2-Q3"
    assert q4.period == Q4  # Q3's end comes from the quarter chain


def test_q4_inputs_are_taken_as_known_on_as_of():
    restated_9m = fact(700, period=M9, accn="0000000001-25-000080", form="10-Q", filed="2025-08-01")
    store = store_with(*_quarterly(), restated_9m)
    assert (
        store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4, as_of=D("2024-12-31")).value
        == 290
    )
    assert store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4).value == 300
    before_10k = store.get(
        42, "us-gaap:Revenues", fiscal_year=2024, quarter=4, as_of=D("2024-10-31")
    )
    assert before_10k.value is None and before_10k.reason


K24A = dict(accn="0000000001-25-000005", form="10-K/A", filed="2025-01-20")


def test_q4_refused_when_the_year_is_restated_after_the_interim_values():
    """FY minus the original nine months would mix bases: neither the old Q4 nor the new."""
    store = store_with(*_quarterly(), fact(1100, period=FY24, **K24A))
    before = store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4, as_of=D("2025-01-19"))
    assert before.value == 1000 - 710 and before.derived.method == "FY-9M"
    after = store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4, as_of=D("2025-01-20"))
    assert after.value is None and after.derived is None and after.period == Q4
    assert "restated by the 10-K/A filed 2025-01-20" in after.reason
    assert "10-Q filed 2024-08-02" in after.reason


def test_q4_derived_from_interim_values_restated_with_the_year():
    restated = [fact(1100, period=FY24, **K24A), fact(780, period=M9, **K24A)]
    store = store_with(*_quarterly(), *restated)
    q4 = store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4, as_of=D("2025-02-01"))
    assert q4.value == 1100 - 780 and q4.derived.method == "FY-9M"
    assert [i.filing.form for i in q4.derived.inputs] == ["10-K/A", "10-K/A"]
    only_quarters = [
        fact(1100, period=FY24, **K24A),
        *(fact(v, period=p, **K24A) for v, p in ((210, Q1), (260, Q2), (280, Q3))),
    ]
    store = store_with(*_quarterly(nine_months=False), *only_quarters)
    q4 = store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4)
    assert q4.value == 1100 - 210 - 260 - 280 and q4.derived.method == "FY-Q1-Q2-Q3"


def test_an_amendment_that_repeats_the_year_changes_nothing():
    store = store_with(*_quarterly(), fact(1000, period=FY24, **K24A))
    q4 = store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4)
    assert q4.value == 1000 - 710 and q4.derived.method == "FY-9M"


def test_reported_q4_is_used_as_is():
    store = store_with(*_quarterly(), fact(333, period=Q4, **K24))
    q4 = store.get(42, "us-gaap:Revenues", fiscal_year=2024, quarter=4)
    assert q4.value == 333 and q4.derived is None


@pytest.mark.parametrize(
    ("concept", "unit", "words"),
    [
        ("us-gaap:EarningsPerShareBasic", "USD/shares", "per-share"),
        ("us-gaap:WeightedAverageNumberOfSharesOutstandingBasic", "shares", "share counts"),
    ],
)
def test_q4_refused_for_per_share_and_share_counts(concept, unit, words):
    store = store_with(*_quarterly(concept=concept, unit=unit))
    q4 = store.get(42, concept, fiscal_year=2024, quarter=4)
    assert q4.value is None and words in q4.reason and q4.period == Q4


def test_instant_concepts_take_the_period_end():
    facts = [
        *_quarterly(),
        fact(5000, concept="us-gaap:Assets", period=Period.instant(FY24.end), **K24),
        fact(
            4000,
            concept="us-gaap:Assets",
            period=Period.instant(Q2.end),
            accn="0000000001-24-000040",
            form="10-Q",
            filed="2024-05-03",
        ),
    ]
    store = store_with(*facts)
    assert store.get(42, "us-gaap:Assets", fiscal_year=2024).value == 5000
    assert store.get(42, "us-gaap:Assets", fiscal_year=2024, quarter=2).value == 4000
    assert store.get(42, "us-gaap:Assets", fiscal_year=2024, quarter=4).value == 5000


def test_fiscal_calendar_ignores_periods_not_yet_filed():
    store = store_with(*_quarterly())
    early = store.get(42, "us-gaap:Revenues", fiscal_year=2024, as_of=D("2024-10-01"))
    assert early.value is None and early.period is None


# ---- property: the as-of answer is the latest filing known ---------------------------------

_obs = st.tuples(
    st.integers(min_value=-(10**15), max_value=10**15),
    st.dates(min_value=date(2021, 1, 1), max_value=date(2021, 1, 20)),
    st.integers(min_value=1, max_value=30),
)


@settings(max_examples=40, deadline=None)
@given(
    observations=st.lists(_obs, min_size=1, max_size=8),
    as_of=st.dates(min_value=date(2020, 12, 25), max_value=date(2021, 1, 25)),
)
def test_as_of_answer_is_latest_known_filing(observations, as_of):
    facts = {}
    for val, filed, seq in observations:
        accn = f"0000000001-21-{seq:06d}"
        facts[accn] = fact(val, accn=accn, filed=filed.isoformat())
    store = store_with(*facts.values())
    known = [f for f in facts.values() if f.filing.filed <= as_of]
    answer = store.get(42, "us-gaap:Revenues", period=FY2020, as_of=as_of)
    if not known:
        assert answer.value is None
        return
    best = max(known, key=lambda f: (f.filing.filed, f.filing.accn))
    assert (answer.value, answer.filing.accn) == (best.value, best.filing.accn)
    history = store.history(42, "us-gaap:Revenues", FY2020, as_of=as_of)
    assert [h.filing.accn for h in history] == [
        f.filing.accn for f in sorted(known, key=lambda f: (f.filing.filed, f.filing.accn))
    ]
