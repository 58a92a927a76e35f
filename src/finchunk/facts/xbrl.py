"""XBRL instance documents (.xml), parsed with defusedxml: no DTDs, no entities, no network."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from finchunk.errors import ParseError
from finchunk.facts.instance import (
    Context,
    FilingOverride,
    InstanceParts,
    RawFact,
    assemble,
    collect_dei_text,
    period_from_parts,
)
from finchunk.facts.model import ParsedFacts
from finchunk.facts.names import (
    XBRLDI,
    XBRLI,
    XSI,
    QNames,
    measure_local,
    normalise_dims,
    unit_name,
)
from finchunk.facts.values import parse_cik, parse_decimal
from finchunk.files import os_text, read_bytes

_I = "{" + XBRLI + "}"
_DI = "{" + XBRLDI + "}"
_NIL = "{" + XSI + "}nil"
_STRUCTURAL = {f"{_I}context", f"{_I}unit"}


def read_instance(path: Path, given: FilingOverride | None = None) -> ParsedFacts:
    return instance_from_bytes(read_bytes(path), os_text(path), given or FilingOverride())


def instance_from_bytes(data: bytes, source: str, given: FilingOverride) -> ParsedFacts:
    root, prefixes = _parse_xml(data, source)
    if root.tag != f"{_I}xbrl":
        raise ParseError(source, f"not an XBRL instance (root element is {root.tag})")
    names = QNames(prefixes)
    parts = InstanceParts(source=source)
    for child in root:
        if child.tag == f"{_I}context":
            ctx_id = child.get("id", "")
            parts.contexts[ctx_id] = _context(child, ctx_id, names, source)
        elif child.tag == f"{_I}unit":
            parts.units[child.get("id", "")] = _unit(child)
    for elem in root.iter():
        if elem.get("contextRef") is not None and elem.tag not in _STRUCTURAL:
            _collect_fact(elem, names, parts)
    return assemble(parts, given)


def _parse_xml(data: bytes, source: str) -> tuple[ET.Element, dict[str, str]]:
    """Root element and prefix->namespace map; ParseError on malformed or unsafe XML."""
    prefixes: dict[str, str] = {}
    root = None
    try:
        events = iterparse(io.BytesIO(data), events=("start-ns", "start"), forbid_dtd=True)
        for event, item in events:
            if event == "start-ns":
                prefix, uri = item
                prefixes.setdefault(prefix, uri)
            elif root is None:
                root = item
    except DefusedXmlException as exc:
        raise ParseError(
            source, f"unsafe XML refused (DTDs and entities are not allowed): {type(exc).__name__}"
        ) from exc
    except ET.ParseError as exc:
        line, column = exc.position
        raise ParseError(source, f"malformed XML: {exc}", f"line {line} column {column}") from exc
    except (LookupError, ValueError) as exc:  # an XML declaration naming an unknown encoding
        raise ParseError(source, f"unreadable XML: {exc}") from exc
    if root is None:
        raise ParseError(source, "empty XML document")
    return root, prefixes


def _context(elem: ET.Element, ctx_id: str, names: QNames, source: str) -> Context:
    ident = elem.find(f"{_I}entity/{_I}identifier")
    cik = parse_cik(ident.text or "") if ident is not None else None
    if cik is None:
        raise ParseError(source, f"context {ctx_id}: entity identifier is not a CIK")
    period = elem.find(f"{_I}period")
    if period is None:
        raise ParseError(source, f"context {ctx_id}: no period")
    parsed = period_from_parts(
        source,
        ctx_id,
        _text(period.find(f"{_I}startDate")),
        _text(period.find(f"{_I}endDate")),
        _text(period.find(f"{_I}instant")),
    )
    dims: list[tuple[str, str]] = []
    for member in elem.iter(f"{_DI}explicitMember"):
        axis = names.canonical(member.get("dimension", ""))
        dims.append((axis, names.canonical(member.text or "")))
    for member in elem.iter(f"{_DI}typedMember"):
        value = "".join(member.itertext()).strip()
        dims.append((names.canonical(member.get("dimension", "")), value))
    return Context(cik=cik, period=parsed, dims=normalise_dims(dims))


def _text(elem: ET.Element | None) -> str | None:
    return None if elem is None else (elem.text or "")


def _unit(elem: ET.Element) -> str:
    divide = elem.find(f"{_I}divide")
    if divide is None:
        return unit_name([measure_local(m.text or "") for m in elem.iter(f"{_I}measure")], [])
    return unit_name(
        _measures(divide.find(f"{_I}unitNumerator")),
        _measures(divide.find(f"{_I}unitDenominator")),
    )


def _measures(scope: ET.Element | None) -> list[str]:
    if scope is None:
        return []
    return [measure_local(m.text or "") for m in scope.iter(f"{_I}measure")]


def _collect_fact(elem: ET.Element, names: QNames, parts: InstanceParts) -> None:
    concept = names.from_clark(elem.tag)
    unit_id = elem.get("unitRef")
    if elem.get(_NIL) == "true":
        parts.nil_facts += 1
        return
    text = elem.text or ""
    if unit_id is None:
        if concept.startswith("dei:"):
            collect_dei_text(parts, concept, text)
        return
    value = parse_decimal(text)
    if value is None:
        raise ParseError(parts.source, f"fact {concept}: value {text.strip()!r} is not a number")
    parts.facts.append(
        RawFact(
            concept=concept,
            context_id=elem.get("contextRef", ""),
            unit_id=unit_id,
            value=value,
            decimals=elem.get("decimals"),
            fact_id=elem.get("id"),
        )
    )
