"""Compact postings: varints round-trip, segments memory-map, statistics merge in one place."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from finchunk.errors import InputError
from finchunk.retrieve.lexical.bm25 import BM25Index, CorpusStats, merge_doc_freqs, top_k
from finchunk.retrieve.lexical.postings import (
    Segment,
    SegmentWriter,
    decode_varints,
    encode_varints,
)
from finchunk.retrieve.lexical.topk import maxscore


def test_varints_round_trip_every_width() -> None:
    values = np.array([0, 1, 127, 128, 255, 16383, 16384, 2**21, 2**28, 2**32 - 1], np.uint64)
    data = encode_varints(values)
    assert data.size == 1 + 1 + 1 + 2 + 2 + 2 + 3 + 4 + 5 + 5
    assert decode_varints(data).tolist() == values.tolist()
    small = np.arange(100)
    assert decode_varints(encode_varints(small)).tolist() == small.tolist()


def test_segment_postings_are_the_terms_documents_and_frequencies(tmp_path: Path) -> None:
    texts = ["alfa beta alfa", "beta gamma", "alfa", "delta"] * 70  # gaps above 127
    index = BM25Index(texts)
    index.save(tmp_path / "bm25")
    seg = Segment.load(tmp_path / "bm25")
    assert (tmp_path / "bm25" / "terms.txt").read_text(encoding="utf-8").split() == [
        "alfa",
        "alfa*",
        "beta",
        "beta*",
        "delt*",
        "delta",
        "gamm*",
        "gamma",
    ]  # each word, and its prefix term
    for term in ("alfa", "alfa*"):
        docs, tf = seg.postings_of(seg.term_id(term))
        assert docs.tolist() == [i for i in range(280) if i % 4 in (0, 2)]
        assert tf.tolist() == [2, 1] * 70
    assert seg.term_id("omega") == -1 and seg.term_id("") == -1


@pytest.mark.parametrize("block", [1, 3, 4096])
def test_postings_are_sorted_block_by_block_as_a_whole(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer sorts one block of documents at a time into place: the same postings
    (by term, documents ascending) however many blocks, wide frequencies included."""
    rng = np.random.default_rng(5)
    words = [f"t{i}" for i in range(40)]
    docs = [[str(w) for w in rng.choice(words, rng.integers(0, 30))] for _ in range(50)]
    docs[7] = ["wide"] * 70_000  # a frequency above uint16
    monkeypatch.setattr(SegmentWriter, "BLOCK", block)
    writer = SegmentWriter()
    for terms in docs:
        writer.add(terms, len(terms))
    seg = writer.finish()
    expected: dict[str, list[tuple[int, int]]] = {}
    for d, terms in enumerate(docs):
        for term in dict.fromkeys(terms):
            expected.setdefault(term, []).append((d, terms.count(term)))
    assert seg.terms() == sorted(t.encode() for t in expected)
    for term, postings in expected.items():
        got_docs, got_tf = seg.postings_of(seg.term_id(term))
        assert list(zip(got_docs.tolist(), got_tf.tolist(), strict=True)) == postings


def test_loaded_index_is_memory_mapped_and_ranks_the_same(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(300)]
    texts = [" ".join(rng.choice(words, rng.integers(1, 40))) for _ in range(500)]
    index = BM25Index(texts)
    index.save(tmp_path / "bm25")
    again = BM25Index.load(tmp_path / "bm25")
    assert isinstance(again.parts[0].segment.postings.base, np.memmap)
    for q in ["w1 w2 w3", "w7", "w10 w10 w200 nada", "w5 w6 w7 w8 w9 w11 w12 w13 w14"]:
        assert again.search(q, 10) == index.search(q, 10)
        assert again.scores(q).tolist() == index.scores(q).tolist()
        positions, scores = index.matched(q)
        full = index.scores(q)
        assert scores.tolist() == full[positions].tolist()
        assert positions.tolist() == np.flatnonzero(full).tolist()


def test_top_k_breaks_ties_by_position_whatever_the_candidate_order() -> None:
    docs = np.array([9, 3, 7, 1, 5])
    scores = np.array([1.0, 2.0, 2.0, 0.5, 2.0], dtype=np.float32)
    assert top_k(docs, scores, 2).positions.tolist() == [3, 5]
    assert top_k(docs, scores, 10).positions.tolist() == [3, 5, 7, 9, 1]


def test_an_older_bm25_directory_asks_for_a_rebuild(tmp_path: Path) -> None:
    d = tmp_path / "bm25"
    d.mkdir()
    (d / "bm25.json").write_text(json.dumps({"size": 1, "params": {}}), encoding="utf-8")
    with pytest.raises(InputError, match="rebuild with `finchunk index`"):
        BM25Index.load(d)


def test_doc_freqs_merge_to_the_whole_corpus_statistics() -> None:
    whole = BM25Index(["alfa beta", "beta", "gamma alfa", "beta delta"])
    a, b = BM25Index(["alfa beta", "beta"]), BM25Index(["gamma alfa", "beta delta"])
    parts = [(p.parts[0].segment.terms(), p.parts[0].segment.doc_freqs) for p in (a, b)]
    terms, df = merge_doc_freqs(parts)
    seg = whole.parts[0].segment
    assert terms.tolist() == seg.terms() and df.tolist() == seg.doc_freqs.tolist()
    assert CorpusStats.of(df, 4, 7) == whole.stats
    dropped, _ = merge_doc_freqs([([b"x", b"y"], np.array([1, 0]))])
    assert dropped.tolist() == [b"x"]


def test_postings_encoded_in_batches_are_the_same_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    import finchunk.retrieve.lexical.postings as postings

    rng = np.random.default_rng(5)
    texts = [" ".join(f"t{x}" for x in rng.integers(0, 50, 30)) for _ in range(400)]
    whole = BM25Index(texts).parts[0].segment
    monkeypatch.setattr(postings, "_BATCH", 7)
    batched = BM25Index(texts).parts[0].segment
    assert batched.postings.tobytes() == whole.postings.tobytes()
    assert batched.posting_starts.tolist() == whole.posting_starts.tolist()


def test_term_cache_is_bounded_and_changes_no_result() -> None:
    rng = np.random.default_rng(9)
    texts = [" ".join(f"w{x}" for x in rng.integers(0, 80, 25)) for _ in range(300)]
    cold, small = BM25Index(texts), BM25Index(texts)
    cold.cache_bytes = 0
    small.cache_bytes = 4096
    queries = [" ".join(f"w{x}" for x in rng.integers(0, 90, 4)) for _ in range(60)]
    for q in queries * 2:
        assert small.search(q, 5) == cold.search(q, 5)
        assert small.scores(q).tolist() == cold.scores(q).tolist()
    assert not cold._cache and 0 < small._cached <= 4096


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_maxscore_top_k_equals_scoring_every_posting(seed: int) -> None:
    rng = np.random.default_rng(seed)
    vocab = np.array([f"t{i}" for i in range(400)])
    weights = 1 / np.arange(1, 401) ** 1.1  # Zipf: a few terms in most chunks
    texts = [
        " ".join(rng.choice(vocab, rng.integers(1, 60), p=weights / weights.sum()))
        for _ in range(3000)
    ]
    index = BM25Index(texts)
    if seed == 1:
        index.cache_bytes = 0  # the cold path: weights computed for the candidates only
    mask = rng.random(3000) < 0.6
    pruned = 0
    for _ in range(80):
        q = " ".join(rng.choice(vocab[:200], rng.integers(1, 7)))
        q += " " + q.split()[0]  # a repeated term counts twice
        for k in (1, 5, 10, 50):
            for m in (None, mask):
                positions, scores = index.matched(q)
                if m is not None:
                    positions, scores = positions[m[positions]], scores[m[positions]]
                assert index.search(q, k, m) == top_k(positions, scores, k), (q, k)
        tokens = index.params.text.tokens(q)
        pruned += maxscore(index, tokens, 10, None) is not None
    assert pruned >= 10  # the pruned path was taken, not only the fallback


def test_dense_top_k_ranks_as_every_posting_summed_where_few_or_most_chunks_match() -> None:
    """Queries whose postings cover from an eighth of the chunks to all of them, with and
    without a mask, and ``k`` beyond what the masked rare terms hold (no floor: the touched
    chunks ranked), against summing every posting (:meth:`matched`) and ranking them all."""
    rng = np.random.default_rng(7)
    share = {"ra": 0.1, "rb": 0.15, "mid": 0.3, "most": 0.8}
    texts = [
        " ".join([t for t, p in share.items() if rng.random() < p] + [f"w{i % 50}", "x"])
        for i in range(2000)
    ]
    index = BM25Index(texts)
    mask = rng.random(2000) < 0.5
    for q in ("ra rb", "ra rb ra", "ra mid", "rb mid w3", "mid most", "ra most x", "x w1"):
        for k in (1, 10, 300):
            for m in (None, mask):
                positions, scores = index.matched(q)
                if m is not None:
                    positions, scores = positions[m[positions]], scores[m[positions]]
                assert index.search(q, k, m) == top_k(positions, scores, k), (q, k)
