"""Canonical names: taxonomy prefixes from namespaces, companyfacts-style unit names,
dimension keys."""

from __future__ import annotations

import json
import re

from finchunk.facts.model import Dims

# Standard taxonomies are named by their family whatever prefix or version a filing uses,
# so that "us-gaap:Revenues" in a 2009 instance and in a 2024 one is the same concept.
_FAMILIES = (
    (re.compile(r"/us-gaap/"), "us-gaap"),
    (re.compile(r"/dei/"), "dei"),
    (re.compile(r"/srt/"), "srt"),
    (re.compile(r"ifrs-full$"), "ifrs-full"),
    (re.compile(r"/invest/"), "invest"),
    (re.compile(r"/ecd/"), "ecd"),
    (re.compile(r"/ffd/"), "ffd"),
    (re.compile(r"/cyd/"), "cyd"),
    (re.compile(r"/country/"), "country"),
    (re.compile(r"/currency/"), "currency"),
    (re.compile(r"/exch/"), "exch"),
    (re.compile(r"/stpr/"), "stpr"),
    (re.compile(r"/naics/"), "naics"),
    (re.compile(r"/sic/"), "sic"),
    (re.compile(r"/iso4217$"), "iso4217"),
    (re.compile(r"/2003/instance$"), "xbrli"),
)

XBRLI = "http://www.xbrl.org/2003/instance"
XBRLDI = "http://xbrl.org/2006/xbrldi"
XSI = "http://www.w3.org/2001/XMLSchema-instance"


def taxonomy_of(namespace: str, prefix: str) -> str:
    """The taxonomy family of a namespace ("us-gaap"), or the document's own prefix."""
    for pattern, family in _FAMILIES:
        if pattern.search(namespace):
            return family
    return prefix


class QNames:
    """Resolves prefixed names ("us-gaap:Revenues") of one document to canonical ones."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        self._prefixes = prefixes  # prefix -> namespace

    def canonical(self, qname: str) -> str:
        prefix, _, local = qname.strip().rpartition(":")
        namespace = self._prefixes.get(prefix)
        if namespace is None:
            return qname.strip()
        return f"{taxonomy_of(namespace, prefix)}:{local}"

    def from_clark(self, tag: str) -> str:
        """Canonical name of an ElementTree tag "{namespace}Local"."""
        namespace, _, local = tag[1:].partition("}")
        prefix = next((p for p, ns in self._prefixes.items() if ns == namespace), "")
        return f"{taxonomy_of(namespace, prefix)}:{local}"


def unit_name(numerators: list[str], denominators: list[str]) -> str:
    """companyfacts-style unit name from measure local names: "USD", "USD/shares", "pure"."""
    num = "*".join(sorted(numerators))
    if not denominators:
        return num
    return f"{num}/{'*'.join(sorted(denominators))}"


def measure_local(qname: str) -> str:
    """Local part of a measure QName: "iso4217:USD" -> "USD", "xbrli:shares" -> "shares"."""
    return qname.strip().rpartition(":")[2]


def dims_key(dims: Dims) -> str:
    """Text key stored for a fact's dimensions (compact JSON); "" for the entity-wide value."""
    return json.dumps([list(pair) for pair in dims], separators=(",", ":")) if dims else ""


def normalise_dims(pairs: list[tuple[str, str]] | dict[str, str]) -> Dims:
    items = pairs.items() if isinstance(pairs, dict) else pairs
    return tuple(sorted((a.strip(), m.strip()) for a, m in items))
