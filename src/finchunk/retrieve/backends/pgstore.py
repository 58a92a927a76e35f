"""An index in PostgreSQL with pgvector: one shared index that many people search at once.

Layout: schema ``finchunk`` holds ``live`` (one row: the live generation) and
``generations`` (name, manifest); each generation is a schema of its own,
``finchunk_g000002``, with

* ``documents`` (pos, id, title, source, sha256, text, metadata JSONB, meta_words JSONB,
  card, first_chunk and chunks: the document's chunk range, layout: its elements and pages,
  :mod:`finchunk.retrieve.index.layout`);
* ``chunks`` (pos, id, doc_id, doc_pos, spans, section, page, pages, header, text, kind,
  metadata JSONB, meta_words JSONB, length: BM25's length, embedding ``vector(N)``, with an
  HNSW index for inner product when the index is dense);
* ``terms`` (id, term, df, idf), ``postings`` (term_id, chunk, tf, weight) and ``blockmax``
  (term_id, block, weight, n: per block of chunks its largest weight): BM25's term
  statistics. The terms, frequencies, lengths and idf are the local index's
  (:mod:`finchunk.retrieve.lexical.bm25_stats`,
  :func:`~finchunk.retrieve.lexical.bm25.okapi_idf`); each
  posting's weight ``idf·tf·(k1+1)/(tf+k1·(1−b+b·len/avgdl))`` is computed in SQL when the
  generation is written, and a query's score is the sum of its terms' weights. So BM25
  here ranks and scores as the local index does (``ts_rank`` is not used); its top k
  reads only the blocks of chunks that can hold it (:mod:`finchunk.retrieve.backends.pg_bm25`).

Writing: the new generation's schema is filled while the old one stays live; one
transaction then points ``live`` at it; older generations are dropped after. Writers take
turns (a session advisory lock, released if a writer dies), and each first drops any
generation schema the catalog does not name: what a writer killed before publishing left. Reading: a
search runs in one transaction holding an advisory lock on ``live``, shared; the switch takes
it exclusive (it waits for the searches under way; later ones wait for it), so a reader never
sees half an index or two generations, and a stream of readers cannot starve the switch.

Filters become SQL over ``meta_words`` (each metadata value's normalised words, as
:class:`~finchunk.retrieve.query.filters.MetadataIndex` matches them): the same documents pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from finchunk.errors import InputError
from finchunk.records import ChunkRecord
from finchunk.retrieve.backends.pg_bm25 import PgBM25, no_mask
from finchunk.retrieve.backends.pg_connect import (
    HNSW_EF_SEARCH,
    LIVE_LOCK,
    SCHEMA,
    _check_format,
    _errors,
    _ident,
    _psycopg,
    _safe,
    connect,
)
from finchunk.retrieve.base import Hits
from finchunk.retrieve.kinds import DEFAULT_EMBEDDER, AutoSpec, FilterStatistics
from finchunk.retrieve.lexical.analyzers import Analyzer
from finchunk.retrieve.lexical.bm25 import BM25Params
from finchunk.retrieve.neural.dense import Embedder, make_embedder
from finchunk.retrieve.query.auto import auto_fuses
from finchunk.retrieve.query.filters import Filter, words
from finchunk.retrieve.query.plan import QueryPlan, SourceFacts, make_plan, plan_options, run_plan
from finchunk.retrieve.query.retriever import (
    RetrieverOptions,
    make_retriever,
    parse_named,
)
from finchunk.retrieve.query.search import (
    Hit,
    SearchOptions,
    SearchResult,
    check_query,
    deliver_ranked,
    evidence_options,
)

if TYPE_CHECKING:
    from finchunk.retrieve.query.cards import DocumentMap


# --- writing ---------------------------------------------------------------------------------


# --- reading ---------------------------------------------------------------------------------


def filter_sql(filters: Sequence[Filter], alias: str = "c") -> tuple[str, list[Any]]:
    """A WHERE condition over ``meta_words`` passing the documents that
    :meth:`~finchunk.retrieve.query.filters.MetadataIndex.mask` passes (OR within a field, AND
    across fields; an issuer's words all in its name, or the ticker)."""
    by_field: dict[str, list[Filter]] = {}
    for f in filters:
        by_field.setdefault(f.field, []).append(f)
    clauses, params = [], []
    for field, group in by_field.items():
        alternatives = []
        for f in group:
            target = words(f.value)
            if field != "issuer":
                alternatives.append(f"{alias}.meta_words -> %s = %s::jsonb")
                params += [field, json.dumps(target)]
            elif target:
                alternatives.append(
                    f"{alias}.meta_words -> 'issuer' @> %s::jsonb"
                    f" OR {alias}.meta_words -> 'ticker' = %s::jsonb"
                )
                params += [json.dumps(sorted(set(target))), json.dumps(target)]
            else:
                alternatives.append("false")
        clauses.append("(" + " OR ".join(f"({a})" for a in alternatives) + ")")
    return (" AND ".join(clauses) or "true"), params


class _Generation:
    """The live generation as one reading transaction sees it."""

    def __init__(self, conn: Any, name: str, manifest: dict[str, Any], where: tuple[str, list]):
        self.conn = conn
        self.name = name
        self.schema = _ident(f"{SCHEMA}_{name}")
        self.manifest = manifest
        self.where = where
        self.size = int(manifest["chunks"])

    def query(self, template: str, params: Sequence[Any]) -> list[tuple]:
        sql = _psycopg().sql
        return self.conn.execute(sql.SQL(template).format(s=self.schema), params).fetchall()


class PgDense:
    """Cosine (inner product of normalised vectors) in pgvector: exact, or by the HNSW index
    searched with ``ef_search`` candidates (``hnsw`` a number)."""

    def __init__(self, gen: _Generation, embedder: Embedder, hnsw: int | None) -> None:
        self.gen = gen
        self.embedder = embedder
        self.hnsw = hnsw
        self.size = gen.size

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        no_mask(mask)
        q = self.embedder.embed_queries([query])[0]
        if self.hnsw is not None:
            self.gen.conn.execute(f"SET LOCAL hnsw.ef_search = {max(self.hnsw, k)}")
            self.gen.conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            rows = self._nearest(q, k, "c.embedding <#> %s", False)
            rows.sort(key=lambda r: (-r[1], r[0]))  # the index orders by distance only
            return _hits(rows)
        self.gen.conn.execute("SET LOCAL enable_indexscan = off")
        limit = k + RESCORE_MARGIN
        while True:
            rows = self._nearest(q, limit, "c.embedding <#> %s, c.pos", True)
            rows.sort(key=lambda r: r[0])
            found = _rescored(rows, q, k)
            if len(rows) < limit or min(r[1] for r in rows) < found.scores[-1] - RESCORE_GAP:
                return found
            limit *= 4

    def _nearest(self, q: np.ndarray, limit: int, order: str, vectors: bool) -> list[tuple]:
        where, wparams = self.gen.where
        extra = ", c.embedding" if vectors else ""
        return self.gen.query(
            f"SELECT c.pos, (-(c.embedding <#> %s))::float4{extra} FROM {{s}}.chunks c "
            f"WHERE {where} ORDER BY {order} LIMIT %s",
            [q, *wparams, q, limit],
        )


#: Exact dense search: pgvector's exact scan finds the nearest ``k + margin``; their scores
#: are computed again in float32 as the local index computes them (pgvector sums in another
#: order: the last bit can differ, and so could the order of near-ties), fetching more while
#: a candidate left out could be within ``RESCORE_GAP`` of the k-th.
RESCORE_MARGIN, RESCORE_GAP = 16, 1e-4


def _rescored(rows: list[tuple], q: np.ndarray, k: int) -> Hits:
    """The ``k`` best of ``rows`` (position-ordered) by the local index's float32 scores."""
    if not rows:
        return Hits.empty()
    positions = np.array([r[0] for r in rows], dtype=np.int64)
    vectors = np.stack([np.asarray(_array(r[2]), dtype=np.float32) for r in rows])
    top = Hits.top(vectors @ q, k)
    return Hits(positions[top.positions], top.scores)


def _hits(rows: Sequence[tuple]) -> Hits:
    return Hits(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.float32),
    )


class _PgSource:
    """The generation as the retriever factory's text source: BM25 (the stored parameters,
    plain analyzer) and dense; what needs every text in memory is refused."""

    def __init__(
        self,
        gen: _Generation,
        hnsw: int | None,
        documents: Callable[[], DocumentMap] | None = None,
    ) -> None:
        """``documents``: gives the generation's document map (read when a retriever with
        the prior first asks; default: read from ``gen`` then)."""
        self.gen = gen
        self.hnsw = hnsw
        self.params = BM25Params.from_dict(gen.manifest["bm25"])
        self._documents = documents or (lambda: document_map(gen))

    @property
    def texts(self) -> Sequence[str]:
        raise InputError("this retriever needs every text in memory; use a local index")

    def texts_at(self, positions: np.ndarray) -> list[str]:
        wanted = np.asarray(positions, dtype=np.int64).tolist()
        if not wanted:
            return []
        rows = dict(
            self.gen.query("SELECT pos, text FROM {s}.chunks WHERE pos = ANY(%s)", [wanted])
        )
        return [rows[p] for p in wanted]

    @property
    def documents(self) -> DocumentMap:
        return self._documents()

    def lexical(self, analyzer: Analyzer, params: BM25Params) -> PgBM25:
        if analyzer.params(params) != self.params:
            raise InputError(
                f"a PostgreSQL index has the BM25 it was built with (analyzer plain); "
                f"analyzer {analyzer.name} needs another: use a local index"
            )
        return PgBM25(self.gen, self.params, analyzer)

    def dense(self, embedder: Embedder) -> PgDense:
        model = (self.gen.manifest.get("dense") or {}).get("model")
        if model is None:
            raise InputError("this PostgreSQL index has no vectors; write it with --dense")
        if embedder.name != model:
            raise InputError(f"index vectors were made with {model!r}, not {embedder.name!r}")
        return PgDense(self.gen, embedder, self.hnsw)

    def candidate_vectors(self, embedder: Embedder) -> _PgCandidates:
        self.dense(embedder)  # the same checks: vectors there, made by this model
        return _PgCandidates(self.gen, embedder)


class _PgCandidates:
    """The stored passage vectors of the positions a reranker asks for, read from the
    generation (what :class:`~finchunk.retrieve.neural.rerank.CandidateVectors` gives over a local
    index's stored vectors)."""

    _SQL = "SELECT pos, embedding FROM {s}.chunks WHERE pos = ANY(%s)"

    def __init__(self, gen: _Generation, embedder: Embedder) -> None:
        self.gen = gen
        self.embedder = embedder

    def __call__(self, positions: np.ndarray) -> np.ndarray:
        wanted = np.asarray(positions, dtype=np.int64).tolist()
        if not wanted:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        rows = {r[0]: r[1] for r in self.gen.query(self._SQL, [wanted])}
        return np.stack([np.asarray(_array(rows[p]), dtype=np.float32) for p in wanted])


def document_map(gen: _Generation) -> DocumentMap:
    """Each chunk's document and the documents' cards and metadata, read from the
    generation (for the document prior: what a local index's ``documents`` gives)."""
    from finchunk.retrieve.query.cards import DocumentMap

    groups = [r[0] for r in gen.query("SELECT doc_pos FROM {s}.chunks ORDER BY pos", [])]
    rows = gen.query("SELECT card, metadata::text FROM {s}.documents ORDER BY pos", [])
    metas = [json.loads(m) for _, m in rows]
    return DocumentMap(groups, [c for c, _ in rows], metas, canonical=True)


_HITS_SQL = """
SELECT c.pos, c.id, c.doc_id, c.spans, c.section, c.pages, c.header, c.text, c.kind,
       c.metadata::text, d.title,
       (SELECT array_agg(substr(d.text, (sp->>0)::int + 1, (sp->>1)::int - (sp->>0)::int)
               ORDER BY n)
        FROM jsonb_array_elements(c.spans) WITH ORDINALITY AS e(sp, n))
FROM {s}.chunks c JOIN {s}.documents d ON d.pos = c.doc_pos WHERE c.pos = ANY(%s)
"""


class _PgPlanSource:
    """A generation as a query plan's source: the plan's filters are the generation's SQL
    condition, so a plan over it searches every position the condition passes."""

    def __init__(self, index: PgIndex, gen: _Generation) -> None:
        self.index, self.gen = index, gen

    @property
    def chunk_facts(self) -> Any:
        raise InputError("--distinct, --per-entity and --budget need a local index")

    def doc_mask(self, docs: Sequence[str]) -> np.ndarray:
        raise InputError("a PostgreSQL index filters by its metadata, not by document lists")

    def plan_retriever(self, plan: QueryPlan, kept: np.ndarray | None) -> Any:
        gen = self.gen
        source = _PgSource(gen, self.index.hnsw, lambda: self.index._document_map(gen))
        options = plan_options(RetrieverOptions(bm25=source.params), plan)
        return make_retriever(plan.spec, source, options)


class PgIndex:
    """A PostgreSQL index opened for searching (one connection; one per thread). Dense
    search is exact, or with ``approximate`` by the HNSW index, which keeps ``ef_search``
    candidates (at least k; more: better recall, slower)."""

    def __init__(
        self, url: str, *, approximate: bool = False, ef_search: int = HNSW_EF_SEARCH
    ) -> None:
        if ef_search < 1:
            raise InputError(f"ef_search must be at least 1, not {ef_search}")
        self.url = url
        self.hnsw = ef_search if approximate else None
        self.conn = connect(url)
        self._embedders: dict[str, Embedder] = {}
        #: The document map of the generation last read (cards, for the document prior).
        self._documents: tuple[str, DocumentMap] | None = None
        #: The generation the last search read.
        self.last_generation: str | None = None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> PgIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def generation(self, filters: Sequence[Filter] = ()) -> Iterator[_Generation]:
        """The live generation, held (a shared advisory lock) for one reading transaction."""
        with _errors(self.url), self.conn.transaction():
            row = None
            if self.conn.execute(f"SELECT to_regclass('{SCHEMA}.live')").fetchone()[0]:
                # held shared for the search; the switch takes it exclusive, and readers
                # coming after a waiting switch queue behind it (a FOR SHARE row lock let a
                # stream of readers starve the switch)
                self.conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (LIVE_LOCK,))
                live = self.conn.execute(f"SELECT generation FROM {SCHEMA}.live").fetchone()
                row = (
                    live
                    and self.conn.execute(
                        f"SELECT name, manifest FROM {SCHEMA}.generations WHERE name = %s", live
                    ).fetchone()
                )
            if row is None:
                raise InputError(f"{_safe(self.url)}: no finchunk index here; write one with "
                                 "`finchunk index FILES --to URL`")  # fmt: skip
            _check_format(self.url, row[1])
            yield _Generation(self.conn, row[0], row[1], filter_sql(filters))

    def _embedder(self, model: str | None) -> Embedder:
        name = model or DEFAULT_EMBEDDER
        if name not in self._embedders:
            self._embedders[name] = make_embedder(name)
        return self._embedders[name]

    def search(self, query: str, options: SearchOptions | None = None) -> SearchResult:
        """As :func:`finchunk.retrieve.query.search.search` over the local index: the same hits,
        scores and citations (plain delivery, explicit filters): the question's query plan
        (:mod:`finchunk.retrieve.query.plan`), made and run as over a local index. With
        evidence delivery (``options.delivery.evidence``) the same evidence as the local
        index delivers, cut from the documents' stored layout
        (:func:`~finchunk.retrieve.query.search.deliver_ranked`); a question naming several
        issuers gets no slot per issuer here (that needs a local index's metadata)."""
        options = options or SearchOptions()
        check_query(query, options.k)
        evidence = options.delivery.evidence
        if options.auto_filter or not (options.delivery.plain or evidence):
            raise InputError(
                "--auto-filter, --distinct, --per-entity and --budget need a local index "
                "(--evidence --budget works here)"
            )
        if evidence:
            options = evidence_options(options)
        with self.generation(options.filters) as gen:
            self.last_generation = gen.name
            plan = self._plan(gen, query, options)
            result = SearchResult(query, plan.spec, [], list(plan.filters), list(plan.notes))
            if options.filters and not self._spanned(gen):
                result.notes.append(
                    "no document matches the filters " + ", ".join(map(str, options.filters))
                )
                if evidence:
                    deliver_ranked(result, plan, [], [], {})
                return result
            ranked = run_plan(plan, _PgPlanSource(self, gen))
            if evidence:
                records = [h.record for h in self._hits(gen, ranked)]
                documents = self._stored_documents(gen, [r.doc_id for r in records])
                deliver_ranked(result, plan, records, ranked.scores.tolist(), documents)
                return result
            result.hits = self._hits(gen, ranked)
        if len(ranked) < options.k:
            result.notes.append(
                f"{len(ranked)} of k={options.k}: no other chunk matches the question"
            )
        return result

    def _stored_documents(self, gen: _Generation, doc_ids: Sequence[str]) -> dict[str, Any]:
        """The documents ``doc_ids`` as the build chunked them (their stored layout)."""
        from finchunk.retrieve.index.layout import stored_document

        wanted = list(dict.fromkeys(doc_ids))
        if not wanted:
            return {}
        rows = gen.query(
            "SELECT id, title, text, metadata::text, layout FROM {s}.documents WHERE id = ANY(%s)",
            [wanted],
        )
        where = f"{_safe(self.url)} {gen.name}.documents"
        return {
            d: stored_document(d, text, title or "", json.loads(meta), layout, where)
            for d, title, text, meta, layout in rows
        }

    def _plan(self, gen: _Generation, query: str, options: SearchOptions) -> QueryPlan:
        """The plan over this generation: the filters are its SQL condition (the plan's
        documents are all; the condition keeps them), scored with the whole index's
        statistics; ``auto`` as over a local index, the model made once per index."""
        model = (gen.manifest.get("dense") or {}).get("model")
        named = parse_named(options.retriever)
        auto = isinstance(named, AutoSpec)
        wants = auto_fuses(model) if isinstance(named, AutoSpec) else named.needs_embedder
        embedder = None
        if wants:  # made once per index, kept
            try:
                embedder = self._embedder(model)
            except InputError:
                if not auto:
                    raise
                embedder = None  # (not installed: auto_retriever notes it and runs bm25)
        spanned = self._spanned(gen) if auto or options.filters else 0
        facts = SourceFacts(spanned, int(gen.size), model, kept_statistics=False)
        statistics = options.filter_statistics if options.filters else FilterStatistics.INDEX
        return make_plan(
            query,
            named,
            facts,
            k=options.k,
            filters=options.filters,
            docs=() if options.filters and not spanned else None,
            statistics=statistics,
            delivery=options.delivery,
            embedder=embedder,
            reranker=options.reranker,
            instructions=options.instructions,
        )

    @staticmethod
    def _spanned(gen: _Generation) -> int:
        """How many documents the search spans (those the filters keep)."""
        where, params = gen.where
        return int(gen.query(f"SELECT count(*) FROM {{s}}.documents c WHERE {where}", params)[0][0])

    def _document_map(self, gen: _Generation) -> DocumentMap:
        """The generation's document map, read once per generation (a search without the
        prior reads none)."""
        if self._documents is None or self._documents[0] != gen.name:
            self._documents = (gen.name, document_map(gen))
        return self._documents[1]

    @staticmethod
    def _hits(gen: _Generation, ranked: Hits) -> list[Hit]:
        rows = {r[0]: r for r in gen.query(_HITS_SQL, [ranked.positions.tolist()])}
        out = []
        for rank, (pos, score) in enumerate(ranked, start=1):
            r = rows[pos]
            record = ChunkRecord.from_row(dict(zip(
                ("id", "doc_id", "spans", "section", "pages", "header", "text", "kind", "metadata"),
                r[1:10], strict=True,
            )))  # fmt: skip
            title = r[10] if r[10] is not None else record.doc_id
            out.append(Hit(rank, record, title, float(score), tuple(r[11] or ())))
        return out


def _array(value: Any) -> Any:
    """A pgvector value as numpy (pgvector's ``Vector`` or an array already)."""
    return value.to_numpy() if hasattr(value, "to_numpy") else value
