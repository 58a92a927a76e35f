"""Align quoted evidence to a document's text, ignoring everything but letters and digits.

Quotes in benchmarks rarely match the parsed text byte for byte: FinanceBench's
``evidence_text`` drops non-ASCII characters (— ’ •), glues or splits words, and uses other
line breaks. Both sides are reduced to a *normalised alphanumeric sequence*: NFKD with
combining marks removed (so ``é`` is ``e``), lowercased, only alphanumeric characters kept.
An offset array maps every normalised character back to the original text, so a match found
with ``str.find`` on the normalised string becomes a span of the original text.

:class:`QuoteIndex` builds the normalised string once per document (vectorised with numpy:
ASCII characters go through a lookup table, only the non-ASCII ones are folded one by one),
so aligning hundreds of quotes against a 300-page filing costs one pass over its text.

When the exact normalised sequence is absent, an optional fuzzy fallback anchors fixed-size
pieces of the quote and keeps the placement most pieces agree on; such alignments are
reported with ``exact=False`` and the share of pieces found.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from finchunk.model import Span

#: Length of the quote pieces the fuzzy fallback anchors, in normalised characters.
PIECE = 24
#: Share of pieces that must agree for a fuzzy alignment.
MIN_FUZZY_SCORE = 0.6
#: Occurrences of one piece considered by the fuzzy fallback (bounds the work per quote).
MAX_OCCURRENCES = 64

_ASCII_KEEP = np.zeros(128, dtype=bool)
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789":
    _ASCII_KEEP[_c] = True
_ASCII_LOWER = np.arange(128, dtype=np.uint32)
_ASCII_LOWER[ord("A") : ord("Z") + 1] += 32


@lru_cache(maxsize=8192)
def fold_char(ch: str) -> str:
    """The normalised form of one character: possibly empty, possibly several characters."""
    decomposed = unicodedata.normalize("NFKD", ch)
    return "".join(c for c in decomposed.lower() if c.isalnum() and not unicodedata.combining(c))


def normalize_quote(text: str) -> str:
    """The normalised alphanumeric sequence of ``text`` (no offsets)."""
    if text.isascii():
        return "".join(c for c in text.lower() if c.isalnum())
    return "".join(fold_char(c) for c in text)


def _normalize_with_offsets(text: str) -> tuple[str, np.ndarray]:
    """Normalised sequence of ``text`` and, for each of its characters, the source offset."""
    if not text:
        return "", np.zeros(0, dtype=np.int64)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    ascii_mask = codes < 128
    rep = np.zeros(codes.size, dtype=np.int64)
    ascii_idx = np.flatnonzero(ascii_mask)
    keep = _ASCII_KEEP[codes[ascii_idx]]
    rep[ascii_idx[keep]] = 1
    lowered = np.zeros(codes.size, dtype=np.uint32)
    lowered[ascii_idx] = _ASCII_LOWER[codes[ascii_idx]]
    other = np.flatnonzero(~ascii_mask)
    folds = [fold_char(chr(int(codes[p]))) for p in other]
    for p, f in zip(other, folds, strict=True):
        rep[p] = len(f)
    out_codes = np.repeat(lowered, rep)
    ends = np.cumsum(rep)
    for p, f in zip(other, folds, strict=True):
        if f:
            start = int(ends[p]) - len(f)
            out_codes[start : start + len(f)] = [ord(c) for c in f]
    offsets = np.repeat(np.arange(codes.size, dtype=np.int64), rep)
    return out_codes.tobytes().decode("utf-32-le"), offsets


@dataclass(frozen=True, slots=True)
class Alignment:
    """Where a quote sits in the text. ``score`` is 1.0 for exact matches."""

    span: Span
    exact: bool
    score: float = 1.0


class QuoteIndex:
    """A document's normalised text, built once, to align many quotes against it."""

    __slots__ = ("text", "norm", "_offsets")

    def __init__(self, text: str) -> None:
        self.text = text
        self.norm, self._offsets = _normalize_with_offsets(text)

    def _norm_range(self, region: Span | None) -> tuple[int, int]:
        if region is None:
            return 0, len(self.norm)
        lo = int(np.searchsorted(self._offsets, region[0], side="left"))
        hi = int(np.searchsorted(self._offsets, region[1], side="left"))
        return lo, hi

    def _span(self, i: int, j: int) -> Span:
        """Source span of normalised characters ``[i, j)``."""
        return int(self._offsets[i]), int(self._offsets[j - 1]) + 1

    def align(
        self, quote: str, region: Span | None = None, *, fuzzy: bool = False
    ) -> Alignment | None:
        """Align ``quote`` inside ``region`` (the whole text by default).

        The first exact occurrence wins; with ``fuzzy`` a near match is tried next.
        """
        q = normalize_quote(quote)
        if not q:
            return None
        lo, hi = self._norm_range(region)
        i = self.norm.find(q, lo, hi)
        if i >= 0:
            return Alignment(self._span(i, i + len(q)), exact=True)
        if fuzzy:
            return self._fuzzy(q, lo, hi)
        return None

    def _fuzzy(self, q: str, lo: int, hi: int) -> Alignment | None:
        """Anchor pieces of ``q``; keep the placement (quote start) most pieces agree on."""
        pieces = [q[p : p + PIECE] for p in range(0, len(q), PIECE)]
        pieces = [p for p in pieces if len(p) >= PIECE // 2]
        if not pieces:
            return None
        hits: dict[int, list[tuple[int, int, int]]] = {}
        for n, piece in enumerate(pieces):
            found = 0
            pos = self.norm.find(piece, lo, hi)
            while pos >= 0 and found < MAX_OCCURRENCES:
                # Placements agree when their implied quote starts fall in neighbouring
                # buckets (words glued or dropped shift later pieces a little).
                bucket = (pos - n * PIECE) // (2 * PIECE)
                hits.setdefault(bucket, []).append((n, pos, pos + len(piece)))
                found += 1
                pos = self.norm.find(piece, pos + 1, hi)
        if not hits:
            return None

        def around(b: int) -> list[tuple[int, int, int]]:
            return [h for d in (-1, 0, 1) for h in hits.get(b + d, ())]

        best = max(sorted(hits), key=lambda b: len({n for n, _, _ in around(b)}))
        anchored = around(best)
        score = len({n for n, _, _ in anchored}) / len(pieces)
        if score < MIN_FUZZY_SCORE:
            return None
        start = min(s for _, s, _ in anchored)
        end = max(e for _, _, e in anchored)
        return Alignment(self._span(start, end), exact=False, score=round(score, 3))


def align_quote(text: str, quote: str, *, fuzzy: bool = False) -> Span | None:
    """Span of ``text`` that ``quote`` reproduces up to case, spacing and punctuation."""
    found = QuoteIndex(text).align(quote, fuzzy=fuzzy)
    return found.span if found else None
