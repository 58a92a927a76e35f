"""BM25 over a PostgreSQL generation's postings: the top ``k`` without summing every posting
of the common terms.

The generation stores each posting's BM25 weight (``postings``: term, chunk, weight, written
as the local index weighs it) under two indexes: by ``(term_id, chunk)`` (a chunk's weight
for a term; every posting of a term in a chunk range) and by ``(term_id, weight DESC,
chunk)``: each term's postings in impact order. A query's score is the sum of its terms'
weights (a repeated term counts again), summed in float64 and rounded to float32: the local
index's sums, bit for bit (float32 weights, a few dozen of them, sum exactly in float64).

:func:`bm25_top_k` takes one of three ways, each exact:

* **Threshold** (Fagin's threshold algorithm): each term's ``n`` best postings by weight;
  a chunk seen in none of them scores at most the sum of the terms' ``n``-th weights (a list
  read whole adds nothing). Once ``k`` seen chunks score (at least) above that, only the
  seen chunks whose bound reaches the ``k``-th are scored exactly (their missing weights
  looked up by chunk); otherwise ``n`` grows fourfold. The common terms' long lists are
  read only down to their ``n``-th weight.
* **Ranges**: a filter keeping few chunks (the documents' chunk ranges) reads the terms'
  postings inside those ranges only, and sums them.
* **Exhaustive**: every posting of every term summed in SQL (a generation written before
  the impact index, ``k`` as large as the index, or a threshold run that would read most
  postings anyway). :func:`exhaustive_top_k` is also the baseline ``bench/scale.py`` times.

Filters are SQL over ``meta_words`` (:func:`finchunk.retrieve.pgstore.filter_sql`); they
keep whole documents, so a filter is a set of chunk ranges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.bm25 import BM25Params

if TYPE_CHECKING:
    from finchunk.retrieve.analyzers import Analyzer
    from finchunk.retrieve.pgstore import _Generation

#: The generation manifest's mark: its postings have the impact-ordered index and its
#: documents their chunk ranges (a generation without it is searched exhaustively).
IMPACTS = "bm25_impacts"

#: BM25's eager weight per posting, in the order and precision the local index computes
#: it, and the two indexes the top-k reads.
WEIGHTS_SQL = """
CREATE TABLE {s}.postings AS
SELECT p.term_id, p.chunk, p.tf,
       (t.idf * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * c.length
        / %(avgdl)s)))::float4 AS weight
FROM {s}.stage p JOIN {s}.terms t ON t.id = p.term_id JOIN {s}.chunks c ON c.pos = p.chunk
ORDER BY p.term_id, p.chunk;
DROP TABLE {s}.stage;
CREATE INDEX ON {s}.postings (term_id, chunk) INCLUDE (weight);
CREATE INDEX ON {s}.postings (term_id, weight DESC, chunk);
"""

#: Upper bounds are inflated this much, floors lowered this much (as the local index's
#: MaxScore): float rounding never lets a pruned chunk reach or tie the ``k``-th.
_SLACK, _ROUNDING = 1 + 1e-5, 1 - 1e-6
#: Postings a search may read and sum in Python (ranges, or a query of rare terms); more
#: goes to the threshold algorithm.
SCAN_BUDGET = 20_000
#: The threshold algorithm's first depth per term (grown fourfold per round).
FIRST_DEPTH = 1_000
#: Chunks beyond ``k`` a threshold round scores exactly for its floor (those of the highest
#: bounds): the ``k``-th exact score, not the ``k``-th partial sum, is what unseen chunks
#: must stay under.
PROBE = 64
#: A threshold round that would read more than this share of the terms' postings gives way
#: to the exhaustive sum in SQL (cheaper per posting).
EXHAUSTIVE_SHARE = 0.5
#: Past this ``k`` (the document prior ranks every matching chunk) the sum is exhaustive.
LARGE_K = 1_000

_EXHAUSTIVE = """
SELECT p.chunk, sum(p.weight::float8)::float4 AS score
FROM unnest(%s::text[]) AS q(term) JOIN {s}.terms t ON t.term = q.term
JOIN {s}.postings p ON p.term_id = t.id {join}
GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %s
"""

#: One round of the threshold algorithm: per term ``q``, the bound of what its ``n`` best
#: postings leave unread (``tau``: the ``n``-th weight; 0 for a list read whole); per chunk
#: seen in them (and kept by the filter) its known sum and the bounds of the terms it was
#: seen in; the ``probe`` chunks of the highest bounds scored exactly (``best``); the bound
#: of an unseen chunk and the ``k``-th exact score (``head``: the first row). When they
#: settle it (or every list is whole), the chunks whose bound reaches the ``k``-th, scored
#: exactly, best first: the rows after it.
_ROUND = """
WITH q0 AS (SELECT * FROM unnest(%(ids)s::int[], %(n)s::int[], %(m)s::int[], %(df)s::int[])
            AS q(id, n, m, df)),
q AS MATERIALIZED (
    SELECT q0.*, CASE WHEN q0.n < q0.df THEN greatest(0, (
        SELECT p.weight FROM {s}.postings p WHERE p.term_id = q0.id
        ORDER BY p.weight DESC, p.chunk OFFSET q0.n - 1 LIMIT 1)::float8) ELSE 0 END AS tau
    FROM q0),
seen AS MATERIALIZED (
    SELECT x.chunk, sum(q.m * x.weight::float8) AS lower, sum(q.m * q.tau) AS got
    FROM q CROSS JOIN LATERAL (
        SELECT p.chunk, p.weight FROM {s}.postings p WHERE p.term_id = q.id
        ORDER BY p.weight DESC, p.chunk LIMIT q.n) x
    WHERE %(kept)s::int4multirange IS NULL OR x.chunk <@ %(kept)s::int4multirange
    GROUP BY x.chunk),
unseen AS MATERIALIZED (SELECT sum(m * tau) AS unseen FROM q),
best AS MATERIALIZED (
    SELECT s.chunk, CASE WHEN %(whole)s THEN s.lower ELSE (
        SELECT sum(q.m * p.weight::float8) FROM q JOIN {s}.postings p
        ON p.term_id = q.id AND p.chunk = s.chunk) END AS score
    FROM seen s ORDER BY s.lower - s.got DESC, s.chunk LIMIT %(probe)s),
head AS MATERIALIZED (
    SELECT u.unseen, (SELECT score FROM best ORDER BY score DESC OFFSET %(k1)s LIMIT 1) AS floor
    FROM unseen u),
pool AS (
    SELECT s.chunk, s.lower FROM seen s, head h
    WHERE %(whole)s OR (h.floor * %(rounding)s > h.unseen * %(slack)s
                        AND (s.lower + h.unseen - s.got) * %(slack)s >= h.floor * %(rounding)s))
SELECT -1, h.unseen, h.floor FROM head h
UNION ALL (
    SELECT pool.chunk, (CASE WHEN %(whole)s THEN pool.lower ELSE coalesce(b.score, (
        SELECT sum(q.m * p.weight::float8) FROM q JOIN {s}.postings p
        ON p.term_id = q.id AND p.chunk = pool.chunk)) END)::float4 AS score, NULL
    FROM pool LEFT JOIN best b ON b.chunk = pool.chunk
    ORDER BY score DESC, pool.chunk LIMIT %(k)s)
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
    return _hits(gen.query(_EXHAUSTIVE.replace("{join}", join), [list(tokens), *wparams, k]))


def bm25_top_k(gen: _Generation, tokens: Sequence[str], k: int) -> Hits:
    """The ``k`` best chunks for the query ``tokens`` (the text pipeline's terms, repeats
    counting again) and their scores, ties by position: :func:`exhaustive_top_k`'s
    answer, reading far fewer postings where the query has common terms."""
    if k < 1 or not tokens:
        return Hits.empty()
    if not gen.manifest.get(IMPACTS) or k > LARGE_K:
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
        rows = gen.query(
            _IN_RANGES, [ids, [mult[t] for t in ids], list(map(int, lo)), list(map(int, hi)), k]
        )
        return _hits(rows)
    return _threshold(gen, tokens, df, mult, ranges, kept, k)


PgBM25.top_k = bm25_top_k


def _hits(rows: Sequence[tuple]) -> Hits:
    return Hits(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.float32),
    )


def _kept_ranges(gen: _Generation) -> tuple[np.ndarray, np.ndarray] | None:
    """The chunk ranges ``[lo, hi)`` of the documents the filter keeps (ascending), or
    None without a filter."""
    where, params = gen.where
    if where == "true":
        return None
    rows = gen.query(
        "SELECT c.first_chunk, c.first_chunk + c.chunks FROM {s}.documents c "
        f"WHERE c.chunks > 0 AND ({where}) ORDER BY c.first_chunk",
        params,
    )
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


def _threshold(
    gen: _Generation,
    tokens: Sequence[str],
    df: dict[int, int],
    mult: dict[int, int],
    ranges: tuple[np.ndarray, np.ndarray] | None,
    kept: int,
    k: int,
) -> Hits:
    """The threshold algorithm over the terms' impact-ordered postings, a round per depth
    (fourfold each), in SQL (:data:`_ROUND`); past half the postings, exhaustive."""
    ids = sorted(df)
    depth = int(max(FIRST_DEPTH, 4 * k) * gen.size / max(kept, 1))
    total = sum(df.values())
    params = {
        "ids": ids, "m": [mult[t] for t in ids], "df": [df[t] for t in ids],
        "kept": _multirange(ranges), "k": k, "k1": k - 1, "probe": k + PROBE,
        "slack": _SLACK, "rounding": _ROUNDING,
    }  # fmt: skip
    while True:
        want = [min(depth, df[t]) for t in ids]
        whole = want == params["df"]
        if sum(want) > EXHAUSTIVE_SHARE * total and not whole:  # summed in SQL
            return exhaustive_top_k(gen, tokens, k)
        rows = gen.query(_ROUND, {**params, "n": want, "whole": whole})
        _, unseen, floor = rows[0]
        if whole or (floor is not None and floor * _ROUNDING > unseen * _SLACK):
            return _hits(rows[1:])
        depth *= 4
