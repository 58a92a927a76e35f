"""The built-in retriever names, apart from the retrievers themselves so that naming one (a
CLI option) does not import numpy or an index. :mod:`finchunk.retrieve.retriever` registers
a factory for each."""

from __future__ import annotations

from enum import StrEnum


class RetrieverKind(StrEnum):
    """The built-in first stages."""

    BM25 = "bm25"  # the configured text pipeline and parameters (RetrieverOptions.bm25)
    BM25_LESSON = "bm25-lesson"  # the lesson's BM25 exactly (rank_bm25 parity)
    BM25_WORDS = "bm25-words"
    BM25_FIN = "bm25-fin"  # query expansion tuned on FinanceBench: label its figures so
    DENSE = "dense"
    HYBRID = "hybrid"
