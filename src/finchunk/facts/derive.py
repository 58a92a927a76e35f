"""Derived fourth quarters: FY minus nine-month year-to-date, or FY minus Q1, Q2 and Q3, with
every input taken as known on ``as_of``. Only flows in a currency are derived: per-share
values and share counts are not additive across quarters (share counts change, and per-share
figures divide by weighted averages), so their differences mean nothing.

The inputs must be on one basis. When a later filing changed the year's value (a 10-K/A, or
a later 10-K's restated comparative), an interim value filed before that change is on the
old basis: subtracting it from the restated year would be neither the old Q4 nor the new
one. Such inputs are not used; interim values filed with or after the restatement are, and
when none is known Q4 is refused with the reason."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from finchunk.facts.db import FactDB, FactKey
from finchunk.facts.model import Answer, Derivation, DerivedInput, Filing, Observation, Period
from finchunk.facts.values import is_currency

FY_MINUS_9M = "FY-9M"
FY_MINUS_QUARTERS = "FY-Q1-Q2-Q3"


def refusal(concept: str, unit: str) -> str | None:
    """Why Q4 of this concept/unit is not derived, or None when it may be."""
    local = concept.rpartition(":")[2].lower()
    if "pershare" in local or "/" in unit:
        return (
            f"Q4 not derived for {concept} [{unit}]: per-share values are not additive "
            "across quarters (weighted-average share counts differ by quarter)"
        )
    if not is_currency(unit):
        return (
            f"Q4 not derived for {concept} [{unit}]: only flows in a currency are derived; "
            "share counts and other units do not subtract meaningfully (splits, averaging)"
        )
    return None


def derive_q4(
    store: FactDB, key: FactKey, fy: Period, quarters: list[Period | None], as_of: date | None
) -> Answer:
    """Q4 of ``key`` (whose period is the Q4 period) from the year and its earlier parts;
    ``quarters`` are Q1..Q3 of the fiscal year ``fy`` (None where unknown)."""
    base = Answer(cik=key.cik, concept=key.concept, unit=key.unit, period=key.period)
    why_not = refusal(key.concept, key.unit)
    if why_not is not None:
        return replace(base, reason=why_not)
    year = store.latest(replace(key, period=fy), as_of)
    if year is None:
        return replace(
            base,
            reason=f"not reported, and the fiscal-year value {fy} is not known"
            f"{_on(as_of)}, so Q4 cannot be derived",
        )
    restated = restatement(store, replace(key, period=fy), as_of)
    stale: list[Observation] = []  # interim values known, but filed before the year's restatement

    def usable(obs: Observation | None) -> Observation | None:
        if obs is not None and restated is not None and obs.filing.filed < restated.filed:
            stale.append(obs)
            return None
        return obs

    q4 = key.period
    nine_end = q4.start - timedelta(days=1) if q4 is not None and q4.start else None
    if nine_end is not None:
        nine = usable(
            store.latest(replace(key, period=Period(end=nine_end, start=fy.start)), as_of)
        )
        if nine is not None:
            return _derived(base, key, FY_MINUS_9M, [(year, 1), (nine, -1)])
    parts = [usable(store.latest(replace(key, period=q), as_of)) if q else None for q in quarters]
    known = [p for p in parts if p is not None]
    if len(known) == len(parts):
        return _derived(base, key, FY_MINUS_QUARTERS, [(year, 1)] + [(p, -1) for p in known])
    if stale and restated is not None:
        return replace(base, reason=_mixed_basis(fy, restated, stale, as_of))
    return replace(
        base,
        reason="not reported, and neither the nine-month year-to-date value nor "
        f"all of Q1-Q3 are known{_on(as_of)}, so Q4 cannot be derived",
    )


def _mixed_basis(fy: Period, restated: Filing, stale: list[Observation], as_of: date | None) -> str:
    last = max(stale, key=lambda o: (o.filing.filed, o.filing.accn)).filing
    return (
        f"not reported, and the fiscal-year value {fy} was restated by the {restated.form} "
        f"filed {restated.filed.isoformat()} ({restated.accn}), while the interim values "
        f"known{_on(as_of)} predate it (the latest, the {last.form} filed "
        f"{last.filed.isoformat()}): "
        "Q4 would mix the restated year with unrestated quarters, so it is not derived"
    )


def restatement(store: FactDB, year: FactKey, as_of: date | None) -> Filing | None:
    """The filing (up to ``as_of``) that last changed the value of ``year``'s fact, None when
    every filing that reported it gave the first value."""
    changed = None
    seen = store.observations(year, as_of)
    for before, after in zip(seen, seen[1:], strict=False):
        if after.value != before.value:
            changed = after.filing
    return changed


def _derived(
    base: Answer, key: FactKey, method: str, signed: list[tuple[Observation, int]]
) -> Answer:
    inputs = tuple(
        DerivedInput(key.concept, key.unit, obs.period, obs.value, obs.filing, sign)
        for obs, sign in signed
    )
    value = sum((obs.value * sign for obs, sign in signed), start=signed[0][0].value * 0)
    return replace(base, value=value, derived=Derivation(method=method, inputs=inputs))


def _on(as_of: date | None) -> str:
    return "" if as_of is None else f" as of {as_of.isoformat()}"
