"""Fixed-size character windows: the baseline every other strategy is compared with."""

from __future__ import annotations

from dataclasses import dataclass

from finchunk.chunk.base import BodyText, window_chunks
from finchunk.collector import collector_paused
from finchunk.errors import InputError
from finchunk.model import Chunk, Document, Span


def window_ranges(length: int, size: int, overlap: int) -> list[Span]:
    """``[0, length)`` cut into windows of ``size`` that start every ``size - overlap``."""
    step = size - overlap
    out: list[Span] = []
    start = 0
    while start < length:
        end = min(start + size, length)
        out.append((start, end))
        if end == length:
            break
        start += step
    return out


@dataclass(frozen=True, slots=True)
class Fixed:
    """Character windows of ``size`` with ``overlap`` characters shared by neighbours.

    Windows are trimmed of surrounding whitespace, so a chunk's source length is at most
    ``size``.
    """

    size: int = 500
    overlap: int = 50
    header: bool = False

    def __post_init__(self) -> None:
        if self.size < 1:
            raise InputError(f"fixed: size must be positive, got {self.size}")
        if not 0 <= self.overlap < self.size:
            raise InputError(f"fixed: overlap must be in [0, size), got {self.overlap}")

    @property
    def name(self) -> str:
        return "fixed"

    @collector_paused
    def chunk(self, doc: Document) -> list[Chunk]:
        body = BodyText(doc)
        ranges = window_ranges(len(body.text), self.size, self.overlap)
        return window_chunks(doc, body, ranges, header=self.header)
