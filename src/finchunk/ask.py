"""``finchunk ask``: route a question to the fact store or to text search, and say why.

A question goes to the fact store when it names (in English or Spanish) a financial-statement
figure (revenue, net income, total assets, EPS, cash …) or a margin, an entity the store knows,
and a fiscal year or quarter. The answer carries the filing that supplied each value; a
fourth quarter the filings do not report is derived by the store (year minus nine months or
minus three quarters), and a margin is computed here, in ``Decimal``, from two facts. Anything
else is answered with cited chunks from the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any

from finchunk.errors import InputError
from finchunk.retrieve.filters import words
from finchunk.retrieve.kinds import AUTO_RETRIEVER
from finchunk.retrieve.mentions import Issuer, MentionFinder, YearPolicy, periods
from finchunk.retrieve.text import STOP_WORDS

# --- what the question asks for ----------------------------------------------------------------


class Metric(StrEnum):
    REVENUE = "revenue"
    NET_INCOME = "net income"
    EPS = "diluted earnings per share"  # what "EPS" alone means in an analyst's question
    EPS_BASIC = "basic earnings per share"
    TOTAL_ASSETS = "total assets"
    TOTAL_LIABILITIES = "total liabilities"
    EQUITY = "equity"
    CASH = "cash and cash equivalents"
    OPERATING_INCOME = "operating income"
    GROSS_PROFIT = "gross profit"


class Ratio(StrEnum):
    GROSS_MARGIN = "gross margin"
    OPERATING_MARGIN = "operating margin"
    NET_MARGIN = "net margin"


#: A margin is its numerator over revenue.
RATIO_PARTS: dict[Ratio, Metric] = {
    Ratio.GROSS_MARGIN: Metric.GROSS_PROFIT,
    Ratio.OPERATING_MARGIN: Metric.OPERATING_INCOME,
    Ratio.NET_MARGIN: Metric.NET_INCOME,
}

#: Concepts tried in order (US GAAP, then IFRS) until the entity reports one.
CONCEPTS: dict[Metric, tuple[str, ...]] = {
    Metric.REVENUE: (
        "us-gaap:Revenues",
        "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
        "us-gaap:SalesRevenueNet",
        "us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax",
        "ifrs-full:Revenue",
    ),
    Metric.NET_INCOME: (
        "us-gaap:NetIncomeLoss",
        "us-gaap:ProfitLoss",
        "ifrs-full:ProfitLossAttributableToOwnersOfParent",
        "ifrs-full:ProfitLoss",
    ),
    Metric.EPS: (
        "us-gaap:EarningsPerShareDiluted",
        "us-gaap:EarningsPerShareBasicAndDiluted",
        "ifrs-full:DilutedEarningsLossPerShare",
        "ifrs-full:DilutedEarningsPerShare",
    ),
    Metric.EPS_BASIC: (
        "us-gaap:EarningsPerShareBasic",
        "us-gaap:EarningsPerShareBasicAndDiluted",
        "ifrs-full:BasicEarningsLossPerShare",
        "ifrs-full:BasicEarningsPerShare",
    ),
    Metric.TOTAL_ASSETS: ("us-gaap:Assets", "ifrs-full:Assets"),
    Metric.TOTAL_LIABILITIES: ("us-gaap:Liabilities", "ifrs-full:Liabilities"),
    Metric.EQUITY: (
        "us-gaap:StockholdersEquity",
        "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
        "ifrs-full:EquityAttributableToOwnersOfParent",
        "ifrs-full:Equity",
    ),
    Metric.CASH: (
        "us-gaap:CashAndCashEquivalentsAtCarryingValue",
        "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
        "us-gaap:Cash",
        "ifrs-full:CashAndCashEquivalents",
    ),
    Metric.OPERATING_INCOME: (
        "us-gaap:OperatingIncomeLoss",
        "ifrs-full:ProfitLossFromOperatingActivities",
    ),
    Metric.GROSS_PROFIT: ("us-gaap:GrossProfit", "ifrs-full:GrossProfit"),
}

_PHRASES: dict[Metric | Ratio, tuple[str, ...]] = {
    Metric.REVENUE: ("revenue", "revenues", "net sales", "sales", "net revenue", "net revenues",
                     "total revenue", "total revenues", "turnover", "top line", "ingresos",
                     "ventas", "cifra de negocios", "facturacion"),
    Metric.NET_INCOME: ("net income", "net earnings", "net profit", "net loss", "profit",
                        "bottom line", "beneficio neto", "beneficio", "beneficios",
                        "resultado neto", "resultado del ejercicio", "ganancia neta"),
    Metric.EPS: ("eps", "earnings per share", "diluted eps", "diluted earnings per share",
                 "eps diluted", "beneficio por accion", "bpa", "ganancias por accion",
                 "bpa diluido", "beneficio por accion diluido"),
    Metric.EPS_BASIC: ("basic eps", "basic earnings per share", "eps basic", "bpa basico",
                       "beneficio por accion basico"),
    Metric.TOTAL_ASSETS: ("total assets", "assets", "activo total", "total activo",
                          "activos totales", "total del activo"),
    Metric.TOTAL_LIABILITIES: ("total liabilities", "liabilities", "pasivo total",
                               "total pasivo", "total del pasivo"),
    Metric.EQUITY: ("shareholders equity", "stockholders equity", "total equity",
                    "patrimonio neto"),
    Metric.CASH: ("cash and cash equivalents", "cash and equivalents", "cash", "cash on hand",
                  "efectivo", "tesoreria"),
    Metric.OPERATING_INCOME: ("operating income", "operating profit", "income from operations",
                              "resultado de explotacion", "resultado operativo",
                              "beneficio operativo", "ebit"),
    Metric.GROSS_PROFIT: ("gross profit", "beneficio bruto"),
    Ratio.GROSS_MARGIN: ("gross margin", "margen bruto"),
    Ratio.OPERATING_MARGIN: ("operating margin", "margen operativo", "margen de explotacion",
                             "margen ebit"),
    Ratio.NET_MARGIN: ("net margin", "profit margin", "net profit margin", "margen neto"),
}  # fmt: skip

#: (words, what) pairs, longest phrase first: "beneficio por acción" before "beneficio".
_PHRASE_WORDS = sorted(
    ((tuple(p.split()), what) for what, ps in _PHRASES.items() for p in ps),
    key=lambda item: -len(item[0]),
)

#: Words that pick the diluted figure; EPS named without one is read as diluted, and said so.
_DILUTED = frozenset(["diluted", "diluido"])


@dataclass(frozen=True, slots=True)
class MeasureMatch:
    what: Metric | Ratio
    start: int  # word positions of the phrase in ``words(question)``
    end: int
    phrase: str = ""

    def reading(self) -> str | None:
        """How an ambiguous name was read, for the answer's notes."""
        if self.what is Metric.EPS and not _DILUTED & set(self.phrase.split()):
            return (
                f"{self.phrase!r} is read as diluted earnings per share "
                "(ask for basic EPS for the basic figure)"
            )
        return None


def find_measure_match(question: str) -> MeasureMatch | None:
    q = words(question)
    for phrase, what in _PHRASE_WORDS:
        n = len(phrase)
        for i in range(len(q) - n + 1):
            if tuple(q[i : i + n]) == phrase:
                return MeasureMatch(what, i, i + n, " ".join(phrase))
    return None


def find_measure(question: str) -> Metric | Ratio | None:
    m = find_measure_match(question)
    return m.what if m else None


# A question asks for a part of a figure ("data center revenue", "ingresos por servicios",
# "revenue by segment") when a content word stands right before the figure's name, or a
# narrowing word right after it, or it names a segment anywhere. Words that only restate the
# whole figure do not narrow it; they are of these kinds (besides stop words, the entity's own
# name, and period words such as "2024", "fy24", "q4"):
_RESTATING: dict[str, frozenset[str]] = {
    # how the question asks for an amount: "how much cash", "the amount of revenue"
    "quantity": frozenset(
        ["much", "many", "amount", "amounts", "figure", "figures", "level", "levels", "value",
         "size", "sum", "number", "balance", "cuanto", "cuanta", "importe", "cifra", "valor",
         "saldo", "nivel"]
    ),
    # the whole entity, as reported: "total", "consolidated net sales", "GAAP net income"
    "scope": frozenset(
        ["total", "overall", "entire", "whole", "net", "consolidated", "reported", "gaap",
         "group", "company", "companywide", "combined", "aggregate", "headline", "s",
         "consolidado", "consolidada", "consolidados"]
    ),
    # when, without a number: "annual revenue", "fourth quarter sales", "ending cash"
    "timing": frozenset(
        ["annual", "yearly", "quarterly", "quarter", "fiscal", "full", "year", "years", "first",
         "second", "third", "fourth", "ending", "end", "closing", "latest", "last", "trimestre",
         "ejercicio", "anual", "anuales"]
    ),
    # the verb the question puts before the figure: "did Apple report revenue"
    "reporting": frozenset(
        ["report", "reports", "reported", "post", "posts", "posted", "earn", "earns", "earned",
         "make", "makes", "made", "generate", "generates", "generated", "record", "records",
         "recorded", "book", "booked", "achieve", "achieved", "deliver", "delivered", "hold",
         "holds", "held", "show", "shows", "showed"]
    ),
}  # fmt: skip
_RESTATES = frozenset().union(*_RESTATING.values())
#: Words right after a figure that narrow it ("revenue by segment", "ingresos por país").
_NARROWING = frozenset(["by", "from", "per", "por", "segment", "segments", "segmento", "segmentos"])
#: Words that narrow a figure wherever they stand ("revenue of the services segment").
_PARTS = frozenset(
    ["segment", "segments", "division", "divisions", "region", "regions", "geographic",
     "segmento", "segmentos", "divisiones", "regiones"]
)  # fmt: skip
_PERIOD_WORD = re.compile(r"(?:fy|q|t)?\d+[a-z]?")


def narrowing(question: str, match: MeasureMatch, entity: str) -> str | None:
    """The words that make the question ask for a part of the figure (a segment, a region, a
    product line: "data center revenue", "ingresos por servicios"), or None."""
    q = words(question)
    allowed = set(words(entity)) | _RESTATES | STOP_WORDS
    phrase = " ".join(q[match.start : match.end])
    if match.start > 0:
        prev = q[match.start - 1]
        if prev not in allowed and not _PERIOD_WORD.fullmatch(prev):
            return f"{prev} {phrase}"
    if match.end < len(q) and q[match.end] in _NARROWING:
        return " ".join(q[match.start : match.end + 2])
    at = next((i for i, w in enumerate(q) if w in _PARTS), None)
    return None if at is None else " ".join(q[max(at - 1, 0) : at + 1])


@dataclass(frozen=True, slots=True)
class FiscalPeriod:
    year: int
    quarter: int | None = None

    def __str__(self) -> str:
        return f"FY{self.year}" + (f" Q{self.quarter}" if self.quarter else "")


def find_period(question: str) -> FiscalPeriod | None:
    """Fiscal year (``2023``, ``FY2023``, ``FY23``, ``ejercicio 2023``; the first one written
    with a fiscal marker, else the first) and optional quarter (``Q4``, ``4T``, ``third
    quarter``, ``cuarto trimestre``)."""
    found = periods(question, YearPolicy.FIRST)
    return FiscalPeriod(found.years[0], found.quarter) if found.years else None


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
    hits: list[Any] = field(default_factory=list)  # finchunk.retrieve.search.Hit
    notes: list[str] = field(default_factory=list)

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
        if a.value is not None:
            return a, why
        why.append(f"{concept}: {a.reason}")
    return None, why


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


def answer_from_facts(
    store: Any,
    cik: int,
    name: str,
    what: Metric | Ratio,
    period: FiscalPeriod,
    opts: AskOptions,
) -> tuple[FactResult | None, list[str]]:
    if isinstance(what, Ratio):
        got, why = _ratio(store, cik, what, period, opts)
        if got is None:
            return None, why
        value, answers, formula = got
        result = FactResult(name, cik, what.value, period, value, "%", answers, formula)
    else:
        a, why = _lookup(store, cik, what, period, opts)
        if a is None:
            return None, why
        result = FactResult(name, cik, what.value, period, Decimal(a.value), a.unit, [a])
    result.basis = known_from(store, cik, result.answers, opts.as_of)
    return result, []


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


def _entity(store: Any, question: str) -> tuple[tuple[int, str] | None, str]:
    """The one entity of the store the question names, or what went wrong."""
    names = {n: c for c, n in store_entities(store)}
    found = MentionFinder(Issuer(n) for n in sorted(names)).find(question).issuers
    if len(found) == 1:
        return (names[found[0]], found[0]), ""
    if not found:
        return None, f"the question names no entity of the fact store (it holds {_held(names)})"
    return None, f"the question names several entities ({', '.join(found)})"


def _held(names: dict[str, int], shown: int = 10) -> str:
    """The entities of a store by name, for a message: "Apple Inc., NVIDIA CORP"."""
    if not names:
        return "no named entity"
    listed = sorted(names, key=str.casefold)
    more = f" and {len(listed) - shown} more" if len(listed) > shown else ""
    return ", ".join(listed[:shown]) + more


def _fact_route(question: str, opts: AskOptions) -> tuple[FactResult | None, str]:
    """The fact answer, or the reason the question is not (or cannot be) answered by facts."""
    match = find_measure_match(question)
    if match is None:
        return None, "no financial-statement figure or margin is named in the question"
    what, period = match.what, find_period(question)
    if period is None:
        return None, f"{what.value} is named but no fiscal year or quarter"
    if opts.facts is None:
        return None, f"{what.value} for {period} is a figure question, but no --facts store given"
    from finchunk.facts import FactStore

    if not opts.facts.is_file():
        raise InputError(f"{opts.facts}: no such fact store")
    with FactStore(opts.facts) as store:
        entity, why_not = _entity(store, question)
        if entity is None:
            return None, f"{what.value} for {period}, but {why_not}"
        cik, name = entity
        part = narrowing(question, match, name)
        if part is not None:
            return None, (
                f"the question asks for {part!r}, a part of {what.value}; the fact store "
                "holds entity-wide figures"
            )
        result, why = answer_from_facts(store, cik, name, what, period, opts)
    if result is None:
        reasons = "; ".join(why[-3:])
        return None, f"{what.value} of {name} for {period}: the fact store has no value ({reasons})"
    return result, f"{what.value} of {name} for {period} is a financial-statement figure"


def _text_route(question: str, opts: AskOptions) -> tuple[list[Any], list[str]]:
    from finchunk.retrieve.search import SearchOptions, search
    from finchunk.retrieve.store import Index

    if opts.index is None:
        return [], []
    result = search(
        Index.open(opts.index),
        question,
        SearchOptions(k=opts.k, retriever=opts.retriever, auto_filter=True),
    )
    return result.hits, result.notes


def ask(question: str, opts: AskOptions) -> AskAnswer:
    if not question.strip():
        raise InputError("empty question")
    if opts.index is None and opts.facts is None:
        raise InputError("give --index (text search) and/or --facts (figures)")
    fact, reason = _fact_route(question, opts)
    if fact is not None:
        match = find_measure_match(question)
        reading = match.reading() if match else None
        notes = [reading] if reading else []
        return AskAnswer(question, Route.FACTS, reason, fact=fact, notes=notes)
    if opts.index is None:
        return AskAnswer(question, Route.NONE, reason + "; no --index for text search")
    hits, notes = _text_route(question, opts)
    return AskAnswer(question, Route.TEXT, reason + "; answered from text", hits=hits, notes=notes)


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
