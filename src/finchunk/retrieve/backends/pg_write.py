"""Writing an index into PostgreSQL: a generation's schema (chunks, documents, BM25 terms and
postings, vectors) copied in, indexed, and published by replacing the live row; the
generations no reader holds are dropped. Reading it: :mod:`finchunk.retrieve.backends.pgstore`."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from finchunk.retrieve.backends.pg_bm25 import BLOCK, BLOCKS, WEIGHTS_SQL
from finchunk.retrieve.backends.pg_connect import (
    HNSW_EF_CONSTRUCTION,
    HNSW_M,
    LIVE_LOCK,
    MAINTENANCE_WORK_MEM,
    SCHEMA,
    WRITE_LOCK,
    _errors,
    _ident,
    _psycopg,
    _safe,
    connect,
)
from finchunk.retrieve.index.assemble import Assembled, assemble
from finchunk.retrieve.index.build import Source
from finchunk.retrieve.index.config import (
    BuildReport,
    IndexConfig,
    NoProgress,
    OnError,
    Progress,
    resolve_embedder,
)
from finchunk.retrieve.index.pieces import LocalWork, Work
from finchunk.retrieve.lexical.bm25 import BM25Params, okapi_idf
from finchunk.retrieve.neural.dense import Embedder
from finchunk.retrieve.query.filters import words

if TYPE_CHECKING:
    pass


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
    chunks int NOT NULL, layout text NOT NULL);
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
    cols = (
        "pos, id, title, source, sha256, text, metadata, meta_words, card, first_chunk, chunks, "
        "layout"
    )
    with cur.copy(sql.SQL(f"COPY {{}}.documents ({cols}) FROM STDIN").format(s)) as cp:
        for pos, (row, entry) in enumerate(
            zip(new.docs.to_pylist(), new.manifest.documents, strict=True)
        ):
            meta = entry.metadata
            cp.write_row(
                (pos, row["id"], row["title"], row["source"], row["sha256"], row["text"],
                 json.dumps(meta, ensure_ascii=False), _meta_words(meta), entry.card,
                 entry.first_chunk, entry.chunks, row["layout"])
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
    ``on_error`` as for :func:`~finchunk.retrieve.index.build.build_index`."""
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
