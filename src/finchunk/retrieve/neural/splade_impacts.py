"""SPLADE document weights stored as impacts: each chunk's term weights quantised to uint16
levels on one grid (:data:`IMPACT_SCALE`), kept as CSR rows (:class:`Impacts`) beside BM25's
postings, so a rerank reads them instead of encoding its candidates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from finchunk.retrieve.neural.splade import Splade


#: A stored weight is ``impact * IMPACT_SCALE``, the impact a uint16: weights are quantised
#: on a fixed grid of 65,535 steps up to 4.0 (SPLADE-tiny's largest seen on EDGAR filings:
#: 2.54; a larger one is clipped), so a weight is kept to within 3e-5 and segments written
#: at different times merge by copying their bytes. The grid is recorded in the manifest.
#: uint8 (255 steps, within 0.008) changed the top 5 of 1 in 24 EDGAR dev questions
#: (``bench/splade_impacts.py``): the 2 bytes more a piece buy the exact rerank's ranking.
IMPACT_LEVELS = 65535


IMPACT_SCALE = 4.0 / IMPACT_LEVELS


#: Texts encoded a batch at a time when their full weights are computed (30,522 floats each).
IMPACT_BATCH = 64


def quantise(weights: np.ndarray) -> np.ndarray:
    """SPLADE weights as uint16 impacts on :data:`IMPACT_SCALE`'s grid (rounded, clipped)."""
    return np.minimum(np.rint(weights / IMPACT_SCALE), IMPACT_LEVELS).astype(np.uint16)


def _scaled(sums: np.ndarray) -> np.ndarray:
    return (sums * IMPACT_SCALE).astype(np.float32)


@dataclass(frozen=True, slots=True)
class Impacts:
    """Texts' quantised SPLADE weights as sparse rows: row ``i``'s pieces are
    ``terms[starts[i]:starts[i + 1]]`` (ascending ids, uint16: the vocabulary has 30,522)
    and their ``impacts`` (uint16, never 0). Rows are a text's own: they concatenate and
    slice like the chunks they belong to."""

    starts: np.ndarray  # int64, rows + 1
    terms: np.ndarray  # uint16
    impacts: np.ndarray  # uint16

    FILES = ("starts.npy", "terms.npy", "impacts.npy")

    def __len__(self) -> int:
        return self.starts.size - 1

    @classmethod
    def empty(cls) -> Impacts:
        return cls(np.zeros(1, np.int64), np.zeros(0, np.uint16), np.zeros(0, np.uint16))

    @classmethod
    def from_weights(cls, weights: np.ndarray) -> Impacts:
        """The rows of a dense texts × vocabulary weight matrix."""
        q = quantise(weights)
        rows, terms = np.nonzero(q)
        starts = np.zeros(q.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=q.shape[0]), out=starts[1:])
        return cls(starts, terms.astype(np.uint16), q[rows, terms])

    @classmethod
    def concat(cls, parts: Sequence[Impacts]) -> Impacts:
        if not parts:
            return cls.empty()
        offsets = np.cumsum([0] + [p.starts[-1] for p in parts[:-1]])
        starts = [np.zeros(1, np.int64)] + [
            p.starts[1:] + o for p, o in zip(parts, offsets, strict=True)
        ]
        return cls(
            np.concatenate(starts).astype(np.int64),
            np.concatenate([p.terms for p in parts]).astype(np.uint16),
            np.concatenate([p.impacts for p in parts]).astype(np.uint16),
        )

    def take(self, rows: np.ndarray) -> Impacts:
        """Rows ``rows``, in that order."""
        rows = np.asarray(rows, dtype=np.int64)
        lo, hi = self.starts[rows], self.starts[rows + 1]
        lengths = hi - lo
        starts = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        at = np.repeat(lo - starts[:-1], lengths) + np.arange(starts[-1], dtype=np.int64)
        return Impacts(starts, np.asarray(self.terms[at]), np.asarray(self.impacts[at]))

    def weights(self) -> np.ndarray:
        """The dequantised weights, dense (rows × vocabulary; for tests and small sets)."""
        out = np.zeros((len(self), int(self.terms.max(initial=0)) + 1), dtype=np.float32)
        rows = np.repeat(np.arange(len(self)), np.diff(self.starts))
        out[rows, self.terms.astype(np.int64)] = self.impacts * np.float32(IMPACT_SCALE)
        return out

    def dot(self, terms: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Each row's dot product with a question's weights ``q`` on pieces ``terms``
        (ascending): the scores :class:`SpladeReranker` gives (float32)."""
        lengths = np.diff(self.starts)
        rows = np.repeat(np.arange(len(self)), lengths)
        t = self.terms.astype(np.int64)
        at = np.minimum(np.searchsorted(terms, t), max(terms.size - 1, 0))
        hit = terms[at] == t if terms.size else np.zeros(t.size, dtype=bool)
        products = np.where(hit, q.astype(np.float64)[at] * self.impacts, 0.0)
        return _scaled(np.bincount(rows, weights=products, minlength=len(self)))

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name, array in zip(self.FILES, (self.starts, self.terms, self.impacts), strict=True):
            np.save(folder / name, array)

    @classmethod
    def load(cls, folder: Path) -> Impacts:
        """A segment's rows, memory-mapped."""
        arrays = [np.load(folder / name, mmap_mode="r") for name in cls.FILES]
        return cls(*arrays)


def impacts(splade: Splade, texts: Sequence[str]) -> Impacts:
    """The texts' full SPLADE weights, quantised: what ``finchunk index`` stores."""
    parts = [
        Impacts.from_weights(splade.weights(texts[i : i + IMPACT_BATCH]))
        for i in range(0, len(texts), IMPACT_BATCH)
    ]
    return Impacts.concat(parts)
