"""What XBRL instances and inline XBRL share: contexts, units, raw facts, and turning them into
Facts with filing metadata and duplicate handling."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from finchunk.errors import InputError, ParseError
from finchunk.facts.model import Dims, Fact, Filing, ParsedFacts, Period
from finchunk.facts.values import bounded_int, parse_date, value_problem


@dataclass(frozen=True)
class FilingOverride:
    """Accession, form and filed date given by the caller (command line) for a file that lacks
    them; a given field wins over what the document says."""

    accn: str | None = None
    form: str | None = None
    filed: date | None = None


@dataclass(frozen=True)
class Context:
    cik: int
    period: Period
    dims: Dims


@dataclass(frozen=True)
class RawFact:
    concept: str
    context_id: str
    unit_id: str
    value: Decimal
    decimals: str | None
    fact_id: str | None


@dataclass
class InstanceParts:
    """Everything a parser collected from one document before assembly."""

    source: str
    contexts: dict[str, Context] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    facts: list[RawFact] = field(default_factory=list)
    text: dict[str, str] = field(default_factory=dict)  # entity-wide dei text facts
    symbols: list[str] = field(default_factory=list)  # every dei:TradingSymbol, in order
    nil_facts: int = 0


def period_from_parts(
    source: str, ctx_id: str, start: str | None, end: str | None, instant: str | None
) -> Period:
    """Typed period of a context; ParseError naming the context when dates are missing/bad."""
    if instant is not None:
        day = parse_date(instant)
        if day is None:
            raise ParseError(source, f"context {ctx_id}: bad instant {instant!r}")
        return Period.instant(day)
    first = parse_date(start) if start is not None else None
    last = parse_date(end) if end is not None else None
    if first is None or last is None:
        raise ParseError(source, f"context {ctx_id}: period needs instant or start and end dates")
    if first > last:
        raise ParseError(source, f"context {ctx_id}: period starts after it ends")
    return Period.duration(first, last)


def filing_of(parts: InstanceParts, given: FilingOverride) -> Filing:
    """Filing metadata: the caller's values first, then the document's dei facts."""
    form = given.form or _form_from_dei(parts.text)
    missing = [
        name
        for name, value in (("--accn", given.accn), ("--form", form), ("--filed", given.filed))
        if not value
    ]
    if missing:
        raise InputError(
            f"{parts.source}: the document does not give its {', '.join(missing)}; "
            "pass them on the command line (accession number, form type, filed date)"
        )
    return Filing(accn=given.accn or "", form=form or "", filed=given.filed or date.min)


def collect_dei_text(parts: InstanceParts, concept: str, text: str) -> None:
    """Keep a dei text fact: the first value of each concept, and every trading symbol (a
    filing lists one per class of security: "GOOGL" and "GOOG")."""
    value = text.strip()
    if concept == "dei:TradingSymbol" and is_ticker(value) and value not in parts.symbols:
        parts.symbols.append(value)
    parts.text.setdefault(concept, value)


def is_ticker(text: str) -> bool:
    """Whether a dei:TradingSymbol value is a symbol ("AAPL", "BRK.B", "WFC.PRA"), not a
    placeholder ("N/A", "None", "—"): capitals, digits, dots and dashes, one word."""
    return (
        0 < len(text) <= 12
        and text[0].isascii()
        and text[0].isupper()
        and all(c.isascii() and (c.isupper() or c.isdigit() or c in ".-/") for c in text)
        and text.upper() not in ("NA", "N/A", "NONE")
    )


def _form_from_dei(text: dict[str, str]) -> str | None:
    form = text.get("dei:DocumentType", "").strip()
    if not form:
        return None
    amended = text.get("dei:AmendmentFlag", "").strip().lower() == "true"
    return f"{form}/A" if amended and not form.endswith("/A") else form


def assemble(parts: InstanceParts, given: FilingOverride) -> ParsedFacts:
    """Facts of a document: resolve contexts/units, attach filing, drop consistent duplicates."""
    filing = filing_of(parts, given)
    best: dict[tuple[str, str, str], RawFact] = {}
    duplicates = 0
    for raw in parts.facts:
        if raw.context_id not in parts.contexts:
            raise ParseError(
                parts.source,
                f"fact {raw.fact_id or raw.concept}: unknown context {raw.context_id!r}",
            )
        if raw.unit_id not in parts.units:
            raise ParseError(
                parts.source, f"fact {raw.fact_id or raw.concept}: unknown unit {raw.unit_id!r}"
            )
        _check_raw(parts.source, raw)
        key = (raw.concept, raw.context_id, raw.unit_id)
        kept = best.get(key)
        if kept is None:
            best[key] = raw
            continue
        duplicates += 1
        best[key] = _more_precise(parts.source, kept, raw)
    result = ParsedFacts(
        source=parts.source,
        entity_name=parts.text.get("dei:EntityRegistrantName"),
        tickers=tuple(parts.symbols),
        nil_facts=parts.nil_facts,
        duplicates=duplicates,
    )
    for (concept, ctx_id, unit_id), raw in sorted(best.items()):
        ctx = parts.contexts[ctx_id]
        result.facts.append(
            Fact(
                cik=ctx.cik,
                concept=concept,
                unit=parts.units[unit_id],
                period=ctx.period,
                value=raw.value,
                filing=filing,
                dims=ctx.dims,
                decimals=raw.decimals,
            )
        )
    return result


def _check_raw(source: str, raw: RawFact) -> None:
    """ParseError naming the fact for a value or a ``decimals`` past what Decimal arithmetic
    can take exactly (``1E+999999999``, ``decimals="-1000000000"``)."""
    label = raw.fact_id or raw.concept
    problem = value_problem(raw.value)
    if problem is not None:
        raise ParseError(source, f"fact {label}: {problem}")
    d = (raw.decimals or "").strip()
    if d.lstrip("+-").isdigit():
        try:
            bounded_int(d, "decimals")
        except ValueError as exc:
            raise ParseError(source, f"fact {label}: {exc}") from exc


def _precision(decimals: str | None) -> float:
    if decimals is None or decimals.strip() == "INF":
        return float("inf")
    try:
        return float(int(decimals))
    except ValueError:
        return float("inf")


def _more_precise(source: str, a: RawFact, b: RawFact) -> RawFact:
    """Of two reports of one fact, the more precise; ParseError when they disagree beyond the
    rounding of the less precise one (XBRL inconsistent duplicates)."""
    coarse, fine = (a, b) if _precision(a.decimals) <= _precision(b.decimals) else (b, a)
    places = _precision(coarse.decimals)
    if places != float("inf"):
        half_quantum = Decimal(1).scaleb(-int(places)) / 2
        same = abs(fine.value - coarse.value) <= half_quantum
    else:
        same = fine.value == coarse.value
    if not same:
        raise ParseError(
            source,
            f"inconsistent duplicate facts for {a.concept} in context {a.context_id}: "
            f"{a.value} ({a.fact_id}) vs {b.value} ({b.fact_id})",
        )
    return fine
