"""Metadata filters: explicit (``issuer=…``, ``year=2024``, ``doc_type=kid``) and automatic.

Document metadata comes in many spellings (the lesson's ``emisor``/``anio``/``tipo``, SEC
``company``/``form``/``period`` …); :func:`canonical_metadata` maps them onto ``issuer``,
``ticker``, ``year``, ``doc_type`` and ``language`` (other keys are kept as they are).

Filters on the same field are alternatives (OR); filters on different fields must all hold
(AND). Matching ignores case and accents; an issuer filter matches when its words are all in
the issuer's name ("repsol" matches "Repsol, S.A.") or it equals the ticker.

Automatic filters read the question: years, issuer names and tickers, and document types that
appear in it *and* in the index's documents. When nothing matches there is no filter; when
the combination matches no document, the year and then the document type are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.text import normalize

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
_WORD = re.compile(r"\w+")
#: Legal forms and generic words that never identify an issuer on their own.
_GENERIC_WORDS = """
    s a sa sab sl nv ag se spa plc inc incorporated corp corporation co company companies ltd
    llc lp group grupo holding holdings the de del la las los el y and of fi fim fondo fund
    sicav sgiic banco bank internacional international global capital asset assets management
    financial finance energy energia inversiones investment investments
"""
_GENERIC = frozenset(_GENERIC_WORDS.split())


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
    """Metadata with the canonical field names; values as strings (years as 4 digits)."""
    out: dict[str, str] = {}
    for key, value in meta.items():
        v = _clean(value)
        if v is None:
            continue
        field = canonical_field(key)
        out.setdefault(field, v)
    if "year" in out:
        m = _YEAR.search(out["year"])
        out["year"] = m.group(1) if m else out["year"]
    else:
        y = _year_of(meta)
        if y:
            out["year"] = y
    return out


def words(text: str) -> list[str]:
    return _WORD.findall(normalize(text))


@dataclass(frozen=True, slots=True)
class Filter:
    field: str
    value: str

    def __str__(self) -> str:
        return f"{self.field}={self.value}"

    def matches(self, meta: Mapping[str, str]) -> bool:
        if self.field == "issuer":
            return _issuer_matches(self.value, meta)
        have = meta.get(self.field)
        if have is None:
            return False
        return words(have) == words(self.value)


def _issuer_matches(value: str, meta: Mapping[str, str]) -> bool:
    want = set(words(value))
    if not want:
        return False
    ticker = meta.get("ticker")
    if ticker and words(ticker) == words(value):
        return True
    return want <= set(words(meta.get("issuer", "")))


def parse_filter(spec: str) -> Filter:
    """``"issuer=Repsol"`` → ``Filter("issuer", "Repsol")`` (field names as in metadata)."""
    field, sep, value = spec.partition("=")
    if not sep or not field.strip() or not value.strip():
        raise InputError(f"--filter: expected FIELD=VALUE (e.g. year=2024), got {spec!r}")
    return Filter(canonical_field(field), value.strip())


def parse_filters(specs: Iterable[str]) -> list[Filter]:
    return [parse_filter(s) for s in specs]


def document_mask(metas: Sequence[Mapping[str, str]], filters: Sequence[Filter]) -> np.ndarray:
    """Which documents pass: OR within a field, AND across fields."""
    keep = np.ones(len(metas), dtype=bool)
    by_field: dict[str, list[Filter]] = {}
    for f in filters:
        by_field.setdefault(f.field, []).append(f)
    for group in by_field.values():
        keep &= np.fromiter(
            (any(f.matches(m) for f in group) for m in metas), dtype=bool, count=len(metas)
        )
    return keep


# --- automatic filters ---------------------------------------------------------------------


def _distinct(metas: Sequence[Mapping[str, str]], field: str) -> list[str]:
    return sorted({m[field] for m in metas if m.get(field)})


def _contains_run(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    if not n:
        return False
    return any(list(haystack[i : i + n]) == list(needle) for i in range(len(haystack) - n + 1))


def _capitalised_words(text: str) -> set[str]:
    """Normalised forms of the words written with a capital initial (proper-noun candidates)."""
    return {normalize(m.group()) for m in _WORD.finditer(text) if m.group()[0].isupper()}


def issuer_mentions(question: str, issuers: Sequence[str]) -> list[str]:
    """Issuers named in the question: all their distinctive words in a row, or, written with a
    capital initial, a word only they have (4+ letters, not a legal form or generic business
    word: "Aurora" names "Aurora Energía, S.A."; "corto plazo" does not name "Fondo Corto")."""
    q_words = words(question)
    capitals = _capitalised_words(question)
    distinct = {i: [w for w in words(i) if w not in _GENERIC] for i in issuers}
    owners: dict[str, set[str]] = {}
    for issuer, ws in distinct.items():
        for w in ws:
            owners.setdefault(w, set()).add(issuer)
    found = []
    for issuer, ws in distinct.items():
        unique = [w for w in ws if len(w) >= 4 and owners[w] == {issuer}]
        if _contains_run(q_words, ws) or capitals.intersection(unique):
            found.append(issuer)
    return found


def ticker_mentions(question: str, tickers: Sequence[str]) -> list[str]:
    """Tickers written in capitals as a word of the question (``AAPL``, not ``aapl``)."""
    return [t for t in tickers if re.search(rf"(?<!\w){re.escape(t.upper())}(?!\w)", question)]


def _type_mentions(question: str, types: Sequence[str]) -> list[str]:
    q_words = words(question)
    return [t for t in types if _contains_run(q_words, words(t.replace("_", " ")))]


def auto_filters(question: str, metas: Sequence[Mapping[str, str]]) -> list[Filter]:
    """Filters from what the question names that the index's documents also have."""
    issuers = issuer_mentions(question, _distinct(metas, "issuer"))
    named = {m.get("ticker") for m in metas if m.get("issuer") in issuers}
    tickers = [t for t in ticker_mentions(question, _distinct(metas, "ticker")) if t not in named]
    filters = [Filter("issuer", i) for i in issuers] + [Filter("ticker", t) for t in tickers]
    years = set(_distinct(metas, "year"))
    filters += [
        Filter("year", y)
        for y in sorted({m.group(1) for m in _YEAR.finditer(question)})
        if y in years
    ]
    filters += [
        Filter("doc_type", t) for t in _type_mentions(question, _distinct(metas, "doc_type"))
    ]
    return _name_or_ticker(filters)


def _name_or_ticker(filters: list[Filter]) -> list[Filter]:
    """A ticker and an issuer name are alternatives: fold tickers into the issuer field."""
    return [Filter("issuer", f.value) if f.field == "ticker" else f for f in filters]


def relax(metas: Sequence[Mapping[str, str]], filters: Sequence[Filter]) -> list[Filter]:
    """Drop year, then doc_type filters while the combination matches no document."""
    current = list(filters)
    for field in ("year", "doc_type"):
        if not current or document_mask(metas, current).any():
            break
        current = [f for f in current if f.field != field]
    return current if not current or document_mask(metas, current).any() else []


def auto_mask(
    question: str, metas: Sequence[Mapping[str, str]], chunk_doc: np.ndarray
) -> np.ndarray | None:
    """Chunk mask of ``--auto-filter`` for one question (None: no filter applies).

    ``metas`` are the documents' canonical metadata (:func:`canonical_metadata`) and
    ``chunk_doc`` gives, per chunk, the position of its document in ``metas``.
    """
    found = relax(metas, auto_filters(question, metas))
    return document_mask(metas, found)[chunk_doc] if found else None
