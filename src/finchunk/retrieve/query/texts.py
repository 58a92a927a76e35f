"""Text sources: what a retriever ranks (:class:`TextSource`), texts in memory
(:class:`InMemoryTexts`) and a retriever over kept positions (:class:`Within`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from finchunk.retrieve.base import Hits, Retriever
from finchunk.retrieve.lexical.analyzers import Analyzer
from finchunk.retrieve.lexical.bm25 import BM25Params
from finchunk.retrieve.lexical.lexical import LexicalIndex
from finchunk.retrieve.neural.dense import DenseIndex, Embedder
from finchunk.retrieve.neural.rerank import CandidateVectors
from finchunk.retrieve.query.cards import DocumentMap


class TextSource(Protocol):
    """The texts a retriever ranks (positions index them) and their shared, costly parts;
    ``documents``: which document each text is in, and the documents' cards (None: not
    known; retrievers with a document prior then refuse)."""

    @property
    def texts(self) -> Sequence[str]: ...

    def texts_at(self, positions: np.ndarray) -> list[str]:
        """The texts at ``positions`` alone (a reranker reads its candidates', not all)."""
        ...

    @property
    def documents(self) -> DocumentMap | None: ...

    def lexical(self, analyzer: Analyzer, params: BM25Params) -> LexicalIndex: ...

    def dense(self, embedder: Embedder) -> DenseIndex: ...

    def candidate_vectors(self, embedder: Embedder) -> CandidateVectors: ...


class InMemoryTexts:
    """A :class:`TextSource` over texts in memory; each part is built once, on first use.
    ``documents`` may be a function that makes the map when a retriever first asks for it
    (cards cost a persisted index's search a second per 10k documents). ``vectors``:
    passage vectors already computed, by embedding model name (a persisted index's), used
    instead of embedding the texts again."""

    def __init__(
        self,
        texts: Sequence[str],
        documents: DocumentMap | Callable[[], DocumentMap] | None = None,
        vectors: Mapping[str, np.ndarray] | None = None,
        impacts: tuple[str, Callable[[np.ndarray], Any]] | None = None,
    ) -> None:
        self._texts = list(texts)
        self._impacts = impacts
        self._documents_of = documents if callable(documents) else None
        self._documents = None if callable(documents) else documents
        self._check_documents()
        self._vectors = dict(vectors or {})
        for name, v in self._vectors.items():
            if len(v) != len(self._texts):
                raise ValueError(f"{len(v)} vectors of {name} for {len(self._texts)} texts")
        self._lexical: dict[BM25Params, LexicalIndex] = {}
        self._dense: dict[str, DenseIndex] = {}
        self._candidates: dict[str, CandidateVectors] = {}

    @property
    def texts(self) -> Sequence[str]:
        return self._texts

    def texts_at(self, positions: np.ndarray) -> list[str]:
        return [self._texts[p] for p in positions.tolist()]

    @property
    def documents(self) -> DocumentMap | None:
        if self._documents_of is not None:
            self._documents, self._documents_of = self._documents_of(), None
            self._check_documents()
        return self._documents

    def _check_documents(self) -> None:
        d = self._documents
        if d is not None and d.groups.size != len(self._texts):
            raise ValueError(f"document map for {d.groups.size} of {len(self._texts)} texts")

    def lexical(self, analyzer: Analyzer, params: BM25Params) -> LexicalIndex:
        """BM25 with ``analyzer``'s parameters from ``params``; one index per distinct
        parameters (``words`` and ``words-fin`` share theirs)."""
        key = analyzer.params(params)
        if key not in self._lexical:
            self._lexical[key] = LexicalIndex.build(self._texts, key, analyzer)
        return self._lexical[key].with_analyzer(analyzer)

    def dense(self, embedder: Embedder) -> DenseIndex:
        if embedder.name not in self._dense:
            stored = self._vectors.get(embedder.name)
            self._dense[embedder.name] = (
                DenseIndex.build(self._texts, embedder)
                if stored is None
                else DenseIndex(np.asarray(stored, dtype=np.float32), embedder)
            )
        return self._dense[embedder.name]

    def impacts_for(self, model: str) -> Callable[[np.ndarray], Any] | None:
        """The stored SPLADE impacts of ``model`` by position (an index's, for a subset
        of it), or None: a SPLADE rerank encodes its candidates."""
        if self._impacts is None or self._impacts[0] != model:
            return None
        return self._impacts[1]

    def candidate_vectors(self, embedder: Embedder) -> CandidateVectors:
        if embedder.name not in self._candidates:
            stored = self._vectors.get(embedder.name)
            self._candidates[embedder.name] = CandidateVectors(self._texts, embedder, stored)
        return self._candidates[embedder.name]

    def subset(self, positions: np.ndarray) -> InMemoryTexts:
        """The texts at ``positions`` as a source of their own (own BM25 statistics);
        passage vectors already computed are sliced, not embedded again."""
        docs = self.documents.subset(positions) if self.documents is not None else None
        vectors = {name: v[positions] for name, v in self._vectors.items()}
        vectors.update(
            {n: d.vectors[positions] for n, d in self._dense.items() if n not in vectors}
        )
        return InMemoryTexts([self._texts[i] for i in positions.tolist()], docs, vectors)


class Within:
    """A retriever over some texts of a source (``positions``, ascending), built on them
    alone, so it scores with their own statistics (a filtered search's kept documents);
    it answers in the source's positions, and a ``mask`` is the source's (``size`` long)."""

    def __init__(self, positions: np.ndarray, retriever: Retriever, size: int) -> None:
        self.positions = positions
        self.retriever = retriever
        self._size = size

    @property
    def size(self) -> int:
        return self._size

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        if not self.positions.size:
            return Hits.empty()
        found = self.retriever.search(query, k, None if mask is None else mask[self.positions])
        return Hits(self.positions[found.positions], found.scores)
