"""Concept names as users type them: an unprefixed name resolved when one taxonomy has it
("Revenues" -> "us-gaap:Revenues"), and the concepts an entity does report that come closest
to one it does not (by the words of their names and labels)."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from difflib import SequenceMatcher

from finchunk.errors import InputError
from finchunk.facts.db import FactDB
from finchunk.facts.model import ConceptUse

_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_WORD = re.compile(r"[a-z0-9]+")
#: How recent a concept's latest period must be (against the entity's latest) to count as
#: one the entity still reports.
_CURRENT = timedelta(days=2 * 366)


def resolve_concept(db: FactDB, concept: str, cik: int | None = None) -> str:
    """``concept`` itself when it has a taxonomy prefix; else the one stored concept of that
    name (the entity's, when ``cik`` is given and several taxonomies have it). InputError when
    it stays ambiguous; an unknown name is returned as given (queries then find no facts)."""
    name = concept.strip()
    if ":" in name or not name:
        return name
    found = db.concepts_named(name)
    if len(found) > 1 and cik is not None:
        reported = {u.concept for u in db.concept_uses(cik)}
        found = [c for c in found if c in reported] or found
    exact = [c for c in found if c.partition(":")[2] == name]
    found = exact or found
    if len(found) > 1:
        raise InputError(
            f"{name!r} is a concept of several taxonomies ({', '.join(found)}); "
            "give it with its prefix"
        )
    return found[0] if found else name


#: Abbreviations a user may type for a concept's words.
_EXPANSIONS = {"eps": ("earning", "per", "share")}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _words(concept: str, label: str | None = None) -> set[str]:
    local = concept.partition(":")[2] or concept
    found = {w.lower() for w in _CAMEL.findall(local)}
    found |= set(_WORD.findall((label or "").lower()))
    stems = {_stem(w) for w in found}
    for short, long in _EXPANSIONS.items():
        if short in stems:
            stems = (stems - {short}) | set(long)
    return stems


@dataclass(frozen=True)
class Suggestions:
    """What an entity reports instead of a concept with no value: the concept itself for
    other periods (``asked``, None when never) and the closest other concepts."""

    asked: ConceptUse | None
    similar: list[ConceptUse]


def similar_concepts(db: FactDB, cik: int | None, concept: str, n: int = 5) -> Suggestions:
    """Up to ``n`` concepts the entity reports entity-wide that come closest to ``concept``:
    the most of its words (rare words weighing more than "net" or "total") in their name or
    label and few others, the same leading word ("Revenue…" for "Revenues"), the closest
    spelling, those still reported (a period within two years of the entity's latest), then
    the most facts."""
    every = db.concept_uses(cik)
    asked_use = next((u for u in every if u.concept == concept), None)
    uses = [u for u in every if u.concept != concept]
    if not uses:
        return Suggestions(asked_use, [])
    asked = _words(concept)
    head = _head(concept)
    local = (concept.partition(":")[2] or concept).lower()
    latest = max(u.last_end for u in uses)
    have = {u.concept: _words(u.concept, u.label) for u in uses}
    seen = Counter(w for ws in have.values() for w in ws)
    weight = {w: math.log((1 + len(uses)) / (1 + seen[w])) + 1 for w in asked}

    def score(u: ConceptUse) -> tuple[float, int]:
        mine = have[u.concept]
        common = asked & mine
        overlap = sum(weight[w] for w in common) / sum(weight.values()) if asked else 0.0
        precision = len(common) / len(mine) if mine else 0.0
        spelling = SequenceMatcher(None, local, u.concept.partition(":")[2].lower()).ratio()
        current = 1.0 if latest - u.last_end <= _CURRENT else 0.0
        leading = 0.3 if head and _head(u.concept) == head else 0.0
        return (overlap + 0.3 * precision + leading + 0.5 * spelling + 0.5 * current, u.facts)

    ranked = sorted(uses, key=lambda u: (*(-x for x in score(u)), u.concept))
    return Suggestions(asked_use, [u for u in ranked[:n] if asked & have[u.concept]] or ranked[:n])


def _head(concept: str) -> str:
    """The stem of the first word of a concept's name ("revenue" of "RevenueFromContract…")."""
    found = _CAMEL.findall(concept.partition(":")[2] or concept)
    return _stem(found[0].lower()) if found else ""
