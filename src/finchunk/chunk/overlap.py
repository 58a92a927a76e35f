"""Recursive splitting with overlap: FinanceBench's own baseline (1,024 characters, overlap 30).

LangChain's ``RecursiveCharacterTextSplitter(chunk_size=1024, chunk_overlap=30)`` repeats the
tail of each chunk at the start of the next. Here the chunks of
:class:`~finchunk.chunk.recursive.Recursive` are kept, and each one after the first starts up
to ``overlap`` characters earlier, at a word start, so the repeated tail is whole words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from finchunk.chunk.base import BodyText, window_chunks
from finchunk.chunk.recursive import recursive_ranges
from finchunk.collector import collector_paused
from finchunk.errors import InputError
from finchunk.model import Chunk, Document, Span


def with_overlap(text: str, ranges: Sequence[Span], overlap: int) -> list[Span]:
    """Each range after the first starts up to ``overlap`` characters earlier, at a word."""
    out: list[Span] = []
    for n, (s, e) in enumerate(ranges):
        if n and overlap:
            lo = max(ranges[n - 1][0], s - overlap)
            cut = s
            for i in range(lo, s):
                if text[i].isspace() and not text[i + 1].isspace():
                    cut = i + 1
                    break
            s = cut
        out.append((s, e))
    return out


@dataclass(frozen=True, slots=True)
class RecursiveOverlap:
    """Recursive chunks of at most ``size`` characters, each led by ``overlap`` more."""

    size: int = 1024
    overlap: int = 30
    header: bool = False

    def __post_init__(self) -> None:
        if self.size < 1:
            raise InputError(f"recursive: size must be positive, got {self.size}")
        if not 0 <= self.overlap < self.size:
            raise InputError(f"recursive: overlap must be in [0, size), got {self.overlap}")

    @property
    def name(self) -> str:
        return "recursive"

    @collector_paused
    def chunk(self, doc: Document) -> list[Chunk]:
        body = BodyText(doc)
        ranges = recursive_ranges(body.text, 0, len(body.text), self.size)
        ranges = with_overlap(body.text, ranges, self.overlap)
        return window_chunks(doc, body, ranges, header=self.header)
