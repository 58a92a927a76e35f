"""The SQL side of the fact store: one SQLite file, one row per (entity, concept, unit, period,
dimensions, accession), indexed for point-in-time lookups.

Values are kept as canonical decimal text and dates as ISO text; both are converted back to
``Decimal`` and ``date`` before they leave this module."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

from finchunk.errors import InputError
from finchunk.facts.model import (
    ConceptUse,
    Dims,
    Fact,
    Filing,
    FrameRow,
    Observation,
    ParsedFacts,
    Period,
)
from finchunk.facts.names import dims_key
from finchunk.facts.values import decimal_text

#: 3 added the labels table, 4 the tickers table; an older store is upgraded on opening (the
#: tables are added empty: its entities' tickers come with the next filing loaded that gives them)
SCHEMA_VERSION = 4
_FAR_FUTURE = "9999-12-31"
_NO_CONCEPT = -1
_KEY = "cik, concept_id, unit, period_end, period_start, dims, accn"
_COLUMNS = (
    "cik, concept_id, unit, period_start, period_end, days, dims, value, accn, form, filed, "
    "decimals, fy, fp"
)

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entities (cik INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE IF NOT EXISTS concepts (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS labels (concept_id INTEGER PRIMARY KEY, label TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tickers (
    cik INTEGER NOT NULL, ticker TEXT NOT NULL, PRIMARY KEY (cik, ticker)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS facts (
    cik INTEGER NOT NULL,
    concept_id INTEGER NOT NULL,  -- concepts.id of "taxonomy:Name"
    unit TEXT NOT NULL,
    period_start TEXT NOT NULL,  -- '' for an instant
    period_end TEXT NOT NULL,    -- the instant, or the last day of a duration
    days INTEGER NOT NULL,       -- 0 for an instant, else days counting both ends
    dims TEXT NOT NULL,          -- '' for the entity-wide value
    value TEXT NOT NULL,
    accn TEXT NOT NULL,
    form TEXT NOT NULL,
    filed TEXT NOT NULL,
    decimals TEXT,
    fy INTEGER,
    fp TEXT,
    PRIMARY KEY ({_KEY})
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS facts_frame ON facts (concept_id, period_end, period_start);
CREATE INDEX IF NOT EXISTS facts_entity_periods
    ON facts (cik, dims, period_end, days, period_start, filed);
"""


@dataclass
class LoadReport:
    """What loading one file did. Conflicts are facts already in the store for the same
    accession with a different value: the stored value is kept and the conflict reported."""

    source: str
    facts: int = 0
    inserted: int = 0
    already_present: int = 0
    nil_facts: int = 0
    duplicates_in_file: int = 0
    conflicts: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FactKey:
    """Which fact: entity, concept, unit, exact period and dimensions."""

    cik: int
    concept: str
    unit: str
    period: Period
    dims: Dims = ()


def _period_text(period: Period) -> tuple[str, str]:
    start = "" if period.start is None else period.start.isoformat()
    return start, period.end.isoformat()


def _period_of(start: str, end: str) -> Period:
    return Period(end=date.fromisoformat(end), start=date.fromisoformat(start) if start else None)


def _filing_of(accn: str, form: str, filed: str) -> Filing:
    return Filing(accn=accn, form=form, filed=date.fromisoformat(filed))


def _as_of_text(as_of: date | None) -> str:
    return _FAR_FUTURE if as_of is None else as_of.isoformat()


class FactDB:
    """The SQL side of the fact store: a SQLite file (``":memory:"`` for a throwaway one)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path)
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{self.path}: not a usable fact store ({exc})") from exc
        self._db.execute(
            "INSERT INTO meta VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET "
            "value = excluded.value WHERE value IN ('2', '3')",
            (str(SCHEMA_VERSION),),
        )
        self._db.commit()
        self._concept_ids = dict(self._db.execute("SELECT name, id FROM concepts").fetchall())

    def close(self) -> None:
        self._db.close()

    def entities(self) -> list[tuple[int, str]]:
        """(CIK, name) of every entity with a known name, by CIK."""
        rows = self._db.execute(
            "SELECT cik, name FROM entities WHERE name IS NOT NULL ORDER BY cik"
        ).fetchall()
        return [(int(c), str(n)) for c, n in rows]

    def tickers(self) -> dict[int, tuple[str, ...]]:
        """The trading symbols of each entity that a loaded filing gave (dei:TradingSymbol)."""
        found: dict[int, tuple[str, ...]] = {}
        for cik, ticker in self._db.execute("SELECT cik, ticker FROM tickers ORDER BY cik, ticker"):
            found[int(cik)] = (*found.get(int(cik), ()), str(ticker))
        return found

    def __enter__(self) -> FactDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- writing -------------------------------------------------------------------------

    def add(self, parsed: ParsedFacts) -> LoadReport:
        """Store every fact of a parsed file in one transaction."""
        report = LoadReport(
            source=parsed.source,
            facts=len(parsed.facts),
            nil_facts=parsed.nil_facts,
            duplicates_in_file=parsed.duplicates,
        )
        with self._db:
            self._db.execute("DROP TABLE IF EXISTS temp.staging")
            self._db.execute(f"CREATE TEMP TABLE staging AS SELECT {_COLUMNS} FROM facts LIMIT 0")
            self._add_concepts(sorted({f.concept for f in parsed.facts} | set(parsed.labels)))
            self._db.executemany(
                "INSERT INTO labels VALUES (?, ?) ON CONFLICT(concept_id) DO UPDATE SET "
                "label = excluded.label",
                [(self._concept_ids[c], label) for c, label in sorted(parsed.labels.items())],
            )
            self._db.executemany(
                f"INSERT INTO staging ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                _rows(parsed.facts, self._concept_ids),
            )
            report.conflicts = self._conflicts()
            before = self._db.total_changes
            self._db.execute(
                f"INSERT OR IGNORE INTO facts ({_COLUMNS}) SELECT {_COLUMNS} FROM staging"
            )
            report.inserted = self._db.total_changes - before
            report.already_present = report.facts - report.inserted
            self._db.execute("DROP TABLE temp.staging")
            self._remember_entities(parsed)
        return report

    def _add_concepts(self, names: list[str]) -> None:
        for name in names:
            if self._concept_id(name) is None:
                cursor = self._db.execute("INSERT INTO concepts (name) VALUES (?)", (name,))
                self._concept_ids[name] = int(cursor.lastrowid or 0)

    def _concept_id(self, name: str) -> int | None:
        """The id of a concept name; None when the store has never seen it."""
        found = self._concept_ids.get(name)
        if found is None:
            row = self._db.execute("SELECT id FROM concepts WHERE name=?", (name,)).fetchone()
            if row is not None:
                found = self._concept_ids[name] = row[0]
        return found

    def _conflicts(self) -> list[str]:
        rows = self._db.execute(
            f"SELECT c.name, s.unit, s.period_start, s.period_end, s.dims, s.accn, "
            f"f.value, s.value FROM staging s JOIN facts f USING ({_KEY}) "
            f"JOIN concepts c ON c.id = s.concept_id "
            f"WHERE f.value != s.value ORDER BY {', '.join('s.' + k for k in _KEY.split(', '))}"
        ).fetchall()
        return [
            f"{concept} [{unit}] {start or 'instant'}..{end} {dims} accn {accn}: "
            f"stored {old}, file says {new}"
            for concept, unit, start, end, dims, accn, old, new in rows
        ]

    def _remember_entities(self, parsed: ParsedFacts) -> None:
        ciks = sorted({f.cik for f in parsed.facts})
        self._db.executemany(
            "INSERT INTO entities VALUES (?, ?) ON CONFLICT(cik) DO UPDATE SET "
            "name = coalesce(excluded.name, entities.name)",
            [(cik, parsed.entity_name if len(ciks) == 1 else None) for cik in ciks],
        )
        if len(ciks) == 1:  # a filing's trading symbols are its one entity's
            self._db.executemany(
                "INSERT OR IGNORE INTO tickers VALUES (?, ?)",
                [(ciks[0], t) for t in parsed.tickers],
            )

    # ---- reading -------------------------------------------------------------------------

    def latest(self, key: FactKey, as_of: date | None) -> Observation | None:
        """The value of the exact fact from the latest filing (filed date, then accession)
        filed on or before ``as_of``."""
        row = self._db.execute(
            "SELECT value, accn, form, filed FROM facts WHERE cik=? AND concept_id=? AND unit=? "
            "AND period_end=? AND period_start=? AND dims=? AND filed<=? "
            "ORDER BY filed DESC, accn DESC LIMIT 1",
            (*self._key_params(key), _as_of_text(as_of)),
        ).fetchone()
        if row is None:
            return None
        return Observation(Decimal(row[0]), key.unit, key.period, _filing_of(*row[1:]))

    def observations(self, key: FactKey, as_of: date | None) -> list[Observation]:
        """Every filing's value of the exact fact up to ``as_of``, in filed order."""
        rows = self._db.execute(
            "SELECT value, accn, form, filed FROM facts WHERE cik=? AND concept_id=? AND unit=? "
            "AND period_end=? AND period_start=? AND dims=? AND filed<=? ORDER BY filed, accn",
            (*self._key_params(key), _as_of_text(as_of)),
        ).fetchall()
        return [Observation(Decimal(r[0]), key.unit, key.period, _filing_of(*r[1:])) for r in rows]

    def _key_params(self, key: FactKey) -> tuple[object, ...]:
        start, end = _period_text(key.period)
        return (key.cik, self._query_id(key.concept), key.unit, end, start, dims_key(key.dims))

    def _query_id(self, concept: str) -> int:
        """Concept id for a query; an id no row has when the concept is unknown."""
        found = self._concept_id(concept)
        return _NO_CONCEPT if found is None else found

    def frame_rows(
        self, concept: str, period: Period, as_of: date | None, unit: str | None = None
    ) -> list[FrameRow]:
        """One entity-wide value per (entity, unit) for the exact period, as known on the date."""
        start, end = _period_text(period)
        unit_clause = "" if unit is None else "AND unit = ?"
        params: list[object] = [self._query_id(concept), end, start, _as_of_text(as_of)]
        if unit is not None:
            params.append(unit)
        rows = self._db.execute(
            "SELECT cik, unit, value, accn, form, filed FROM ("
            " SELECT cik, unit, value, accn, form, filed, ROW_NUMBER() OVER ("
            "  PARTITION BY cik, unit ORDER BY filed DESC, accn DESC) AS rank"
            " FROM facts WHERE concept_id=? AND period_end=? AND period_start=? AND dims=''"
            f" AND filed<=? {unit_clause}) WHERE rank = 1 ORDER BY cik, unit",
            params,
        ).fetchall()
        return [FrameRow(r[0], r[1], Decimal(r[2]), _filing_of(*r[3:])) for r in rows]

    def units(self, cik: int, concept: str, dims: Dims = ()) -> list[str]:
        rows = self._db.execute(
            "SELECT DISTINCT unit FROM facts WHERE cik=? AND concept_id=? AND dims=? ORDER BY unit",
            (cik, self._query_id(concept), dims_key(dims)),
        ).fetchall()
        return [r[0] for r in rows]

    def is_instant(self, cik: int, concept: str) -> bool | None:
        """Whether the entity reports the concept mostly at instants; None when it never does."""
        instants, total = self._db.execute(
            "SELECT coalesce(sum(period_start = ''), 0), count(*) FROM facts "
            "WHERE cik=? AND concept_id=?",
            (cik, self._query_id(concept)),
        ).fetchone()
        return None if total == 0 else instants * 2 > total

    def durations(
        self, cik: int, first_end: date, last_end: date, as_of: date | None
    ) -> list[tuple[Period, int]]:
        """Entity-wide duration periods ending in [first_end, last_end] known on ``as_of``,
        each with how many facts report it (the raw material of fiscal-calendar inference)."""
        rows = self._db.execute(
            "SELECT period_start, period_end, count(*) FROM facts WHERE cik=? AND period_end "
            "BETWEEN ? AND ? AND days > 0 AND dims='' AND filed<=? "
            "GROUP BY period_start, period_end ORDER BY period_end, period_start",
            (cik, first_end.isoformat(), last_end.isoformat(), _as_of_text(as_of)),
        ).fetchall()
        return [(_period_of(start, end), count) for start, end, count in rows]

    def instant_ends(
        self, cik: int, concept: str, first: date, last: date, as_of: date | None
    ) -> list[date]:
        """The instants in [first, last] at which the entity reports ``concept`` entity-wide,
        as known on ``as_of``, earliest first."""
        rows = self._db.execute(
            "SELECT DISTINCT period_end FROM facts WHERE cik=? AND concept_id=? AND days=0 "
            "AND dims='' AND period_end BETWEEN ? AND ? AND filed<=? ORDER BY period_end",
            (cik, self._query_id(concept), first.isoformat(), last.isoformat(), _as_of_text(as_of)),
        ).fetchall()
        return [date.fromisoformat(r[0]) for r in rows]

    def concepts_named(self, local: str) -> list[str]:
        """Every stored concept whose name after the taxonomy prefix is ``local`` (any case),
        those spelled exactly as given first: "Revenues" -> ["us-gaap:Revenues"]."""
        rows = self._db.execute(
            "SELECT name FROM concepts WHERE lower(substr(name, instr(name, ':') + 1)) = lower(?) "
            "ORDER BY substr(name, instr(name, ':') + 1) != ?, name",
            (local, local),
        ).fetchall()
        return [r[0] for r in rows]

    def concept_uses(self, cik: int | None) -> list[ConceptUse]:
        """The concepts the entity (every entity: None) reports entity-wide, by name."""
        where, params = (
            ("WHERE f.cik = ? AND f.dims = ''", (cik,))
            if cik is not None
            else ("WHERE f.dims = ''", ())
        )
        rows = self._db.execute(
            "SELECT c.name, l.label, count(*), max(f.period_end) FROM facts f "
            "JOIN concepts c ON c.id = f.concept_id LEFT JOIN labels l ON l.concept_id = c.id "
            f"{where} GROUP BY c.id ORDER BY c.name",
            params,
        ).fetchall()
        return [ConceptUse(n, label, int(k), date.fromisoformat(end)) for n, label, k, end in rows]

    def filing_fiscal(self, cik: int, accn: str) -> tuple[int | None, str | None]:
        """The fiscal year and period ("FY", "Q2") a filing reports for, as its facts say
        (companyfacts gives them; a file loaded without them gives (None, None))."""
        row = self._db.execute(
            "SELECT fy, fp FROM facts WHERE cik=? AND accn=? AND fy IS NOT NULL "
            "GROUP BY fy, fp ORDER BY count(*) DESC, fy DESC LIMIT 1",
            (cik, accn),
        ).fetchone()
        return (None, None) if row is None else (int(row[0]), row[1])

    def entity_name(self, cik: int) -> str | None:
        row = self._db.execute("SELECT name FROM entities WHERE cik=?", (cik,)).fetchone()
        return None if row is None else row[0]

    def count(self) -> int:
        return self._db.execute("SELECT count(*) FROM facts").fetchone()[0]


def _rows(facts: Iterable[Fact], concept_ids: dict[str, int]) -> Iterator[tuple[object, ...]]:
    for fact in facts:
        start, end = _period_text(fact.period)
        yield (
            fact.cik,
            concept_ids[fact.concept],
            fact.unit,
            start,
            end,
            fact.period.days,
            dims_key(fact.dims),
            decimal_text(fact.value),
            fact.filing.accn,
            fact.filing.form,
            fact.filing.filed.isoformat(),
            fact.decimals,
            fact.fy,
            fact.fp,
        )
