"""Runs: what every question got. An immutable record, one ranking loop, files to inspect.

A :class:`Run` maps question ids to ranked :class:`ScoredChunk` records (chunk id, document
id, spans, pages, score, rank, characters delivered). :func:`rank` is the one loop that
makes runs for every scope: one index over every chunk, a restriction to some documents of
that index (a metadata filter: each question's own documents, or those it names), or an
index of their own for those documents (their own BM25 statistics, as FinanceBench's
per-filing setting). Measures (:mod:`finchunk.evaluate.measures`) read runs; nothing else
does.

Files: :func:`write_trec` (``qid Q0 chunk_id rank score run``, the format trec_eval and
ir_measures read) and :func:`write_jsonl` / :func:`read_jsonl` (a header line, then one line
per question with its hits and their spans).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from finchunk import files
from finchunk.errors import InputError
from finchunk.files import atomic_write_text
from finchunk.model import Chunk, Document, Span
from finchunk.retrieve.base import Hits
from finchunk.retrieve.cards import DocumentMap
from finchunk.retrieve.deliver import AS_RANKED, Delivery
from finchunk.retrieve.kinds import AutoSpec, FilterStatistics
from finchunk.retrieve.plan import MemorySource, QueryPlan, make_plan, run_plan
from finchunk.retrieve.retriever import (
    InMemoryTexts,
    NamedRetriever,
    RetrieverOptions,
    RetrieverSpec,
    parse_named,
)

RUN_FORMAT = "finchunk-run/1"


@dataclass(frozen=True, slots=True)
class ScoredChunk:
    """One ranked chunk: where it comes from, its score and rank (1 = best), and how many
    characters delivering it costs (its indexed text)."""

    chunk_id: str
    doc_id: str
    spans: tuple[Span, ...]
    pages: tuple[int, ...]
    score: float
    rank: int
    chars: int

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "spans": [list(s) for s in self.spans],
            "pages": list(self.pages),
            "score": self.score,
            "chars": self.chars,
        }

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> ScoredChunk:
        return cls(
            str(row["chunk_id"]),
            str(row["doc_id"]),
            tuple((int(s), int(e)) for s, e in row["spans"]),
            tuple(int(p) for p in row.get("pages", ())),
            float(row["score"]),
            int(row["rank"]),
            int(row["chars"]),
        )


@dataclass(frozen=True)
class Run:
    """Question id → its ranking, best first. A question absent from a run got nothing."""

    name: str
    rankings: Mapping[str, tuple[ScoredChunk, ...]]
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        frozen = {q: tuple(r) for q, r in self.rankings.items()}
        object.__setattr__(self, "rankings", MappingProxyType(frozen))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def get(self, qid: str) -> tuple[ScoredChunk, ...]:
        return self.rankings.get(qid, ())

    def __contains__(self, qid: object) -> bool:
        return qid in self.rankings

    def __iter__(self) -> Iterator[str]:
        return iter(self.rankings)

    def __len__(self) -> int:
        return len(self.rankings)


# --- the ranking loop ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Query:
    """One question to rank for. ``docs``: search only these documents (None: all; empty:
    none). ``isolated``: score them as an index of those documents alone (their own
    statistics); ``statistics``, when given, decides that instead, as a search's filter
    statistics (``auto``: their own up to :data:`~finchunk.retrieve.kinds.KEPT_LIMIT`
    chunks), in the query plan."""

    id: str
    text: str
    docs: tuple[str, ...] | None = None
    isolated: bool = False
    #: The documents of each entity the question names, for per-entity delivery.
    entities: tuple[tuple[str, ...], ...] = ()
    statistics: FilterStatistics | None = None

    @property
    def filter_statistics(self) -> FilterStatistics:
        if self.statistics is not None:
            return self.statistics
        return FilterStatistics.KEPT if self.isolated else FilterStatistics.INDEX


def memory_source(
    chunks: Sequence[Chunk],
    texts: Sequence[str],
    options: RetrieverOptions,
    source: InMemoryTexts | None = None,
    documents: Sequence[Document] | Mapping[str, Document] = (),
) -> MemorySource:
    """The chunks as a query plan's source (:class:`MemorySource`): ``source`` shares built
    indexes between calls; without one, ``documents`` give the cards of the chunks'
    documents."""
    doc_ids = [c.doc_id for c in chunks]
    if source is None:
        source = InMemoryTexts(texts, DocumentMap.of(doc_ids, documents))
    pages = [c.pages[0] if c.pages else -1 for c in chunks]
    return MemorySource(source, doc_ids, options, pages)


def query_plan(
    q: Query,
    retriever: NamedRetriever,
    memory: MemorySource,
    k: int,
    *,
    pad: bool = False,
    delivery: Delivery = AS_RANKED,
    instructions: bool = False,
) -> QueryPlan:
    """The plan of one evaluation question: as ``search`` makes it, the question's
    documents standing for the filters' (:func:`finchunk.retrieve.plan.make_plan`)."""
    reached, kept_chunks = memory.reached(q.docs)
    return make_plan(
        q.text,
        retriever,
        memory.facts,
        k=k,
        reached=reached,
        docs=q.docs,
        kept_chunks=kept_chunks,
        statistics=q.filter_statistics,
        entities=q.entities,
        delivery=delivery,
        instructions=instructions,
        pad=pad,
    )


def rank(
    queries: Sequence[Query],
    chunks: Sequence[Chunk],
    retriever: str | RetrieverSpec | AutoSpec = "bm25",
    k: int = 10,
    *,
    texts: Sequence[str] | None = None,
    options: RetrieverOptions | None = None,
    source: InMemoryTexts | None = None,
    documents: Sequence[Document] | Mapping[str, Document] = (),
    name: str | None = None,
    params: Mapping[str, Any] | None = None,
    pad: bool = False,
    delivery: Delivery = AS_RANKED,
    on_query: Callable[[], None] | None = None,
    instructions: bool = False,
) -> Run:
    """The top ``k`` chunks for every query, as a :class:`Run`, by ``retriever`` (a name
    the retriever factory knows, or ``auto``: each question ranked by what ``search`` would
    choose for it; the run's ``auto`` parameter counts the choices). Each question gets a
    query plan, made and run as ``search`` makes and runs it
    (:mod:`finchunk.retrieve.plan`).

    ``texts`` are what is indexed and delivered for each chunk (default ``chunk.text``);
    ``chars`` of a hit is the length of its text. ``source`` shares built indexes and
    vectors between calls over the same texts (several scopes or retrievers); without one,
    ``documents`` give the cards of the chunks' documents (for retrievers with a document
    prior; a document not given gets its id as its card). ``pad``
    fills a ranking shorter than ``k`` (BM25 ranks only texts sharing a query term) with the
    other chunks the query could reach, in chunk order, scored 0: the lesson's evaluation
    (rank_bm25's top n) delivers k chunks whatever they match. ``delivery`` (distinct pages
    or documents, a slot per entity, a character budget: :mod:`finchunk.retrieve.deliver`)
    decides what of each ranking is delivered; rankings are then not padded.
    ``instructions``: search each question as asked (default: its information need,
    :mod:`finchunk.retrieve.need`).
    """
    if texts is None:
        texts = source.texts if source is not None else [c.text for c in chunks]
    if len(texts) != len(chunks) or (source is not None and len(source.texts) != len(chunks)):
        raise ValueError(f"{len(texts)} texts for {len(chunks)} chunks")
    named = parse_named(retriever)
    memory = memory_source(chunks, texts, options or RetrieverOptions(), source, documents)
    auto = isinstance(named, AutoSpec)
    chosen: Counter[str] = Counter()
    notes: dict[str, None] = {}
    rankings: dict[str, tuple[ScoredChunk, ...]] = {}
    for q in queries:
        plan = query_plan(
            q, named, memory, k, pad=pad, delivery=delivery, instructions=instructions
        )
        if auto:
            chosen[str(plan.spec)] += 1
            notes.update(dict.fromkeys(plan.auto_notes))
        rankings[q.id] = _ranking(chunks, texts, run_plan(plan, memory))
        if on_query:
            on_query()
    info = {"retriever": str(named), "k": k, "pad": pad and delivery.plain, **(params or {})}
    info |= {"auto": dict(sorted(chosen.items()))} if auto else {}
    info |= {"auto_notes": list(notes)} if notes else {}
    return Run(name or str(named), rankings, info | _run_notes(delivery))


def _ranking(chunks: Sequence[Chunk], texts: Sequence[str], hits: Hits) -> tuple[ScoredChunk, ...]:
    out = []
    for rank_, (i, score) in enumerate(hits, 1):
        c = chunks[i]
        out.append(ScoredChunk(c.id, c.doc_id, c.spans, c.pages, score, rank_, len(texts[i])))
    return tuple(out)


def _run_notes(delivery: Delivery) -> dict[str, Any]:
    """A run's parameters beyond its retriever and ``auto``'s choices: the delivery."""
    info: dict[str, Any] = {}
    if not delivery.plain:
        info["delivery"] = {
            "distinct": delivery.distinct.value,
            "per_entity": delivery.per_entity,
            "budget": delivery.budget,
        }
    return info


# --- files -----------------------------------------------------------------------------------


def _trec_tag(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_.+@/" else "_" for ch in name) or "run"


def trec_lines(run: Run) -> Iterator[str]:
    tag = _trec_tag(run.name)
    for qid, ranking in run.rankings.items():
        for h in ranking:
            yield f"{qid} Q0 {h.chunk_id} {h.rank} {h.score:.6f} {tag}\n"


def write_trec(run: Run, path: str | Path) -> Path:
    """The run in TREC format (chunk ids as document numbers)."""
    p = Path(path)
    atomic_write_text(p, "".join(trec_lines(run)))
    return p


def write_jsonl(run: Run, path: str | Path) -> Path:
    """A header line ``{"format", "name", "params"}``, then ``{"qid", "hits": [...]}`` lines."""
    p = Path(path)
    head = {"format": RUN_FORMAT, "name": run.name, "params": dict(run.params)}
    lines = [json.dumps(head, ensure_ascii=False, default=str)]
    for qid, ranking in run.rankings.items():
        hits = [h.to_json() for h in ranking]
        lines.append(json.dumps({"qid": qid, "hits": hits}, ensure_ascii=False))
    atomic_write_text(p, "\n".join(lines) + "\n")
    return p


def read_jsonl(path: str | Path) -> Run:
    """A run written by :func:`write_jsonl`; errors name the file and line."""
    p = Path(path)
    rows = iter(files.read_jsonl(p))
    head = next(rows, (0, {}))[1]
    if head.get("format") != RUN_FORMAT:
        raise InputError(f"{p}: not a finchunk run file (no {RUN_FORMAT!r} header line)")
    rankings: dict[str, tuple[ScoredChunk, ...]] = {}
    for n, row in rows:
        try:
            rankings[str(row["qid"])] = tuple(ScoredChunk.from_json(h) for h in row["hits"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{p}:{n}: not a run line ({exc!r})") from exc
    return Run(str(head.get("name", "")), rankings, head.get("params") or {})


def run_file_stem(name: str) -> str:
    """A file name for a run (its name with path separators and spaces replaced)."""
    return _trec_tag(name).replace("/", "_")


def write_run_files(run: Run, directory: str | Path) -> list[Path]:
    """``DIR/NAME.trec`` and ``DIR/NAME.jsonl`` for a run (NAME from the run's name)."""
    d = Path(directory)
    stem = run_file_stem(run.name)
    return [write_trec(run, d / f"{stem}.trec"), write_jsonl(run, d / f"{stem}.jsonl")]
