"""Chunking strategies. Each is a frozen config whose ``chunk(doc)`` returns ``list[Chunk]``.

* :class:`Fixed` — character windows with overlap;
* :class:`Recursive` — split on the coarsest separator that works, merge neighbours;
* :class:`Structure` — sections, whole tables, lists, notes carried by what cites them;
* :class:`ByTitle` — the paper's element chunking (new chunk at each heading and table);
* :class:`Tokens` — windows of ``size`` cl100k tokens (the paper's "Base 128/256/512");
* :class:`RecursiveOverlap` — recursive chunks that repeat up to ``overlap`` characters
  of the previous one (FinanceBench's own baseline: 1,024 characters, overlap 30).

Called, this module is :func:`finchunk.api.chunk`: ``finchunk.chunk(doc)`` chunks with the
CLI's defaults (the context header on, where these classes default to none).

Invariant (tested with hypothesis): for every chunk ``c`` of a document ``d``,
``c.body == "\\n\\n".join(d.text[s:e] for s, e in c.spans)``, and every non-whitespace
character of ``d``'s body outside headings lies in some chunk.
"""

from __future__ import annotations

from enum import StrEnum
from importlib import import_module
from typing import TYPE_CHECKING, Any

from finchunk.errors import InputError

if TYPE_CHECKING:
    from finchunk.chunk.base import Chunker, context_header
    from finchunk.chunk.bytitle import ByTitle
    from finchunk.chunk.fixed import Fixed
    from finchunk.chunk.overlap import RecursiveOverlap
    from finchunk.chunk.recursive import Recursive
    from finchunk.chunk.structure import Structure
    from finchunk.chunk.tokens import Tokens

#: Where each chunker lives: imported on first use, so that ``Strategy`` and the defaults
#: (all the CLI needs to build its options) cost no parser or chunker import.
_LAZY = {
    "Chunker": "base",
    "context_header": "base",
    "ByTitle": "bytitle",
    "Fixed": "fixed",
    "RecursiveOverlap": "overlap",
    "Recursive": "recursive",
    "Structure": "structure",
    "Tokens": "tokens",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(f"finchunk.chunk.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'finchunk.chunk' has no attribute {name!r}")


__all__ = [
    "ByTitle",
    "Chunker",
    "Fixed",
    "Recursive",
    "RecursiveOverlap",
    "Strategy",
    "Structure",
    "Tokens",
    "context_header",
    "make_chunker",
]


class Strategy(StrEnum):
    FIXED = "fixed"
    RECURSIVE = "recursive"
    STRUCTURE = "structure"
    BYTITLE = "bytitle"
    TOKENS = "tokens"


#: Sizes when none is given. Structure has none here: it takes its document's source
#: kind's (:data:`finchunk.chunk.source.STRUCTURE_SIZES`).
DEFAULT_SIZES = {
    Strategy.FIXED: 500,
    Strategy.RECURSIVE: 500,
    Strategy.BYTITLE: 2048,
    Strategy.TOKENS: 256,  # tokens, not characters
}


def parse_strategy(name: str) -> Strategy:
    try:
        return Strategy(name.strip().lower())
    except ValueError:
        choices = ", ".join(s.value for s in Strategy)
        raise InputError(f"unknown strategy {name!r}; choose from {choices}") from None


def make_chunker(
    strategy: Strategy | str,
    *,
    size: int | None = None,
    overlap: int | None = None,
    header: bool = True,
    split_tables: bool = False,
) -> Chunker:
    """A chunker from a strategy name and the options the CLI exposes (``split_tables``:
    structure only, long tables as row groups); the context header
    (:mod:`finchunk.chunk.header`) is on unless ``header=False``. The chunker dataclasses
    themselves default to no header: a bare ``Structure()`` chunks bodies only."""
    from finchunk.chunk.bytitle import ByTitle
    from finchunk.chunk.fixed import Fixed
    from finchunk.chunk.overlap import RecursiveOverlap
    from finchunk.chunk.recursive import Recursive
    from finchunk.chunk.structure import Structure
    from finchunk.chunk.tokens import Tokens

    s = strategy if isinstance(strategy, Strategy) else parse_strategy(strategy)
    if s is Strategy.STRUCTURE:
        if overlap:
            raise InputError("structure: --overlap applies to fixed, recursive and tokens only")
        return Structure(size=size, header=header, split_tables=split_tables)
    n = size if size is not None else DEFAULT_SIZES[s]
    if s is Strategy.FIXED:
        ov = overlap if overlap is not None else n // 10
        return Fixed(size=n, overlap=ov, header=header)
    if s is Strategy.TOKENS:
        return Tokens(size=n, overlap=overlap or 0, header=header)
    if s is Strategy.RECURSIVE:
        if overlap:
            return RecursiveOverlap(size=n, overlap=overlap, header=header)
        return Recursive(size=n, header=header)
    if overlap:
        raise InputError(f"{s.value}: --overlap applies to fixed, recursive and tokens only")
    return ByTitle(size=n, header=header)


# ``finchunk.chunk(...)`` calls :func:`finchunk.api.chunk` (:mod:`finchunk._callable`).
from finchunk._callable import make_callable  # noqa: E402

make_callable(__name__, "chunk")
