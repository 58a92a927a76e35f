"""Point-in-time queries: the value of an exact fact as known on a date, fiscal-year and
fiscal-quarter lookups with derived Q4, history and frames."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from finchunk.errors import InputError
from finchunk.facts import fiscal
from finchunk.facts.concepts import resolve_concept
from finchunk.facts.db import FactDB, FactKey
from finchunk.facts.derive import derive_q4
from finchunk.facts.model import Answer, Dims, FrameRow, Observation, Period


@dataclass(frozen=True)
class PeriodQuery:
    """Which period: an exact ``period``, or fiscal year ``fiscal_year`` (optionally quarter)."""

    period: Period | None = None
    fiscal_year: int | None = None
    quarter: int | None = None

    def check(self) -> None:
        if (self.period is None) == (self.fiscal_year is None):
            raise InputError("give exactly one of a period (start/end or instant) or a fiscal year")
        if self.quarter is not None and self.fiscal_year is None:
            raise InputError("a quarter needs a fiscal year")
        if self.quarter is not None and self.quarter not in (1, 2, 3, 4):
            raise InputError(f"quarter must be 1, 2, 3 or 4, got {self.quarter}")


class NoFactsError(InputError):
    """The entity has no facts at all for the concept (with those dimensions)."""

    def __init__(self, cik: int, concept: str, dims: Dims) -> None:
        self.cik, self.concept, self.dims = cik, concept, dims
        which = "with those dimensions" if dims else "entity-wide (without dimensions)"
        super().__init__(f"CIK {cik} has no facts for {concept} {which} in the store")


def resolve_unit(store: FactDB, cik: int, concept: str, unit: str | None, dims: Dims) -> str:
    """The unit asked for, or the only unit the entity reports the concept in."""
    if unit is not None:
        return unit
    units = store.units(cik, concept, dims)
    if not units:
        raise NoFactsError(cik, concept, dims)
    if len(units) > 1:
        raise InputError(
            f"{concept} of CIK {cik} is reported in several units "
            f"({', '.join(units)}); choose one with --unit"
        )
    return units[0]


def get(
    store: FactDB,
    cik: int,
    concept: str,
    when: PeriodQuery,
    unit: str | None = None,
    as_of: date | None = None,
    dims: Dims = (),
) -> Answer:
    """The value of the fact as known on ``as_of`` (inclusive; None = everything loaded).
    ``concept`` may omit its taxonomy prefix when one taxonomy has the name."""
    when.check()
    concept = resolve_concept(store, concept, cik)
    unit = resolve_unit(store, cik, concept, unit, dims)
    if when.period is not None:
        return _exact(store, FactKey(cik, concept, unit, when.period, dims), as_of)
    return _fiscal(store, FactKey(cik, concept, unit, Period.instant(date.min), dims), when, as_of)


def _exact(store: FactDB, key: FactKey, as_of: date | None) -> Answer:
    found = store.latest(key, as_of)
    answer = Answer(cik=key.cik, concept=key.concept, unit=key.unit, period=key.period)
    if found is None:
        on = "" if as_of is None else f" as of {as_of.isoformat()}"
        return replace(answer, reason=f"no filing reports this exact fact{on}")
    return replace(answer, value=found.value, filing=found.filing)


def _fiscal(store: FactDB, key: FactKey, when: PeriodQuery, as_of: date | None) -> Answer:
    year = when.fiscal_year or 0
    unresolved = Answer(cik=key.cik, concept=key.concept, unit=key.unit, period=None)
    fy = fiscal.fiscal_year(store, key.cik, year, as_of)
    if fy is None:
        return replace(
            unresolved,
            reason=f"no fiscal year of CIK {key.cik} ending in {year} is known{_on(as_of)}",
        )
    instant = bool(store.is_instant(key.cik, key.concept))
    if when.quarter is None:
        period = Period.instant(fy.end) if instant else fy
        return _exact(store, replace(key, period=period), as_of)
    return _quarter(store, key, fy, when.quarter, instant, as_of)


def _quarter(
    store: FactDB, key: FactKey, fy: Period, quarter: int, instant: bool, as_of: date | None
) -> Answer:
    unresolved = Answer(cik=key.cik, concept=key.concept, unit=key.unit, period=None)
    quarters = fiscal.quarters(store, key.cik, fy, as_of)
    asked = quarters[quarter - 1] if 1 <= quarter <= len(quarters) else None
    if asked is None:
        return replace(
            unresolved,
            reason=f"the bounds of Q{quarter} of fiscal {fy.end.year} "
            f"cannot be told from the periods known{_on(as_of)}",
        )
    period = Period.instant(asked.end) if instant else asked
    answer = _exact(store, replace(key, period=period), as_of)
    if answer.value is not None or quarter != 4 or instant:
        return answer
    return derive_q4(store, replace(key, period=asked), fy, quarters[:3], as_of)


def history(
    store: FactDB,
    cik: int,
    concept: str,
    period: Period,
    unit: str | None = None,
    as_of: date | None = None,
    dims: Dims = (),
) -> list[Observation]:
    """Every value the exact fact has had up to ``as_of``, one per filing, in filed order."""
    concept = resolve_concept(store, concept, cik)
    unit = resolve_unit(store, cik, concept, unit, dims)
    return store.observations(FactKey(cik, concept, unit, period, dims), as_of)


def frame(
    store: FactDB,
    concept: str,
    period: Period,
    as_of: date | None = None,
    unit: str | None = None,
) -> list[FrameRow]:
    """One entity-wide value per entity (and unit) for the exact period, as known on the date."""
    return store.frame_rows(resolve_concept(store, concept), period, as_of, unit)


def _on(as_of: date | None) -> str:
    return "" if as_of is None else f" as of {as_of.isoformat()}"
