"""Metadata filters: explicit (``issuer=…``, ``year=2024``, ``doc_type=kid``) and automatic.

Document metadata comes in many spellings; :mod:`finchunk.text.metadata` maps them
onto ``issuer``, ``ticker``, ``year``, ``doc_type`` and ``language``.

Filters on the same field are alternatives (OR); filters on different fields must all hold
(AND). Matching ignores case and accents; an issuer filter matches when its words are all in
the issuer's name ("repsol" matches "Repsol, S.A.") or it equals the ticker.

Automatic filters are what the question names (:mod:`finchunk.retrieve.query.mentions`: issuers by
name, alias or ticker, years, document types) that the index's documents also have. When
nothing matches there is no filter; when the combination matches no document, the year and
then the document type are dropped.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.query.mentions import (
    Issuer,
    MentionFinder,
    MentionKind,
    Mentions,
    YearPolicy,
)
from finchunk.text.analysis import normalize
from finchunk.text.metadata import canonical_field

_WORD = re.compile(r"\w+")


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


class FilterField(StrEnum):
    """What an automatic filter may restrict on."""

    ISSUER = "issuer"  # issuers (and tickers) the question names
    YEAR = "year"  # years it names, under the policy's :class:`YearPolicy`
    DOC_TYPE = "doc_type"  # document types it names


@dataclass(frozen=True)
class AutoFilterPolicy:
    """Which fields an automatic filter uses, and which named years count."""

    fields: frozenset[FilterField] = dataclasses.field(
        default_factory=lambda: frozenset(FilterField)
    )
    years: YearPolicy = YearPolicy.ANY

    def __str__(self) -> str:
        names = [f.value for f in FilterField if f in self.fields]
        return "+".join(n if n != "year" else f"year({self.years})" for n in names) or "none"


class MetadataIndex:
    """The documents' canonical metadata prepared once for filtering: the documents of each
    distinct value of each field, and a finder of what questions name. Building it costs one
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
        tickers: dict[str, list[str]] = {}
        for ticker, issuer in sorted(pairs):
            tickers.setdefault(issuer, []).append(ticker)
        self._finder = MentionFinder(
            [Issuer(i, tuple(tickers.get(i, ()))) for i in sorted(groups.get("issuer", {}))],
            doc_types=groups.get("doc_type", {}),
            tickers=groups.get("ticker", {}),
        )

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
    def mentions(self, question: str) -> Mentions:
        """What the question names among the documents' issuers, tickers and types."""
        return self._finder.find(question, YearPolicy.ANY)

    def auto_filters(
        self, question: str, policy: AutoFilterPolicy = AutoFilterPolicy()
    ) -> list[Filter]:
        """Filters from what the question names that the documents also have, on the
        policy's fields: issuers by name (a ticker only when its issuer is not named too),
        the years the policy counts, document types."""
        found = self._finder.find(question, policy.years)
        out: list[Filter] = []
        if FilterField.ISSUER in policy.fields:
            issuers = found.values(MentionKind.ISSUER)
            tickers = [m for m in found.found if m.kind is MentionKind.TICKER]
            covered = {m.value for m in tickers if m.issuer in issuers}
            out += [Filter("issuer", i) for i in issuers]
            out += [Filter("issuer", t) for t in sorted({m.value for m in tickers} - covered)]
        if FilterField.YEAR in policy.fields:
            years = {str(y) for y in found.years} & set(self._docs.get("year", {}))
            out += [Filter("year", y) for y in sorted(years)]
        if FilterField.DOC_TYPE in policy.fields:
            out += [Filter("doc_type", t) for t in found.values(MentionKind.DOC_TYPE)]
        return out

    def relax(self, filters: Sequence[Filter]) -> list[Filter]:
        """Drop year, then doc_type filters while the combination matches no document."""
        current = list(filters)
        for field in ("year", "doc_type"):
            if not current or self.mask(current).any():
                break
            current = [f for f in current if f.field != field]
        return current if not current or self.mask(current).any() else []

    def auto_mask(
        self, question: str, chunk_doc: np.ndarray, policy: AutoFilterPolicy = AutoFilterPolicy()
    ) -> np.ndarray | None:
        found = self.relax(self.auto_filters(question, policy))
        return self.mask(found)[chunk_doc] if found else None


# --- the same as functions over plain metadata lists ------------------------------------------


def document_mask(metas: Sequence[Mapping[str, str]], filters: Sequence[Filter]) -> np.ndarray:
    """Which documents pass: OR within a field, AND across fields."""
    return MetadataIndex(metas).mask(filters)


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
