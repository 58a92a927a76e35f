"""Dense search in PostgreSQL: cosine by pgvector, exact (rescored in float32 as the local
index scores) or by its HNSW index; the dense half of
:class:`finchunk.retrieve.backends.pgstore.PgIndex`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from finchunk.retrieve.backends.pg_bm25 import no_mask, row_hits
from finchunk.retrieve.base import Hits

if TYPE_CHECKING:
    from finchunk.retrieve.backends.pgstore import _Generation
    from finchunk.retrieve.neural.dense import Embedder


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
            return row_hits(rows)
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
    vectors = np.stack([np.asarray(vector_array(r[2]), dtype=np.float32) for r in rows])
    top = Hits.top(vectors @ q, k)
    return Hits(positions[top.positions], top.scores)


def vector_array(value: Any) -> Any:
    """A pgvector value as numpy (pgvector's ``Vector`` or an array already)."""
    return value.to_numpy() if hasattr(value, "to_numpy") else value
