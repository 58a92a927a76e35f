"""BM25's term statistics: counted per part of a corpus, merged into one, and indexed.

:func:`count_terms` turns texts into postings (per text, each distinct term once with its
frequency, terms in first-seen order) and lengths, as
:class:`~finchunk.retrieve.lexical.bm25.BM25Index` counts them. Parts counted apart (Dask tasks, one
per batch of documents) are joined by :func:`merge_term_stats`: the vocabularies are united in
first-seen order, the texts are numbered on, so the merged statistics equal those of the whole
corpus counted at once; the index built from them (document frequencies summed, one idf, one
average length) ranks identically. Every statistics merge goes through that one function, so a
change of the BM25 storage format has one place to follow.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from finchunk.text.analysis import TextPipeline


@dataclass(frozen=True)
class TermStats:
    """Postings in text order: ``terms[i]`` (an index into ``vocab``) occurs ``tf[i]`` times
    in its text; text ``j`` has ``per_text[j]`` postings and BM25 length ``lengths[j]``."""

    vocab: list[str]
    terms: np.ndarray  # int64, one per posting
    tf: np.ndarray  # float64, one per posting
    per_text: np.ndarray  # int64, one per text
    lengths: np.ndarray  # float64, one per text

    @property
    def size(self) -> int:
        return int(self.per_text.size)

    @property
    def text_of(self) -> np.ndarray:
        """The text of each posting."""
        return np.repeat(np.arange(self.size, dtype=np.int64), self.per_text)

    def avg_length(self) -> float:
        """The mean BM25 length (1 when there is no text or every length is 0)."""
        return float(self.lengths.mean()) if self.size and self.lengths.sum() else 1.0

    def doc_freq(self) -> np.ndarray:
        return np.bincount(self.terms, minlength=len(self.vocab)).astype(np.float64)


def count_terms(texts: Sequence[str], pipeline: TextPipeline) -> TermStats:
    """The postings and lengths of ``texts`` under ``pipeline``."""
    vocab: dict[str, int] = {}
    ids: list[int] = []
    tfs: list[int] = []
    per_text = np.zeros(len(texts), dtype=np.int64)
    lengths = np.zeros(len(texts), dtype=np.float64)
    for j, text in enumerate(texts):
        toks, length = pipeline.terms(text)
        counts = Counter(toks)
        ids.extend(vocab.setdefault(t, len(vocab)) for t in counts)
        tfs.extend(counts.values())
        per_text[j] = len(counts)
        lengths[j] = length
    return TermStats(
        list(vocab),
        np.asarray(ids, dtype=np.int64),
        np.asarray(tfs, dtype=np.float64),
        per_text,
        lengths,
    )


def merge_term_stats(parts: Sequence[TermStats]) -> TermStats:
    """One corpus's statistics from its parts' (in text order): equal to counting the
    concatenated texts at once."""
    vocab: dict[str, int] = {}
    terms = []
    for p in parts:
        mapping = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for t in p.vocab), dtype=np.int64, count=len(p.vocab)
        )
        terms.append(mapping[p.terms] if p.terms.size else p.terms)

    def cat(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)

    return TermStats(
        list(vocab),
        cat(terms, np.int64),
        cat([p.tf for p in parts], np.float64),
        cat([p.per_text for p in parts], np.int64),
        cat([p.lengths for p in parts], np.float64),
    )
