"""Compact inverted files for BM25: one segment's terms, postings and document lengths.

A segment is a handful of plain files (``numpy.load`` and a text editor read them all)::

    terms.txt           the terms, sorted (UTF-8 byte order), one per line; a term's id
                        is its line number
    term_starts.npy     uint64 (terms + 1): byte offset of each line in terms.txt
    doc_freqs.npy       uint32 (terms): documents containing the term
    postings.npy        uint8: per term, its documents as gaps (first: the id itself), each
                        times 2 plus 1 when the term occurs once there, then the other
                        frequencies; all LEB128 varints (1 byte below 128)
    posting_starts.npy  uint64 (terms + 1): byte offset of each term's postings
    doc_lengths.npy     uint16, or uint32 past 65,535 (documents): the length BM25
                        normalises by

Everything is opened memory-mapped, so opening costs milliseconds whatever the size; a
query reads only its terms' bytes. :class:`SegmentWriter` takes documents in batches and
keeps only integer arrays (no token lists) until :meth:`SegmentWriter.finish`.
"""

from __future__ import annotations

import mmap
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from finchunk.errors import DamagedIndexError
from finchunk.files import index_file

TERMS = "terms.txt"
TERM_STARTS = "term_starts.npy"
DOC_FREQS = "doc_freqs.npy"
POSTINGS = "postings.npy"
POSTING_STARTS = "posting_starts.npy"
DOC_LENGTHS = "doc_lengths.npy"
FILES = (TERMS, TERM_STARTS, DOC_FREQS, POSTINGS, POSTING_STARTS, DOC_LENGTHS)

_MAX_BYTES = 5  # a uint32 takes at most five 7-bit groups
#: Term ids a segment remembers before it forgets them all (a bound for long-lived servers).
_MAX_REMEMBERED = 1 << 17


def encode_varints(values: np.ndarray) -> np.ndarray:
    """Non-negative integers (< 2**32) as LEB128 varints, vectorised."""
    v = np.asarray(values, dtype=np.uint64)
    nbytes = np.ones(v.size, dtype=np.int64)
    for j in range(1, _MAX_BYTES):
        nbytes += v >= (1 << (7 * j))
    starts = np.cumsum(nbytes) - nbytes
    out = np.empty(int(nbytes.sum()), dtype=np.uint8)
    for j in range(_MAX_BYTES):
        sel = np.flatnonzero(nbytes > j)
        if not sel.size:
            break
        group = ((v[sel] >> np.uint64(7 * j)) & np.uint64(0x7F)).astype(np.uint8)
        out[starts[sel] + j] = group | np.where(nbytes[sel] > j + 1, 0x80, 0).astype(np.uint8)
    return out


def decode_varints(data: np.ndarray) -> np.ndarray:
    """The integers of a LEB128 byte run (int64), vectorised. Most values are one byte:
    those cost a gather; only the continuation bytes of the others are worked on."""
    b = np.asarray(data, dtype=np.uint8)
    if not b.size or int(b.max()) < 0x80:
        return b.astype(np.int64)
    ends = np.flatnonzero(b < 0x80)  # the last (highest) byte of each value
    values = b[ends].astype(np.int64)
    cont = np.flatnonzero(b >= 0x80)
    which = np.searchsorted(ends, cont)  # the value each continuation byte belongs to
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    values <<= 7 * (ends - starts)
    low = (b[cont] & 0x7F).astype(np.int64) << (7 * (cont - starts[which]))
    values += np.bincount(which, weights=low, minlength=values.size).astype(np.int64)
    return values


class _Lines(Sequence[bytes]):
    """The lines of a memory-mapped sorted term file, as a sequence for :func:`bisect`."""

    def __init__(self, blob: bytes | mmap.mmap, starts: np.ndarray) -> None:
        self._blob = blob
        self._starts = starts

    def __len__(self) -> int:
        return max(int(self._starts.size) - 1, 0)

    def __getitem__(self, i):  # type: ignore[override]
        return self._blob[self._starts[i] : self._starts[i + 1] - 1]


class Segment:
    """One segment's inverted file, in memory or memory-mapped from its directory."""

    def __init__(
        self,
        terms: bytes | mmap.mmap,
        term_starts: np.ndarray,
        doc_freqs: np.ndarray,
        postings: np.ndarray,
        posting_starts: np.ndarray,
        doc_lengths: np.ndarray,
    ) -> None:
        self._terms = _Lines(terms, term_starts.astype(np.int64))
        self._ids: dict[str | bytes, int] = {}  # terms looked up so far (questions share them)
        self.doc_freqs = doc_freqs
        self.postings = postings
        self.posting_starts = posting_starts
        self.doc_lengths = doc_lengths

    @property
    def size(self) -> int:
        return int(self.doc_lengths.size)

    @property
    def n_terms(self) -> int:
        return len(self._terms)

    def term_id(self, term: str | bytes) -> int:
        """The id of ``term`` in this segment, -1 when absent (a binary search, remembered:
        up to a bound)."""
        found = self._ids.get(term)
        if found is None:
            key = term.encode("utf-8") if isinstance(term, str) else term
            i = bisect_left(self._terms, key)
            found = i if i < len(self._terms) and self._terms[i] == key else -1
            if len(self._ids) >= _MAX_REMEMBERED:
                self._ids.clear()
            self._ids[term] = found
        return found

    def terms(self) -> list[bytes]:
        """Every term, in id order (sorted)."""
        return [self._terms[i] for i in range(len(self._terms))]

    def postings_of(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        """The documents (ascending, int64) containing the term and its frequency in each."""
        lo, hi = int(self.posting_starts[term_id]), int(self.posting_starts[term_id + 1])
        values = decode_varints(self.postings[lo:hi])
        n = int(self.doc_freqs[term_id])
        folded = values[:n]
        docs = np.cumsum(folded >> 1)
        if values.size == n:  # every frequency is 1
            return docs, np.ones(n, dtype=np.int64)
        tf = np.ones(n, dtype=np.int64)
        tf[(folded & 1) == 0] = values[n:]
        return docs, tf

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        blob = self._terms._blob
        (directory / TERMS).write_bytes(bytes(blob))
        np.save(directory / TERM_STARTS, self._terms._starts)
        np.save(directory / DOC_FREQS, self.doc_freqs)
        np.save(directory / POSTINGS, self.postings)
        np.save(directory / POSTING_STARTS, self.posting_starts)
        np.save(directory / DOC_LENGTHS, self.doc_lengths)

    @classmethod
    def load(cls, directory: Path) -> Segment:
        """Memory-mapped (an empty terms file is read as bytes: mmap refuses length 0). The
        arrays' lengths are checked against each other (O(1)): a truncated or overwritten
        file is a :class:`~finchunk.errors.DamagedIndexError` naming it, not a search
        that silently matches nothing."""
        with index_file(directory / TERMS), (directory / TERMS).open("rb") as fh:
            size = fh.seek(0, 2)
            blob = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""

        def arr(name: str) -> np.ndarray:  # a plain view: memmap's own indexing is slow
            with index_file(directory / name):
                return np.load(directory / name, mmap_mode="r").view(np.ndarray)

        segment = cls(
            blob,
            arr(TERM_STARTS),
            arr(DOC_FREQS),
            arr(POSTINGS),
            arr(POSTING_STARTS),
            arr(DOC_LENGTHS),
        )
        segment._check(directory)
        return segment

    def _check(self, directory: Path) -> None:
        """The lengths a segment's files must agree on, each mismatch naming its file."""
        starts = self._terms._starts
        n = len(starts) - 1
        expected = [
            (TERMS, n >= 0 and int(starts[-1]) == len(self._terms._blob)),
            (DOC_FREQS, len(self.doc_freqs) == n),
            (POSTING_STARTS, len(self.posting_starts) == n + 1),
            (POSTINGS, n < 0 or int(self.posting_starts[-1]) == len(self.postings)),
        ]
        for name, ok in expected:
            if not ok:
                problem = "its length does not match the segment's other files"
                raise DamagedIndexError(directory / name, problem)


class SegmentWriter:
    """Documents' terms in, a :class:`Segment` out; holds integer arrays, not token lists
    (6 bytes per posting while adding, and about as many at the peak of finishing)."""

    #: Documents gathered before their small arrays are joined into one block.
    BLOCK = 4096

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self._recent: list[tuple[np.ndarray, np.ndarray]] = []
        #: (term ids, frequencies, documents) of each block, in document order
        self._blocks: list[tuple[np.ndarray, np.ndarray, int]] = []
        self._counts: list[int] = []
        self._lengths: list[int] = []

    def add(self, terms: Iterable[str], length: int) -> None:
        counts = Counter(terms)
        vocab = self.vocab
        ids = [vocab.setdefault(t, len(vocab)) for t in counts]
        wide = counts and max(counts.values()) > 0xFFFF
        tf = np.fromiter(counts.values(), np.uint32 if wide else np.uint16, count=len(counts))
        self._recent.append((np.asarray(ids, dtype=np.int32), tf))
        self._counts.append(len(counts))
        self._lengths.append(length)
        if len(self._recent) >= self.BLOCK:
            self._seal()

    def _seal(self) -> None:
        if self._recent:
            ids, tfs = zip(*self._recent, strict=True)
            self._blocks.append((np.concatenate(ids), np.concatenate(tfs), len(ids)))
            self._recent = []

    def finish(self) -> Segment:
        """Postings grouped by term, documents ascending: a counting sort, one block at a
        time, each block let go once its postings are placed, so the sorted arrays grow as
        the blocks shrink (an ``argsort`` over every posting needed about 20 bytes each)."""
        self._seal()
        words = sorted(self.vocab, key=lambda w: w.encode("utf-8"))
        n_terms = len(words)
        rank = np.empty(n_terms, dtype=np.int32)
        rank[[self.vocab[w] for w in words]] = np.arange(n_terms, dtype=np.int32)
        blocks, self._blocks = self._blocks, []
        df = np.zeros(n_terms, dtype=np.int64)
        for ids, _, _ in blocks:
            df[rank] += np.bincount(ids, minlength=n_terms)
        wide = any(tf.dtype == np.uint32 for _, tf, _ in blocks)
        docs = np.empty(int(df.sum()), dtype=np.int32)
        tf = np.empty(docs.size, dtype=np.uint32 if wide else np.uint16)
        fill = np.cumsum(df) - df  # where each term's next posting goes
        counts = np.asarray(self._counts, dtype=np.int64)
        first_doc = 0
        blocks.reverse()
        while blocks:
            ids, block_tf, n_docs = blocks.pop()
            terms = rank[ids]
            del ids
            local = np.bincount(terms, minlength=n_terms)
            order = np.argsort(terms, kind="stable")
            terms = terms[order]
            dest = fill[terms] + (np.arange(terms.size) - (np.cumsum(local) - local)[terms])
            owners = np.repeat(
                np.arange(first_doc, first_doc + n_docs, dtype=np.int32),
                counts[first_doc : first_doc + n_docs],
            )
            docs[dest] = owners[order]
            tf[dest] = block_tf[order]
            fill += local
            first_doc += n_docs
        lengths = np.asarray(self._lengths, dtype=np.uint32)
        if lengths.size and int(lengths.max()) < 1 << 16:
            lengths = lengths.astype(np.uint16)
        return _encode(words, df, docs, tf, lengths)


def _encode(
    words: list[str], df: np.ndarray, docs: np.ndarray, tf: np.ndarray, lengths: np.ndarray
) -> Segment:
    """Postings grouped by term (documents ascending) → the segment's byte layout, a batch
    of terms at a time (temporaries stay a few bytes per posting of one batch)."""
    ends = np.cumsum(df)
    chunks, sizes, t0 = [], [], 0
    while t0 < len(words):
        lo = int(ends[t0 - 1]) if t0 else 0
        t1 = max(int(np.searchsorted(ends, lo + _BATCH, side="right")), t0 + 1)
        hi = int(ends[t1 - 1])
        data, per_term = _encode_terms(df[t0:t1], docs[lo:hi], tf[lo:hi])
        chunks.append(data)
        sizes.append(per_term)
        t0 = t1
    per_term = np.concatenate(sizes) if sizes else np.zeros(0, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(per_term)]).astype(np.uint64)
    out = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.uint8)
    if any("\n" in w for w in words):
        raise ValueError("BM25 terms cannot contain a newline")
    encoded = [w.encode("utf-8") for w in words]
    term_starts = np.concatenate([[0], np.cumsum([len(e) + 1 for e in encoded])]).astype(np.uint64)
    blob = b"".join(e + b"\n" for e in encoded)
    return Segment(blob, term_starts, df.astype(np.uint32), out, starts, lengths)


#: Postings encoded per batch.
_BATCH = 1 << 19


def _encode_terms(
    df: np.ndarray, docs: np.ndarray, tf: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Some consecutive terms' postings: their bytes and each term's byte count. Per term:
    each document's gap times 2, plus 1 when the term occurs once in it (Lucene's folding),
    then the frequencies that are not 1, all as varints."""
    n = len(df)
    first = (np.cumsum(df) - df).astype(np.int64)
    gaps = docs.astype(np.int64)
    if gaps.size:
        gaps[1:] -= docs[:-1]
        has = df > 0
        gaps[first[has]] = docs[first[has]]
    once = tf == 1
    folded = gaps * 2 + once
    del gaps
    term_of = np.repeat(np.arange(n), df)
    many = tf[~once]
    gap_len = np.bincount(term_of, weights=_varint_sizes(folded), minlength=n).astype(np.int64)
    tf_len = np.bincount(term_of[~once], weights=_varint_sizes(many), minlength=n)
    tf_len = tf_len.astype(np.int64)
    del term_of
    begin = np.cumsum(gap_len + tf_len) - (gap_len + tf_len)
    out = np.empty(int((gap_len + tf_len).sum()), dtype=np.uint8)
    for values, lens, shift in (
        (folded, gap_len, begin - (np.cumsum(gap_len) - gap_len)),
        (many, tf_len, begin + gap_len - (np.cumsum(tf_len) - tf_len)),
    ):
        data = encode_varints(values)
        out[np.arange(data.size) + np.repeat(shift, lens)] = data
    return out, gap_len + tf_len


def _varint_sizes(values: np.ndarray) -> np.ndarray:
    v = np.asarray(values, dtype=np.uint64)
    n = np.ones(v.size, dtype=np.int64)
    for j in range(1, _MAX_BYTES):
        n += v >= (1 << (7 * j))
    return n
