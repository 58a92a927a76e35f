"""Document metadata under canonical field names: one home for the spellings.

Metadata comes in many spellings (the lesson's ``emisor``/``anio``/``tipo``, SEC
``company``/``form``/``period`` …); :func:`canonical_metadata` maps them onto ``issuer``,
``ticker``, ``year``, ``doc_type`` and ``language`` (other keys are kept as they are). Index
builds, headers and cards use it; the filters (:mod:`finchunk.retrieve.query.filters`) match on
its fields. Kept apart from the filters so that a build does not import the question
detector (:mod:`finchunk.retrieve.query.mentions`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from finchunk.text.analysis import normalize

_ALIASES: dict[str, tuple[str, ...]] = {
    "issuer": ("issuer", "emisor", "company", "company_name", "entity", "entity_name", "name"),
    "ticker": ("ticker", "symbol"),
    "year": ("year", "anio", "ano", "fiscal_year", "ejercicio"),
    "doc_type": ("doc_type", "type", "tipo", "document_type", "form"),
    "language": ("language", "idioma", "lang"),
}
_FIELD_OF = {alias: field for field, names in _ALIASES.items() for alias in names}
_YEAR_SOURCES = ("period", "period_end", "fiscal_period", "filed", "date", "fecha")
_YEAR = re.compile(r"(?<!\d)(?:fy\s?)?((?:19|20)\d{2})(?!\d)", re.IGNORECASE)


def canonical_field(name: str) -> str:
    key = normalize(name.strip()).replace(" ", "_").replace("-", "_")
    return _FIELD_OF.get(key, key)


def _clean(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _year_of(meta: Mapping[str, Any]) -> str | None:
    for key in _YEAR_SOURCES:
        m = _YEAR.search(str(meta.get(key) or ""))
        if m:
            return m.group(1)
    return None


def canonical_metadata(meta: Mapping[str, Any]) -> dict[str, str]:
    """Metadata with the canonical field names; values as strings (years as 4 digits).
    A field given under its canonical name wins over its other spellings (a sidecar's
    ``year`` over a filing's ``fiscal_year``); among those, the first given wins."""
    given = [(canonical_field(k), k, v) for k, raw in meta.items() if (v := _clean(raw))]
    chosen: dict[str, str] = {}
    for field, key, v in given:
        if field == key:
            chosen.setdefault(field, v)
    for field, _, v in given:
        chosen.setdefault(field, v)
    out = {field: chosen[field] for field, _, _ in given}  # in the order first given
    if "year" in out:
        m = _YEAR.search(out["year"])
        out["year"] = m.group(1) if m else out["year"]
    else:
        y = _year_of(meta)
        if y:
            out["year"] = y
    return out
