"""What gets delivered from a ranking: distinct pages or documents, a slot per entity, a
character budget.

A retriever ranks chunks; a RAG system delivers some of them. Ten chunks of one page waste a
top 10; a question comparing two funds needs chunks of both; a context window is a budget of
characters, not a number of chunks. :class:`Delivery` names these choices and
:func:`deliver` applies them to rankings, the same way for ``search`` and for evaluation runs:

* ``distinct`` — at most one chunk per page (a chunk's first page within its document) or per
  document, the best one (rankings are best first, so the first seen);
* ``per_entity`` — given one ranking per entity the question names (each restricted to that
  entity's documents), take their best chunks in turn (entity 1's best, entity 2's best,
  entity 1's second …), skipping chunks already taken;
* ``budget`` — walk the ranking and keep each chunk whose text still fits in the budget,
  skipping one that does not (instead of stopping at it); ``k`` still caps the count;
* ``evidence`` — deliver evidence instead of chunks (:mod:`finchunk.retrieve.query.evidence`):
  the plan's ranking is kept deep and whole, and the units of its top chunks are packed
  within ``budget`` (characters, or cl100k tokens with ``tokens``; default
  :data:`EVIDENCE_BUDGET` characters), a slot per entity when the question names several.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.kinds import Distinct


@dataclass(frozen=True, slots=True)
class Delivery:
    """How a ranking becomes what is delivered (the default delivers the ranking as is)."""

    distinct: Distinct = Distinct.NONE
    per_entity: bool = False
    budget: int | None = None  # characters (tokens with ``evidence`` and ``tokens``)
    evidence: bool = False
    tokens: bool = False

    def __post_init__(self) -> None:
        unit = "tokens" if self.tokens else "characters"
        if self.budget is not None and self.budget < 1:
            flag = "--budget-tokens" if self.tokens else "--budget"
            raise InputError(f"{flag} must be a positive number of {unit}, not {self.budget}")
        if self.tokens and not self.evidence:
            raise InputError("--budget-tokens applies to evidence delivery (--evidence)")

    @property
    def plain(self) -> bool:
        return (
            self.distinct is Distinct.NONE
            and not self.per_entity
            and self.budget is None
            and not self.evidence
        )

    @property
    def evidence_budget(self) -> int:
        """The budget evidence delivery packs (its unit: ``tokens``)."""
        return self.budget if self.budget is not None else EVIDENCE_BUDGET

    def depth(self, k: int, size: int) -> int:
        """How deep to ask a retriever so that ``k`` chunks survive the choices."""
        return k if self.plain else min(size, max(10 * k, 200))


#: Evidence delivery's budget when none is given (characters).
EVIDENCE_BUDGET = 1200


AS_RANKED = Delivery()


@dataclass(frozen=True, slots=True)
class ChunkFacts:
    """What delivery needs of every chunk, by position: its document, its first page (-1
    when the format has none) and its delivered length."""

    doc: np.ndarray
    page: np.ndarray
    length: np.ndarray

    def keys(self, distinct: Distinct) -> np.ndarray | None:
        """One key per chunk: chunks sharing a key are alternatives (None: no collapsing)."""
        if distinct is Distinct.DOCUMENT:
            return self.doc
        if distinct is Distinct.PAGE:
            # chunks without a page are each their own key
            pageless = -1 - np.arange(self.page.size, dtype=np.int64)
            keyed = self.doc.astype(np.int64) * (1 << 32) + self.page.astype(np.int64)
            return np.where(self.page >= 0, keyed, pageless)
        return None


def interleave(rankings: Sequence[Hits]) -> Hits:
    """Round robin over rankings (best of each in turn), each chunk once."""
    seen: set[int] = set()
    positions: list[int] = []
    scores: list[float] = []
    for row in range(max((len(h) for h in rankings), default=0)):
        for hits in rankings:
            if row < len(hits):
                p = int(hits.positions[row])
                if p not in seen:
                    seen.add(p)
                    positions.append(p)
                    scores.append(float(hits.scores[row]))
    return Hits(np.array(positions, dtype=np.int64), np.array(scores, dtype=np.float32))


def deliver(hits: Hits, k: int, delivery: Delivery, facts: ChunkFacts) -> Hits:
    """At most ``k`` chunks of ``hits``, in rank order, under ``delivery``'s choices."""
    keys = facts.keys(delivery.distinct)
    keep: list[int] = []
    taken: set[int] = set()
    spent = 0
    for i, p in enumerate(hits.positions.tolist()):
        if len(keep) == k:
            break
        if keys is not None:
            key = int(keys[p])
            if key in taken:
                continue
        if delivery.budget is not None:
            n = int(facts.length[p])
            if spent + n > delivery.budget:
                continue
            spent += n
        if keys is not None:
            taken.add(key)
        keep.append(i)
    return hits.take(np.array(keep, dtype=np.int64))
