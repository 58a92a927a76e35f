"""Evidence units' scores: which units of a ranking are candidates, and how each scores.

A unit's score mixes the best score of the chunks that hold it (scaled by the top chunk's)
with its own score against the question among the units of the corpus (scaled the same
way): ``weight * chunk + (1 - weight) * own``. Its own score is BM25 over every unit with
its context header (:class:`~finchunk.retrieve.query.evidence_units.UnitIndex`), mixed, for
an English question where the splade extra is installed, with SPLADE's (``splade``: its
share). Packing: :mod:`finchunk.retrieve.query.evidence`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.query.evidence_units import (
    TABLE_MAX,
    UNIT_MAX,
    Hit,
    Unit,
    UnitCache,
    UnitIndex,
    _unit_text,
)

#: Candidate units come from this many top chunks.
POOL = 5
#: Share of a unit's score that comes from its chunk's score (the rest: its own).
WEIGHT = 0.7
#: Share of a unit's own score that comes from SPLADE (English questions; the rest: BM25).
SPLADE = 0.0
#: A delivered unit lifts its neighbours to this share of its score. Chosen on the development
#: sets (``bench/evidence_quality.py``, against 0, bm25 / auto): TAT-QA dev complete @600
#: +25/−17 / +27/−10; the demo @800 and @1200 and EDGAR dev @2400 unchanged with both
#: (0.5: TAT-QA +18/−12; 0.8: +26/−20; 0.9 loses demo and EDGAR questions).
ADJACENT = 0.7


@dataclass(frozen=True, slots=True)
class EvidenceSettings:
    """Evidence delivery's parameters (defaults chosen on the development sets)."""

    pool: int = POOL
    weight: float = WEIGHT
    unit_max: int = UNIT_MAX
    table_max: int = TABLE_MAX
    #: a unit citing a note brings the note next (off: demo recall 0.768 on, 0.770 off @1200)
    notes: bool = False
    #: share of a unit's own score from SPLADE (English questions, splade extra installed)
    splade: float = SPLADE
    #: share of a unit's own score from its embedding's cosine with the question's (where
    #: the unit index has an embedder: :class:`~finchunk.retrieve.query.evidence_units.UnitIndex`)
    dense: float = 0.0
    #: a delivered unit lifts its neighbours (the windows beside it, the units of the
    #: elements beside it in its section) to this share of its score (0: off)
    adjacent: float = ADJACENT

    def __post_init__(self) -> None:
        if self.pool < 1:
            raise InputError(f"evidence: pool must be at least 1 chunk, got {self.pool}")
        for name in ("weight", "splade", "dense", "adjacent"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise InputError(f"evidence: {name} must be in [0, 1], got {value}")
        if self.splade + self.dense > 1.0:
            raise InputError(
                f"evidence: splade + dense must be at most 1, got {self.splade + self.dense}"
            )
        if self.unit_max < 20:
            raise InputError(f"evidence: unit_max must be at least 20, got {self.unit_max}")


#: The defaults (a module-level value: a default argument is evaluated once).
DEFAULT_SETTINGS = EvidenceSettings()


@dataclass
class Candidate:
    unit: Unit
    score: float
    group: int
    tier: int = 0  # 0: a unit of the top ``pool`` chunks; 1: of a chunk below them


def _scaled(values: np.ndarray) -> np.ndarray:
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else np.zeros_like(values)


def candidates(
    question: str,
    groups: Sequence[Sequence[Hit]],
    cache: UnitCache,
    settings: EvidenceSettings,
    index: UnitIndex | None = None,
) -> list[Candidate]:
    """Every unit of each group's top chunks, scored (a unit in several groups: its first),
    then the units of the chunks below them (:func:`_below_pool`)."""
    units: dict[Unit, tuple[float, int]] = {}
    for g, hits in enumerate(groups):
        top = hits[: settings.pool]
        chunk_scores = _scaled(np.array([max(h.score, 0.0) for h in top], dtype=np.float64))
        for h, cs in zip(top, chunk_scores.tolist(), strict=True):
            for u in cache.within(h.doc_id, h.spans):
                best = units.get(u)
                if best is None or (best[1] == g and cs > best[0]):
                    units[u] = (cs, g if best is None else best[1])
    if not units:
        return []
    listed = list(units)
    own = own_scores(question, listed, cache, settings, index)
    w = settings.weight
    scored = [
        Candidate(u, w * units[u][0] + (1 - w) * float(o), units[u][1])
        for u, o in zip(listed, own.tolist(), strict=True)
    ]
    return scored + _below_pool(groups, cache, settings, units)


def own_scores(
    question: str,
    units: Sequence[Unit],
    cache: UnitCache,
    settings: EvidenceSettings,
    index: UnitIndex | None = None,
) -> np.ndarray:
    """Each unit's own score against ``question``, scaled by the best: BM25 (over ``index``'s
    units, else among ``units``), mixed with SPLADE's where :func:`splade_for` gives a model."""
    from finchunk.retrieve.lexical.bm25 import BM25Index

    texts: list[str] | None = None
    if index is not None:
        every = index.scores(question)
        bm25 = _scaled(np.maximum(every[[index.position[u] for u in units]], 0.0))
    else:
        texts = [_unit_text(cache.documents[u.doc_id], u) for u in units]
        bm25 = _scaled(np.maximum(BM25Index(texts).scores(question).astype(np.float64), 0.0))
    own, rest = np.zeros_like(bm25), 1.0
    model = splade_for(question) if settings.splade > 0 else None
    if model is not None:
        texts = texts or [_unit_text(cache.documents[u.doc_id], u) for u in units]
        terms, q = model.query(question)
        if terms.size:
            sparse = model.weights(texts, terms).astype(np.float64) @ q.astype(np.float64)
            own += settings.splade * _scaled(np.maximum(sparse, 0.0))
            rest -= settings.splade
    if settings.dense > 0 and index is not None and index.embedder is not None:
        cosine = index.cosines(question, units)
        low, high = (float(cosine.min()), float(cosine.max())) if cosine.size else (0.0, 0.0)
        if high > low:  # cosines of one model sit close together: spread to [0, 1]
            own += settings.dense * (cosine - low) / (high - low)
            rest -= settings.dense
    return own + rest * bm25


def splade_for(question: str) -> Any:
    """The packaged SPLADE model for an English question where the splade extra is
    installed and readable (as ``auto`` reranks with it); else None."""
    from finchunk.errors import MissingExtraError, ParseError
    from finchunk.text.analysis import Language, language

    if language(question) is not Language.EN:
        return None
    from finchunk.retrieve.neural.splade import load_splade

    try:
        return load_splade()
    except (MissingExtraError, InputError, ParseError):
        return None


def _below_pool(
    groups: Sequence[Sequence[Hit]],
    cache: UnitCache,
    settings: EvidenceSettings,
    taken: Mapping[Unit, Any],
) -> list[Candidate]:
    """The units of the chunks below the pool, in the chunks' rank order (their score
    falls with the rank): what a budget the pool's units do not fill delivers next."""
    out: list[Candidate] = []
    seen = set(taken)
    for g, hits in enumerate(groups):
        below = hits[settings.pool :]
        for rank, h in enumerate(below):
            for u in cache.within(h.doc_id, h.spans):
                if u not in seen:
                    seen.add(u)
                    out.append(Candidate(u, -float(rank), g, tier=1))
    return out


def neighbours(cache: UnitCache, unit: Unit) -> list[Unit]:
    """The units beside ``unit`` in its document: the windows before and after it in its
    element, and the nearest units of the elements before and after it in its section."""
    doc = cache.documents[unit.doc_id]
    own = [u for u in cache.units(doc, unit.element) if u.context == unit.context]
    out: list[Unit] = []
    if unit in own:
        at = own.index(unit)
        out += own[max(at - 1, 0) : at] + own[at + 1 : at + 2]
    section = doc.elements[unit.element].section
    for step in (-1, 1):
        i = unit.element + step
        while 0 <= i < len(doc.elements) and doc.elements[i].section == section:
            units = cache.units(doc, i)
            if units:
                out.append(units[-1] if step < 0 else units[0])
                break
            i += step
    return out


def lift(queue: list[Candidate], near: Sequence[Unit], by: Candidate, share: float) -> None:
    """Raise the units ``near`` the delivered candidate ``by`` to ``share`` of its score
    (queued ones that score less, and those not queued), keeping ``queue`` in order."""
    score = share * by.score
    at = {c.unit: c for c in queue}
    changed = False
    for u in near:
        c = at.get(u)
        if c is None:
            queue.append(Candidate(u, score, by.group))
            changed = True
        elif c.tier == 1 or (c.tier == 0 and c.score < score):
            c.tier, c.score = 0, max(c.score, score) if c.tier == 0 else score
            changed = True
    if changed:
        queue.sort(key=lambda c: (c.tier, -c.score))
