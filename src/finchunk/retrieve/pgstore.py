"""An index in PostgreSQL with pgvector: one shared index that many people search at once.

Layout: schema ``finchunk`` holds ``live`` (one row: the live generation) and
``generations`` (name, manifest); each generation is a schema of its own,
``finchunk_g000002``, with

* ``documents`` (pos, id, title, source, sha256, text, metadata JSONB, meta_words JSONB,
  card, first_chunk and chunks: the document's chunk range);
* ``chunks`` (pos, id, doc_id, doc_pos, spans, section, page, pages, header, text, kind,
  metadata JSONB, meta_words JSONB, length: BM25's length, embedding ``vector(N)``, with an
  HNSW index for inner product when the index is dense);
* ``terms`` (id, term, df, idf), ``postings`` (term_id, chunk, tf, weight) and ``blockmax``
  (term_id, block, weight, n: per block of chunks its largest weight): BM25's term
  statistics. The terms, frequencies, lengths and idf are the local index's
  (:mod:`finchunk.retrieve.bm25_stats`, :func:`~finchunk.retrieve.bm25.okapi_idf`); each
  posting's weight ``idf·tf·(k1+1)/(tf+k1·(1−b+b·len/avgdl))`` is computed in SQL when the
  generation is written, and a query's score is the sum of its terms' weights. So BM25
  here ranks and scores as the local index does (``ts_rank`` is not used); its top k
  reads only the blocks of chunks that can hold it (:mod:`finchunk.retrieve.pg_bm25`).

Writing: the new generation's schema is filled while the old one stays live; one
transaction then points ``live`` at it; older generations are dropped after. Writers take
turns (a session advisory lock, released if a writer dies), and each first drops any
generation schema the catalog does not name: what a writer killed before publishing left. Reading: a
search runs in one transaction holding an advisory lock on ``live``, shared; the switch takes
it exclusive (it waits for the searches under way; later ones wait for it), so a reader never
sees half an index or two generations, and a stream of readers cannot starve the switch.

Filters become SQL over ``meta_words`` (each metadata value's normalised words, as
:class:`~finchunk.retrieve.filters.MetadataIndex` matches them): the same documents pass.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from finchunk.errors import FinchunkError, InputError
from finchunk.extras import import_extra
from finchunk.records import ChunkRecord
from finchunk.retrieve.analyzers import Analyzer
from finchunk.retrieve.auto import auto_fuses
from finchunk.retrieve.base import Hits
from finchunk.retrieve.bm25 import BM25Params, okapi_idf
from finchunk.retrieve.build import (
    Assembled,
    BuildReport,
    IndexConfig,
    LocalWork,
    NoProgress,
    OnError,
    Progress,
    Source,
    Work,
    assemble,
    resolve_embedder,
)
from finchunk.retrieve.dense import Embedder, make_embedder
from finchunk.retrieve.filters import Filter, words
from finchunk.retrieve.kinds import DEFAULT_EMBEDDER, AutoSpec, FilterStatistics
from finchunk.retrieve.pg_bm25 import BLOCK, BLOCKS, WEIGHTS_SQL, PgBM25, no_mask
from finchunk.retrieve.plan import QueryPlan, SourceFacts, make_plan, plan_options, run_plan
from finchunk.retrieve.retriever import (
    RetrieverOptions,
    make_retriever,
    parse_named,
)
from finchunk.retrieve.search import Hit, SearchOptions, SearchResult, check_query
from finchunk.retrieve.store import FORMAT

if TYPE_CHECKING:
    from finchunk.retrieve.cards import DocumentMap

SCHEMA = "finchunk"
#: pgvector's HNSW build and search parameters.
HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH = 16, 64, 100
#: The advisory lock on ``live``: searches hold it shared, the switch exclusive.
LIVE_LOCK = 0x66696E63686B
#: The writers' advisory lock (a session lock: it goes with a writer that dies): one writer
#: at a time, so a generation schema that no writer holds and no catalog row names is left
#: from a writer that died, and is dropped.
WRITE_LOCK = LIVE_LOCK + 1
#: Memory for building the indexes (an HNSW graph built in memory is much faster).
MAINTENANCE_WORK_MEM = "1GB"


class DatabaseError(FinchunkError):
    """PostgreSQL could not be reached or refused the work."""


def _psycopg() -> Any:
    return import_extra("psycopg", "postgres", "a PostgreSQL index")


def connect(url: str) -> Any:
    """A psycopg connection with pgvector's types (one clear error when it cannot)."""
    psycopg = _psycopg()
    pgvector = import_extra("pgvector.psycopg", "postgres", "a PostgreSQL index")
    try:
        conn = psycopg.connect(url)
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.commit()
        pgvector.register_vector(conn)
    except psycopg.Error as exc:
        raise DatabaseError(f"{_safe(url)}: cannot use PostgreSQL ({_first_line(exc)})") from None
    return conn


def _safe(url: str) -> str:
    """The URL without a password."""
    head, at, tail = url.rpartition("@")
    if not at or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, user = head.partition("//")
    return f"{scheme}//{user.split(':', 1)[0]}:***@{tail}"


def _check_format(url: str, manifest: dict[str, Any]) -> None:
    """A generation is read only in the tables' layout of this finchunk (the cards came in
    format 3): one written before is refused with a line that says to write it again."""
    if manifest.get("format") != FORMAT:
        raise InputError(
            f"{_safe(url)}: the index was written by finchunk "
            f"{manifest.get('finchunk_version')} (format {manifest.get('format')}); this is "
            f"format {FORMAT}: write it again with `finchunk index FILES --to URL`"
        )


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


@contextmanager
def _errors(url: str) -> Iterator[None]:
    psycopg = _psycopg()
    try:
        yield
    except psycopg.Error as exc:
        raise DatabaseError(f"{_safe(url)}: {_first_line(exc)}") from None


def _ident(*names: str) -> Any:
    return _psycopg().sql.Identifier(*names)


# --- writing ---------------------------------------------------------------------------------

_CATALOG = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE SEQUENCE IF NOT EXISTS {SCHEMA}.generation_seq;
CREATE TABLE IF NOT EXISTS {SCHEMA}.generations (
    name text PRIMARY KEY, manifest jsonb NOT NULL, created timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS {SCHEMA}.live (
    one boolean PRIMARY KEY DEFAULT true CHECK (one), generation text NOT NULL);
"""

_TABLES = """
CREATE TABLE {s}.documents (pos int PRIMARY KEY, id text NOT NULL UNIQUE, title text,
    source text, sha256 text, text text NOT NULL, metadata jsonb NOT NULL,
    meta_words jsonb NOT NULL, card text NOT NULL, first_chunk int NOT NULL,
    chunks int NOT NULL);
CREATE TABLE {s}.chunks (pos int PRIMARY KEY, id text NOT NULL, doc_id text NOT NULL,
    doc_pos int NOT NULL, spans jsonb NOT NULL, section text[] NOT NULL, page int,
    pages int[] NOT NULL, header text NOT NULL, text text NOT NULL, kind text NOT NULL,
    metadata jsonb NOT NULL, meta_words jsonb NOT NULL, length float8 NOT NULL,
    embedding {vector});
CREATE TABLE {s}.terms (id int PRIMARY KEY, term text NOT NULL UNIQUE, df int NOT NULL,
    idf float8 NOT NULL);
CREATE UNLOGGED TABLE {s}.stage (term_id int NOT NULL, chunk int NOT NULL, tf float8 NOT NULL);
"""


def _meta_words(meta: dict[str, str]) -> str:
    return json.dumps({k: words(v) for k, v in meta.items()}, ensure_ascii=False)


def _copy_documents(cur: Any, s: Any, new: Assembled) -> None:
    sql = _psycopg().sql
    cols = "pos, id, title, source, sha256, text, metadata, meta_words, card, first_chunk, chunks"
    with cur.copy(sql.SQL(f"COPY {{}}.documents ({cols}) FROM STDIN").format(s)) as cp:
        for pos, (row, entry) in enumerate(
            zip(new.docs.to_pylist(), new.manifest.documents, strict=True)
        ):
            meta = entry.metadata
            cp.write_row(
                (pos, row["id"], row["title"], row["source"], row["sha256"], row["text"],
                 json.dumps(meta, ensure_ascii=False), _meta_words(meta), entry.card,
                 entry.first_chunk, entry.chunks)
            )  # fmt: skip


def _copy_chunks(cur: Any, s: Any, new: Assembled) -> None:
    sql = _psycopg().sql
    cols = (
        "pos, id, doc_id, doc_pos, spans, section, page, pages, header, text, kind, metadata, "
        "meta_words, length, embedding"
    )
    doc_pos = {d.id: i for i, d in enumerate(new.manifest.documents)}
    words_of = {d.id: _meta_words(d.metadata) for d in new.manifest.documents}
    lengths = new.stats.lengths.tolist()
    with cur.copy(sql.SQL(f"COPY {{}}.chunks ({cols}) FROM STDIN").format(s)) as cp:
        for pos, r in enumerate(new.chunks.to_pylist()):
            vec = None if new.vectors is None else new.vectors[pos]
            cp.write_row(
                (pos, r["id"], r["doc_id"], doc_pos[r["doc_id"]], json.dumps(r["spans"]),
                 r["section"], r["page"], r["pages"], r["header"], r["text"], r["kind"],
                 r["metadata"], words_of[r["doc_id"]], lengths[pos], vec)
            )  # fmt: skip


def _copy_csv(cur: Any, table: Any, columns: dict[str, np.ndarray | list]) -> None:
    """COPY columns in bulk through Arrow's CSV writer (millions of postings)."""
    buf = io.BytesIO()
    pacsv.write_csv(
        pa.table(columns), buf, pacsv.WriteOptions(include_header=False, quoting_style="needed")
    )
    sql = _psycopg().sql
    names = sql.SQL(", ").join(sql.Identifier(c) for c in columns)
    with cur.copy(sql.SQL("COPY {} ({}) FROM STDIN (FORMAT csv)").format(table, names)) as cp:
        view = buf.getbuffer()
        for i in range(0, len(view), 1 << 20):
            cp.write(view[i : i + (1 << 20)])


def _copy_bm25(cur: Any, s: Any, new: Assembled, params: BM25Params) -> None:
    stats = new.stats
    df = stats.doc_freq()
    idf = okapi_idf(df, stats.size, params)
    ids = np.arange(len(stats.vocab), dtype=np.int64)
    sql = _psycopg().sql
    _copy_csv(
        cur,
        sql.SQL("{}.terms").format(s),
        {"id": ids, "term": stats.vocab, "df": df.astype(np.int64), "idf": idf},
    )
    _copy_csv(
        cur,
        sql.SQL("{}.stage").format(s),
        {"term_id": stats.terms, "chunk": stats.text_of, "tf": stats.tf},
    )
    weights = {"k1": params.k1, "b": params.b, "avgdl": stats.avg_length(), "block": BLOCK}
    for stmt in filter(str.strip, WEIGHTS_SQL.split(";")):
        cur.execute(sql.SQL(stmt).format(s=s), weights if "%(" in stmt else None)


def _index_sql(s: Any, dense: bool) -> list[Any]:
    sql = _psycopg().sql
    out = [
        sql.SQL("CREATE INDEX ON {}.chunks USING gin (meta_words jsonb_path_ops)").format(s),
        sql.SQL("CREATE INDEX ON {}.documents USING gin (meta_words jsonb_path_ops)").format(s),
    ]
    if dense:
        out.append(
            sql.SQL(
                "CREATE INDEX ON {}.chunks USING hnsw (embedding vector_ip_ops) "
                f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
            ).format(s)
        )
    return out


def _generation_manifest(new: Assembled) -> dict[str, Any]:
    m = asdict(new.manifest)
    m.pop("documents")
    m["bm25_avgdl"] = new.stats.avg_length()
    m[BLOCKS] = BLOCK
    return m


def write_pg_generation(conn: Any, new: Assembled) -> str:
    """Write ``new`` as a generation, publish it in one transaction, drop the older ones;
    returns its name. A failure leaves the live generation as it was. Writers take turns
    (:data:`WRITE_LOCK`)."""
    conn.execute(_CATALOG)
    conn.commit()
    conn.execute("SELECT pg_advisory_lock(%s)", (WRITE_LOCK,))  # the writers queue here
    try:
        _drop_orphans(conn)
        name = _write_generation(conn, new)
        conn.commit()
        return name
    finally:
        if not (conn.closed or conn.broken):  # a lost connection took its lock with it
            conn.rollback()  # (nothing left to undo after a success)
            conn.execute("SELECT pg_advisory_unlock(%s)", (WRITE_LOCK,))
            conn.commit()


def _drop_orphans(conn: Any) -> None:
    """Drop the generation schemas the catalog does not name (left by a writer that died
    after committing its tables and before publishing them)."""
    sql = _psycopg().sql
    known = {r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA}.generations")}
    found = conn.execute(
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (f"{SCHEMA}\\_g%",)
    ).fetchall()
    for (schema,) in found:
        if schema.removeprefix(f"{SCHEMA}_") not in known:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(_ident(schema)))
    conn.commit()


def _write_generation(conn: Any, new: Assembled) -> str:
    sql = _psycopg().sql
    num = conn.execute(f"SELECT nextval('{SCHEMA}.generation_seq')").fetchone()[0]
    name = f"g{num:06d}"
    s = _ident(f"{SCHEMA}_{name}")
    dim = new.manifest.dense["dim"] if new.manifest.dense else None
    vector = sql.SQL(f"vector({int(dim)})" if dim else "vector")
    try:
        with conn.cursor() as cur:
            cur.execute(sql.SQL("CREATE SCHEMA {}").format(s))
            cur.execute(sql.SQL(_TABLES).format(s=s, vector=vector))
            _copy_documents(cur, s, new)
            _copy_chunks(cur, s, new)
            cur.execute(f"SET LOCAL maintenance_work_mem = '{MAINTENANCE_WORK_MEM}'")
            _copy_bm25(cur, s, new, new.manifest.bm25_params)
            for stmt in _index_sql(s, dim is not None):
                cur.execute(stmt)
        conn.commit()
        _vacuum(conn, s)
    except BaseException:
        conn.rollback()
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(s))
        conn.commit()
        raise
    _publish(conn, name, _generation_manifest(new))
    return name


def _vacuum(conn: Any, s: Any) -> None:
    """VACUUM ANALYZE the new tables: statistics for the planner, and the visibility map that
    lets a BM25 query read its postings from the index alone (an index-only scan)."""
    sql = _psycopg().sql
    conn.autocommit = True
    try:
        for table in ("postings", "blockmax", "chunks", "documents", "terms"):
            conn.execute(sql.SQL("VACUUM (ANALYZE) {}.{}").format(s, sql.Identifier(table)))
    finally:
        conn.autocommit = False


def _publish(conn: Any, name: str, manifest: dict[str, Any]) -> None:
    sql = _psycopg().sql
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LIVE_LOCK,))  # searches finish first
        conn.execute(
            f"INSERT INTO {SCHEMA}.generations (name, manifest) VALUES (%s, %s)",
            (name, json.dumps(manifest)),
        )
        conn.execute(
            f"INSERT INTO {SCHEMA}.live (one, generation) VALUES (true, %s) "
            "ON CONFLICT (one) DO UPDATE SET generation = excluded.generation",
            (name,),
        )
    old = [
        r[0]
        for r in conn.execute(f"SELECT name FROM {SCHEMA}.generations WHERE name <> %s", (name,))
    ]
    for g in old:
        with conn.transaction():
            conn.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(_ident(f"{SCHEMA}_{g}"))
            )
            conn.execute(f"DELETE FROM {SCHEMA}.generations WHERE name = %s", (g,))


def _previous_ids(conn: Any) -> set[str]:
    """The documents of the live generation (for the build report)."""
    found = conn.execute(f"SELECT to_regclass('{SCHEMA}.live') IS NOT NULL").fetchone()[0]
    if not found:
        return set()
    row = conn.execute(f"SELECT generation FROM {SCHEMA}.live").fetchone()
    if row is None:
        return set()
    sql = _psycopg().sql
    table = sql.SQL("SELECT id FROM {}.documents").format(_ident(f"{SCHEMA}_{row[0]}"))
    return {r[0] for r in conn.execute(table)}


def build_pg_index(
    sources: Sequence[Source],
    url: str,
    config: IndexConfig | None = None,
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    work: Work | None = None,
    on_error: OnError = OnError.FAIL,
) -> BuildReport:
    """Write a new generation of the index at ``url`` from ``sources`` (every document is
    processed: a PostgreSQL generation is written whole) and publish it; ``work`` and
    ``on_error`` as for :func:`~finchunk.retrieve.build.build_index`."""
    progress = progress or NoProgress()
    config, embedder = resolve_embedder(config or IndexConfig(), embedder)
    with connect(url) as conn, _errors(url):
        conn.execute(_CATALOG)
        conn.commit()
        report = BuildReport(_safe(url))
        report.rebuilt = "a PostgreSQL generation is written whole"
        new = assemble(
            sources, report, config, _previous_ids(conn), work or LocalWork(on_error),
            embedder, progress,
        )  # fmt: skip
        progress.stage("writing to PostgreSQL", 1)
        write_pg_generation(conn, new)
        progress.advance()
    return report


# --- reading ---------------------------------------------------------------------------------


def filter_sql(filters: Sequence[Filter], alias: str = "c") -> tuple[str, list[Any]]:
    """A WHERE condition over ``meta_words`` passing the documents that
    :meth:`~finchunk.retrieve.filters.MetadataIndex.mask` passes (OR within a field, AND
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
    generation (what :class:`~finchunk.retrieve.rerank.CandidateVectors` gives over a local
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
    from finchunk.retrieve.cards import DocumentMap

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
        """As :func:`finchunk.retrieve.search.search` over the local index: the same hits,
        scores and citations (plain delivery, explicit filters): the question's query plan
        (:mod:`finchunk.retrieve.plan`), made and run as over a local index."""
        options = options or SearchOptions()
        check_query(query, options.k)
        if options.auto_filter or not options.delivery.plain:
            raise InputError(
                "--auto-filter, --distinct, --per-entity and --budget need a local index"
            )
        with self.generation(options.filters) as gen:
            self.last_generation = gen.name
            plan = self._plan(gen, query, options)
            result = SearchResult(query, plan.spec, [], list(plan.filters), list(plan.notes))
            if options.filters and not self._spanned(gen):
                result.notes.append(
                    "no document matches the filters " + ", ".join(map(str, options.filters))
                )
                return result
            ranked = run_plan(plan, _PgPlanSource(self, gen))
            result.hits = self._hits(gen, ranked)
        if len(ranked) < options.k:
            result.notes.append(
                f"{len(ranked)} of k={options.k}: no other chunk matches the question"
            )
        return result

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
