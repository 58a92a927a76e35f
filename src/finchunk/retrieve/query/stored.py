"""A stored index as the retriever factory's text source: its BM25 postings and card
postings memory-mapped with the live statistics, its vectors, and retrievers over all of
it or over kept positions (:meth:`StoredSource.retriever`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.index.manifest import (
    LIVE_CARD_DF,
    LIVE_DF,
    IndexMismatchError,
    document_positions,
    index_array,
)
from finchunk.retrieve.index.segments import (
    BM25_DIR,
    CARDS_DIR,
    VECTORS,
)
from finchunk.retrieve.kinds import DEFAULT_EMBEDDER, RetrieverKind
from finchunk.retrieve.lexical.bm25 import BM25Index, BM25Params, CorpusStats, SegmentPart
from finchunk.retrieve.lexical.postings import Segment

if TYPE_CHECKING:
    from collections.abc import Callable

    from finchunk.retrieve.base import Retriever
    from finchunk.retrieve.index.store import Index
    from finchunk.retrieve.lexical.analyzers import Analyzer
    from finchunk.retrieve.lexical.lexical import LexicalIndex
    from finchunk.retrieve.neural.dense import DenseIndex, Embedder
    from finchunk.retrieve.neural.rerank import CandidateVectors
    from finchunk.retrieve.neural.splade_impacts import Impacts
    from finchunk.retrieve.query.cards import DocumentMap
    from finchunk.retrieve.query.priors import PriorParams
    from finchunk.retrieve.query.retriever import RetrieverSpec
    from finchunk.retrieve.query.texts import InMemoryTexts


class StoredSource:
    """A :class:`~finchunk.retrieve.query.texts.TextSource` over an opened
    :class:`~finchunk.retrieve.index.store.Index`; each part is made once, on first use."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.root, self.gen, self.header = index.root, index.gen, index.header
        self._lexical: dict[BM25Params, LexicalIndex] = {}
        self._vectors: np.ndarray | None = None
        self._dense: dict[str, DenseIndex] = {}
        self._candidates: dict[str, CandidateVectors] = {}

    @property
    def texts(self) -> list[str]:
        return self.index.texts

    def texts_at(self, positions: np.ndarray) -> list[str]:
        return self.index.texts_at(positions)

    @cached_property
    def documents(self) -> DocumentMap:
        """Each chunk's document and the documents' cards (made when each document was
        indexed: a search of 10k documents no longer spends 0.4 s making them), for
        retrievers with a document prior."""
        from finchunk.retrieve.lexical.analyzers import PLAIN
        from finchunk.retrieve.lexical.lexical import LexicalIndex
        from finchunk.retrieve.query.cards import DocumentMap

        cards = [d.card for d in self.index.manifest.documents]
        stored = {(PLAIN, self.header.bm25_params): LexicalIndex(self.stored_cards())}
        return DocumentMap(
            self.index.chunk_doc,
            cards,
            self.index.doc_metadata,
            self.index.meta_index,
            stored,
            canonical=True,
        )

    def stored_cards(self) -> BM25Index:
        """BM25 of the documents' cards, from the segments' card postings with the live
        cards' statistics: what BM25 over every card (in document order) would give."""
        segments = {n: Segment.load(self.root / n / CARDS_DIR) for n in self.header.segments}
        positions = document_positions(
            self.index.manifest, {n: s.size for n, s in segments.items()}
        )
        parts = self._parts(segments, positions, LIVE_CARD_DF, self.header.live_card_df)
        stats = CorpusStats(**self.header.card_stats)
        return BM25Index.from_parts(
            self.header.bm25_params, parts, stats, len(self.index.manifest.documents)
        )

    def _parts(
        self,
        segments: Mapping[str, Segment],
        positions: Mapping[str, np.ndarray | None],
        live_folder: str,
        live: Sequence[str],
    ) -> list[SegmentPart]:
        """The segments as BM25 parts: their rows at ``positions``, and the generation's
        live document frequencies for the segments named in ``live`` (memory-mapped)."""
        parts = []
        for name, segment in segments.items():
            df = None
            if name in live:
                df = index_array(self.gen / live_folder / f"{name}.npy")
            parts.append(SegmentPart(segment, positions[name], df))
        return parts

    def lexical(
        self, analyzer: Analyzer | None = None, params: BM25Params | None = None
    ) -> LexicalIndex:
        """The stored BM25 index (``params`` default: the stored ones; ``analyzer``: the
        plain one); an analyzer or parameters giving other parameters are built from the
        stored texts (once)."""
        from finchunk.retrieve.lexical.analyzers import PLAIN
        from finchunk.retrieve.lexical.lexical import LexicalIndex

        analyzer = PLAIN if analyzer is None else analyzer
        stored = self.header.bm25_params
        key = analyzer.params(params or stored)
        if key not in self._lexical:
            if key == stored:
                self._lexical[key] = LexicalIndex(self.stored_bm25())
            else:
                self._lexical[key] = LexicalIndex.build(self.texts, key)
        return self._lexical[key].with_analyzer(analyzer)

    def stored_bm25(self) -> BM25Index:
        """The BM25 index of the segments, memory-mapped, with the live chunks' statistics."""
        segments = {n: Segment.load(self.root / n / BM25_DIR) for n in self.header.segments}
        parts = self._parts(segments, self.index.positions, LIVE_DF, self.header.live_df)
        stats = CorpusStats(**self.header.bm25_stats)
        return BM25Index.from_parts(self.header.bm25_params, parts, stats, self.index.size)

    def vectors(self) -> np.ndarray:
        if self._vectors is None:
            files = [self.root / s / VECTORS for s in self.header.segments]
            if self.header.dense is None or not all(f.is_file() for f in files):
                raise InputError(
                    f"{self.root}: this index has no dense vectors; rebuild it "
                    "with `finchunk index ... --dense`"
                )
            parts = [index_array(f) for f in files]
            gather = self.index._gather()
            if gather is None:
                self._vectors = parts[0] if parts else np.zeros((0, self.header.dense["dim"]))
            else:
                self._vectors = np.concatenate(parts)[gather]
        return self._vectors

    def dense(self, embedder: Embedder | None = None) -> DenseIndex:
        from finchunk.retrieve.neural.dense import DenseIndex, make_embedder

        model = self.header.model
        vectors = self.vectors()
        emb = embedder or make_embedder(model or "")
        if emb.name != model:
            raise IndexMismatchError(
                f"{self.root}: index vectors were made with model {model!r}, but the query "
                f"embedder is {emb.name!r}; use the same model or rebuild the index"
            )
        if emb.name not in self._dense:
            self._dense[emb.name] = DenseIndex(np.asarray(vectors), emb)
        return self._dense[emb.name]

    def candidate_vectors(self, embedder: Embedder) -> CandidateVectors:
        """Passage vectors for a reranker: the stored ones when the model matches, else
        computed for the candidates only."""
        from finchunk.retrieve.neural.rerank import CandidateVectors

        if embedder.name not in self._candidates:
            stored = self.vectors() if self.header.model == embedder.name else None
            self._candidates[embedder.name] = CandidateVectors(self.texts, embedder, stored)
        return self._candidates[embedder.name]

    def retriever(
        self,
        spec: RetrieverSpec | RetrieverKind | str = RetrieverKind.BM25,
        embedder: Embedder | None = None,
        kept: np.ndarray | None = None,
        prior: PriorParams | None = None,
        reranker: str | None = None,
    ) -> Retriever:
        """A retriever from the factory over this index (dense parts use the index's own
        model unless ``embedder`` is given). ``kept``: positions (ascending) to build it
        on alone, scoring with their own statistics; it still answers in index positions.
        ``prior``: the document prior's parameters (default: :class:`PriorParams`');
        ``reranker``: the ``model`` reranker's model."""
        from finchunk.retrieve.query.retriever import (
            RetrieverOptions,
            make_retriever,
            parse_retriever,
        )
        from finchunk.retrieve.query.texts import Within

        model = embedder if embedder is not None else (self.header.model or DEFAULT_EMBEDDER)
        options = RetrieverOptions(embedder=model, bm25=self.header.bm25_params, reranker=reranker)
        if prior is not None:
            options = replace(options, prior=prior)
        if kept is None:
            return make_retriever(spec, self, options)
        embeds = parse_retriever(spec).needs_embedder
        if embeds:  # an unfiltered search's checks (vectors, the same model); its embedder
            options = replace(options, embedder=self.dense(embedder).embedder)
        sub = self.subset(kept, vectors=embeds)
        return Within(kept, make_retriever(spec, sub, options), self.index.size)

    def subset(self, positions: np.ndarray, vectors: bool = True) -> InMemoryTexts:
        """The chunks at ``positions`` as a source of their own (their own BM25
        statistics), reading only their texts; stored vectors are sliced (``vectors``:
        whether to read them at all)."""
        from finchunk.retrieve.query.texts import InMemoryTexts

        model = self.header.model
        stored = {} if model is None or not vectors else {model: self.vectors()[positions]}

        def documents() -> DocumentMap:
            return self.documents.subset(positions)

        impacts = None
        if self.header.splade_model is not None:

            def impacts_at(at: np.ndarray) -> Impacts:
                return self.index.splade_impacts(positions[at])

            impacts = (self.header.splade_model, impacts_at)
        return InMemoryTexts(self.texts_at(positions), documents, stored, impacts)

    def impacts_for(self, model: str) -> Callable[[np.ndarray], Impacts] | None:
        """:meth:`Index.splade_impacts` when the index stores ``model``'s impacts on today's
        grid, else None (a SPLADE rerank then encodes its candidates)."""
        from finchunk.retrieve.neural.splade_impacts import IMPACT_SCALE

        splade = self.header.splade
        if splade is None or splade.get("model") != model or splade.get("scale") != IMPACT_SCALE:
            return None
        return self.index.splade_impacts
