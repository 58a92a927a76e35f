"""How a chunk is represented in the index: ``Variant.index_text`` functions, by name.

* ``text`` (the default): the chunk's text, header and body, as delivered;
* ``naive``: the paper's naive representation (arXiv:2402.05131): the context header and
  the first two sentences of the body; for a table chunk, its caption (the lines above the
  first table row: lead-in, units) and its column-header rows instead.

Only what is indexed changes; the chunk delivered (and scored) is the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum

from finchunk.errors import InputError
from finchunk.model import HEADER_JOINER, Chunk, ChunkKind

IndexText = Callable[[Chunk], str]

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[^\s])")
_DELIMITER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


class Represent(StrEnum):
    TEXT = "text"
    NAIVE = "naive"


def first_sentences(text: str, n: int = 2) -> str:
    parts = _SENTENCE.split(text.strip(), maxsplit=n)
    return " ".join(parts[:n])


def table_head(body: str) -> str:
    """The caption lines above a table's first row and its column-header rows (through a
    pipe table's delimiter row; the first line of a table without one)."""
    lines = [ln for ln in body.split("\n") if ln.strip()]
    for i, ln in enumerate(lines):
        if _DELIMITER.match(ln):
            return "\n".join(lines[:i])
    first_row = next((i for i, ln in enumerate(lines) if "|" in ln), 0)
    return "\n".join(lines[: first_row + 1])


def naive_text(chunk: Chunk) -> str:
    summary = table_head(chunk.body) if chunk.kind is ChunkKind.TABLE else ""
    summary = summary or first_sentences(chunk.body)
    return f"{chunk.header}{HEADER_JOINER}{summary}" if chunk.header else summary


def index_text(name: Represent | str) -> IndexText | None:
    """The ``index_text`` function of a representation (None: the chunk's text)."""
    try:
        r = Represent(str(name).strip().lower())
    except ValueError:
        choices = ", ".join(x.value for x in Represent)
        raise InputError(f"--represent: unknown {name!r}; choose from {choices}") from None
    return naive_text if r is Represent.NAIVE else None
