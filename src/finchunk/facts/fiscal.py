"""Fiscal calendar inference from an entity's own reported periods.

A fiscal year Y is the entity's annual period (52/53 weeks or a calendar-like year) that ends
in calendar year Y. Quarter ends are read off the reported quarters and year-to-date periods
of that year, so 52/53-week years and odd quarter lengths come out as the filer reported them.
Only periods known on ``as_of`` are used: the calendar itself carries no look-ahead."""

from __future__ import annotations

import calendar
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta

from finchunk.facts.db import FactDB
from finchunk.facts.model import Period

ANNUAL_DAYS = range(350, 381)
QUARTER_DAYS = range(80, 101)
_YTD_SLACK = 20
_YEAR_END_SLACK_DAYS = 7
_CALENDAR_YEARS = 4  # years before the one asked whose annual periods set the calendar
_ONE_DAY = timedelta(days=1)


@dataclass(frozen=True)
class FiscalCalendar:
    """Typical fiscal year end (month, day) and whether years are 52/53 weeks long."""

    year_end_month: int
    year_end_day: int
    week_based: bool

    def expected_end(self, year: int) -> date:
        day = min(self.year_end_day, calendar.monthrange(year, self.year_end_month)[1])
        return date(year, self.year_end_month, day)


def infer_calendar(
    store: FactDB, cik: int, as_of: date | None, years: range | None = None
) -> FiscalCalendar | None:
    """The entity's fiscal calendar from its annual periods known on ``as_of`` (those ending in
    ``years`` when given, else all)."""
    first = date(years.start, 1, 1) if years else date(1900, 1, 1)
    last = date(years.stop - 1, 12, 31) if years else date(9999, 12, 31)
    annual = _annual(store, cik, first, last, as_of)
    if not annual:
        return None
    months = Counter(p.end.month for p, _ in annual)
    month = max(months, key=lambda m: (months[m], -m))
    days = sorted(p.end.day for p, _ in annual if p.end.month == month)
    weeks = sum(1 for p, _ in annual if p.days in (364, 371))
    return FiscalCalendar(month, days[len(days) // 2], week_based=weeks * 2 > len(annual))


def _annual(store: FactDB, cik: int, first: date, last: date, as_of: date | None):
    return [(p, n) for p, n in store.durations(cik, first, last, as_of) if p.days in ANNUAL_DAYS]


def fiscal_year(store: FactDB, cik: int, year: int, as_of: date | None) -> Period | None:
    """The entity's fiscal year ending in calendar ``year``, as known on ``as_of``."""
    candidates = _annual(store, cik, date(year, 1, 1), date(year, 12, 31), as_of)
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0][0]
    cal = infer_calendar(store, cik, as_of, range(year - _CALENDAR_YEARS, year + 1))
    expected = cal.expected_end(year) if cal else None

    def rank(item: tuple[Period, int]) -> tuple[bool, int, date]:
        period, count = item
        near = expected is not None and abs((period.end - expected).days) <= _YEAR_END_SLACK_DAYS
        return (near, count, period.end)

    return max(candidates, key=rank)[0]


def quarter_ends(store: FactDB, fy: Period, cik: int, as_of: date | None) -> list[date | None]:
    """Last days of Q1, Q2, Q3 and Q4 (None where it cannot be told). Each of Q1-Q3's ends is
    voted for by year-to-date periods that start with the year and by quarter-length periods
    that follow the previous end (when that is known); Q4 ends with the year once Q3's end
    is known (a nine-month year-to-date period alone tells it: a year whose first 10-Qs
    predate XBRL, or whose quarters only a later amendment restates)."""
    first = _start_of(fy)
    periods = [
        (p, n)
        for p, n in store.durations(cik, fy.start, fy.end, as_of)
        if p.start is not None and p.start >= first
    ]
    ends: list[date | None] = []
    previous: date | None = first - _ONE_DAY
    for k in (1, 2, 3):
        votes: Counter[date] = Counter()
        for period, count in periods:
            after = previous is not None and period.start == previous + _ONE_DAY
            if after and period.days in QUARTER_DAYS:
                votes[period.end] += count
            if period.start == first and abs(period.days - 91 * k) <= _YTD_SLACK:
                votes[period.end] += count
        previous = max(votes, key=lambda day: (votes[day], -day.toordinal())) if votes else None
        ends.append(previous)
    return [*ends, fy.end if previous is not None else None]


def quarters(store: FactDB, cik: int, fy: Period, as_of: date | None) -> list[Period | None]:
    """The four fiscal quarters of the fiscal year ``fy`` (Q1 first), None for a quarter
    whose bounds cannot be told."""
    ends = quarter_ends(store, fy, cik, as_of)
    starts = [_start_of(fy)] + [end + _ONE_DAY if end else None for end in ends[:3]]
    return [
        Period.duration(start, end) if start is not None and end is not None else None
        for start, end in zip(starts, ends, strict=True)
    ]


def _start_of(fy: Period) -> date:
    if fy.start is None:
        raise ValueError(f"a fiscal year is a duration, got {fy}")
    return fy.start
