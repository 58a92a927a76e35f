"""Typed records of the fact store: periods, facts, filings, answers.

Money and other amounts are ``Decimal``; dates are ``datetime.date``. Text forms (ISO dates,
canonical decimal strings) exist only inside the SQLite file and in JSON output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from enum import StrEnum


class PeriodKind(StrEnum):
    INSTANT = "instant"
    DURATION = "duration"


@dataclass(frozen=True, order=True)
class Period:
    """An instant (``start is None``) or a duration from ``start`` to ``end``, both inclusive."""

    end: date
    start: date | None = None

    @classmethod
    def instant(cls, day: date) -> Period:
        return cls(end=day)

    @classmethod
    def duration(cls, start: date, end: date) -> Period:
        return cls(end=end, start=start)

    @property
    def kind(self) -> PeriodKind:
        return PeriodKind.INSTANT if self.start is None else PeriodKind.DURATION

    @property
    def days(self) -> int:
        """Length in days counting both ends (0 for an instant)."""
        return 0 if self.start is None else (self.end - self.start).days + 1

    def __str__(self) -> str:
        if self.start is None:
            return f"instant {self.end.isoformat()}"
        return f"{self.start.isoformat()}..{self.end.isoformat()}"


Dims = tuple[tuple[str, str], ...]
"""Dimensions of a fact as sorted (axis, member) pairs; ``()`` is the entity-wide value."""


@dataclass(frozen=True)
class Filing:
    """Where an observation was published: accession number, form type, filed date."""

    accn: str
    form: str
    filed: date


@dataclass(frozen=True)
class Fact:
    """One numeric observation: a value of a concept for an entity, period and unit, as reported
    in one filing."""

    cik: int
    concept: str  # "taxonomy:Name", e.g. "us-gaap:Revenues"
    unit: str  # companyfacts style: "USD", "USD/shares", "shares", "pure"
    period: Period
    value: Decimal
    filing: Filing
    dims: Dims = ()
    decimals: str | None = None
    fy: int | None = None
    fp: str | None = None


@dataclass(frozen=True)
class Observation:
    """One filing's value of a fact (a row of ``history``)."""

    value: Decimal
    unit: str
    period: Period
    filing: Filing


@dataclass(frozen=True)
class DerivedInput:
    concept: str
    unit: str
    period: Period
    value: Decimal
    filing: Filing
    sign: int  # +1 or -1: how the input enters the derived value


@dataclass(frozen=True)
class Derivation:
    method: str
    inputs: tuple[DerivedInput, ...]


@dataclass(frozen=True)
class Answer:
    """The answer to a point-in-time query. ``value is None`` means nothing was known on the
    date (``reason`` says why)."""

    cik: int
    concept: str
    unit: str | None
    period: Period | None
    value: Decimal | None = None
    filing: Filing | None = None
    derived: Derivation | None = None
    reason: str | None = None


@dataclass(frozen=True)
class FrameRow:
    cik: int
    unit: str
    value: Decimal
    filing: Filing


@dataclass
class ParsedFacts:
    """What a parser got out of one file: numeric facts plus the text (dei) facts it needs."""

    source: str
    facts: list[Fact] = field(default_factory=list)
    entity_name: str | None = None
    nil_facts: int = 0
    duplicates: int = 0
    labels: dict[str, str] = field(default_factory=dict)  # concept -> its label, when given
    tickers: tuple[str, ...] = ()  # the entity's trading symbols (dei:TradingSymbol), if given


@dataclass(frozen=True)
class ConceptUse:
    """A concept an entity reports: its label (when a loaded file gave one), how many
    entity-wide facts it has, and the end of the latest period they cover."""

    concept: str
    label: str | None
    facts: int
    last_end: date
