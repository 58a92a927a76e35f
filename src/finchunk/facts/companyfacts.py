"""SEC ``companyfacts`` JSON: every observation becomes one Fact (one row per entity, concept,
unit, period and accession)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from finchunk.errors import ParseError
from finchunk.facts.model import Fact, Filing, ParsedFacts, Period
from finchunk.facts.values import parse_cik, parse_date, value_problem
from finchunk.files import JSONError, loads, os_text, read_bytes


def read_companyfacts(path: Path) -> ParsedFacts:
    """Parse a companyfacts file; ParseError naming the file (and the place) on bad input."""
    return companyfacts_from_bytes(read_bytes(path), os_text(path))


def companyfacts_from_bytes(raw: bytes, source: str) -> ParsedFacts:
    """Parse companyfacts JSON bytes; ParseError naming ``source`` on bad input."""
    try:
        doc = loads(raw, parse_float=Decimal)
    except JSONError as exc:
        raise ParseError(source, exc.message, position=exc.position) from exc
    return companyfacts_from_dict(doc, source)


def companyfacts_from_dict(doc: Any, source: str) -> ParsedFacts:
    if not isinstance(doc, dict) or "facts" not in doc or "cik" not in doc:
        raise ParseError(source, "not a companyfacts document (expected keys 'cik' and 'facts')")
    cik = parse_cik(doc["cik"]) if isinstance(doc["cik"], int | str) else None
    if cik is None:
        raise ParseError(source, f"'cik' is not a CIK: {doc['cik']!r}", position="cik")
    parsed = ParsedFacts(source=source, entity_name=doc.get("entityName"))
    for taxonomy, concepts in _items(doc["facts"], source, "facts"):
        for name, body in _items(concepts, source, f"facts.{taxonomy}"):
            where = f"facts.{taxonomy}.{name}.units"
            units = body.get("units") if isinstance(body, dict) else None
            label = body.get("label") if isinstance(body, dict) else None
            if isinstance(label, str) and label.strip():
                parsed.labels[f"{taxonomy}:{name}"] = label.strip()
            for unit, rows in _items(units, source, where):
                if not isinstance(rows, list):
                    raise ParseError(source, "expected a list of observations", f"{where}.{unit}")
                concept = f"{taxonomy}:{name}"
                for i, row in enumerate(rows):
                    at = f"{where}.{unit}[{i}]"
                    parsed.facts.append(_fact(row, cik, concept, unit, source, at))
    parsed.facts, parsed.duplicates = _unique(parsed.facts, source)
    return parsed


def _unique(facts: list[Fact], source: str) -> tuple[list[Fact], int]:
    """Facts with repeated observations (same concept, unit, period, accession) dropped;
    ParseError when a repeat disagrees."""
    seen: dict[tuple[object, ...], Fact] = {}
    for fact in facts:
        key = (fact.concept, fact.unit, fact.period, fact.filing.accn)
        kept = seen.setdefault(key, fact)
        if kept.value != fact.value:
            raise ParseError(
                source,
                f"{fact.concept} [{fact.unit}] {fact.period} accn {fact.filing.accn} "
                f"is given twice with different values ({kept.value} and {fact.value})",
            )
    return list(seen.values()), len(facts) - len(seen)


def _items(obj: Any, source: str, where: str) -> list[tuple[str, Any]]:
    if not isinstance(obj, dict):
        raise ParseError(source, "expected an object", position=where)
    return sorted(obj.items())


def _fact(row: Any, cik: int, concept: str, unit: str, source: str, where: str) -> Fact:
    if not isinstance(row, dict):
        raise ParseError(source, "expected an observation object", position=where)
    missing = [k for k in ("end", "val", "accn", "form", "filed") if k not in row]
    if missing:
        raise ParseError(source, f"observation lacks {', '.join(missing)}", position=where)
    value = row["val"]
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise ParseError(source, f"'val' is not a number: {value!r}", position=where)
    problem = value_problem(Decimal(value))
    if problem is not None:
        raise ParseError(source, problem, position=where)
    end = _date(row["end"], source, f"{where}.end")
    start = _date(row["start"], source, f"{where}.start") if row.get("start") else None
    if start is not None and start > end:
        raise ParseError(source, f"period starts after it ends ({start} > {end})", where)
    filing = Filing(
        accn=str(row["accn"]), form=str(row["form"]), filed=_date(row["filed"], source, where)
    )
    fy = row.get("fy")
    return Fact(
        cik=cik,
        concept=concept,
        unit=unit,
        period=Period(end=end, start=start),
        value=Decimal(value),
        filing=filing,
        fy=fy if isinstance(fy, int) else None,
        fp=row.get("fp") if isinstance(row.get("fp"), str) else None,
    )


def _date(text: Any, source: str, where: str):
    day = parse_date(text) if isinstance(text, str) else None
    if day is None:
        raise ParseError(source, f"not a date: {text!r}", position=where)
    return day
