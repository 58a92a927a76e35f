"""``FactStore``: the point-in-time XBRL fact store's Python API.

with FactStore("facts.sqlite") as store:
    store.load([Path("CIK0000320193.json")])
    store.get(320193, "us-gaap:SalesRevenueNet", fiscal_year=2009, as_of=date(2009, 12, 31))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path

from finchunk.facts import query
from finchunk.facts.concepts import Suggestions, resolve_concept, similar_concepts
from finchunk.facts.db import FactDB, LoadReport
from finchunk.facts.instance import FilingOverride
from finchunk.facts.loader import read_facts
from finchunk.facts.model import Answer, FrameRow, Observation, ParsedFacts, Period
from finchunk.facts.names import normalise_dims


class FactStore:
    """Facts in a SQLite file (``":memory:"`` for a throwaway store)."""

    def __init__(self, path: str | Path) -> None:
        self.db = FactDB(path)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> FactStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def load(self, paths: Iterable[Path], given: FilingOverride | None = None) -> list[LoadReport]:
        """Parse and store files, each in its own transaction, in the order given."""
        return [self.db.add(read_facts(Path(p), given)) for p in paths]

    def add(self, parsed: ParsedFacts) -> LoadReport:
        return self.db.add(parsed)

    def entities(self) -> list[tuple[int, str]]:
        """(CIK, name) of every entity in the store."""
        return self.db.entities()

    def tickers(self) -> dict[int, tuple[str, ...]]:
        """Each entity's trading symbols, as the loaded filings gave them (dei:TradingSymbol;
        companyfacts JSON has none)."""
        return self.db.tickers()

    def similar_concepts(self, cik: int | None, concept: str, n: int = 5) -> Suggestions:
        """Concepts the entity (any entity: None) reports that come closest to ``concept``
        (prefix optional, as in :meth:`get`), and the concept's own latest period."""
        return similar_concepts(self.db, cik, resolve_concept(self.db, concept, cik), n)

    def filing_fiscal(self, cik: int, accn: str) -> tuple[int | None, str | None]:
        """Fiscal year and period ("FY", "Q1".."Q3") of a filing of the entity, when known."""
        return self.db.filing_fiscal(cik, accn)

    def get(
        self,
        cik: int,
        concept: str,
        *,
        unit: str | None = None,
        period: Period | None = None,
        fiscal_year: int | None = None,
        quarter: int | None = None,
        as_of: date | None = None,
        dims: Mapping[str, str] | None = None,
    ) -> Answer:
        """The value as known on ``as_of`` (filed on or before it) of the exact ``period``,
        or of fiscal year ``fiscal_year`` (quarter ``quarter``; Q4 derived when unreported)."""
        when = query.PeriodQuery(period=period, fiscal_year=fiscal_year, quarter=quarter)
        return query.get(self.db, cik, concept, when, unit, as_of, normalise_dims(dims or {}))

    def history(
        self,
        cik: int,
        concept: str,
        period: Period,
        *,
        unit: str | None = None,
        as_of: date | None = None,
        dims: Mapping[str, str] | None = None,
    ) -> list[Observation]:
        return query.history(self.db, cik, concept, period, unit, as_of, normalise_dims(dims or {}))

    def frame(
        self, concept: str, period: Period, *, as_of: date | None = None, unit: str | None = None
    ) -> list[FrameRow]:
        return query.frame(self.db, concept, period, as_of, unit)
