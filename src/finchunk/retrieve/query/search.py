"""Search an index: filters, one of three retrievers, and hits that cite their source spans.

Every hit carries its document id, spans and the cited text ``doc.text[start:end]`` of each
span, read from the text stored in the index (the same text the spans were computed on).
:func:`search` is what ``finchunk search`` runs; :func:`search_options` turns the options as
the CLI and :class:`finchunk.Index` take them into :class:`SearchOptions`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.records import ChunkRecord
from finchunk.retrieve.base import Hits, Retriever
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.kinds import AUTO, Distinct, FilterStatistics
from finchunk.retrieve.neural.dense import Embedder
from finchunk.retrieve.query.deliver import AS_RANKED, ChunkFacts, Delivery
from finchunk.retrieve.query.filters import Filter, parse_filters
from finchunk.retrieve.query.plan import QueryPlan, SourceFacts, make_plan, run_plan
from finchunk.retrieve.query.retriever import (
    NamedRetriever,
    RetrieverKind,
    RetrieverSpec,
    parse_named,
)
from finchunk.text.analysis import normalize, query_terms
from finchunk.text.metadata import canonical_field

_WORD_RE = re.compile(r"\w+")


@dataclass(frozen=True)
class SearchOptions:
    """``retriever``: any name the retriever factory knows (``bm25``, ``dense``,
    ``hybrid``, ``bm25/dense@50`` …), or ``auto`` (:func:`auto_retriever`)."""

    k: int = 5
    retriever: NamedRetriever | RetrieverKind | str = AUTO
    filters: tuple[Filter, ...] = ()
    auto_filter: bool = False
    delivery: Delivery = AS_RANKED  # distinct pages/documents, per entity, a budget
    #: A filtered search scores with the kept documents' statistics (as ``eval`` does), the
    #: whole index's (the filter only masks), or the kept ones' when they are few (auto).
    filter_statistics: FilterStatistics = FilterStatistics.AUTO
    #: The ``model`` reranker's model (``bm25/model@50``): a cross-encoder folder or a
    #: rerank endpoint ``URL#MODEL`` (:mod:`finchunk.retrieve.neural.models`).
    reranker: str | None = None
    #: Search the question as asked, instructions to the answerer included (default: the
    #: information need alone, :mod:`finchunk.retrieve.query.need`).
    instructions: bool = False


FilterSpec = Mapping[str, object] | Sequence[str | Filter] | None


def search_options(
    k: int = 5,
    retriever: NamedRetriever | RetrieverKind | str = AUTO,
    filters: FilterSpec = None,
    auto_filter: bool = False,
    distinct: Distinct | str | None = None,
    per_entity: bool = False,
    budget: int | None = None,
    filter_statistics: FilterStatistics | str = FilterStatistics.AUTO,
    reranker: str | None = None,
    instructions: bool = False,
    evidence: bool = False,
    budget_tokens: int | None = None,
) -> SearchOptions:
    """The :class:`SearchOptions` of ``finchunk search`` (and :meth:`finchunk.Index.search`),
    checked: a retriever name is parsed here (an unknown one is an InputError before any
    index is read); ``filters`` is a mapping ``{"issuer": "3M", "year": 2022}``, or
    ``"FIELD=VALUE"`` strings (``--filter``), field names as in metadata (``fiscal_year``
    is ``year``), a list value or the same field twice an OR; ``distinct`` None,
    ``"page"`` or ``"document"``; ``reranker`` the ``model`` reranker's folder or endpoint
    (``--reranker``); ``evidence``: deliver evidence within ``budget`` characters (or
    ``budget_tokens`` cl100k tokens; default 1,200 characters), a slot per issuer the
    question names (:mod:`finchunk.retrieve.query.evidence`)."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InputError(f"k must be a whole number of at least 1, got {k!r}")
    if budget_tokens is not None and not evidence:
        raise InputError("--budget-tokens applies to evidence delivery (--evidence)")
    if budget is not None and budget_tokens is not None:
        raise InputError("give --budget (characters) or --budget-tokens, not both")
    tokens = budget_tokens is not None
    return SearchOptions(
        k,
        parse_named(retriever),
        _filters(filters),
        auto_filter,
        Delivery(
            _enum(Distinct, distinct or Distinct.NONE, "distinct"),
            per_entity or evidence,
            budget_tokens if tokens else budget,
            evidence,
            tokens,
        ),
        _enum(FilterStatistics, filter_statistics, "filter statistics"),
        reranker,
        instructions,
    )


def _filters(filters: FilterSpec) -> tuple[Filter, ...]:
    """``filters`` as :class:`Filter` values: a mapping (a list value is an OR of its values),
    ``FIELD=VALUE`` strings or Filters; the same field twice is an OR, as ``--filter``."""
    if isinstance(filters, str):
        raise InputError(f"filters: expected a list of FIELD=VALUE or a mapping, got {filters!r}")
    if isinstance(filters, Mapping):
        return tuple(
            Filter(canonical_field(str(f)), str(v).strip())
            for f, given in filters.items()
            for v in (given if isinstance(given, list | tuple) else [given])
        )
    given = list(filters or ())
    parsed = [f for f in given if isinstance(f, Filter)]
    return (*parsed, *parse_filters(f for f in given if not isinstance(f, Filter)))


def _enum(kind: type[Any], value: object, what: str) -> Any:
    try:
        return kind(str(value).strip().lower())
    except ValueError:
        choices = ", ".join(m.value for m in kind)
        raise InputError(f"{what} {value!r}: choose from {choices}") from None


@dataclass(frozen=True)
class Hit:
    """A ranked chunk: its record, plus rank (1 = best), score, document title and
    citations (``doc.text[start:end]`` for each span, in the order of ``spans``).

    Pages are 1-based physical pages of the document as finchunk parsed it: a PDF's
    pages, an HTML filing's pages counted by its page breaks (the first page is 1), none
    (``()``, ``page`` None) for Markdown. FinanceBench's evidence pages are 0-based: compare
    them with :attr:`zero_based_pages`.
    """

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
        """The first 1-based page the chunk touches (None without pages)."""
        return self.record.page

    @property
    def pages(self) -> tuple[int, ...]:
        """Every 1-based page the chunk's spans touch, in order."""
        return self.record.pages

    @property
    def zero_based_pages(self) -> tuple[int, ...]:
        """:attr:`pages` counted from 0, as FinanceBench's ``evidence_page_num``."""
        return tuple(p - 1 for p in self.record.pages)

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
    """What a search returns: its hits (best first; the result iterates over them, and
    ``len`` counts them), the retriever that ranked them, the filters applied and notes
    (why fewer than k, what auto chose, what a filter or delivery did); with evidence
    delivery, ``evidence`` (:class:`~finchunk.retrieve.query.evidence.Evidence`: ``text()``
    for a model, ``to_json()`` for programs) and the top k chunks it was cut from."""

    query: str
    retriever: RetrieverSpec
    hits: list[Hit]
    filters: list[Filter] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    evidence: Any = None

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, i: int) -> Hit:
        return self.hits[i]

    def to_json(self) -> dict[str, Any]:
        """What ``finchunk search --json`` prints."""
        return {
            "query": self.query,
            "retriever": str(self.retriever),
            "filters": [str(f) for f in self.filters],
            "notes": self.notes,
            "results": [h.to_json() for h in self.hits],
            **({"evidence": self.evidence.to_json()} if self.evidence is not None else {}),
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


class IndexSource:
    """A local index as a query plan's source (:class:`~finchunk.retrieve.query.plan.PlanSource`):
    documents by id, retrievers from the index's factory."""

    def __init__(self, index: Index) -> None:
        self.index = index

    @property
    def chunk_facts(self) -> ChunkFacts:
        return self.index.chunk_facts

    @cached_property
    def _doc_pos(self) -> dict[str, int]:
        return {d.id: i for i, d in enumerate(self.index.manifest.documents)}

    def doc_ids(self, keep: np.ndarray) -> tuple[str, ...]:
        """The ids of the documents ``keep`` (per document, in index order) passes."""
        docs = self.index.manifest.documents
        return tuple(docs[i].id for i in np.flatnonzero(keep).tolist())

    def doc_mask(self, docs: Sequence[str]) -> np.ndarray:
        keep = np.zeros(len(self._doc_pos), dtype=bool)
        keep[[self._doc_pos[d] for d in docs if d in self._doc_pos]] = True
        return keep[self.index.chunk_doc]

    def plan_retriever(self, plan: QueryPlan, kept: np.ndarray | None) -> Retriever:
        return self.index.retriever(plan.spec, plan.embedder, kept, plan.prior, plan.reranker)


def index_plan(
    index: Index, query: str, options: SearchOptions, embedder: Embedder | None = None
) -> QueryPlan:
    """The plan of ``query`` over a local index with ``options``: filters given and
    automatic, the documents they keep, per-entity groups (the issuers the question names)."""
    filters, notes = resolve_filters(index, query, options.filters, options.auto_filter)
    source = IndexSource(index)
    docs, kept_chunks = None, 0
    if filters:
        keep = index.meta_index.mask(filters)
        docs = source.doc_ids(keep)
        kept_chunks = int(keep[index.chunk_doc].sum())
    entities: list[tuple[str, ...]] = []
    if options.delivery.per_entity:
        meta = index.meta_index
        for issuer in meta.mentions(query).issuers:
            entities.append(source.doc_ids(meta.mask([Filter("issuer", issuer)])))
    facts = SourceFacts(
        len(index.manifest.documents),
        index.size,
        index.header.model,
        splade=index.header.splade_model,
    )
    return make_plan(
        query,
        parse_named(options.retriever),
        facts,
        k=options.k,
        filters=filters,
        docs=docs,
        kept_chunks=kept_chunks,
        statistics=options.filter_statistics,
        entities=entities,
        delivery=options.delivery,
        embedder=embedder,
        reranker=options.reranker,
        instructions=options.instructions,
        notes=notes,
    )


def search(
    index: Index,
    query: str,
    options: SearchOptions = SearchOptions(),
    *,
    embedder: Embedder | None = None,
) -> SearchResult:
    """Rank ``index``'s chunks for ``query`` as ``options`` say (what ``finchunk search``
    runs on a local index): its :func:`index_plan`, run by
    :func:`~finchunk.retrieve.query.plan.run_plan`. ``embedder``: the model dense retrieval
    embeds the query with (default: the index's own). Raises InputError for an empty query
    or k < 1.

    >>> import tempfile, finchunk
    >>> from finchunk.retrieve.query.search import search, search_options
    >>> with finchunk.Index.build("tests/data", tempfile.mkdtemp() + "/idx") as index:
    ...     result = search(index.store, "plantilla media", search_options(k=1))
    >>> result.hits[0].doc_id
    'informe_ejemplo'
    """
    check_query(query, options.k)
    if options.delivery.evidence:
        return search_evidence(index, query, options, embedder=embedder)
    plan = index_plan(index, query, options, embedder)
    result = SearchResult(query, plan.spec, [], list(plan.filters), list(plan.notes))
    if plan.empty:
        result.notes.append("no document matches the filters " + ", ".join(map(str, plan.filters)))
        return result
    ranked = run_plan(plan, IndexSource(index))
    delivery = options.delivery
    if delivery.budget is not None:
        used = sum(int(index.chunk_facts.length[p]) for p in ranked.positions.tolist())
        result.notes.append(
            f"budget: {len(ranked)} chunk(s), {used:,} of {delivery.budget:,} characters"
        )
    if len(ranked) < options.k:
        result.notes.append(f"{len(ranked)} of k={options.k}: no other chunk matches the question")
    result.hits = [_hit(index, r + 1, i, s) for r, (i, s) in enumerate(ranked)]
    return result


def check_query(query: str, k: int) -> None:
    """InputError for an empty question or k < 1."""
    if not query.strip():
        raise InputError("empty question")
    if k < 1:
        raise InputError(f"-k must be at least 1, got {k}")


def _hit(index: Index, rank: int, position: int, score: float) -> Hit:
    c = index.chunk(position)
    text = index.document_text(c.doc_id)
    cited = tuple(text[s:e] for s, e in c.spans)
    return Hit(rank, c, index.title(c.doc_id), float(score), cited)


def term_spans(text: str, query: str) -> list[tuple[int, int]]:
    """Where the query's terms occur in ``text`` (word by word, ignoring case and accents)."""
    terms = set(query_terms(query))
    return [m.span() for m in _WORD_RE.finditer(text) if normalize(m.group()) in terms]


def evidence_options(options: SearchOptions) -> SearchOptions:
    """``options`` with evidence delivery on: a slot per issuer the question names, the
    budget (and its unit) as given."""
    from dataclasses import replace

    return replace(options, delivery=replace(options.delivery, evidence=True, per_entity=True))


def search_evidence(
    index: Index,
    query: str,
    options: SearchOptions = SearchOptions(),
    *,
    cite: bool = True,
    embedder: Embedder | None = None,
) -> SearchResult:
    """Evidence delivery (:mod:`finchunk.retrieve.query.evidence`) over a search: the plan of
    ``options`` with its delivery set to evidence (:func:`evidence_options`), run as
    :func:`search` runs it; the ranking's chunks are cut into units (the elements of their
    documents, as the build stored them: nothing is parsed again), scored and packed within
    the delivery's budget (characters, or cl100k tokens), each section's header once.
    Returns the search: ``evidence`` and the top k chunks ranked (``hits``)."""
    check_query(query, options.k)
    plan = index_plan(index, query, evidence_options(options), embedder)
    result = SearchResult(query, plan.spec, [], list(plan.filters), list(plan.notes))
    if plan.empty:
        result.notes.append("no document matches the filters " + ", ".join(map(str, plan.filters)))
    ranked = Hits.empty() if plan.empty else run_plan(plan, IndexSource(index))
    records = index.records_at(ranked.positions)
    documents = index.documents([r.doc_id for r in records])
    deliver_ranked(result, plan, records, ranked.scores.tolist(), documents, cite=cite)
    return result


def deliver_ranked(
    result: SearchResult,
    plan: QueryPlan,
    records: Sequence[ChunkRecord],
    scores: Sequence[float],
    documents: Mapping[str, Any],
    *,
    cite: bool = True,
) -> None:
    """The evidence step of an evidence plan over its ranking (``records`` and ``scores``,
    best first, whole and deep) and the ranked chunks' documents, the same over a local
    index and PostgreSQL: ``result.evidence``, its top k chunks as ``result.hits``, a note
    on what was delivered (and one when the budget is too small for any unit)."""
    from finchunk.retrieve.query.evidence import deliver_plan
    from finchunk.retrieve.query.evidence_units import Hit as EvidenceHit

    ranking = [EvidenceHit(r.doc_id, r.spans, s) for r, s in zip(records, scores, strict=True)]
    evidence = deliver_plan(plan, ranking, documents, cite=cite)
    result.evidence = evidence
    for rank, (r, s) in enumerate(zip(records[: plan.k], scores, strict=False), start=1):
        doc = documents[r.doc_id]
        cited = tuple(doc.text[a:b] for a, b in r.spans)
        result.hits.append(Hit(rank, r, doc.title or r.doc_id, float(s), cited))
    unit = "tokens" if plan.delivery.tokens else "characters"
    result.notes.append(
        f"evidence: {len(evidence.pieces)} piece(s) of {len(evidence.blocks())} section(s), "
        f"{evidence.size:,} of {evidence.budget:,} {unit}"
    )
    if evidence.note:
        result.notes.append(evidence.note)
