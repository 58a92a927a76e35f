"""Top ``k`` of BM25's sums: which chunks a query's postings touch and how they are summed
(:func:`sums_of`, :func:`held`), the best ``k`` of them (:func:`top_k`), a floor under the
``k``-th best where the postings cover much of the index (:func:`dense_top_k`), and MaxScore
(:func:`maxscore`), which ranks exactly without summing the common terms' postings."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from finchunk.retrieve.base import Hits

if TYPE_CHECKING:
    from finchunk.retrieve.lexical.bm25 import BM25Index
    from finchunk.retrieve.lexical.postings import Segment

#: A term's postings: positions (ascending for one live segment) and their weights.
_Weighed = tuple[np.ndarray, np.ndarray]
#: Upper bounds are inflated this much: float32 rounding never lets a weight pass them.
_SLACK = 1 + 1e-5
#: A float64 floor is lowered this much before comparing: a sum just under it may still
#: round to the same float32 (a float32 step is 1.2e-7 of the value).
_ROUNDING = 1 - 1e-6


def top_k(docs: np.ndarray, scores: np.ndarray, k: int) -> Hits:
    """The ``k`` best of ``scores`` (one per entry of ``docs``, any order), ties broken by
    position: a partition over the candidates only, then a sort of the few kept."""
    if k <= 0 or not docs.size:
        return Hits.empty()
    if docs.size > k:
        kth = np.partition(scores, docs.size - k)[docs.size - k]
        keep = np.flatnonzero(scores >= kth)
        docs, scores = docs[keep], scores[keep]
    order = np.lexsort((docs, -scores))[:k]
    return Hits(docs[order].astype(np.int64), scores[order].astype(np.float32))


def sums_of(
    terms: list[tuple[np.ndarray, np.ndarray]], size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The terms' postings joined, and every chunk's sum in one pass (float64, summed in
    query-term order as :meth:`BM25Index.scores`)."""
    docs = np.concatenate([d for d, _ in terms])
    weights = np.concatenate([w for _, w in terms])
    return docs, weights, np.bincount(docs, weights=weights, minlength=size)


def held(docs: np.ndarray, weights: np.ndarray, sums: np.ndarray, size: int) -> np.ndarray:
    """Per chunk, whether a posting names it. Weights are > 0 unless an idf is 0: only
    then are the postings counted. (``sums > 0``, not ``flatnonzero(sums)``: a float
    test with scattered zeros mispredicts its branches, 4-6x slower.)"""
    if weights.min() > 0:
        return sums > 0
    return np.bincount(docs, minlength=size) > 0


def is_dense(terms: list[_Weighed], k: int, size: int) -> bool:
    """Whether the postings cover enough of the index for :func:`dense_top_k`."""
    return len(terms) > 1 and k < size and sum(d.size for d, _ in terms) * 8 > size


def summed_top_k(docs: np.ndarray, sums: np.ndarray, k: int, mask: np.ndarray | None) -> Hits:
    """Top ``k`` of the chunks the terms touch (``docs``, their summed weights ``sums``),
    within ``mask``."""
    if mask is not None:
        keep = mask[docs]
        docs, sums = docs[keep], sums[keep]
    return top_k(docs, sums, k)


def dense_top_k(
    terms: list[tuple[np.ndarray, np.ndarray]], k: int, mask: np.ndarray | None, size: int
) -> Hits:
    """Top ``k`` when the postings cover much of the index (``k`` < the chunks): every
    chunk's sum in one pass (in query-term order, as :meth:`BM25Index.scores`), then a floor
    under the ``k``-th best: the ``k``-th best sum among the chunks of the rarest term
    that has ``k`` of them (the top ``k`` of a subset score no more than the top ``k``
    of all). Only the chunks at or above it (less a float32 rounding step) are ranked,
    found by one comparison. With no floor above 0 the touched chunks are ranked.

    A partition over every chunk's sum, zeros and all, was 5x slower than ranking the
    touched chunks where few are touched; this floor takes a fifth to a quarter off
    that again (70k and 535k chunks, the same hits)."""
    docs, weights, sums = sums_of(terms, size)
    floor = 0.0
    for d, _ in sorted(terms, key=lambda t: t[0].size):
        sub = d if mask is None else d[mask[d]]
        if sub.size >= k:
            floor = float(np.partition(sums[sub], sub.size - k)[sub.size - k])
            break
    kept = sums >= floor * _ROUNDING if floor > 0 else held(docs, weights, sums, size)
    if mask is not None:
        kept &= mask
    found = np.flatnonzero(kept)
    return top_k(found, sums[found].astype(np.float32), k)


def maxscore(
    index: BM25Index,
    tokens: list[str],
    k: int,
    mask: np.ndarray | None,
    weighed: dict[str, _Weighed | None] | None = None,
) -> Hits | None:
    """The exact top ``k`` by MaxScore (one segment, all live), or None where pruning
    does not pay. A term adds at most ``idf * (k1 + 1)`` to a chunk; once ``k`` chunks
    score ``theta``, chunks holding only terms whose bounds sum below ``theta`` cannot
    enter the top ``k``. So the candidates are the chunks of the other terms, scored
    exactly: each term's weight looked up per candidate, summed in query-term order
    (the sums :meth:`BM25Index.scores` makes, bit for bit). ``weighed``: the tokens' postings as
    :meth:`BM25Index.search` has them (else looked up here)."""
    if len(index.parts) != 1 or index.parts[0].positions is not None:
        return None
    seg = index.parts[0].segment
    if weighed is None:
        weighed = {tok: index._term(tok) for tok in dict.fromkeys(tokens)}
    occ, decoded = _occurrences(index, seg, tokens, weighed)
    bound: dict[int, float] = {}
    for tid, idf in occ:  # a repeated term adds its bound again
        bound[tid] = bound.get(tid, 0.0) + max(idf, 0.0) * (index.params.k1 + 1) * _SLACK
    by_df = sorted(bound, key=lambda t: (int(seg.doc_freqs[t]), t))
    total = sum(int(seg.doc_freqs[t]) for t in by_df)
    if not by_df or int(seg.doc_freqs[by_df[-1]]) * 2 < total:
        return None  # no term dominates the postings: pruning would skip little
    rare, seen = [], 0
    for t in by_df:  # the rarest terms, about an eighth of the postings, name a first pool
        if rare and seen + int(seg.doc_freqs[t]) > total // 8:
            break
        rare.append(t)
        seen += int(seg.doc_freqs[t])
    if len(rare) == len(by_df):
        return None  # nothing common to skip
    pool = _pool(rare, decoded, mask)
    if pool.size < k:
        return None
    scores = _exact(occ, pool, decoded)
    theta = float(np.partition(scores, pool.size - k)[pool.size - k])
    skip, spent = set(), 0.0
    for t in reversed(by_df):  # the commonest terms, while their bounds stay below theta
        if spent + bound[t] >= theta:
            break
        skip.add(t)
        spent += bound[t]
    essential = [t for t in by_df if t not in skip]
    if set(essential) <= set(rare):
        return top_k(pool, scores, k)
    if sum(int(seg.doc_freqs[t]) for t in essential) * 4 > total:
        return None  # the candidates would be most of the postings anyway
    pool = _pool(essential, decoded, mask)
    return top_k(pool, _exact(occ, pool, decoded), k)


def _occurrences(
    index: BM25Index, seg: Segment, tokens: list[str], weighed: dict[str, _Weighed | None]
) -> tuple[list[tuple[int, float]], dict[int, _Weighed]]:
    """Per query token the segment holds, (term id, idf), in query order; and each
    term's weighed postings by id."""
    occ, decoded = [], {}
    for token in tokens:
        tid = seg.term_id(token)
        found = weighed[token]
        if tid >= 0 and found is not None:
            occ.append((tid, index._idf(int(seg.doc_freqs[tid]))))
            decoded[tid] = found
    return occ, decoded


def _pool(
    terms: list[int],
    decoded: dict[int, _Weighed],
    mask: np.ndarray | None,
) -> np.ndarray:
    """The distinct chunks (ascending) holding any of ``terms``, within ``mask``."""
    if len(terms) == 1:
        pool = np.asarray(decoded[terms[0]][0], dtype=np.int64)
    else:
        pool = np.sort(np.concatenate([decoded[t][0] for t in terms]))
        pool = pool[np.concatenate([[True], pool[1:] != pool[:-1]])]
    return pool if mask is None else pool[mask[pool]]


def _exact(
    occ: list[tuple[int, float]],
    pool: np.ndarray,
    decoded: dict[int, _Weighed],
) -> np.ndarray:
    """The exact BM25 scores of ``pool`` (ascending chunks): per query term in order,
    its weight where the chunk holds it (a binary search in its postings)."""
    acc = np.zeros(pool.size, dtype=np.float64)
    for tid, _ in occ:
        docs, weights = decoded[tid]
        at = np.minimum(np.searchsorted(docs, pool), docs.size - 1)
        found = np.flatnonzero(docs[at] == pool)
        acc[found] += weights[at[found]]
    return acc.astype(np.float32)
