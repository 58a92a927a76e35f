"""BM25 (Okapi, as rank_bm25's ``BM25Okapi``, the lesson's retriever) over compact postings.

The index is an inverted file in one or more segments (:mod:`finchunk.retrieve.lexical.postings`:
sorted terms, varint document gaps and term frequencies, memory-mapped). A query touches
only the postings of its terms: each term's weights are computed from its frequencies and
the corpus statistics (:class:`CorpusStats`: document count, total length, mean idf), summed
per chunk over the chunks the postings name (a scratch array touched only there, or one
``bincount`` when the postings cover much of the corpus, then only the chunks above a floor
under the k-th best), and only those chunks are ranked (:func:`top_k`). The statistics are
computed and merged in one place (:func:`merge_doc_freqs`, :func:`corpus_stats`), so
segments, shards or other stores give the scores of one index over all their chunks. With
:data:`LESSON_PARAMS` scores equal ``BM25Okapi.get_scores`` (same idf with the same floor
for very common terms; a query term repeated counts again); ``tests/test_bm25.py`` checks it.

Terms and lengths come from the parameters' :class:`~finchunk.text.analysis.TextPipeline`,
for texts and queries alike; the length a text is normalised by counts the terms the
pipeline counts (with ``numbers="uncounted"``, words only: a table's figures still match
but do not make it "long"). The parameters, pipeline included, are saved with the index.

``search`` ranks the chunks that share a term with the query (BM25 gives the others no
score); ``scores`` gives the full array, as rank_bm25 does.

Rankings are stable: equal scores keep chunk order, so the same input ranks the same way.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.lexical.postings import Segment, SegmentWriter
from finchunk.text.analysis import LESSON_TEXT, TextPipeline

_MISSING = object()
#: A term's postings: positions (ascending for one live segment) and their weights.
_Weighed = tuple[np.ndarray, np.ndarray]
#: Cache keys of query words with their prefix terms (no term holds a NUL).
_WORD_KEY = "\x00"

#: Upper bounds are inflated this much: float32 rounding never lets a weight pass them.
_SLACK = 1 + 1e-5
#: A float64 floor is lowered this much before comparing: a sum just under it may still
#: round to the same float32 (a float32 step is 1.2e-7 of the value).
_ROUNDING = 1 - 1e-6

#: Version of the files :meth:`BM25Index.save` writes (1: main's arrays of float weights).
BM25_FORMAT = 2


@dataclass(frozen=True, slots=True)
class BM25Params:
    """BM25's parameters and the text pipeline its terms and lengths come from.

    ``k1``: term-frequency saturation (> 0); ``b``: length normalisation, 0 (none) to 1
    (full); ``epsilon``: terms in more than half the chunks get ``epsilon * mean idf``
    instead of a negative idf (as rank_bm25). ``floor_at_zero``: that floor is never below
    0. rank_bm25's is negative when the mean idf is, as in an index of a few chunks (a
    filtered search over one short document, a KID): a term every chunk holds then lowers
    the score of each chunk that holds it, the more the more often, and a chunk naming the
    question's subject twice ranks below one naming it once. The defaults were chosen on
    development data (``bench/lexical_ablation.py``); :data:`LESSON_PARAMS` is the lesson's
    BM25 exactly.
    """

    k1: float = 0.9
    b: float = 0.5
    epsilon: float = 0.25
    text: TextPipeline = field(default_factory=TextPipeline)
    floor_at_zero: bool = True

    def __post_init__(self) -> None:
        for name in ("k1", "b", "epsilon"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(f"BM25 {name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise InputError(f"BM25 {name} must be finite, got {value!r}")
            object.__setattr__(self, name, float(value))
        if self.k1 <= 0:
            raise InputError(f"BM25 k1 must be greater than 0, got {self.k1}")
        if not 0 <= self.b <= 1:
            raise InputError(f"BM25 b must be between 0 and 1, got {self.b}")
        if self.epsilon < 0:
            raise InputError(f"BM25 epsilon must be at least 0, got {self.epsilon}")
        if not isinstance(self.floor_at_zero, bool):
            raise InputError(
                f"BM25 floor_at_zero must be true or false, got {self.floor_at_zero!r}"
            )
        if isinstance(self.text, dict):
            object.__setattr__(self, "text", TextPipeline.from_dict(self.text))
        if not isinstance(self.text, TextPipeline):
            raise InputError(f"BM25 text must be a text pipeline, got {self.text!r}")

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> BM25Params:
        """From :func:`dataclasses.asdict` output (an index's ``bm25.json``, a manifest);
        without ``text`` (older indexes) the lesson's text and floor."""
        lesson = {} if "text" in raw else {"text": asdict(LESSON_TEXT), "floor_at_zero": False}
        try:
            return cls(**{**lesson, **raw})
        except TypeError as exc:
            raise InputError(f"BM25 parameters: {exc}") from None


#: The lesson's BM25 (rank_bm25's ``BM25Okapi`` defaults over :func:`tokenize`).
LESSON_PARAMS = BM25Params(k1=1.5, b=0.75, epsilon=0.25, text=LESSON_TEXT, floor_at_zero=False)


def idf_floor(idf_mean: float, params: BM25Params) -> float:
    """The idf of a term in more than half the texts: ``epsilon`` times the mean idf, as in
    rank_bm25, and not below 0 when ``params.floor_at_zero``."""
    floor = params.epsilon * idf_mean
    return max(floor, 0.0) if params.floor_at_zero else floor


def okapi_idf(doc_freq: np.ndarray, n_docs: int, params: BM25Params) -> np.ndarray:
    """Robertson–Spärck Jones idf, negatives floored (:func:`idf_floor`)."""
    idf = raw_idf(doc_freq, n_docs)
    if idf.size:
        idf = np.where(idf < 0, idf_floor(float(idf.mean()), params), idf)
    return idf


def raw_idf(doc_freq: np.ndarray, n_docs: int) -> np.ndarray:
    """Robertson–Spärck Jones idf before rank_bm25's floor (negative for common terms)."""
    df = np.asarray(doc_freq, dtype=np.float64)
    return np.log(n_docs - df + 0.5) - np.log(df + 0.5)


# --- corpus statistics: the one place they are computed and merged --------------------------


@dataclass(frozen=True, slots=True)
class CorpusStats:
    """What BM25's weights need from the whole corpus: its size, its total length (the
    average length is ``total_length / n_docs``, exact whatever order the parts come in) and
    the mean raw idf over its vocabulary, terms in sorted order (the floor of
    :func:`okapi_idf` is ``epsilon`` times it)."""

    n_docs: int
    total_length: int
    idf_mean: float

    @property
    def avgdl(self) -> float:
        return self.total_length / self.n_docs if self.n_docs and self.total_length else 1.0

    @classmethod
    def of(cls, doc_freqs: np.ndarray, n_docs: int, total_length: int) -> CorpusStats:
        """From the document frequencies of every term (sorted terms; zeros ignored)."""
        df = np.asarray(doc_freqs)
        df = df[df > 0]  # exact sum: the same mean whatever order the terms come in
        mean = math.fsum(raw_idf(df, n_docs).tolist()) / df.size if df.size else 0.0
        return cls(int(n_docs), int(total_length), mean)


def merge_doc_freqs(
    parts: Iterable[tuple[Sequence[bytes], np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Vocabularies with their document frequencies (one pair per shard or segment) → the
    sorted union of the terms (UTF-8 bytes) and their summed frequencies; terms whose total
    is 0 (only in deleted documents) are dropped. The one function that merges BM25
    statistics: segments, shards and other backends go through it."""
    terms, freqs = [], []
    for words, df in parts:
        terms.append(np.asarray(list(words), dtype=object))
        freqs.append(np.asarray(df, dtype=np.int64))
    if not terms:
        return np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64)
    union, inverse = np.unique(np.concatenate(terms), return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=np.concatenate(freqs), minlength=union.size)
    keep = total > 0
    return union[keep], total[keep].astype(np.int64)


@dataclass(frozen=True, slots=True)
class SegmentPart:
    """A segment as part of an index: ``positions`` maps its documents to the index's
    positions (-1: deleted; None: 0..size-1), ``doc_freqs`` counts only its live documents
    (None: the segment's own, nothing deleted)."""

    segment: Segment
    positions: np.ndarray | None = None
    doc_freqs: np.ndarray | None = None

    @property
    def live_doc_freqs(self) -> np.ndarray:
        """Per term of the segment, how many of its live documents hold it."""
        return self.segment.doc_freqs if self.doc_freqs is None else self.doc_freqs

    def df(self, term_id: int) -> int:
        return int(self.live_doc_freqs[term_id])


def corpus_stats(parts: Sequence[SegmentPart]) -> CorpusStats:
    """The statistics of the live documents of ``parts``: what a full rebuild over them
    computes (integer counts and lengths; the idf mean summed exactly)."""
    n = total = 0
    for p in parts:
        lengths = p.segment.doc_lengths
        if p.positions is not None:
            lengths = lengths[p.positions >= 0]
        n += int(lengths.size)
        total += int(lengths.sum(dtype=np.int64))
    return CorpusStats.of(_live_doc_freqs(parts) if parts else np.zeros(0), n, total)


def _live_doc_freqs(parts: Sequence[SegmentPart]) -> np.ndarray:
    """Each live term's document frequency over ``parts`` (in no particular order): the
    largest segment's array, the other segments' terms looked up in it."""
    live = [p.live_doc_freqs for p in parts]
    big = max(range(len(parts)), key=lambda i: parts[i].segment.n_terms)
    base, df = parts[big].segment, np.array(live[big], dtype=np.int64)
    extra: dict[bytes, int] = {}
    for i, part in enumerate(parts):
        if i == big:
            continue
        for term, count in zip(part.segment.terms(), live[i].tolist(), strict=True):
            j = base.term_id(term) if count else -1
            if j >= 0:
                df[j] += count
            elif count:
                extra[term] = extra.get(term, 0) + count
    return np.concatenate([df, np.fromiter(extra.values(), dtype=np.int64, count=len(extra))])


def segment_of(texts: Iterable[str], params: BM25Params) -> Segment:
    """A segment over ``texts`` with ``params``' text pipeline (streams: no token lists)."""
    writer = SegmentWriter()
    for text in texts:
        writer.add(*params.text.terms(text))
    return writer.finish()


class BM25Index:
    """BM25 over a list of texts; ``search`` returns positions into that list.

    ``cache_bytes``: how much memory the decoded postings of recent query terms may take
    (0: none; each query then decodes its terms afresh). 128 MB: a query word's list with
    its prefix term is as long as the prefix term's, and at 535k chunks 64 MB held too few
    of them (p50 2.5 ms against 0.9 with 128 MB, 500 generated questions).

    Postings hold term frequencies; weights are computed per query from the corpus
    statistics (float64, rounded to float32 per posting, summed per chunk in query-term
    order, as when they were precomputed; with prefix terms, a word's weight and its
    prefix term's are added first, then summed in query-word order). An index is one
    segment or several (:class:`SegmentPart`, incremental indexes) with statistics over
    all of them."""

    cache_bytes: int = 128 << 20

    def __init__(self, texts: Iterable[str], params: BM25Params = BM25Params()) -> None:
        segment = segment_of(texts, params)
        stats = CorpusStats.of(segment.doc_freqs, segment.size, int(segment.doc_lengths.sum()))
        self._setup(params, [SegmentPart(segment)], stats, segment.size)

    @classmethod
    def from_parts(
        cls, params: BM25Params, parts: Sequence[SegmentPart], stats: CorpusStats, size: int
    ) -> BM25Index:
        obj = cls.__new__(cls)
        obj._setup(params, list(parts), stats, size)
        return obj

    def _setup(
        self, params: BM25Params, parts: list[SegmentPart], stats: CorpusStats, size: int
    ) -> None:
        self.params = params
        self.parts = parts
        self.stats = stats
        self.size = size
        self._lock = threading.Lock()
        self._norms: list[np.ndarray | None] = [None] * len(parts)
        self._cache: dict[str, tuple[np.ndarray, np.ndarray] | None] = {}
        self._cached = 0
        self._acc: np.ndarray | None = None
        self._owner: np.ndarray | None = None

    # -- scoring ---------------------------------------------------------------------------
    def _idf(self, df: int) -> float:
        n = self.stats.n_docs
        idf = math.log(n - df + 0.5) - math.log(df + 0.5)
        return idf_floor(self.stats.idf_mean, self.params) if idf < 0 else idf

    def _norm(self, i: int) -> np.ndarray:
        """Part ``i``'s length normalisation per document (computed on first use)."""
        if self._norms[i] is None:
            k1, b = self.params.k1, self.params.b
            lengths = self.parts[i].segment.doc_lengths.astype(np.float64)
            self._norms[i] = k1 * (1 - b + b * lengths / self.stats.avgdl)
        return self._norms[i]

    def _weights(self, idf: float, tf: np.ndarray, norm: np.ndarray) -> np.ndarray:
        """``idf * tf * (k1 + 1) / (tf + norm)`` in float64 (in place), then float32."""
        t = tf.astype(np.float64)
        num = t * idf
        num *= self.params.k1 + 1
        norm += t
        num /= norm
        return num.astype(np.float32)

    def _term(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """Positions and weights of one term's postings over every segment, kept in a
        bounded cache (:attr:`cache_bytes`): questions share terms, and an index's
        statistics do not change while it is open."""
        return self._remembered(term, self._term_postings)

    def _word(self, word: str) -> tuple[np.ndarray, np.ndarray] | None:
        """A query word with its prefix term (:attr:`TextPipeline.prefix`) as one list:
        the prefix term's postings, each weight plus the word's where the chunk holds the
        word (every chunk holding the word holds its prefix). A number or a word shorter
        than the prefix is its own prefix term, the same postings: its weights doubled.
        One list instead of two, so a query sums the prefix terms' postings only."""
        return self._remembered(_WORD_KEY + word, lambda _: self._word_postings(word))

    def _remembered(
        self, key: str, make: Callable[[str], tuple[np.ndarray, np.ndarray] | None]
    ) -> tuple[np.ndarray, np.ndarray] | None:
        hit = self._cache.get(key, _MISSING)
        if hit is not _MISSING:
            return hit  # type: ignore[return-value]
        found = make(key)
        size = 64 if found is None else found[0].nbytes + found[1].nbytes
        with self._lock:
            while self._cache and self._cached + size > self.cache_bytes:
                old = self._cache.pop(next(iter(self._cache)))  # the oldest first
                self._cached -= 64 if old is None else old[0].nbytes + old[1].nbytes
            if self._cached + size <= self.cache_bytes:
                if found is not None:
                    for a in found:
                        a.flags.writeable = False
                self._cache[key] = found
                self._cached += size
        return found

    def _word_postings(self, word: str) -> tuple[np.ndarray, np.ndarray] | None:
        text = self.params.text
        exact = self._term_postings(word)
        if word.isdigit() or len(word) < text.prefix:  # no other word has its prefix term:
            return None if exact is None else (exact[0], exact[1] * np.float32(2))
        shared = self._term_postings(text.prefix_term(word))
        if shared is None or exact is None:
            return shared
        docs, weights = shared
        with self._lock:  # in a scratch array of every chunk, reset after
            acc = self._scratch()[0]
            acc[docs] = weights
            acc[exact[0]] += exact[1]
            summed = acc[docs]
            acc[docs] = 0.0
        return docs, summed

    def _term_postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        found = [(i, p, p.segment.term_id(term)) for i, p in enumerate(self.parts)]
        found = [(i, p, t) for i, p, t in found if t >= 0]
        df = sum(p.df(t) for _, p, t in found)
        if not df:
            return None
        idf = self._idf(df)
        docs, weights = [], []
        for i, part, t in found:
            local, tf = part.segment.postings_of(t)
            w = self._weights(idf, tf, self._norm(i)[local])
            if part.positions is not None:
                local = part.positions[local]
                live = local >= 0
                local, w = local[live], w[live]
            docs.append(local)
            weights.append(w)
        if len(docs) == 1:
            return docs[0], weights[0]
        return np.concatenate(docs), np.concatenate(weights)

    def _postings(self, query: str) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per query term (repeats count again), its postings' positions and weights; with
        prefix terms, per query word, the word and its prefix term as one (:meth:`_word`)."""
        if not self.size:
            return []
        text = self.params.text
        if text.prefix:
            terms = [self._word(w) for w in text.words(query)[0]]
        else:
            terms = [self._term(t) for t in text.tokens(query)]
        return [t for t in terms if t is not None]

    def _accumulate(
        self, terms: list[tuple[np.ndarray, np.ndarray]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The distinct positions the terms touch (any order) and their summed scores."""
        if len(terms) == 1:
            return terms[0]
        total = sum(d.size for d, _ in terms)
        if total * 8 > self.size:  # dense: a pass over the chunks costs no more
            docs, weights, sums = self._sums(terms)
            touched = np.flatnonzero(self._held(docs, weights, sums))
            return touched, sums[touched].astype(np.float32)
        with self._lock:
            return self._sparse(terms, total)

    def _sums(
        self, terms: list[tuple[np.ndarray, np.ndarray]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The terms' postings joined, and every chunk's sum in one pass (float64, summed in
        query-term order as :meth:`scores`)."""
        docs = np.concatenate([d for d, _ in terms])
        weights = np.concatenate([w for _, w in terms])
        return docs, weights, np.bincount(docs, weights=weights, minlength=self.size)

    def _held(self, docs: np.ndarray, weights: np.ndarray, sums: np.ndarray) -> np.ndarray:
        """Per chunk, whether a posting names it. Weights are > 0 unless an idf is 0: only
        then are the postings counted. (``sums > 0``, not ``flatnonzero(sums)``: a float
        test with scattered zeros mispredicts its branches, 4-6x slower.)"""
        if weights.min() > 0:
            return sums > 0
        return np.bincount(docs, minlength=self.size) > 0

    def _sparse(
        self, terms: list[tuple[np.ndarray, np.ndarray]], total: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Sums in a scratch array touched only where the postings are (reset after)."""
        acc, owner = self._scratch()
        for d, w in terms:  # a term's documents are distinct: += is exact, in term order
            acc[d] += w
        docs = np.concatenate([d for d, _ in terms])
        slot = np.arange(total, dtype=np.int64)
        owner[docs] = slot
        docs = docs[owner[docs] == slot]  # one entry per document
        sums = acc[docs].astype(np.float32)
        acc[docs] = 0.0
        return docs, sums

    def _scratch(self) -> tuple[np.ndarray, np.ndarray]:
        """A zeroed sum and an owner slot per chunk, made on first use (callers hold the
        lock and leave the sums zeroed)."""
        if self._acc is None or self._owner is None:
            self._acc = np.zeros(self.size, dtype=np.float64)
            self._owner = np.zeros(self.size, dtype=np.int64)
        return self._acc, self._owner

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for ``query``; terms the index lacks add nothing."""
        terms = self._postings(query)
        if not terms:
            return np.zeros(self.size, dtype=np.float32)
        docs = np.concatenate([d for d, _ in terms])
        weights = np.concatenate([w for _, w in terms])
        return np.bincount(docs, weights=weights, minlength=self.size).astype(np.float32)

    def matched(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """The chunks sharing a term with ``query`` (ascending) and their BM25 scores
        (equal to :meth:`scores`' values)."""
        terms = self._postings(query)
        if not terms:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        docs, sums = self._accumulate(terms)
        order = np.argsort(docs, kind="stable")
        return docs[order].astype(np.int64), sums[order]

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        """Top ``k`` chunks sharing a term with ``query``; ``mask`` (bool per text)
        restricts the candidates. Costs what the query's postings cost: only the chunks
        they touch are summed and ranked. With prefix terms a query word's list is its
        prefix term's (:meth:`_word`); MaxScore, which bounds each term apart, is tried
        only without them."""
        if k <= 0 or not self.size:
            return Hits.empty()
        if self.params.text.prefix:
            words = self._postings(query)
            if not words:
                return Hits.empty()
            if self._dense(words, k):
                return self._dense_top_k(words, k, mask)
            return self._summed_top_k(words, k, mask)
        tokens = self.params.text.tokens(query)
        weighed = {tok: self._term(tok) for tok in dict.fromkeys(tokens)}
        terms = [w for w in (weighed[tok] for tok in tokens) if w is not None]
        if not terms:
            return Hits.empty()
        if self._dense(terms, k):
            return self._dense_top_k(terms, k, mask)
        pruned = self._maxscore(tokens, k, mask, weighed)
        if pruned is not None:
            return pruned
        return self._summed_top_k(terms, k, mask)

    def search_weighted(
        self, weights: Mapping[str, float], k: int, mask: np.ndarray | None = None
    ) -> Hits:
        """Top ``k`` for a weighted query: ``weights`` maps terms (as the text pipeline
        makes them, not re-tokenised) to the factor each term's BM25 weight is multiplied
        by (an expanded query, :mod:`finchunk.retrieve.lexical.feedback`). A query of the terms
        each weighted 1 scores as :meth:`search` does."""
        if k <= 0 or not self.size:
            return Hits.empty()
        terms = []
        for term, factor in weights.items():
            found = self._term(term) if factor > 0 else None
            if found is not None:
                terms.append((found[0], found[1] * np.float32(factor)))
        if not terms:
            return Hits.empty()
        if self._dense(terms, k):
            return self._dense_top_k(terms, k, mask)
        return self._summed_top_k(terms, k, mask)

    def _dense(self, terms: list[_Weighed], k: int) -> bool:
        """Whether the postings cover enough of the index for :meth:`_dense_top_k`."""
        return len(terms) > 1 and k < self.size and sum(d.size for d, _ in terms) * 8 > self.size

    def _summed_top_k(self, terms: list[_Weighed], k: int, mask: np.ndarray | None) -> Hits:
        """Top ``k`` of the chunks the terms touch, their weights summed (within ``mask``)."""
        docs, sums = self._accumulate(terms)
        if mask is not None:
            keep = mask[docs]
            docs, sums = docs[keep], sums[keep]
        return top_k(docs, sums, k)

    def _dense_top_k(
        self, terms: list[tuple[np.ndarray, np.ndarray]], k: int, mask: np.ndarray | None
    ) -> Hits:
        """Top ``k`` when the postings cover much of the index (``k`` < the chunks): every
        chunk's sum in one pass (in query-term order, as :meth:`scores`), then a floor
        under the ``k``-th best: the ``k``-th best sum among the chunks of the rarest term
        that has ``k`` of them (the top ``k`` of a subset score no more than the top ``k``
        of all). Only the chunks at or above it (less a float32 rounding step) are ranked,
        found by one comparison. With no floor above 0 the touched chunks are ranked.

        A partition over every chunk's sum, zeros and all, was 5x slower than ranking the
        touched chunks where few are touched; this floor takes a fifth to a quarter off
        that again (70k and 535k chunks, the same hits)."""
        docs, weights, sums = self._sums(terms)
        floor = 0.0
        for d, _ in sorted(terms, key=lambda t: t[0].size):
            sub = d if mask is None else d[mask[d]]
            if sub.size >= k:
                floor = float(np.partition(sums[sub], sub.size - k)[sub.size - k])
                break
        held = sums >= floor * _ROUNDING if floor > 0 else self._held(docs, weights, sums)
        if mask is not None:
            held &= mask
        found = np.flatnonzero(held)
        return top_k(found, sums[found].astype(np.float32), k)

    # -- MaxScore: exact top-k without weighing and summing the common terms' postings -----
    def _maxscore(
        self,
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
        (the sums :meth:`scores` makes, bit for bit). ``weighed``: the tokens' postings as
        :meth:`search` has them (else looked up here)."""
        if len(self.parts) != 1 or self.parts[0].positions is not None:
            return None
        seg = self.parts[0].segment
        if weighed is None:
            weighed = {tok: self._term(tok) for tok in dict.fromkeys(tokens)}
        occ, decoded = self._occurrences(seg, tokens, weighed)
        bound: dict[int, float] = {}
        for tid, idf in occ:  # a repeated term adds its bound again
            bound[tid] = bound.get(tid, 0.0) + max(idf, 0.0) * (self.params.k1 + 1) * _SLACK
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
        pool = self._pool(rare, decoded, mask)
        if pool.size < k:
            return None
        scores = self._exact(occ, pool, decoded)
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
        pool = self._pool(essential, decoded, mask)
        return top_k(pool, self._exact(occ, pool, decoded), k)

    def _occurrences(
        self, seg: Segment, tokens: list[str], weighed: dict[str, _Weighed | None]
    ) -> tuple[list[tuple[int, float]], dict[int, _Weighed]]:
        """Per query token the segment holds, (term id, idf), in query order; and each
        term's weighed postings by id."""
        occ, decoded = [], {}
        for token in tokens:
            tid = seg.term_id(token)
            found = weighed[token]
            if tid >= 0 and found is not None:
                occ.append((tid, self._idf(int(seg.doc_freqs[tid]))))
                decoded[tid] = found
        return occ, decoded

    def _pool(
        self,
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
        self,
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

    # -- persistence: plain, inspectable files ---------------------------------------------
    def save(self, directory: str | Path) -> None:
        """One segment's files and ``bm25.json`` (size, parameters, corpus statistics)."""
        if len(self.parts) != 1 or self.parts[0].positions is not None:
            raise ValueError("only a single-segment BM25 index is saved as one directory")
        d = Path(directory)
        self.parts[0].segment.save(d)
        meta = {
            "format": BM25_FORMAT,
            "size": self.size,
            "params": asdict(self.params),
            "stats": asdict(self.stats),
        }
        (d / "bm25.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path) -> BM25Index:
        """Memory-mapped: opening costs milliseconds whatever the index's size."""
        d = Path(directory)
        try:
            meta = json.loads((d / "bm25.json").read_text(encoding="utf-8"))
            if meta.get("format") != BM25_FORMAT:
                raise InputError(
                    f"{d}: BM25 files of an older finchunk; rebuild with `finchunk index`"
                )
            params = BM25Params.from_dict(meta["params"])
            stats = CorpusStats(**meta["stats"])
            segment = Segment.load(d)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{d}: not a readable BM25 index ({exc})") from exc
        except InputError as exc:
            raise InputError(f"{d}: {exc}") from None
        return cls.from_parts(params, [SegmentPart(segment)], stats, int(meta["size"]))


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
