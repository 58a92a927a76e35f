"""Recursive splitting: cut on the coarsest separator that works, then merge neighbours.

Every piece keeps its separator (it stays at the end of the piece before it), so the
pieces tile the text and nothing is lost; only whitespace at chunk ends is trimmed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, count
from operator import add

from finchunk.chunk.base import BodyText, window_chunks
from finchunk.collector import collector_paused
from finchunk.errors import InputError
from finchunk.model import Chunk, Document, Span

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ")


def _cut(text: str, start: int, end: int, sep: str) -> list[int]:
    """End offsets of the pieces of ``[start, end)`` cut after each ``sep`` (C-speed split)."""
    parts = text[start:end].split(sep)
    if len(parts) == 1:
        return [end]
    n = len(sep)
    # ends[k] = start + the lengths of pieces 0..k + (k + 1) separators, in C-level loops.
    ends = list(map(add, accumulate(map(len, parts[:-1])), count(start + n, n)))
    if ends[-1] < end:
        ends.append(end)  # text after the last separator
    return ends


def _lead(text: str, s: int, e: int) -> int:
    while s < e and text[s].isspace():
        s += 1
    return s


def _trail(text: str, s: int, e: int) -> int:
    while e > s and text[e - 1].isspace():
        e -= 1
    return e


def _trimmed_len(text: str, s: int, e: int) -> int:
    s = _lead(text, s, e)
    return _trail(text, s, e) - s


def merge_pieces(start: int, ends: Sequence[int], size: int) -> list[Span]:
    """Greedily merge the contiguous pieces ``start..ends[0]``, ``ends[0]..ends[1]``, … into
    ranges of at most ``size`` characters (a single longer piece stays alone); each range
    end is found by bisection, not by walking the pieces."""
    out: list[Span] = []
    i, n = 0, len(ends)
    s0 = start
    while i < n:
        j = max(bisect_right(ends, s0 + size, i) - 1, i)
        out.append((s0, ends[j]))
        s0 = ends[j]
        i = j + 1
    return out


def recursive_ranges(
    text: str, start: int, end: int, size: int, separators: Sequence[str] = DEFAULT_SEPARATORS
) -> list[Span]:
    """Ranges of at most ``size`` characters (after trimming) tiling ``[start, end)``.

    As LangChain's RecursiveCharacterTextSplitter: pieces that fit are merged with their
    neighbours; a piece too long is split with the next separator and its sub-pieces are
    merged among themselves, so a long table is cut at row boundaries without being glued
    to the paragraph before it.
    """
    if end - start <= size or _trimmed_len(text, start, end) <= size:
        return [(start, end)]
    for i, sep in enumerate(separators):
        if text.find(sep, start, end) < 0:
            continue  # one piece: _cut would copy and split the range to find that out
        ends = _cut(text, start, end, sep)
        if len(ends) > 1:
            return _merge_or_recurse(text, start, ends, size, separators[i + 1 :])
    return [(s, min(s + size, end)) for s in range(start, end, size)]


def _merge_or_recurse(
    text: str, start: int, ends: list[int], size: int, rest: Sequence[str]
) -> list[Span]:
    out: list[Span] = []
    run_start, run_ends = start, []
    s = start
    for e in ends:
        if e - s <= size or _trimmed_len(text, s, e) <= size:
            run_ends.append(e)
        else:
            out.extend(merge_pieces(run_start, run_ends, size))
            out.extend(recursive_ranges(text, s, e, size, rest))
            run_start, run_ends = e, []
        s = e
    out.extend(merge_pieces(run_start, run_ends, size))
    return out


@dataclass(frozen=True, slots=True)
class Recursive:
    """LangChain-style recursive splitting with exact offsets."""

    size: int = 500
    separators: tuple[str, ...] = DEFAULT_SEPARATORS
    header: bool = False

    def __post_init__(self) -> None:
        if self.size < 1:
            raise InputError(f"recursive: size must be positive, got {self.size}")
        if any(not s for s in self.separators):
            raise InputError("recursive: separators must be non-empty strings")

    @property
    def name(self) -> str:
        return "recursive"

    @collector_paused
    def chunk(self, doc: Document) -> list[Chunk]:
        body = BodyText(doc)
        ranges = recursive_ranges(body.text, 0, len(body.text), self.size, self.separators)
        return window_chunks(doc, body, ranges, header=self.header)
