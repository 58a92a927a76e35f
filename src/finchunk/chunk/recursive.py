"""Recursive splitting: cut on the coarsest separator that works, then merge neighbours.

Every piece keeps its separator (it stays at the end of the piece before it), so the
pieces tile the text and nothing is lost; only whitespace at chunk ends is trimmed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from finchunk.chunk.base import BodyText, window_chunks
from finchunk.errors import InputError
from finchunk.model import Chunk, Document, Span

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ")


def _cut(text: str, start: int, end: int, sep: str) -> list[Span]:
    """``[start, end)`` cut after each occurrence of ``sep``."""
    out: list[Span] = []
    pos = start
    while True:
        i = text.find(sep, pos, end)
        if i < 0 or i + len(sep) >= end:
            break
        out.append((pos, i + len(sep)))
        pos = i + len(sep)
    out.append((pos, end))
    return out


def _lead(text: str, s: int, e: int) -> int:
    while s < e and text[s].isspace():
        s += 1
    return s


def _trail(text: str, s: int, e: int) -> int:
    while e > s and text[e - 1].isspace():
        e -= 1
    return e


def merge_pieces(text: str, pieces: Sequence[Span], size: int) -> list[Span]:
    """Merge neighbouring pieces while the trimmed result fits in ``size``."""
    out: list[Span] = []
    cur_s, cur_e, lead = -1, -1, 0
    for s, e in pieces:
        if cur_s < 0:
            cur_s, cur_e, lead = s, e, _lead(text, s, e)
        elif _trail(text, lead, e) - lead <= size:
            cur_e = e
        else:
            out.append((cur_s, cur_e))
            cur_s, cur_e, lead = s, e, _lead(text, s, e)
    if cur_s >= 0:
        out.append((cur_s, cur_e))
    return out


def _trimmed_len(text: str, s: int, e: int) -> int:
    s = _lead(text, s, e)
    return _trail(text, s, e) - s


def recursive_ranges(
    text: str, start: int, end: int, size: int, separators: Sequence[str] = DEFAULT_SEPARATORS
) -> list[Span]:
    """Ranges of at most ``size`` (after trimming) tiling ``[start, end)``.

    As LangChain's RecursiveCharacterTextSplitter: pieces that fit are merged with their
    neighbours; a piece too long is split with the next separator and its sub-pieces are
    merged among themselves, so a long table is cut at row boundaries without being glued
    to the paragraph before it.
    """
    if end - start <= size or _trimmed_len(text, start, end) <= size:
        return [(start, end)]
    for i, sep in enumerate(separators):
        pieces = _cut(text, start, end, sep)
        if len(pieces) > 1:
            return _merge_or_recurse(text, pieces, size, separators[i + 1 :])
    return [(s, min(s + size, end)) for s in range(start, end, size)]


def _merge_or_recurse(
    text: str, pieces: Sequence[Span], size: int, rest: Sequence[str]
) -> list[Span]:
    out: list[Span] = []
    good: list[Span] = []
    for s, e in pieces:
        if e - s <= size or _trimmed_len(text, s, e) <= size:
            good.append((s, e))
            continue
        out.extend(merge_pieces(text, good, size))
        good = []
        out.extend(recursive_ranges(text, s, e, size, rest))
    out.extend(merge_pieces(text, good, size))
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

    def chunk(self, doc: Document) -> list[Chunk]:
        body = BodyText(doc)
        ranges = recursive_ranges(body.text, 0, len(body.text), self.size, self.separators)
        return window_chunks(doc, body, ranges, header=self.header, kind="window")
