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


def parse_filter(spec: str) -> Filter:
    """``"issuer=Repsol"`` → ``Filter("issuer", "Repsol")`` (field names as in metadata)."""
    field, sep, value = spec.partition("=")
    if not sep or not field.strip() or not value.strip():
        raise InputError(f"--filter: expected FIELD=VALUE (e.g. year=2024), got {spec!r}")
    return Filter(canonical_field(field), value.strip())


def parse_filters(specs: Iterable[str]) -> list[Filter]:
    return [parse_filter(s) for s in specs]


def _capitalised_words(text: str) -> set[str]:
    """Normalised forms of the words written with a capital initial (proper-noun candidates)."""
    return {normalize(m.group()) for m in _WORD.finditer(text) if m.group()[0].isupper()}


_CAPS_TOKEN = re.compile(r"(?<![\w.])[A-Z][A-Z0-9.\-]*(?<![.\-])")


class MetadataIndex:
    """The documents' canonical metadata prepared once for filtering: the documents of each
    distinct value of each field, and each issuer's distinctive words. Building it costs one
    pass over the documents; a filter or a question then costs a pass over distinct values
    at most, not over documents."""

    def __init__(self, metas: Sequence[Mapping[str, str]]) -> None:
        self.size = len(metas)
        groups: dict[str, dict[str, list[int]]] = {}
        pairs: set[tuple[str, str]] = set()
        for i, m in enumerate(metas):
            for f, v in m.items():
                groups.setdefault(f, {}).setdefault(v, []).append(i)
            if m.get("ticker") and m.get("issuer"):
                pairs.add((m["ticker"], m["issuer"]))
        self._docs = {f: {v: np.array(ix) for v, ix in g.items()} for f, g in groups.items()}
        # field -> normalised words of a value -> the values spelt that way
        self._by_words: dict[str, dict[tuple[str, ...], list[str]]] = {}
        for f, g in groups.items():
            for v in g:
                self._by_words.setdefault(f, {}).setdefault(tuple(words(v)), []).append(v)
        # issuer word -> issuer values containing it (an issuer filter's words must all occur)
        self._issuer_by_word: dict[str, set[str]] = {}
        for ws, vs in self._by_words.get("issuer", {}).items():
            for w in ws:
                self._issuer_by_word.setdefault(w, set()).update(vs)
        self._ticker_issuer = dict(sorted(pairs))
        self._index_issuers(sorted(groups.get("issuer", {})))

    def _index_issuers(self, issuers: Sequence[str]) -> None:
        self._distinct = {i: tuple(w for w in words(i) if w not in _GENERIC) for i in issuers}
        owners: dict[str, set[str]] = {}
        self._by_first: dict[str, list[str]] = {}
        for issuer, ws in self._distinct.items():
            for w in ws:
                owners.setdefault(w, set()).add(issuer)
            if ws:
                self._by_first.setdefault(ws[0], []).append(issuer)
        self._unique = {w: next(iter(o)) for w, o in owners.items() if len(o) == 1 and len(w) >= 4}

    def values(self, field: str) -> list[str]:
        return sorted(self._docs.get(field, {}))

    # masks ------------------------------------------------------------------------------------
    def _docs_of(self, field: str, values: Iterable[str]) -> np.ndarray:
        keep = np.zeros(self.size, dtype=bool)
        for v in values:
            keep[self._docs[field][v]] = True
        return keep

    def _filter_mask(self, f: Filter) -> np.ndarray:
        target = tuple(words(f.value))
        if f.field != "issuer":
            return self._docs_of(f.field, self._by_words.get(f.field, {}).get(target, ()))
        if not target:
            return np.zeros(self.size, dtype=bool)
        names = set.intersection(*(self._issuer_by_word.get(w, set()) for w in set(target)))
        tickers = self._by_words.get("ticker", {}).get(target, ())
        return self._docs_of("issuer", sorted(names)) | self._docs_of("ticker", tickers)

    def mask(self, filters: Sequence[Filter]) -> np.ndarray:
        """Which documents pass: OR within a field, AND across fields."""
        keep = np.ones(self.size, dtype=bool)
        by_field: dict[str, list[Filter]] = {}
        for f in filters:
            by_field.setdefault(f.field, []).append(f)
        for group in by_field.values():
            any_of = np.zeros(self.size, dtype=bool)
            for f in group:
                any_of |= self._filter_mask(f)
            keep &= any_of
        return keep

    # automatic filters ------------------------------------------------------------------------
    def issuer_mentions(self, question: str) -> list[str]:
        """Issuers named in the question: all their distinctive words in a row, or, written
        with a capital initial, a word only they have (4+ letters, not a legal form or generic
        business word: "Aurora" names "Aurora Energía, S.A."; "corto plazo" does not name
        "Fondo Corto Plazo" unless written "Corto Plazo" — or in full)."""
        q = words(question)
        found = {
            w_issuer
            for w in _capitalised_words(question)
            if (w_issuer := self._unique.get(w)) is not None
        }
        for i, w in enumerate(q):
            for issuer in self._by_first.get(w, ()):
                ws = self._distinct[issuer]
                if tuple(q[i : i + len(ws)]) == ws:
                    found.add(issuer)
        return sorted(found)

    def ticker_mentions(self, question: str) -> list[str]:
        """Tickers written in capitals as a word of the question (``AAPL``, not ``aapl``)."""
        caps = {m.group() for m in _CAPS_TOKEN.finditer(question)}
        return [t for t in self.values("ticker") if t.upper() in caps]

    def _type_mentions(self, question: str) -> list[str]:
        q = " " + " ".join(words(question)) + " "
        return [
            t
            for t in self.values("doc_type")
            if (ws := words(t.replace("_", " "))) and f" {' '.join(ws)} " in q
        ]

    def auto_filters(self, question: str) -> list[Filter]:
        """Filters from what the question names that the documents also have."""
        issuers = self.issuer_mentions(question)
        tickers = [
            t for t in self.ticker_mentions(question) if self._ticker_issuer.get(t) not in issuers
        ]
        years = self._docs.get("year", {})
        found_years = sorted({m.group(1) for m in _YEAR.finditer(question)} & set(years))
        return (
            [Filter("issuer", i) for i in issuers]
            + [Filter("issuer", t) for t in tickers]
            + [Filter("year", y) for y in found_years]
            + [Filter("doc_type", t) for t in self._type_mentions(question)]
        )

    def relax(self, filters: Sequence[Filter]) -> list[Filter]:
        """Drop year, then doc_type filters while the combination matches no document."""
        current = list(filters)
        for field in ("year", "doc_type"):
            if not current or self.mask(current).any():
                break
            current = [f for f in current if f.field != field]
        return current if not current or self.mask(current).any() else []

    def auto_mask(self, question: str, chunk_doc: np.ndarray) -> np.ndarray | None:
        found = self.relax(self.auto_filters(question))
        return self.mask(found)[chunk_doc] if found else None


# --- the same as functions over plain metadata lists ------------------------------------------


def document_mask(metas: Sequence[Mapping[str, str]], filters: Sequence[Filter]) -> np.ndarray:
    """Which documents pass: OR within a field, AND across fields."""
    return MetadataIndex(metas).mask(filters)


def issuer_mentions(question: str, issuers: Sequence[str]) -> list[str]:
    """See :meth:`MetadataIndex.issuer_mentions`."""
    return MetadataIndex([{"issuer": i} for i in issuers]).issuer_mentions(question)


def auto_filters(question: str, metas: Sequence[Mapping[str, str]]) -> list[Filter]:
    return MetadataIndex(metas).auto_filters(question)


def relax(metas: Sequence[Mapping[str, str]], filters: Sequence[Filter]) -> list[Filter]:
    return MetadataIndex(metas).relax(filters)


def auto_mask(
    question: str,
    metas: MetadataIndex | Sequence[Mapping[str, str]],
    chunk_doc: np.ndarray,
) -> np.ndarray | None:
    """Chunk mask of ``--auto-filter`` for one question (None: no filter applies).

    ``metas`` are the documents' canonical metadata (:func:`canonical_metadata`), best as a
    :class:`MetadataIndex` built once; ``chunk_doc`` gives, per chunk, the position of its
    document in ``metas``.
    """
    index = metas if isinstance(metas, MetadataIndex) else MetadataIndex(metas)
    return index.auto_mask(question, chunk_doc)
