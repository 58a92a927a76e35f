"""``finchunk facts ...`` commands: load, get, history, frame. The fact store is imported
when a command runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from finchunk.cli.common import App, print_error, user_errors
from finchunk.errors import InputError

if TYPE_CHECKING:
    from finchunk.facts.concepts import Suggestions
    from finchunk.facts.model import Period
    from finchunk.facts.store import FactStore

app = App(help="Point-in-time XBRL fact store: load, get, history, frame.", no_args_is_help=True)

DbOpt = Annotated[Path, typer.Option("--db", help="SQLite file of the fact store.")]
CikOpt = Annotated[
    str,
    typer.Option(
        "--cik",
        help="The entity: its CIK (320193), a ticker of a loaded filing (AAPL) or its name.",
    ),
]
ConceptOpt = Annotated[str, typer.Option("--concept", help="TAXONOMY:NAME, e.g. us-gaap:Revenues")]
UnitOpt = Annotated[str | None, typer.Option("--unit", help="USD, USD/shares, shares, ...")]
StartOpt = Annotated[str | None, typer.Option("--start", help="Duration start, YYYY-MM-DD.")]
EndOpt = Annotated[str | None, typer.Option("--end", help="Duration end, YYYY-MM-DD.")]
InstantOpt = Annotated[str | None, typer.Option("--instant", help="Instant, YYYY-MM-DD.")]
AsOfOpt = Annotated[
    str | None, typer.Option("--as-of", help="Known on this date (filed <= it), YYYY-MM-DD.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
DimOpt = Annotated[
    list[str] | None,
    typer.Option("--dim", help="AXIS=MEMBER of a dimensional fact (repeatable)."),
]


def _existing_store(db: Path) -> FactStore:
    from finchunk.facts.store import FactStore

    if not db.is_file():
        raise InputError(f"{db}: no fact store there (create one with `finchunk facts load`)")
    return FactStore(db)


@dataclass(frozen=True)
class _PeriodOptions:
    start: str | None
    end: str | None
    instant: str | None

    def period(self, required: bool = True) -> Period | None:
        from finchunk.facts.model import Period

        if self.instant is not None:
            if self.start is not None or self.end is not None:
                raise InputError("give either --instant or --start and --end, not both")
            return Period.instant(_date(self.instant, "--instant"))
        if self.start is None and self.end is None and not required:
            return None
        if self.start is None or self.end is None:
            raise InputError("a duration needs both --start and --end (or give --instant)")
        start, end = _date(self.start, "--start"), _date(self.end, "--end")
        if start > end:
            raise InputError(f"--start {start} is after --end {end}")
        return Period.duration(start, end)


def _date(text: str, option: str) -> date:
    from finchunk.facts.values import option_date

    day = option_date(text, option)
    if day is None:
        raise InputError(f"{option} is required")
    return day


def _dims(items: list[str] | None) -> dict[str, str]:
    dims: dict[str, str] = {}
    for item in items or []:
        axis, sep, member = item.partition("=")
        if not sep or not axis.strip() or not member.strip():
            raise InputError(f"--dim expects AXIS=MEMBER, got {item!r}")
        dims[axis.strip()] = member.strip()
    return dims


def _print_json(data: object) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


@app.command()
def load(
    files: Annotated[list[Path], typer.Argument(help="companyfacts .json, XBRL .xml, iXBRL .htm")],
    db: DbOpt,
    accn: Annotated[str | None, typer.Option("--accn", help="Accession number.")] = None,
    form: Annotated[str | None, typer.Option("--form", help="Form type, e.g. 10-K.")] = None,
    filed: Annotated[str | None, typer.Option("--filed", help="Filed date, YYYY-MM-DD.")] = None,
) -> None:
    """Load facts into the store (created when missing). --accn/--form/--filed give what an
    XBRL instance or inline XBRL file does not say itself."""
    from finchunk.facts.instance import FilingOverride
    from finchunk.facts.store import FactStore
    from finchunk.facts.values import option_date

    with user_errors(
        "the files loaded before stay in the store (each file is one transaction); the one "
        "being loaded was not stored"
    ):
        given = FilingOverride(accn=accn, form=form, filed=option_date(filed, "--filed"))
        with FactStore(db) as store:
            for report in store.load(files, given):
                typer.echo(
                    f"{report.source}: {report.facts} facts, {report.inserted} new, "
                    f"{report.already_present} already stored"
                    + (
                        f", {report.duplicates_in_file} duplicates in file"
                        if report.duplicates_in_file
                        else ""
                    )
                    + (f", {report.nil_facts} nil" if report.nil_facts else "")
                )
                for conflict in report.conflicts:
                    typer.echo(
                        f"warning: {report.source}: conflict kept stored value: {conflict}",
                        err=True,
                    )


@app.command()
def get(
    db: DbOpt,
    cik: CikOpt,
    concept: ConceptOpt,
    unit: UnitOpt = None,
    start: StartOpt = None,
    end: EndOpt = None,
    instant: InstantOpt = None,
    fiscal_year: Annotated[
        int | None, typer.Option("--fiscal-year", help="Fiscal year ending in this calendar year.")
    ] = None,
    quarter: Annotated[
        int | None, typer.Option("--quarter", help="Fiscal quarter 1-4 (Q4 derived if needed).")
    ] = None,
    as_of: AsOfOpt = None,
    dim: DimOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The value of one fact as known on --as-of (latest filing on or before it). CONCEPT
    may omit its prefix when one taxonomy has the name; with no value, the closest concepts
    the entity reports are listed and the exit status is 1."""
    from finchunk.facts.entities import resolve_cik
    from finchunk.facts.output import answer_json, answer_line, suggestions_json
    from finchunk.facts.values import option_date

    with user_errors():
        period = _PeriodOptions(start, end, instant).period(required=fiscal_year is None)
        with _existing_store(db) as store:
            entity = resolve_cik(store, cik)
            with _suggesting(store, entity, concept):
                answer = store.get(
                    entity,
                    concept,
                    unit=unit,
                    period=period,
                    fiscal_year=fiscal_year,
                    quarter=quarter,
                    as_of=option_date(as_of, "--as-of"),
                    dims=_dims(dim),
                )
            found = None if answer.value is not None else store.similar_concepts(entity, concept)
        if as_json:
            data = answer_json(answer)
            if found is not None:
                data["suggestions"] = suggestions_json(found)
            typer.echo(json.dumps(data, indent=2))
        else:
            typer.echo(answer_line(answer))
            if found is not None:
                _echo_suggestions(entity, found)
    if answer.value is None:
        raise typer.Exit(1)


def _echo_suggestions(cik: int, found: Suggestions, err: bool = False) -> None:
    from finchunk.facts.output import suggestion_lines

    for line in suggestion_lines(cik, found):
        typer.echo(line, err=err)


@contextmanager
def _suggesting(store: FactStore, cik: int, concept: str) -> Iterator[None]:
    """An entity with no facts for the concept: the error, then the closest concepts it does
    report (on stderr), exit status 2."""
    from finchunk.facts.query import NoFactsError

    try:
        yield
    except NoFactsError as exc:
        print_error(str(exc))
        _echo_suggestions(cik, store.similar_concepts(cik, exc.concept), err=True)
        raise typer.Exit(2) from None


@app.command()
def history(
    db: DbOpt,
    cik: CikOpt,
    concept: ConceptOpt,
    unit: UnitOpt = None,
    start: StartOpt = None,
    end: EndOpt = None,
    instant: InstantOpt = None,
    as_of: AsOfOpt = None,
    dim: DimOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every value the fact has had up to --as-of, one per filing, in filed order."""
    from finchunk.facts.entities import resolve_cik
    from finchunk.facts.output import observation_json
    from finchunk.facts.values import display_value, option_date

    with user_errors():
        period = _PeriodOptions(start, end, instant).period()
        with _existing_store(db) as store:
            entity = resolve_cik(store, cik)
            with _suggesting(store, entity, concept):
                rows = store.history(
                    entity,
                    concept,
                    period,
                    unit=unit,
                    as_of=option_date(as_of, "--as-of"),
                    dims=_dims(dim),
                )
        if as_json:
            _print_json([observation_json(r) for r in rows])
            return
        for row in rows:
            shown = display_value(row.value, row.unit)
            typer.echo(f"{row.filing.filed} {row.filing.form:8} {row.filing.accn} {shown}")


@app.command()
def frame(
    db: DbOpt,
    concept: ConceptOpt,
    start: StartOpt = None,
    end: EndOpt = None,
    instant: InstantOpt = None,
    as_of: AsOfOpt = None,
    unit: UnitOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """One entity-wide value per entity for the exact period, as known on --as-of."""
    from finchunk.facts.output import frame_row_json
    from finchunk.facts.values import display_value, option_date

    with user_errors():
        period = _PeriodOptions(start, end, instant).period()
        with _existing_store(db) as store:
            rows = store.frame(concept, period, as_of=option_date(as_of, "--as-of"), unit=unit)
        if as_json:
            _print_json([frame_row_json(r) for r in rows])
            return
        for row in rows:
            typer.echo(
                f"{row.cik:>10} {display_value(row.value, row.unit)} ({row.filing.form} "
                f"{row.filing.accn} filed {row.filing.filed})"
            )
