"""Inline XBRL filings (.htm): ix:nonFraction facts with scale, sign and format transforms,
contexts and units from ix:resources, text facts joined across ix:continuation.

Parsed with selectolax (lexbor), an HTML parser: it never fetches anything and expands no
user-defined entities."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

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
from finchunk.facts.names import XBRLDI, XBRLI, QNames, measure_local, normalise_dims, unit_name
from finchunk.facts.transforms import TransformError, transform_for
from finchunk.facts.values import bounded_int, parse_cik, scaled
from finchunk.files import os_text, read_bytes
from finchunk.parse.html import check_nesting

_IX_NAMESPACES = ("http://www.xbrl.org/2013/inlineXBRL", "http://www.xbrl.org/2008/inlineXBRL")
_MAX_CONTINUATIONS = 10_000


def read_inline(path: Path, given: FilingOverride | None = None) -> ParsedFacts:
    return inline_from_bytes(read_bytes(path), os_text(path), given or FilingOverride())


class _Tags:
    """Lower-cased tag names of the document's ix / xbrli / xbrldi prefixes."""

    def __init__(self, prefixes: dict[str, str], source: str) -> None:
        ix = _prefix_of(prefixes, _IX_NAMESPACES)
        if ix is None:
            raise ParseError(source, "no inline XBRL namespace declared on <html>: not iXBRL")
        xbrli = _prefix_of(prefixes, (XBRLI,)) or "xbrli"
        xbrldi = _prefix_of(prefixes, (XBRLDI,)) or "xbrldi"
        self.non_fraction = f"{ix}:nonfraction"
        self.non_numeric = f"{ix}:nonnumeric"
        self.continuation = f"{ix}:continuation"
        self.exclude = f"{ix}:exclude"
        self.context = f"{xbrli}:context"
        self.unit = f"{xbrli}:unit"
        self.identifier = f"{xbrli}:identifier"
        self.start = f"{xbrli}:startdate"
        self.end = f"{xbrli}:enddate"
        self.instant = f"{xbrli}:instant"
        self.measure = f"{xbrli}:measure"
        self.numerator = f"{xbrli}:unitnumerator"
        self.denominator = f"{xbrli}:unitdenominator"
        self.explicit = f"{xbrldi}:explicitmember"
        self.typed = f"{xbrldi}:typedmember"


def _prefix_of(prefixes: dict[str, str], namespaces: tuple[str, ...]) -> str | None:
    return next((p.lower() for p, ns in sorted(prefixes.items()) if ns in namespaces), None)


def inline_from_bytes(data: bytes, source: str, given: FilingOverride) -> ParsedFacts:
    check_nesting(data, source)
    tree = LexborHTMLParser(data)
    root = tree.root
    if root is None:
        raise ParseError(source, "empty document")
    prefixes = {
        key[6:]: value or "" for key, value in root.attributes.items() if key.startswith("xmlns:")
    }
    tags = _Tags(prefixes, source)
    names = QNames(prefixes)
    parts = InstanceParts(source=source)
    nodes = _collect(root, tags)
    for node in nodes[tags.context]:
        ctx_id = node.attributes.get("id") or ""
        parts.contexts[ctx_id] = _context(node, ctx_id, tags, names, source)
    for node in nodes[tags.unit]:
        parts.units[node.attributes.get("id") or ""] = _unit(node, tags)
    for node in nodes[tags.non_fraction]:
        _non_fraction(node, names, parts)
    continuations = {n.attributes.get("id") or "": n for n in nodes[tags.continuation]}
    for node in nodes[tags.non_numeric]:
        _non_numeric(node, names, parts, continuations, tags)
    return assemble(parts, given)


def _collect(root: LexborNode, tags: _Tags) -> dict[str, list[LexborNode]]:
    wanted = (tags.context, tags.unit, tags.non_fraction, tags.non_numeric, tags.continuation)
    found: dict[str, list[LexborNode]] = {tag: [] for tag in wanted}
    for node in root.traverse():
        bucket = found.get(node.tag or "")
        if bucket is not None:
            bucket.append(node)
    return found


def _descendants(node: LexborNode, tag: str) -> Iterator[LexborNode]:
    return (n for n in node.traverse() if n.tag == tag)


def _first_text(node: LexborNode, tag: str) -> str | None:
    found = next(_descendants(node, tag), None)
    return None if found is None else found.text(deep=True)


def _context(node: LexborNode, ctx_id: str, tags: _Tags, names: QNames, source: str) -> Context:
    cik = parse_cik(_first_text(node, tags.identifier) or "")
    if cik is None:
        raise ParseError(source, f"context {ctx_id}: entity identifier is not a CIK")
    period = period_from_parts(
        source,
        ctx_id,
        _first_text(node, tags.start),
        _first_text(node, tags.end),
        _first_text(node, tags.instant),
    )
    dims = [
        (names.canonical(m.attributes.get("dimension") or ""), names.canonical(m.text(deep=True)))
        for m in _descendants(node, tags.explicit)
    ]
    dims += [
        (names.canonical(m.attributes.get("dimension") or ""), m.text(deep=True).strip())
        for m in _descendants(node, tags.typed)
    ]
    return Context(cik=cik, period=period, dims=normalise_dims(dims))


def _unit(node: LexborNode, tags: _Tags) -> str:
    def measures(scope: LexborNode | None) -> list[str]:
        if scope is None:
            return []
        return [measure_local(m.text(deep=True)) for m in _descendants(scope, tags.measure)]

    numerator = next(_descendants(node, tags.numerator), None)
    if numerator is None:
        return unit_name(measures(node), [])
    return unit_name(measures(numerator), measures(next(_descendants(node, tags.denominator))))


def _non_fraction(node: LexborNode, names: QNames, parts: InstanceParts) -> None:
    attrs = node.attributes
    concept = names.canonical(attrs.get("name") or "")
    fact_id = attrs.get("id")
    label = fact_id or concept
    if (attrs.get("xsi:nil") or "").strip() == "true":
        parts.nil_facts += 1
        return
    transform = transform_for(attrs.get("format"))
    if transform is None:
        raise ParseError(parts.source, f"fact {label}: unsupported format {attrs.get('format')!r}")
    text = node.text(deep=True)
    try:
        value = transform(text)
    except TransformError as exc:
        raise ParseError(parts.source, f"fact {label}: {exc}") from exc
    try:
        scale = bounded_int(attrs.get("scale") or "0", "scale")
    except ValueError as exc:
        raise ParseError(parts.source, f"fact {label}: {exc}") from exc
    value = scaled(value, scale)
    if (attrs.get("sign") or "").strip() == "-":
        value = -value
    parts.facts.append(
        RawFact(
            concept=concept,
            context_id=attrs.get("contextref") or "",
            unit_id=attrs.get("unitref") or "",
            value=value,
            decimals=attrs.get("decimals"),
            fact_id=fact_id,
        )
    )


def _non_numeric(
    node: LexborNode,
    names: QNames,
    parts: InstanceParts,
    continuations: dict[str, LexborNode],
    tags: _Tags,
) -> None:
    concept = names.canonical(node.attributes.get("name") or "")
    if not concept.startswith("dei:"):
        return
    if concept in parts.text and concept != "dei:TradingSymbol":
        return
    collect_dei_text(parts, concept, continued_text(node, continuations, tags, parts.source))


def continued_text(
    node: LexborNode, continuations: dict[str, LexborNode], tags: _Tags, source: str
) -> str:
    """Text of a nonNumeric fact followed by its ix:continuation chain (ix:exclude left out)."""
    pieces = [_visible_text(node, tags)]
    seen: set[str] = set()
    next_id = node.attributes.get("continuedat")
    while next_id:
        if next_id in seen or len(seen) >= _MAX_CONTINUATIONS:
            raise ParseError(source, f"ix:continuation chain loops at {next_id!r}")
        seen.add(next_id)
        part = continuations.get(next_id)
        if part is None:
            raise ParseError(source, f"ix:continuation {next_id!r} not found")
        pieces.append(_visible_text(part, tags))
        next_id = part.attributes.get("continuedat")
    return " ".join(p.strip() for p in pieces if p.strip())


def _visible_text(node: LexborNode, tags: _Tags) -> str:
    out: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        for child in reversed(list(current.iter(include_text=True))):
            if child.tag == "-text" or child.tag != tags.exclude:
                stack.append(child)
        if current.tag == "-text":
            out.append(current.text_content or "")
    return "".join(out)
