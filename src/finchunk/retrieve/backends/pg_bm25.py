"""BM25 over a PostgreSQL generation's postings: the top ``k`` without summing every posting
of the common terms.

The generation stores each posting's BM25 weight (``postings``: term, chunk, block, weight,
written as the local index weighs it), indexed by ``(term_id, chunk)`` and by ``(term_id,
block)``, and per term and block its largest weight and count (``blockmax``). A query's score
is the sum of its terms' weights (a repeated term counts again), summed in float64 and
rounded to float32: the local index's sums, bit for bit (float32 weights, a few dozen of
them, sum exactly in float64).

A block is :data:`BLOCK` chunks that read alike, not consecutive ones (:func:`blocks_of`):
the chunks sorted by the title of their innermost section, then length, then position. In
reports that share a structure, the paragraphs a question's words come from (every
issuer's "net financial debt" paragraph) then share blocks, and a block without them has
a low bound; consecutive chunks (one or two reports, every section) each had some chunk
with each common word, and every block's bound reached the floor. Any grouping is exact;
the grouping decides only how many blocks are read.

:func:`bm25_top_k` takes one of three ways, each exact:

* **Block-max**: a block's bound is the sum of its terms' largest weights there. The blocks
  of the highest bounds are scored first; their ``k``-th score is a floor under the
  ``k``-th best of all, and only the blocks whose bound reaches it are read and summed.
  A chunk of any other block scores below the floor.
* **Ranges**: a filter keeping few chunks (the documents' chunk ranges; a filter keeps whole
  documents) reads the terms' postings inside those ranges only, and sums them.
* **Exhaustive**: every posting of every term summed in SQL (a generation written before
  the grouped blocks, ``k`` as large as the index, or blocks to read holding most of the
  postings anyway). :func:`exhaustive_top_k` is also the baseline ``bench/scale.py`` times.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.lexical.bm25 import BM25Params

if TYPE_CHECKING:
    from finchunk.retrieve.backends.pgstore import _Generation
    from finchunk.retrieve.lexical.analyzers import Analyzer

#: The generation manifest's key for its block size: its chunks have their block, its
#: postings the block-max table and its documents their chunk ranges (a generation without
#: it, such as one written with blocks of consecutive chunks, is searched exhaustively).
BLOCKS = "bm25_blocks"

#: BM25's eager weight per posting, in the order and precision the local index computes
#: it; the block-max table.
WEIGHTS_SQL = """
CREATE TABLE {s}.postings AS
SELECT p.term_id, p.chunk, c.block, p.tf,
       (t.idf * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * c.length
        / %(avgdl)s)))::float4 AS weight
FROM {s}.stage p JOIN {s}.terms t ON t.id = p.term_id JOIN {s}.chunks c ON c.pos = p.chunk
ORDER BY p.term_id, c.block, p.chunk;
DROP TABLE {s}.stage;
CREATE INDEX ON {s}.postings (term_id, chunk) INCLUDE (weight);
CREATE INDEX ON {s}.postings (term_id, block) INCLUDE (chunk, weight);
CREATE TABLE {s}.blockmax AS
SELECT term_id, block, max(weight) AS weight, count(*)::int AS n
FROM {s}.postings GROUP BY term_id, block ORDER BY 1, 2;
CREATE INDEX ON {s}.blockmax (term_id) INCLUDE (block, weight, n);
"""

#: Upper bounds are inflated this much, floors lowered this much (as the local index's
#: MaxScore): float rounding never lets a pruned chunk reach or tie the ``k``-th.
_SLACK, _ROUNDING = 1 + 1e-5, 1 - 1e-6
#: Postings (estimated: the terms' postings times the share of chunks kept) below which a
#: search sums them within the kept ranges; more go to block-max.
SCAN_BUDGET = 20_000
#: The blocks of the highest bounds scored first, for the floor (at 316k generated chunks,
#: 100 questions: postings read p50 / max 7.2k / 647k with 4, 9.9k / 31k with 8, 13.8k /
#: 38k with 16: 4 left some floors too low).
FIRST_BLOCKS = 8
#: Chunks per block (a generation's blocks are written with it; its manifest says).
BLOCK = 128
#: Memory for the exhaustive sum's hash of every matching chunk (PostgreSQL's default 4 MB
#: spilled it to disk: 258k chunks in 5 batches; in memory ~10% faster, 868 against 961 ms
#: median at 316k chunks on a loaded machine).
SUM_WORK_MEM = "64MB"
#: Where the blocks to score hold more than this share of the terms' postings, the
#: exhaustive sum in SQL (cheaper per posting) answers.
EXHAUSTIVE_SHARE = 0.5
#: Past this ``k`` (the document prior ranks every matching chunk) the sum is exhaustive.
LARGE_K = 1_000

_EXHAUSTIVE = """
SELECT p.chunk, sum(p.weight::float8)::float4 AS score
FROM unnest(%s::text[]) AS q(term) JOIN {s}.terms t ON t.term = q.term
JOIN {s}.postings p ON p.term_id = t.id {join}
GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %s
"""

#: Block-max, first statement: per block the bound of a chunk's score there, the sum of each
#: term's largest weight in the block (``bound``; a filter is not known per block: the bound
#: of every block holds for its kept chunks); the ``first`` blocks of the highest bounds
#: scored exactly, their kept chunks: their ``k``-th score is a floor under the ``k``-th
#: best of all (``theta``); the blocks whose bound reaches it, with their postings' count.
_BLOCKS = """
WITH q AS (SELECT * FROM unnest(%(ids)s::int[], %(m)s::int[]) AS q(id, m)),
bound AS MATERIALIZED (
    SELECT b.block, sum(q.m * b.weight::float8) AS ub, sum(b.n) AS n
    FROM q JOIN {s}.blockmax b ON b.term_id = q.id
    GROUP BY b.block),
first AS MATERIALIZED (SELECT block FROM bound ORDER BY ub DESC, block LIMIT %(first)s),
scored AS MATERIALIZED (
    SELECT p.chunk, sum(q.m * p.weight::float8) AS score
    FROM first f CROSS JOIN q CROSS JOIN LATERAL (
        SELECT p.chunk, p.weight FROM {s}.postings p
        WHERE p.term_id = q.id AND p.block = f.block OFFSET 0) AS p
    WHERE %(kept)s::int4multirange IS NULL OR p.chunk <@ %(kept)s::int4multirange
    GROUP BY p.chunk),
theta AS (SELECT coalesce(
    (SELECT score FROM scored ORDER BY score DESC OFFSET %(k1)s LIMIT 1), 0) AS theta)
SELECT b.block, b.n FROM bound b, theta t
WHERE b.ub * %(slack)s >= t.theta * %(rounding)s ORDER BY b.block
"""

#: Block-max, second statement: every posting of the terms in the blocks kept, summed. Each
#: term's postings in each block are read by the index (``OFFSET 0`` keeps the planner
#: from joining otherwise: with a filter it chose to read every posting of the terms and
#: hash the blocks, 317 ms where this takes 26).
_IN_BLOCKS = """
WITH q AS (SELECT * FROM unnest(%(ids)s::int[], %(m)s::int[]) AS q(id, m))
SELECT p.chunk, sum(q.m * p.weight::float8)::float4 AS score
FROM unnest(%(blocks)s::int[]) AS f(block) CROSS JOIN q CROSS JOIN LATERAL (
    SELECT p.chunk, p.weight FROM {s}.postings p
    WHERE p.term_id = q.id AND p.block = f.block OFFSET 0) AS p
WHERE %(kept)s::int4multirange IS NULL OR p.chunk <@ %(kept)s::int4multirange
GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %(k)s
"""

#: Every posting of the terms within the kept chunk ranges, summed.
_IN_RANGES = """
SELECT p.chunk, sum(q.m * p.weight::float8)::float4 AS score
FROM unnest(%s::int[], %s::int[]) AS q(id, m)
CROSS JOIN unnest(%s::int[], %s::int[]) AS r(lo, hi)
JOIN {s}.postings p ON p.term_id = q.id AND p.chunk >= r.lo AND p.chunk < r.hi
GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %s
"""


def no_mask(mask: np.ndarray | None) -> None:
    if mask is not None:
        raise InputError("a PostgreSQL index filters in SQL (SearchOptions.filters), not by mask")


class PgBM25:
    """BM25 over the generation's term statistics (a retriever): :func:`bm25_top_k`
    (``bench/scale.py`` swaps in :func:`exhaustive_top_k` to time the two)."""

    top_k: Callable[[_Generation, Sequence[str], int], Hits]

    def __init__(self, gen: _Generation, params: BM25Params, analyzer: Analyzer) -> None:
        self.gen = gen
        self.params = params
        self.analyzer = analyzer
        self.size = gen.size

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        no_mask(mask)
        return type(self).top_k(self.gen, self.params.text.tokens(self.analyzer.expand(query)), k)


def exhaustive_top_k(gen: _Generation, tokens: Sequence[str], k: int) -> Hits:
    """Every posting of every query term summed in SQL, the filter joined."""
    where, wparams = gen.where
    join = "" if where == "true" else f"JOIN {{s}}.chunks c ON c.pos = p.chunk WHERE {where}"
    gen.conn.execute(f"SET LOCAL work_mem = '{SUM_WORK_MEM}'")  # (for this transaction)
    return row_hits(gen.query(_EXHAUSTIVE.replace("{join}", join), [list(tokens), *wparams, k]))


def bm25_top_k(gen: _Generation, tokens: Sequence[str], k: int) -> Hits:
    """The ``k`` best chunks for the query ``tokens`` (the text pipeline's terms, repeats
    counting again) and their scores, ties by position: :func:`exhaustive_top_k`'s
    answer, reading far fewer postings where the query has common terms."""
    if k < 1 or not tokens:
        return Hits.empty()
    if not gen.manifest.get(BLOCKS) or k > LARGE_K:
        return exhaustive_top_k(gen, tokens, k)
    rows = gen.query("SELECT term, id, df FROM {s}.terms WHERE term = ANY(%s)", [list(tokens)])
    found = {term: (tid, df) for term, tid, df in rows}
    occ = [found[t][0] for t in tokens if t in found]  # query order, repeats kept
    if not occ:
        return Hits.empty()
    df = {tid: d for tid, d in found.values()}
    mult = {tid: occ.count(tid) for tid in df}
    ranges = _kept_ranges(gen)
    if ranges is not None and not ranges[0].size:
        return Hits.empty()
    kept = gen.size if ranges is None else int((ranges[1] - ranges[0]).sum())
    postings = sum(df.values())
    if postings * kept <= SCAN_BUDGET * gen.size:  # few postings in what is kept: sum them
        lo, hi = ranges if ranges is not None else ([0], [gen.size])
        ids = sorted(df)
        rows = _custom(
            gen,
            _IN_RANGES,
            [ids, [mult[t] for t in ids], list(map(int, lo)), list(map(int, hi)), k],
        )
        return row_hits(rows)
    return _block_max(gen, tokens, df, mult, ranges, k)


PgBM25.top_k = bm25_top_k


def blocks_of(
    sections: Sequence[Sequence[str] | None], lengths: np.ndarray, block: int
) -> np.ndarray:
    """Each chunk's block (int32): the chunks sorted by the title of their innermost section
    (its numbering and case set aside), then BM25 length, then position, and cut into runs
    of ``block``. Chunks of one kind of section, across documents, share blocks."""
    titles = [_TITLE_LEAD.sub("", s[-1]).casefold() if s else "" for s in sections]
    _, code = np.unique(np.array(titles, dtype=object), return_inverse=True)
    n = len(titles)
    order = np.lexsort((np.arange(n), np.asarray(lengths), code))
    out = np.empty(n, dtype=np.int32)
    out[order] = np.arange(n, dtype=np.int32) // block
    return out


#: A section title's numbering and punctuation ahead of its first letter ("3. ", "(5) ").
_TITLE_LEAD = re.compile(r"^[\W\d_]+")


def row_hits(rows: Sequence[tuple]) -> Hits:
    return Hits(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.float32),
    )


def _kept_ranges(gen: _Generation) -> tuple[np.ndarray, np.ndarray] | None:
    """The chunk ranges ``[lo, hi)`` of the documents the filter keeps (ascending), or
    None without a filter."""
    if gen.where[0] == "true":
        return None
    rows = [(first, first + n) for first, n in gen.kept_documents() if n > 0]
    return (
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.int64),
    )


def _multirange(ranges: tuple[np.ndarray, np.ndarray] | None) -> str | None:
    """The ranges as an ``int4multirange`` literal (adjacent ones merged)."""
    if ranges is None:
        return None
    lo, hi = ranges
    starts = np.concatenate([[True], lo[1:] != hi[:-1]])
    ends = np.concatenate([starts[1:], [True]])
    pairs = zip(lo[starts].tolist(), hi[ends].tolist(), strict=True)
    return "{" + ",".join(f"[{a},{b})" for a, b in pairs) + "}"


def _block_max(
    gen: _Generation,
    tokens: Sequence[str],
    df: dict[int, int],
    mult: dict[int, int],
    ranges: tuple[np.ndarray, np.ndarray] | None,
    k: int,
) -> Hits:
    """Block-max: the blocks whose bound reaches a floor under the ``k``-th best
    (:data:`_BLOCKS`), their postings summed (:data:`_IN_BLOCKS`); a chunk of another block
    scores below that floor. Where those blocks hold most of the postings, exhaustive."""
    ids = sorted(df)
    params = {
        "ids": ids, "m": [mult[t] for t in ids], "kept": _multirange(ranges),
        "k": k, "k1": k - 1, "first": FIRST_BLOCKS,
        "slack": _SLACK, "rounding": _ROUNDING,
    }  # fmt: skip
    rows = _custom(gen, _BLOCKS, params)
    if sum(n for _, n in rows) > EXHAUSTIVE_SHARE * sum(df.values()):
        return exhaustive_top_k(gen, tokens, k)
    return row_hits(_custom(gen, _IN_BLOCKS, {**params, "blocks": [b for b, _ in rows]}))


def _custom(gen: _Generation, template: str, params: Any) -> list[tuple]:
    """``gen.query`` planned for these parameters every time: not a prepared statement,
    whose generic plan (after five runs) does not know the arrays' sizes nor the filter
    and chose a scan of every posting (30 s a search at 316k chunks)."""
    sql = _psycopg_sql()
    stmt = sql.SQL(template).format(s=gen.schema)
    return gen.conn.execute(stmt, params, prepare=False).fetchall()


def _psycopg_sql() -> Any:
    from psycopg import sql

    return sql
