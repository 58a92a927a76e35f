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
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from finchunk import files
from finchunk.errors import InputError
from finchunk.files import atomic_write_text
from finchunk.model import Chunk, Document, Span
from finchunk.retrieve.base import Hits, Retriever
from finchunk.retrieve.kinds import AUTO_RETRIEVER, is_auto
from finchunk.retrieve.query.auto import auto_retriever
from finchunk.retrieve.query.cards import DocumentMap
from finchunk.retrieve.query.deliver import AS_RANKED, ChunkFacts, Delivery, deliver, interleave
from finchunk.retrieve.query.priors import PriorParams
from finchunk.retrieve.query.retriever import (
    RetrieverOptions,
    RetrieverSpec,
    make_retriever,
    parse_retriever,
)
from finchunk.retrieve.query.texts import InMemoryTexts, Within

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
    none). ``isolated``: search an index built on those documents alone."""

    id: str
    text: str
    docs: tuple[str, ...] | None = None
    isolated: bool = False
    #: The documents of each entity the question names, for per-entity delivery.
    entities: tuple[tuple[str, ...], ...] = ()


class _Ranker:
    """Chunks, their delivered texts and the retrievers over them (built once each)."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        texts: Sequence[str],
        spec: RetrieverSpec,
        options: RetrieverOptions,
        source: InMemoryTexts | None = None,
        documents: Sequence[Document] | Mapping[str, Document] = (),
    ) -> None:
        self.chunks, self.texts, self.spec, self.options = chunks, texts, spec, options
        if source is None:
            doc_map = DocumentMap.of([c.doc_id for c in chunks], documents)
            source = InMemoryTexts(texts, doc_map)
        self.source = source
        doc_ids = list(dict.fromkeys(c.doc_id for c in chunks))
        self.doc_pos = {d: i for i, d in enumerate(doc_ids)}
        self.chunk_doc = np.fromiter(
            (self.doc_pos[c.doc_id] for c in chunks), dtype=np.int64, count=len(chunks)
        )
        self._shared: Retriever | None = None
        self._isolated: dict[tuple[str, ...], Within] = {}
        self.facts = ChunkFacts(
            self.chunk_doc,
            np.fromiter((c.pages[0] if c.pages else -1 for c in chunks), np.int64, len(chunks)),
            np.fromiter((len(t) for t in texts), np.int64, len(texts)),
        )

    def shared(self) -> Retriever:
        if self._shared is None:
            self._shared = make_retriever(self.spec, self.source, self.options)
        return self._shared

    def _doc_mask(self, docs: Sequence[str]) -> np.ndarray:
        keep = np.zeros(len(self.doc_pos), dtype=bool)
        keep[[self.doc_pos[d] for d in docs if d in self.doc_pos]] = True
        return keep[self.chunk_doc]

    def isolated(self, docs: tuple[str, ...]) -> Within:
        if docs not in self._isolated:
            positions = np.flatnonzero(self._doc_mask(docs))
            sub = make_retriever(self.spec, self.source.subset(positions), self.options)
            self._isolated[docs] = Within(positions, sub, len(self.chunks))
        return self._isolated[docs]

    def hits(self, q: Query, k: int) -> tuple[Hits, np.ndarray | None]:
        """The retriever's hits, and the positions the query could reach (None: all)."""
        if q.docs is None:
            return self.shared().search(q.text, k), None
        if not q.isolated:
            mask = self._doc_mask(q.docs)
            return self.shared().search(q.text, k, mask), np.flatnonzero(mask)
        within = self.isolated(q.docs)
        return within.search(q.text, k), within.positions

    def padded(self, hits: Hits, reachable: np.ndarray | None, k: int) -> Hits:
        """``hits`` filled up to ``k`` with the reachable chunks the retriever did not rank,
        scored 0 and taken in chunk order, as the lesson's BM25 ranks every text (a hit
        scoring below 0 then ranks below them)."""
        if len(hits) >= k:
            return hits
        # the first k - len(hits) reachable chunks not ranked lie in the first k of them
        pool = np.arange(min(k, len(self.chunks))) if reachable is None else reachable[:k]
        rest = pool[~np.isin(pool, hits.positions)][: k - len(hits)]
        positions = np.concatenate([hits.positions, rest])
        scores = np.concatenate([hits.scores, np.zeros(rest.size, dtype=np.float32)])
        order = np.lexsort((positions, -scores))
        return Hits(positions[order], scores[order])

    def delivered(self, q: Query, k: int, delivery: Delivery) -> Hits:
        """What ``delivery`` makes of the query's ranking (one ranking per entity when it
        names several and delivery is per entity)."""
        depth = delivery.depth(k, len(self.chunks))
        if delivery.per_entity and len(q.entities) > 1:
            own = None if q.docs is None else set(q.docs)
            rankings = [
                self.hits(replace(q, docs=tuple(d for d in e if own is None or d in own)), depth)[0]
                for e in q.entities
            ]
            hits = interleave(rankings)
        else:
            hits = self.hits(q, depth)[0]
        return deliver(hits, k, delivery, self.facts)

    def ranking(self, hits: Hits) -> tuple[ScoredChunk, ...]:
        out = []
        for rank, (i, score) in enumerate(hits, 1):
            c = self.chunks[i]
            out.append(
                ScoredChunk(c.id, c.doc_id, c.spans, c.pages, score, rank, len(self.texts[i]))
            )
        return tuple(out)


class _AutoRankers:
    """``auto``, question by question, as ``search`` chooses it on an index without a
    model's vectors (:func:`finchunk.retrieve.query.auto.auto_retriever`): ``bm25``, with the
    document prior when the question reaches several documents, reranked by SPLADE for an
    English question where the splade extra is installed. One :class:`_Ranker` per choice,
    all over one text source (BM25 is built once); ``chosen`` counts the choices and
    ``notes`` keeps what ``auto`` said, each once."""

    def __init__(self, base: _Ranker, documents: Sequence[Document] | Mapping[str, Document]):
        self.base, self.documents = base, documents
        self.rankers: dict[tuple[RetrieverSpec, PriorParams | None], _Ranker] = {}
        self.chosen: Counter[str] = Counter()
        self.notes: dict[str, None] = {}

    def reached(self, q: Query) -> int:
        """How many documents the question's search reaches."""
        if q.docs is None:
            return len(self.base.doc_pos)
        return len(set(q.docs).intersection(self.base.doc_pos))

    def ranker(self, q: Query) -> _Ranker:
        notes: list[str] = []
        choice = auto_retriever(None, None, notes, self.reached(q), q.text)
        self.chosen[str(choice.spec)] += 1
        self.notes.update(dict.fromkeys(notes))
        key = (choice.spec, choice.prior)
        if key not in self.rankers:
            b = self.base
            options = b.options if choice.prior is None else replace(b.options, prior=choice.prior)
            self.rankers[key] = _Ranker(
                b.chunks, b.texts, choice.spec, options, b.source, self.documents
            )
        return self.rankers[key]


def rank(
    queries: Sequence[Query],
    chunks: Sequence[Chunk],
    retriever: str | RetrieverSpec = "bm25",
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
) -> Run:
    """The top ``k`` chunks for every query, as a :class:`Run`, by ``retriever`` (a name
    the retriever factory knows, or ``auto``: each question ranked by what ``search`` would
    choose for it, :class:`_AutoRankers`; the run's ``auto`` parameter counts the choices).

    ``texts`` are what is indexed and delivered for each chunk (default ``chunk.text``);
    ``chars`` of a hit is the length of its text. ``source`` shares built indexes and
    vectors between calls over the same texts (several scopes or retrievers); without one,
    ``documents`` give the cards of the chunks' documents (for retrievers with a document
    prior; a document not given gets its id as its card). ``pad``
    fills a ranking shorter than ``k`` (BM25 ranks only texts sharing a query term) with the
    other chunks the query could reach, in chunk order, scored 0: the lesson's evaluation
    (rank_bm25's top n) delivers k chunks whatever they match. ``delivery`` (distinct pages
    or documents, a slot per entity, a character budget: :mod:`finchunk.retrieve.query.deliver`)
    decides what of each ranking is delivered; rankings are then not padded.
    """
    if texts is None:
        texts = source.texts if source is not None else [c.text for c in chunks]
    if len(texts) != len(chunks) or (source is not None and len(source.texts) != len(chunks)):
        raise ValueError(f"{len(texts)} texts for {len(chunks)} chunks")
    auto = is_auto(retriever)
    spec = parse_retriever("bm25" if auto else retriever)
    ranker = _Ranker(chunks, texts, spec, options or RetrieverOptions(), source, documents)
    autos = _AutoRankers(ranker, documents) if auto else None
    rankings: dict[str, tuple[ScoredChunk, ...]] = {}
    for q in queries:
        r = autos.ranker(q) if autos else ranker
        if not delivery.plain:
            hits = r.delivered(q, k, delivery)
        else:
            hits, reachable = r.hits(q, k)
            hits = r.padded(hits, reachable, k) if pad else hits
        rankings[q.id] = r.ranking(hits)
        if on_query:
            on_query()
    used = AUTO_RETRIEVER if auto else str(spec)
    info = {"retriever": used, "k": k, "pad": pad and delivery.plain, **(params or {})}
    return Run(name or used, rankings, info | _run_notes(autos, delivery))


def _run_notes(autos: _AutoRankers | None, delivery: Delivery) -> dict[str, Any]:
    """A run's parameters beyond its retriever: ``auto``'s choices, the delivery."""
    info: dict[str, Any] = {}
    if autos:
        info["auto"] = dict(sorted(autos.chosen.items()))
        if autos.notes:
            info["auto_notes"] = list(autos.notes)
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
