"""The query plan: what a question gets, decided once, run the same way over any text source.

A :class:`QueryPlan` is made by :func:`make_plan` from the question, the options and the
facts of what is searched (:class:`SourceFacts`: how many documents and chunks, the model of
its stored vectors, whether it can score kept documents with their own statistics). It
holds every choice — what to search for (the information need apart from the instructions
to the answering model, :mod:`finchunk.retrieve.query.need`), the filters and the documents they
keep, which statistics score those documents, the retriever (``auto`` resolved: first
stage, prior, reranker, depth, fusion weight), the delivery — and the notes that say why.

:func:`run_plan` runs a plan against a :class:`PlanSource`: chunks in memory
(:class:`MemorySource`: ``eval``, FinanceBench), a local index (``search``) or PostgreSQL
(``PgIndex.search``). ``search``, ``PgIndex.search`` and ``evaluate.runs.rank`` all make
and run plans this way, so evaluation measures what search does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from finchunk.retrieve.base import Hits, Retriever
from finchunk.retrieve.kinds import KEPT_LIMIT, Distinct, FilterStatistics
from finchunk.retrieve.neural.dense import Embedder
from finchunk.retrieve.query.auto import auto_retriever
from finchunk.retrieve.query.deliver import AS_RANKED, ChunkFacts, Delivery, deliver, interleave
from finchunk.retrieve.query.filters import Filter
from finchunk.retrieve.query.need import information_need
from finchunk.retrieve.query.priors import PriorParams
from finchunk.retrieve.query.retriever import (
    AutoSpec,
    RetrieverOptions,
    RetrieverSpec,
    make_retriever,
)
from finchunk.retrieve.query.texts import InMemoryTexts, Within


@dataclass(frozen=True, slots=True)
class SourceFacts:
    """What a plan needs to know of what it searches: its documents and chunks, the model
    of its stored passage vectors (None: none), whether a filtered search can score the kept
    documents with their own statistics (PostgreSQL cannot: it only masks), the SPLADE model
    whose document impacts it stores (None: none; the rerank then encodes its candidates)."""

    documents: int
    chunks: int
    model: str | None = None
    kept_statistics: bool = True
    splade: str | None = None


@dataclass(frozen=True, eq=False)
class QueryPlan:
    """Everything a question gets, decided once (see the module's docstring).

    ``question``: as asked; ``query``: what is searched for (the question without the
    instructions to the answerer; ``set_aside``: what was taken out). ``docs``: the
    documents searched, by id (None: all); ``own_statistics``: scored as an index of those
    documents alone (else the whole source's statistics, the others masked out);
    ``entities``: per issuer the question names, its documents (per-entity delivery).
    ``spec``/``prior``/``embedder``/``reranker``: the retriever; ``depth``: how deep it is
    asked (k, deeper when delivery drops chunks); ``pad``: fill a short ranking with the
    other reachable chunks (the lesson's evaluation)."""

    question: str
    query: str
    k: int
    spec: RetrieverSpec
    prior: PriorParams | None = None
    embedder: Embedder | None = None
    reranker: str | None = None
    filters: tuple[Filter, ...] = ()
    docs: tuple[str, ...] | None = None
    own_statistics: bool = False
    entities: tuple[tuple[str, ...], ...] = ()
    delivery: Delivery = AS_RANKED
    depth: int = 0
    pad: bool = False
    set_aside: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: What ``auto`` said of its choice (also among ``notes``; none for a named retriever).
    auto_notes: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """Whether the filters keep no document (nothing to search)."""
        return self.docs is not None and not self.docs and not self.entities


def make_plan(
    question: str,
    retriever: RetrieverSpec | AutoSpec,
    facts: SourceFacts,
    *,
    k: int,
    filters: Sequence[Filter] = (),
    docs: Sequence[str] | None = None,
    kept_chunks: int = 0,
    reached: int | None = None,
    statistics: FilterStatistics = FilterStatistics.AUTO,
    entities: Sequence[Sequence[str]] = (),
    delivery: Delivery = AS_RANKED,
    embedder: Embedder | None = None,
    reranker: str | None = None,
    instructions: bool = False,
    pad: bool = False,
    notes: Sequence[str] = (),
) -> QueryPlan:
    """The plan for ``question`` over a source with ``facts``.

    ``docs``: the documents the filters (or the evaluation's scope) keep, None for all;
    ``kept_chunks``: how many chunks they hold; ``reached``: how many documents they are
    (default ``len(docs)``; ``auto`` adds the document prior over several);
    ``statistics``: which BM25 statistics score them (``auto``: their own when they hold at
    most :data:`KEPT_LIMIT` chunks, else the source's); ``instructions``: search the
    question as asked, instructions to the answerer included (default: the information
    need alone, :mod:`finchunk.retrieve.query.need`).
    """
    said = list(notes)
    need = information_need(question)
    query = question if instructions else need.text
    if need.set_aside and not instructions:
        said.append(need.note())
    if reached is None:
        reached = facts.documents if docs is None else len(set(docs))
    prior, auto_said = None, []
    if isinstance(retriever, AutoSpec):
        choice = auto_retriever(facts.model, embedder, auto_said, reached, query, facts.splade)
        spec, embedder, prior = choice.spec, choice.embedder, choice.prior
        said += auto_said
    else:
        spec = retriever
    narrowed = docs is not None or bool(filters)
    own = narrowed and _own_statistics(statistics, kept_chunks, facts, said)
    kept_entities = _entities(entities, docs)
    _delivery_notes(delivery, len(kept_entities), said)
    return QueryPlan(
        question, query, k, spec, prior, embedder, reranker, tuple(filters),
        None if docs is None else tuple(docs), own, kept_entities, delivery,
        delivery.depth(k, facts.chunks), pad and delivery.plain,
        need.set_aside if not instructions else (), tuple(said), tuple(auto_said),
    )  # fmt: skip


def _own_statistics(
    statistics: FilterStatistics, kept_chunks: int, facts: SourceFacts, notes: list[str]
) -> bool:
    """Whether kept documents are scored as an index of their own (the one place this is
    decided: ``auto`` is ``kept`` up to :data:`KEPT_LIMIT` chunks, in search and eval)."""
    if statistics is FilterStatistics.INDEX:
        return False
    if not facts.kept_statistics:
        notes.append(
            "filter statistics: PostgreSQL scores a filtered search with the whole "
            "index's BM25 statistics (as --filter-statistics index); a local index "
            "scores it with the kept documents' own"
        )
        return False
    if statistics is FilterStatistics.AUTO and kept_chunks > KEPT_LIMIT:
        notes.append(
            f"filter statistics: the filters keep {kept_chunks:,} chunks (more than "
            f"{KEPT_LIMIT:,}): scored with the whole index's BM25 statistics"
        )
        return False
    return True


def _entities(
    entities: Sequence[Sequence[str]], docs: Sequence[str] | None
) -> tuple[tuple[str, ...], ...]:
    """Each entity's documents within ``docs``; entities left with none are dropped."""
    own = None if docs is None else set(docs)
    kept = (tuple(d for d in e if own is None or d in own) for e in entities)
    return tuple(e for e in kept if e)


def _delivery_notes(delivery: Delivery, entities: int, notes: list[str]) -> None:
    if delivery.per_entity and entities > 1:
        notes.append(f"per-entity: the best chunks of {entities} issuers in turn")
    if delivery.distinct is not Distinct.NONE:
        notes.append(f"distinct: at most one chunk per {delivery.distinct.value}")


# --- running a plan ----------------------------------------------------------------------------


class PlanSource(Protocol):
    """What a plan runs against: chunks by position, their documents, and retrievers."""

    @property
    def chunk_facts(self) -> ChunkFacts: ...

    def doc_mask(self, docs: Sequence[str]) -> np.ndarray:
        """Per chunk, whether its document is one of ``docs``."""
        ...

    def plan_retriever(self, plan: QueryPlan, kept: np.ndarray | None) -> Retriever:
        """The plan's retriever (``kept``: positions scored as an index of their own)."""
        ...


def run_plan(plan: QueryPlan, source: PlanSource) -> Hits:
    """The chunks ``plan`` delivers from ``source``, best first (positions and scores)."""
    if plan.empty:
        return Hits.empty()
    mask = None if plan.docs is None else source.doc_mask(plan.docs)
    kept = np.flatnonzero(mask) if plan.own_statistics and mask is not None else None
    retriever = source.plan_retriever(plan, kept)
    if plan.delivery.plain:
        hits = retriever.search(plan.query, plan.k, mask)
        return _padded(hits, mask, plan.k, source.chunk_facts.doc.size) if plan.pad else hits
    if plan.delivery.per_entity and len(plan.entities) > 1:
        masks = [source.doc_mask(e) for e in plan.entities]
        hits = interleave([retriever.search(plan.query, plan.depth, m) for m in masks])
    else:
        hits = retriever.search(plan.query, plan.depth, mask)
    if plan.delivery.evidence:
        return hits  # whole and deep: evidence delivery cuts it (finchunk.retrieve.query.evidence)
    return deliver(hits, plan.k, plan.delivery, source.chunk_facts)


def _padded(hits: Hits, mask: np.ndarray | None, k: int, size: int) -> Hits:
    """``hits`` filled up to ``k`` with the reachable chunks the retriever did not rank,
    scored 0 and taken in chunk order, as the lesson's BM25 ranks every text (a hit
    scoring below 0 then ranks below them)."""
    if len(hits) >= k:
        return hits
    # the first k - len(hits) reachable chunks not ranked lie in the first k of them
    pool = np.arange(min(k, size)) if mask is None else np.flatnonzero(mask)[:k]
    rest = pool[~np.isin(pool, hits.positions)][: k - len(hits)]
    positions = np.concatenate([hits.positions, rest])
    scores = np.concatenate([hits.scores, np.zeros(rest.size, dtype=np.float32)])
    order = np.lexsort((positions, -scores))
    return Hits(positions[order], scores[order])


def plan_options(base: RetrieverOptions, plan: QueryPlan) -> RetrieverOptions:
    """``base`` with what the plan sets: the prior's parameters, the embedder, the
    ``model`` reranker's model."""
    out = base
    if plan.prior is not None:
        out = replace(out, prior=plan.prior)
    if plan.embedder is not None:
        out = replace(out, embedder=plan.embedder)
    if plan.reranker is not None:
        out = replace(out, reranker=plan.reranker)
    return out


@dataclass
class MemorySource:
    """A :class:`PlanSource` over chunks in memory (``eval``, FinanceBench): ``doc_ids``
    give each text's document; retrievers are built once per (retriever, prior) and, for
    own statistics, once per set of kept positions."""

    texts: InMemoryTexts
    doc_ids: Sequence[str]
    options: RetrieverOptions
    pages: Sequence[int] | None = None
    _doc_pos: Mapping[str, int] = field(init=False)
    _chunk_doc: np.ndarray = field(init=False)
    _facts: ChunkFacts = field(init=False)
    _shared: dict[tuple, Retriever] = field(init=False, default_factory=dict)
    _within: dict[tuple, Within] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._doc_pos = {d: i for i, d in enumerate(dict.fromkeys(self.doc_ids))}
        n = len(self.doc_ids)
        self._chunk_doc = np.fromiter((self._doc_pos[d] for d in self.doc_ids), np.int64, n)
        pages = np.asarray(self.pages if self.pages is not None else [-1] * n, dtype=np.int64)
        lengths = np.fromiter((len(t) for t in self.texts.texts), np.int64, n)
        self._facts = ChunkFacts(self._chunk_doc, pages, lengths)

    @property
    def chunk_facts(self) -> ChunkFacts:
        return self._facts

    @property
    def facts(self) -> SourceFacts:
        return SourceFacts(len(self._doc_pos), len(self.doc_ids))

    def reached(self, docs: Sequence[str] | None) -> tuple[int, int]:
        """How many of ``docs`` (None: all) are here, and how many chunks they hold."""
        if docs is None:
            return len(self._doc_pos), len(self.doc_ids)
        return len(set(docs).intersection(self._doc_pos)), int(self.doc_mask(docs).sum())

    def doc_mask(self, docs: Sequence[str]) -> np.ndarray:
        keep = np.zeros(len(self._doc_pos), dtype=bool)
        keep[[self._doc_pos[d] for d in docs if d in self._doc_pos]] = True
        return keep[self._chunk_doc]

    def plan_retriever(self, plan: QueryPlan, kept: np.ndarray | None) -> Retriever:
        key = (plan.spec, plan.prior, None if plan.embedder is None else plan.embedder.name)
        options = plan_options(self.options, plan)
        if kept is None:
            if key not in self._shared:
                self._shared[key] = make_retriever(plan.spec, self.texts, options)
            return self._shared[key]
        wkey = (*key, kept.tobytes())
        if wkey not in self._within:
            sub = make_retriever(plan.spec, self.texts.subset(kept), options)
            self._within[wkey] = Within(kept, sub, len(self.doc_ids))
        return self._within[wkey]
