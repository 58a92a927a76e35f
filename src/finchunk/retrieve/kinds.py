"""The retriever kinds, apart from the retrievers themselves so that naming one (a CLI
option, a config) does not import numpy or an index."""

from __future__ import annotations

from enum import StrEnum

from finchunk.errors import InputError


class RetrieverKind(StrEnum):
    BM25 = "bm25"
    DENSE = "dense"
    HYBRID = "hybrid"


def parse_retriever(name: str) -> RetrieverKind:
    try:
        return RetrieverKind(name.strip().lower())
    except ValueError:
        choices = ", ".join(r.value for r in RetrieverKind)
        raise InputError(f"unknown retriever {name!r}; choose from {choices}") from None
