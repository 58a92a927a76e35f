"""What every retriever and reranker looks like, and the small record they return.

A retriever is built over a fixed list of texts (a corpus's chunks, in order) and answers
``search(query, k, mask) -> Hits``: at most ``k`` positions into that list, best first, with
their scores. ``mask`` (one bool per text) restricts the candidates. A retriever returns only
what it *ranks*: BM25 ranks the texts that share a term with the query, a dense retriever
ranks every unmasked text. Callers never filter scores themselves (a reranker's logits may
be negative; a hit is a hit).

A reranker re-scores a first stage's candidates: ``score(query, positions) -> scores``.
:class:`finchunk.retrieve.neural.rerank.Reranked` composes one with any retriever.

Ties are broken by position everywhere, so the same input ranks the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, overload

import numpy as np


@dataclass(frozen=True, slots=True, eq=False)
class Hits:
    """Ranked positions (int64) and their scores (float32), best first, equal lengths."""

    positions: np.ndarray
    scores: np.ndarray

    def __post_init__(self) -> None:
        if self.positions.shape != self.scores.shape or self.positions.ndim != 1:
            raise ValueError(
                f"hits need 1-D positions and scores of one length, got "
                f"{self.positions.shape} and {self.scores.shape}"
            )

    @classmethod
    def empty(cls) -> Hits:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))

    @classmethod
    def top(cls, scores: np.ndarray, k: int, candidates: np.ndarray | None = None) -> Hits:
        """The ``k`` best of ``scores`` among ``candidates`` (positions; default: all),
        ties broken by position."""
        pool = np.arange(scores.size) if candidates is None else candidates
        if k <= 0 or pool.size == 0:
            return cls.empty()
        values = scores[pool]
        if k < pool.size:
            kth = np.partition(-values, k - 1)[k - 1]
            keep = np.flatnonzero(-values <= kth)
        else:
            keep = np.arange(pool.size)
        order = keep[np.argsort(-values[keep], kind="stable")[:k]]
        return cls(pool[order].astype(np.int64), values[order].astype(np.float32))

    def __len__(self) -> int:
        return int(self.positions.size)

    def __iter__(self) -> Iterator[tuple[int, float]]:
        """``(position, score)`` pairs, best first."""
        return zip(self.positions.tolist(), self.scores.tolist(), strict=True)

    @overload
    def __getitem__(self, item: int) -> tuple[int, float]: ...

    @overload
    def __getitem__(self, item: slice) -> Hits: ...

    def __getitem__(self, item: int | slice) -> tuple[int, float] | Hits:
        """``hits[i]``: the i-th ``(position, score)``; ``hits[a:b]``: a slice of hits."""
        if isinstance(item, slice):
            return Hits(self.positions[item], self.scores[item])
        return int(self.positions[item]), float(self.scores[item])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Hits):
            return self.pairs() == other.pairs()
        if isinstance(other, list):
            return self.pairs() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def take(self, indices: np.ndarray) -> Hits:
        """The hits at ``indices`` (indexes into this ranking), in that order."""
        return Hits(self.positions[indices], self.scores[indices])

    def pairs(self) -> list[tuple[int, float]]:
        return list(self)


class Retriever(Protocol):
    """Ranks positions of the texts it was built on."""

    @property
    def size(self) -> int: ...

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits: ...


class Reranker(Protocol):
    """Scores given positions of the texts it was built on (higher is better)."""

    def score(self, query: str, positions: np.ndarray) -> np.ndarray: ...


def candidates(size: int, mask: np.ndarray | None) -> np.ndarray | None:
    """The positions a mask admits (None: every position)."""
    if mask is None:
        return None
    if mask.shape != (size,):
        raise ValueError(f"mask has shape {mask.shape}, expected ({size},)")
    return np.flatnonzero(mask)
