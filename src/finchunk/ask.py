"""``finchunk ask``: route a question to the fact store or to text search, and say why.

A question goes to the fact store when it names (in English or Spanish) a financial-statement
figure (revenue, net income, total assets, EPS, cash …) or a margin, an entity the store knows,
and a fiscal year or quarter. The answer carries the filing that supplied each value; a
fourth quarter the filings do not report is derived by the store (year minus nine months or
minus three quarters), and a margin is computed here, in ``Decimal``, from two facts. Anything
else is answered with cited chunks from the index.

What the question asks for (figure, part of a figure, period) is read by
:mod:`finchunk.facts.question`, the entity it names by
:func:`finchunk.facts.entities.question_entity`; the names tests and callers import from
here (``Metric``, ``find_period`` …) are re-exported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from finchunk.errors import InputError
from finchunk.facts.question import (
    CONCEPTS,
    COVER_SHARES,
    DIFFERENCE_PARTS,
    RATIO_PARTS,
    Difference,
    FiscalPeriod,
    Measure,
    Metric,
    Ratio,
    find_latest_year,
    find_measure_match,
    find_period,
    narrowing,
)
from finchunk.facts.question import find_measure as find_measure
from finchunk.retrieve.kinds import AUTO_RETRIEVER
from finchunk.retrieve.query.mentions import periods

if TYPE_CHECKING:
    from finchunk.facts.entities import Entity

#: How long after a fiscal year's end the annual report's cover date may fall.
_COVER_DAYS = 100

# --- answers -----------------------------------------------------------------------------------


class Route(StrEnum):
    FACTS = "facts"
    TEXT = "text"
    NONE = "none"


@dataclass
class FactResult:
    entity: str
    cik: int
    measure: str
    period: FiscalPeriod
    value: Decimal
    unit: str | None
    answers: list[Any]  # finchunk.facts.Answer: the value, or numerator and denominator
    formula: str | None = None
    basis: str = ""  # which filing the value is known from: "as of today: the FY2025 10-K, …"

    @property
    def display(self) -> str:
        """The value as a person reads it ("$391,035 million", "6.08 USD/share")."""
        from finchunk.facts.values import display_value

        return display_value(self.value, self.unit)


@dataclass
class AskAnswer:
    question: str
    route: Route
    reason: str
    fact: FactResult | None = None
    hits: list[Any] = field(default_factory=list)  # finchunk.retrieve.query.search.Hit
    notes: list[str] = field(default_factory=list)
    evidence: Any = None  # finchunk.retrieve.query.evidence.Evidence, with --evidence

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": self.question,
            "route": self.route.value,
            "reason": self.reason,
            "notes": self.notes,
        }
        if self.fact is not None:
            out["fact"] = _fact_json(self.fact)
        if self.hits:
            out["results"] = [h.to_json() for h in self.hits]
        if self.evidence is not None:
            out["evidence"] = self.evidence.to_json()
        return out


def _fact_json(f: FactResult) -> dict[str, Any]:
    from finchunk.facts.output import answer_json

    return {
        "entity": f.entity,
        "cik": f.cik,
        "measure": f.measure,
        "fiscal_year": f.period.year,
        "quarter": f.period.quarter,
        "value": str(f.value),
        "display": f.display,
        "unit": f.unit,
        "formula": f.formula,
        "basis": f.basis,
        "sources": [answer_json(a) for a in f.answers],
    }


@dataclass(frozen=True)
class AskOptions:
    index: Path | None = None
    facts: Path | None = None
    as_of: date | None = None
    k: int = 5
    retriever: str = AUTO_RETRIEVER  # auto, or any name the retriever factory knows
    reranker: str | None = None  # the ``model`` reranker's model (a folder or URL#MODEL)
    #: Text answers as ``search`` delivers them: the ranked chunks that fit ``budget``
    #: characters, or with ``evidence`` the best evidence within ``budget`` characters or
    #: ``budget_tokens`` cl100k tokens (finchunk.retrieve.query.evidence).
    budget: int | None = None
    budget_tokens: int | None = None
    evidence: bool = False


# --- the fact path -----------------------------------------------------------------------------


def store_entities(store: Any) -> list[tuple[int, str]]:
    """(CIK, name) of every entity in the store."""
    return store.entities()


def _lookup(
    store: Any, cik: int, metric: Metric, period: FiscalPeriod, opts: AskOptions
) -> tuple[Any | None, list[str]]:
    """The first concept of ``metric`` the store answers, or why none did."""
    why = []
    for concept in CONCEPTS[metric]:
        try:
            a = store.get(
                cik, concept, fiscal_year=period.year, quarter=period.quarter, as_of=opts.as_of
            )
        except InputError as exc:
            why.append(str(exc))
            continue
        if a.value is None and concept == COVER_SHARES and period.quarter is None:
            a = _on_cover(store, cik, concept, period.year, opts.as_of) or a
        if a.value is not None:
            return a, why
        why.append(f"{concept}: {a.reason}")
    return None, why


def _on_cover(store: Any, cik: int, concept: str, year: int, as_of: date | None) -> Any | None:
    """A cover-page value of fiscal year ``year``: the first one dated after the year's end
    (within :data:`_COVER_DAYS`), as the annual report's cover gives it; None when none is."""
    from finchunk.facts import Period, fiscal

    fy = fiscal.fiscal_year(store.db, cik, year, as_of)
    if fy is None:
        return None
    after = fy.end + timedelta(days=1)
    days = store.db.instant_ends(cik, concept, after, fy.end + timedelta(_COVER_DAYS), as_of)
    return store.get(cik, concept, period=Period.instant(days[0]), as_of=as_of) if days else None


def _ratio(
    store: Any, cik: int, ratio: Ratio, period: FiscalPeriod, opts: AskOptions
) -> tuple[tuple[Decimal, list[Any], str] | None, list[str]]:
    num, why_n = _lookup(store, cik, RATIO_PARTS[ratio], period, opts)
    den, why_d = _lookup(store, cik, Metric.REVENUE, period, opts)
    if num is None or den is None or not den.value:
        return None, why_n + why_d + (["revenue is zero"] if den is not None else [])
    value = (Decimal(num.value) / Decimal(den.value) * 100).quantize(Decimal("0.01"))
    formula = f"{num.concept} / {den.concept} × 100"
    return (value, [num, den], formula), []


def _difference(
    store: Any, cik: int, diff: Difference, period: FiscalPeriod, opts: AskOptions
) -> tuple[tuple[Decimal, str | None, list[Any], str] | None, list[str]]:
    first, second = DIFFERENCE_PARTS[diff]
    a, why_a = _lookup(store, cik, first, period, opts)
    b, why_b = _lookup(store, cik, second, period, opts)
    if a is None or b is None:
        return None, why_a + why_b
    if a.unit != b.unit:
        return None, [f"{a.concept} is in {a.unit} but {b.concept} in {b.unit}"]
    formula = f"{diff.value} = {first.value} − {second.value} = {a.concept} − {b.concept}"
    return (Decimal(a.value) - Decimal(b.value), a.unit, [a, b], formula), []


def _parts(what: Measure) -> tuple[Metric, ...]:
    """The statement figures a measure is made of."""
    if isinstance(what, Ratio):
        return (RATIO_PARTS[what], Metric.REVENUE)
    if isinstance(what, Difference):
        return DIFFERENCE_PARTS[what]
    return (what,)


def answer_from_facts(
    store: Any,
    cik: int,
    name: str,
    what: Measure,
    period: FiscalPeriod,
    opts: AskOptions,
) -> tuple[FactResult | None, list[str]]:
    if isinstance(what, Ratio):
        got, why = _ratio(store, cik, what, period, opts)
        if got is None:
            return None, why
        value, answers, formula = got
        result = FactResult(name, cik, what.value, period, value, "%", answers, formula)
    elif isinstance(what, Difference):
        diff, why = _difference(store, cik, what, period, opts)
        if diff is None:
            return None, why
        value, unit, answers, formula = diff
        result = FactResult(name, cik, what.value, period, value, unit, answers, formula)
    else:
        a, why = _lookup(store, cik, what, period, opts)
        if a is None:
            return None, why
        result = FactResult(name, cik, what.value, period, Decimal(a.value), a.unit, [a])
    result.basis = known_from(store, cik, result.answers, opts.as_of)
    return result, []


def fiscal_years(store: Any, cik: int, as_of: date | None) -> list[int]:
    """The fiscal years (by the calendar year they end in) of the entity's annual periods
    known on ``as_of``, ascending."""
    from finchunk.facts.fiscal import ANNUAL_DAYS

    spans = store.db.durations(cik, date.min, date.max, as_of)
    return sorted({p.end.year for p, _ in spans if p.days in ANNUAL_DAYS})


def years_with_value(store: Any, cik: int, what: Measure, opts: AskOptions) -> list[int]:
    """The fiscal years for which the store answers ``what`` (every part of it), ascending."""
    years = fiscal_years(store, cik, opts.as_of)
    for metric in _parts(what):
        years = [y for y in years if _lookup(store, cik, metric, FiscalPeriod(y), opts)[0]]
    return years


def year_ranges(years: Sequence[int]) -> str:
    """ "FY2019–FY2022", or "FY2009–FY2012, FY2015" when there are gaps."""
    runs: list[list[int]] = []
    for y in years:
        if runs and y == runs[-1][-1] + 1:
            runs[-1].append(y)
        else:
            runs.append([y])
    return ", ".join(f"FY{r[0]}" + (f"–FY{r[-1]}" if len(r) > 1 else "") for r in runs)


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def _no_value(
    store: Any,
    entity: Entity,
    what: Measure,
    period: FiscalPeriod,
    why: list[str],
    opts: AskOptions,
) -> str:
    """Why the store has no value, saying for which fiscal years it has one."""
    on = "" if opts.as_of is None else f" as of {opts.as_of.isoformat()}"
    head = f"{_possessive(entity.common_name)} {what.value}: no value for {period}{on}"
    years = years_with_value(store, entity.cik, what, opts)
    if not years:
        concepts = ", ".join(c for m in _parts(what) for c in CONCEPTS[m])
        return f"{head}; the store has it for no fiscal year (looked for {concepts})"
    if period.year not in years:
        return f"{head}; the store has {year_ranges(years)}"
    return f"{head} ({'; '.join(why[-3:])})"


def _filings(answers: list[Any]) -> list[Any]:
    """The filings an answer's values come from (a derived value's are its inputs')."""
    found = []
    for a in answers:
        if a.filing is not None:
            found.append(a.filing)
        elif a.derived is not None:
            found.extend(i.filing for i in a.derived.inputs)
    return sorted(set(found), key=lambda f: (f.filed, f.accn))


def known_from(store: Any, cik: int, answers: list[Any], as_of: date | None) -> str:
    """Which filing the answer is known from, and on what date: "as of today: the FY2025
    10-K, filed 2025-10-31" (with no ``as_of`` the latest filing reporting the value counts)."""
    from finchunk.facts.output import filing_label

    filings = _filings(answers)
    if not filings:
        return ""
    last = filings[-1]
    fy, fp = store.filing_fiscal(cik, last.accn)
    when = "today" if as_of is None else as_of.isoformat()
    more = f", the latest of the {len(filings)} filings used" if len(filings) > 1 else ""
    return f"as of {when}: {filing_label(last, fy, fp)}, filed {last.filed.isoformat()}{more}"


# --- routing -----------------------------------------------------------------------------------


@dataclass
class _Routed:
    fact: FactResult | None
    reason: str
    notes: list[str] = field(default_factory=list)


def _fact_route(question: str, opts: AskOptions) -> _Routed:
    """The fact answer, or the reason the question is not (or cannot be) answered by facts."""
    match = find_measure_match(question)
    if match is None:
        return _Routed(None, "no financial-statement figure or margin is named in the question")
    what, period = match.what, find_period(question)
    latest = find_latest_year(question) if period is None else None
    if period is None and latest is None:
        return _Routed(None, f"{what.value} is named but no fiscal year or quarter")
    asked = str(period) if period else repr(latest)
    if opts.facts is None:
        return _Routed(
            None, f"{what.value} for {asked} is a figure question, but no --facts store given"
        )
    from finchunk.facts import FactStore
    from finchunk.facts.entities import question_entity

    if not opts.facts.is_file():
        raise InputError(f"{opts.facts}: no such fact store")
    notes = []
    with FactStore(opts.facts) as store:
        entity, naming, why_not = question_entity(store, question)
        if entity is None:
            return _Routed(None, f"{what.value} for {asked}, but {why_not}")
        cik, name = entity.cik, entity.name
        part = narrowing(question, match, (name, *naming))
        if part is not None:
            return _Routed(
                None,
                f"the question asks for {part!r}, a part of {what.value}; the fact store "
                "holds entity-wide figures",
            )
        if period is None:
            years = fiscal_years(store, cik, opts.as_of)
            when = "today" if opts.as_of is None else opts.as_of.isoformat()
            if not years:
                return _Routed(
                    None, f"{name} has no complete fiscal year in the store as of {when}"
                )
            period = FiscalPeriod(years[-1], periods(question).quarter)
            notes.append(
                f"{latest!r} is read as {period}, the latest fiscal year of {name} in the "
                f"store as of {when}"
            )
        result, why = answer_from_facts(store, cik, name, what, period, opts)
        if result is None:
            return _Routed(None, _no_value(store, entity, what, period, why, opts), notes)
    kind = (
        "a financial-statement figure" if isinstance(what, Metric) else "computed from such figures"
    )
    return _Routed(result, f"{what.value} of {name} for {period} is {kind}", notes)


def _search_options(opts: AskOptions) -> Any:
    """The search options of a text answer, checked (whichever route answers)."""
    from finchunk.retrieve.query.search import search_options

    return search_options(
        k=opts.k,
        retriever=opts.retriever,
        auto_filter=True,
        budget=opts.budget,
        reranker=opts.reranker,
        evidence=opts.evidence,
        budget_tokens=opts.budget_tokens,
    )


def _text_route(question: str, opts: AskOptions) -> Any:
    """The search a text answer is (``finchunk.retrieve.query.search.SearchResult``)."""
    from finchunk.retrieve.index.store import Index
    from finchunk.retrieve.query.search import search

    with Index.open(opts.index) as index:
        return search(index, question, _search_options(opts))


def ask(question: str, opts: AskOptions) -> AskAnswer:
    if not question.strip():
        raise InputError("empty question")
    if opts.index is None and opts.facts is None:
        raise InputError("give --index (text search) and/or --facts (figures)")
    _search_options(opts)  # a bad option is an error whichever route answers
    routed = _fact_route(question, opts)
    fact, reason = routed.fact, routed.reason
    if fact is not None:
        match = find_measure_match(question)
        reading = match.reading() if match else None
        notes = [*routed.notes, *([reading] if reading else [])]
        return AskAnswer(question, Route.FACTS, reason, fact=fact, notes=notes)
    if opts.index is None:
        return AskAnswer(
            question, Route.NONE, reason + "; no --index for text search", notes=routed.notes
        )
    found = _text_route(question, opts)
    return AskAnswer(
        question, Route.TEXT, reason + "; answered from text", hits=found.hits,
        notes=routed.notes + found.notes, evidence=found.evidence,
    )  # fmt: skip


# --- text of a fact answer ---------------------------------------------------------------------


def source_line(a: Any) -> str:
    """Where a fact answer comes from: its filing, or the inputs it was derived from (values
    as a person reads them; ``--json`` has them exact)."""
    from finchunk.facts.values import display_value

    shown = display_value(a.value, a.unit)
    if a.filing is not None:
        return (
            f"{a.concept} {a.period}: {shown} — {a.filing.form} "
            f"{a.filing.accn} filed {a.filing.filed.isoformat()}"
        )
    inputs = a.derived.inputs if a.derived else ()
    parts = "; ".join(
        f"{'+' if i.sign > 0 else '−'}{display_value(i.value, i.unit)} ({i.period}, "
        f"{i.filing.form} {i.filing.accn} filed {i.filing.filed.isoformat()})"
        for i in inputs
    )
    method = a.derived.method if a.derived else "derived"
    return f"{a.concept} {a.period}: {shown} — derived ({method}): {parts}"


# ``finchunk.ask(...)`` calls :func:`finchunk.api.ask` (:mod:`finchunk._callable`).
from finchunk._callable import make_callable  # noqa: E402

make_callable(__name__, "ask")
