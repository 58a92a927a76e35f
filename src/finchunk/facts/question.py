"""What a figure question asks for, read from its words (English and Spanish): the measure
(a statement figure, a margin or a difference of two figures, :data:`CONCEPTS` the XBRL
concepts each figure is reported under), whether it asks for only a part of that figure
(:func:`narrowing`), and the fiscal period (:func:`find_period`, or "the latest year":
:func:`find_latest_year`). :mod:`finchunk.ask` routes on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from finchunk.retrieve.query.filters import words
from finchunk.retrieve.query.mentions import YearPolicy, periods
from finchunk.text.analysis import STOP_WORDS

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
    OPERATING_CASH_FLOW = "operating cash flow"
    CAPEX = "capital expenditures"
    SHARES_OUTSTANDING = "shares outstanding"


class Ratio(StrEnum):
    GROSS_MARGIN = "gross margin"
    OPERATING_MARGIN = "operating margin"
    NET_MARGIN = "net margin"


class Difference(StrEnum):
    """A figure no statement reports, computed from two that do."""

    FREE_CASH_FLOW = "free cash flow"


#: A difference is its first figure less its second.
DIFFERENCE_PARTS: dict[Difference, tuple[Metric, Metric]] = {
    Difference.FREE_CASH_FLOW: (Metric.OPERATING_CASH_FLOW, Metric.CAPEX),
}

#: What a question can ask for.
Measure = Metric | Ratio | Difference

#: A margin is its numerator over revenue.
RATIO_PARTS: dict[Ratio, Metric] = {
    Ratio.GROSS_MARGIN: Metric.GROSS_PROFIT,
    Ratio.OPERATING_MARGIN: Metric.OPERATING_INCOME,
    Ratio.NET_MARGIN: Metric.NET_INCOME,
}

#: Shares outstanding as the cover page of a report gives them, on a date after the period.
COVER_SHARES = "dei:EntityCommonStockSharesOutstanding"

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
    Metric.OPERATING_CASH_FLOW: (
        "us-gaap:NetCashProvidedByUsedInOperatingActivities",
        "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
        "ifrs-full:CashFlowsFromUsedInOperatingActivities",
    ),
    Metric.CAPEX: (
        "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
        "us-gaap:PaymentsToAcquireProductiveAssets",
        "ifrs-full:PurchaseOfPropertyPlantAndEquipmentClassifiedAsInvestingActivities",
        "ifrs-full:PurchaseOfPropertyPlantAndEquipment",
    ),
    Metric.SHARES_OUTSTANDING: (
        "us-gaap:CommonStockSharesOutstanding",  # on the balance sheet: at the year's end
        "ifrs-full:NumberOfSharesOutstanding",
        COVER_SHARES,  # on the annual report's cover: a few weeks after the year's end
    ),
}

_PHRASES: dict[Measure, tuple[str, ...]] = {
    Metric.REVENUE: ("revenue", "revenues", "net sales", "sales", "net revenue", "net revenues",
                     "total revenue", "total revenues", "turnover", "top line", "ingresos",
                     "ventas", "cifra de negocios", "facturacion"),
    Metric.NET_INCOME: ("net income", "net earnings", "net profit", "net loss", "profit",
                        "bottom line", "beneficio neto", "beneficio", "beneficios",
                        "resultado neto", "resultado del ejercicio", "ganancia neta"),
    Metric.EPS: ("eps", "earnings per share", "diluted eps", "diluted earnings per share",
                 "eps diluted", "earn per share", "earned per share", "make per share",
                 "made per share", "profit per share", "income per share", "net income per share",
                 "beneficio por accion", "bpa", "ganancias por accion", "bpa diluido",
                 "beneficio por accion diluido"),
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
    Metric.OPERATING_CASH_FLOW: ("operating cash flow", "operating cash flows",
                                 "cash flow from operations", "cash flows from operations",
                                 "cash from operations", "cash flow from operating activities",
                                 "cash flows from operating activities",
                                 "cash provided by operating activities",
                                 "cash generated from operations", "ocf",
                                 "flujo de caja operativo", "flujo de efectivo operativo",
                                 "flujos de efectivo de las actividades de operacion"),
    Metric.CAPEX: ("capital expenditures", "capital expenditure", "capex",
                   "capital spending", "purchases of property and equipment",
                   "purchases of property plant and equipment", "inversiones en capital"),
    Metric.SHARES_OUTSTANDING: ("shares outstanding", "outstanding shares",
                                "common shares outstanding", "share count",
                                "number of shares outstanding", "number of shares",
                                "acciones en circulacion"),
    Difference.FREE_CASH_FLOW: ("free cash flow", "free cash flows", "fcf",
                                "flujo de caja libre"),
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
    what: Measure
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


def find_measure(question: str) -> Measure | None:
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


def narrowing(question: str, match: MeasureMatch, entity: str | Sequence[str]) -> str | None:
    """The words that make the question ask for a part of the figure (a segment, a region, a
    product line: "data center revenue", "ingresos por servicios"), or None. ``entity`` is the
    entity's name, or every name it goes by (its tickers, its common and brand names)."""
    q = words(question)
    names = [entity] if isinstance(entity, str) else entity
    allowed = {w for n in names for w in words(n)} | _RESTATES | STOP_WORDS
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


#: Ways to say "the latest fiscal year" without naming it: the year is then the entity's
#: latest complete fiscal year in the store as of --as-of (or today).
_LATEST_YEAR = tuple(
    tuple(p.split())
    for p in (
        "last year", "last fiscal year", "latest year", "latest fiscal year", "most recent year",
        "most recent fiscal year", "past year", "past fiscal year", "last financial year",
        "latest financial year", "ano pasado", "ultimo ano", "ultimo ejercicio",
        "ejercicio pasado", "ultimo ano fiscal", "ultimo ejercicio fiscal",
    )
)  # fmt: skip


def find_latest_year(question: str) -> str | None:
    """The phrase by which the question asks for the latest fiscal year ("last year"), or
    None."""
    q = words(question)
    for phrase in sorted(_LATEST_YEAR, key=len, reverse=True):
        n = len(phrase)
        if any(tuple(q[i : i + n]) == phrase for i in range(len(q) - n + 1)):
            return " ".join(phrase)
    return None
