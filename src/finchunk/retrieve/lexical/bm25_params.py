"""BM25's parameters (:class:`BM25Params`, :data:`LESSON_PARAMS`), its idf and per-posting
weight, and the corpus statistics its weights need (:class:`CorpusStats`), computed and
merged in one place (:func:`merge_doc_freqs`, :func:`corpus_stats`) over the segments of an
index (:class:`SegmentPart`), so segments, shards or other stores give the scores of one
index over all their chunks."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.retrieve.lexical.postings import Segment
from finchunk.text.analysis import LESSON_TEXT, TextPipeline


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


def bm25_weights(idf: float, k1: float, tf: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """``idf * tf * (k1 + 1) / (tf + norm)`` in float64 (``norm`` changed in place), then
    float32: the weight of each posting."""
    t = tf.astype(np.float64)
    num = t * idf
    num *= k1 + 1
    norm += t
    num /= norm
    return num.astype(np.float32)
