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
from dataclasses import asdict
from pathlib import Path

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.lexical.bm25_params import (  # their home before bm25_params
    LESSON_PARAMS as LESSON_PARAMS,
)
from finchunk.retrieve.lexical.bm25_params import (
    BM25Params,
    CorpusStats,
    SegmentPart,
    bm25_weights,
    idf_floor,
)
from finchunk.retrieve.lexical.bm25_params import corpus_stats as corpus_stats
from finchunk.retrieve.lexical.bm25_params import merge_doc_freqs as merge_doc_freqs
from finchunk.retrieve.lexical.bm25_params import okapi_idf as okapi_idf
from finchunk.retrieve.lexical.bm25_params import raw_idf as raw_idf
from finchunk.retrieve.lexical.postings import Segment, SegmentWriter
from finchunk.retrieve.lexical.topk import (
    dense_top_k,
    held,
    is_dense,
    maxscore,
    summed_top_k,
    sums_of,
)
from finchunk.retrieve.lexical.topk import top_k as top_k

_MISSING = object()
#: A term's postings: positions (ascending for one live segment) and their weights.
_Weighed = tuple[np.ndarray, np.ndarray]
#: Cache keys of query words with their prefix terms (no term holds a NUL).
_WORD_KEY = "\x00"

_DEFAULTS = BM25Params()

#: Version of the files :meth:`BM25Index.save` writes (1: main's arrays of float weights).
BM25_FORMAT = 2


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

    def __init__(self, texts: Iterable[str], params: BM25Params = _DEFAULTS) -> None:
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
            w = bm25_weights(idf, self.params.k1, tf, self._norm(i)[local])
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
            docs, weights, sums = sums_of(terms, self.size)
            touched = np.flatnonzero(held(docs, weights, sums, self.size))
            return touched, sums[touched].astype(np.float32)
        with self._lock:
            return self._sparse(terms, total)

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
            if is_dense(words, k, self.size):
                return dense_top_k(words, k, mask, self.size)
            return summed_top_k(*self._accumulate(words), k, mask)
        tokens = self.params.text.tokens(query)
        weighed = {tok: self._term(tok) for tok in dict.fromkeys(tokens)}
        terms = [w for w in (weighed[tok] for tok in tokens) if w is not None]
        if not terms:
            return Hits.empty()
        if is_dense(terms, k, self.size):
            return dense_top_k(terms, k, mask, self.size)
        pruned = maxscore(self, tokens, k, mask, weighed)
        if pruned is not None:
            return pruned
        return summed_top_k(*self._accumulate(terms), k, mask)

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
        if is_dense(terms, k, self.size):
            return dense_top_k(terms, k, mask, self.size)
        return summed_top_k(*self._accumulate(terms), k, mask)

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
