"""Acceptance on real EDGAR files in ../shared/data/edgar (skipped with a reason when absent):
Apple's FY2009 restatement, instance vs inline XBRL vs companyfacts for one accession, a
derived Q4 checked by hand, and an IFRS filer."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from finchunk.facts import FactStore, Period
from finchunk.facts.companyfacts import read_companyfacts
from finchunk.facts.instance import FilingOverride
from finchunk.facts.ixbrl import read_inline
from finchunk.facts.xbrl import read_instance

D = date.fromisoformat
AAPL = 320193
FY2009 = Period.duration(D("2008-09-28"), D("2009-09-26"))
Q2_ACCN = "0000320193-25-000057"
Q2_FILING = FilingOverride(accn=Q2_ACCN, filed=D("2025-05-02"))


@pytest.fixture(scope="module")
def edgar(shared_data: Path) -> Path:
    path = shared_data / "edgar"
    if not path.is_dir():
        pytest.skip(f"{path} is absent")
    return path


@pytest.fixture(scope="module")
def apple(edgar: Path):
    with FactStore(":memory:") as store:
        store.load([edgar / "AAPL" / "CIK0000320193.json"])
        yield store


@pytest.mark.parametrize(
    ("concept", "before", "after"),
    [
        ("us-gaap:SalesRevenueNet", 36_537_000_000, 42_905_000_000),
        ("us-gaap:NetIncomeLoss", 5_704_000_000, 8_235_000_000),
    ],
)
def test_apple_fy2009_before_and_after_the_10ka(apple, concept, before, after):
    known_before = apple.get(AAPL, concept, period=FY2009, as_of=D("2010-01-24"))
    assert known_before.value == before
    assert (known_before.filing.accn, known_before.filing.form) == ("0001193125-09-214859", "10-K")
    known_after = apple.get(AAPL, concept, period=FY2009, as_of=D("2010-01-25"))
    assert known_after.value == after
    assert (known_after.filing.accn, known_after.filing.form) == ("0001193125-10-012091", "10-K/A")
    by_fiscal_year = apple.get(AAPL, concept, fiscal_year=2009, as_of=D("2009-12-31"))
    assert by_fiscal_year.value == before and by_fiscal_year.period == FY2009
    values = [o.value for o in apple.history(AAPL, concept, FY2009, as_of=D("2010-12-31"))]
    assert values[:2] == [before, after]


def test_apple_q4_fy2024_derived_as_checked_by_hand(apple):
    # Revenue FY2024 (10-K filed 2024-11-01): 391,035 $M; nine months to 2024-06-29
    # (10-Q filed 2024-08-02): 296,105 $M; so Q4 = 94,930 $M, as Apple's Q4 release says.
    q4 = apple.get(
        AAPL,
        "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
        fiscal_year=2024,
        quarter=4,
        as_of=D("2024-12-31"),
    )
    assert q4.value == 94_930_000_000
    assert q4.period == Period.duration(D("2024-06-30"), D("2024-09-28"))
    assert q4.derived.method == "FY-9M"
    assert [(i.value, i.filing.accn) for i in q4.derived.inputs] == [
        (391_035_000_000, "0000320193-24-000123"),
        (296_105_000_000, "0000320193-24-000081"),
    ]
    eps = apple.get(AAPL, "us-gaap:EarningsPerShareBasic", fiscal_year=2024, quarter=4)
    assert eps.value is None and "per-share" in eps.reason


def _key(fact):
    return (fact.concept, fact.unit, fact.period, fact.dims)


def test_instance_inline_and_companyfacts_agree_for_one_accession(edgar):
    instance = read_instance(edgar / "AAPL" / "aapl-20250329_htm.xml", Q2_FILING)
    inline = read_inline(edgar / "AAPL" / "aapl-20250329.htm", Q2_FILING)
    from_instance = {_key(f): f.value for f in instance.facts}
    from_inline = {_key(f): f.value for f in inline.facts}
    assert from_instance == from_inline
    assert instance.facts[0].filing.form == "10-Q"  # from dei:DocumentType
    companyfacts = read_companyfacts(edgar / "AAPL" / "CIK0000320193.json")
    same_filing = [
        f
        for f in companyfacts.facts
        if f.filing.accn == Q2_ACCN and f.concept.startswith("us-gaap:")
    ]
    assert len(same_filing) > 240
    mismatched = [f for f in same_filing if from_instance.get(_key(f)) != f.value]
    assert mismatched == []


def test_loading_all_three_gives_no_conflicts(edgar):
    with FactStore(":memory:") as store:
        reports = store.load([edgar / "AAPL" / "CIK0000320193.json"])
        reports += store.load(
            [edgar / "AAPL" / "aapl-20250329_htm.xml", edgar / "AAPL" / "aapl-20250329.htm"],
            Q2_FILING,
        )
        assert [r.conflicts for r in reports] == [[], [], []]
        assert reports[2].inserted == 0  # the inline file adds nothing the instance lacks
        segment = {"srt:ProductOrServiceAxis": "us-gaap:ProductMember"}
        q2 = Period.duration(D("2024-12-29"), D("2025-03-29"))
        concept = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
        total = store.get(AAPL, concept, period=q2, as_of=D("2025-05-02"))
        products = store.get(AAPL, concept, period=q2, as_of=D("2025-05-02"), dims=segment)
        assert (total.value, products.value) == (95_359_000_000, 68_714_000_000)


def test_early_instance_matches_companyfacts(edgar):
    accn = "0001193125-10-238044"
    instance = read_instance(
        edgar / "AAPL" / "aapl-20100925.xml", FilingOverride(accn=accn, filed=D("2010-10-27"))
    )
    from_instance = {_key(f): f.value for f in instance.facts}
    companyfacts = read_companyfacts(edgar / "AAPL" / "CIK0000320193.json")
    same_filing = [f for f in companyfacts.facts if f.filing.accn == accn]
    assert len(same_filing) > 550
    mismatched = [f for f in same_filing if from_instance.get(_key(f)) != f.value]
    # Every value agrees. Twelve share-award prices are "USD" in companyfacts, whose units
    # follow the 2009 taxonomy's item type, but USD/shares in the instance's own unit.
    by_value = {(c, p, d): v for (c, _u, p, d), v in from_instance.items()}
    assert all(by_value[(f.concept, f.period, f.dims)] == f.value for f in mismatched)
    assert len(mismatched) == 12
    assert {f.concept.rpartition(":")[2][:33] for f in mismatched} == {
        "ShareBasedCompensationArrangement"
    }


def test_ifrs_filer(edgar):
    with FactStore(":memory:") as store:
        (report,) = store.load([edgar / "LPA" / "lpa_facts.json"])
        assert report.inserted == 768
        revenue = store.get(1997711, "ifrs-full:Revenue", fiscal_year=2024)
        assert revenue.value == 43_862_372 and revenue.unit == "USD"
        assert revenue.period == Period.duration(D("2024-01-01"), D("2024-12-31"))
        loss = store.get(1997711, "ifrs-full:ProfitLoss", fiscal_year=2024, as_of=D("2025-04-02"))
        assert loss.value == -19_426_051 and loss.filing.form == "20-F"
        # The 20-F/A of 2025-04-07 carries only a cover fact: the 20-F's figures stand.
        later = store.get(1997711, "ifrs-full:Revenue", fiscal_year=2024, as_of=D("2025-12-31"))
        assert later.filing.accn == "0001997711-25-000030"
        shares = store.get(
            1997711,
            "dei:EntityCommonStockSharesOutstanding",
            period=Period.instant(D("2025-04-02")),
        )
        assert shares.value == 31_668_601 and shares.filing.form == "20-F/A"
        q4 = store.get(1997711, "ifrs-full:Revenue", fiscal_year=2024, quarter=4)
        assert q4.value is None and "Q4" in q4.reason  # an annual-only filer has no quarters
        assert store.get(1997711, "ifrs-full:Assets", fiscal_year=2023).value == 590_825_310


INLINE_FILINGS = [
    "AAPL/aapl-10-k-2024-11-01.html",
    "NVDA/nvda-10-k-2025-02-26.html",
    "GOOGL/googl-10-k-2025-02-05.html",
    "TSLA/tsla-10-q-2025-07-24.html",
    "NFLX/nflx-10-q-2025-07-18.html",
    "UNP/unp-10-k-2025-02-07.html",
    "WFC/wfc-10-k-2025-02-25.html",
]


@pytest.mark.parametrize("name", INLINE_FILINGS)
def test_every_inline_filing_parses(edgar, name):
    parsed = read_inline(edgar / name, FilingOverride(accn="x", filed=D("2025-12-31")))
    assert parsed.facts and parsed.entity_name
    assert {f.filing.form for f in parsed.facts} <= {"10-K", "10-Q"}


@pytest.mark.parametrize(
    ("name", "companyfacts", "accn"),
    [
        ("NVDA/nvda-10-k-2025-02-26.html", "NVDA/CIK0001045810.json", "0001045810-25-000023"),
        ("AAPL/aapl-10-k-2024-11-01.html", "AAPL/CIK0000320193.json", "0000320193-24-000123"),
        ("GOOGL/googl-10-k-2025-02-05.html", "GOOGL/CIK0001652044.json", "0001652044-25-000014"),
    ],
)
def test_inline_10k_agrees_with_companyfacts(edgar, name, companyfacts, accn):
    inline = read_inline(edgar / name, FilingOverride(accn=accn, filed=D("2025-01-01")))
    from_inline = {_key(f): f.value for f in inline.facts}
    same = [f for f in read_companyfacts(edgar / companyfacts).facts if f.filing.accn == accn]
    assert len(same) > 400
    assert [f for f in same if from_inline.get(_key(f)) != f.value] == []


# ---- fiscal calendar on every fiscal year, as of every filing date (issue 14) -----------------

_COMPANYFACTS = ["AAPL/CIK0000320193.json", "GOOGL/CIK0001652044.json", "LPA/lpa_facts.json",
                 "NVDA/CIK0001045810.json", "TSLA/tsla_facts.json"]  # fmt: skip


@pytest.mark.parametrize("name", _COMPANYFACTS)
def test_fiscal_calendar_on_every_year_as_of_every_filing(edgar, name):
    from finchunk.facts import fiscal

    with FactStore(":memory:") as store:
        store.load([edgar / name])
        db = store.db
        rows = db._db.execute(
            "SELECT cik, form, filed, max(period_end) FROM facts WHERE days BETWEEN 350 AND 380 "
            "AND dims='' AND form IN ('10-K','10-K/A','20-F','20-F/A','40-F') "
            "GROUP BY accn ORDER BY filed"
        ).fetchall()
        filed_dates = sorted({D(r[0]) for r in db._db.execute("SELECT DISTINCT filed FROM facts")})
        assert rows, name
        for cik, form, filed, end in rows:
            year_end = D(end)
            for as_of in [d for d in filed_dates if d >= D(filed)][:12]:
                fy = fiscal.fiscal_year(db, cik, year_end.year, as_of)
                assert fy is not None and fy.end == year_end, (form, filed, as_of, fy)
                quarters = fiscal.quarters(db, cik, fy, as_of)
                for q in quarters:
                    assert q is None or fiscal.QUARTER_DAYS.start <= q.days < 101, (as_of, q)
                nine = [
                    p
                    for p, _ in db.durations(cik, fy.start, fy.end, as_of)
                    if p.start == fy.start and abs(p.days - 273) <= 20
                ]
                if nine:  # a nine-month year-to-date is known: Q4's bounds can be told
                    assert quarters[3] is not None, (form, filed, as_of, fy)


def test_apple_q4_fy2009_between_10k_and_10ka(apple):
    """Derived as of a day after the 10-K and before the 10-K/A (FY2009's quarters were
    first filed before XBRL, and the 10-K/A restated them): FY minus nine months."""
    answer = apple.get(AAPL, "us-gaap:NetIncomeLoss", fiscal_year=2009, quarter=4,
                       as_of=D("2009-12-31"))  # fmt: skip
    assert answer.reason is None and answer.derived is not None
    assert answer.period == Period.duration(D("2009-06-28"), D("2009-09-26"))
    assert answer.value == 1_665_000_000


def test_apple_q4_fy2009_after_the_10ka_is_not_fy_minus_old_nine_months(apple):
    """The 10-K/A (2010-01-25) restated FY2009 net income 5,704 -> 8,235 million; the
    nine-month figure known then was the 10-Q's 4,039 (old basis). 8,235 - 4,039 = 4,196 is
    no Q4 at all (the restated Q4, reported a year later, is 2,532): refused until then."""
    after = apple.get(AAPL, "us-gaap:NetIncomeLoss", fiscal_year=2009, quarter=4,
                      as_of=D("2010-01-26"))  # fmt: skip
    assert after.value is None and "restated by the 10-K/A" in after.reason
    later = apple.get(AAPL, "us-gaap:NetIncomeLoss", fiscal_year=2009, quarter=4,
                      as_of=D("2011-01-01"))  # fmt: skip
    assert later.value == 2_532_000_000 and later.derived is None
