"""The embedding cache: a rerun embeds nothing again, an interrupted job resumes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from finchunk.retrieve.neural import embed_cache
from finchunk.retrieve.neural.dense import DenseIndex, HashingEmbedder, embed_passages


class Counting:
    """A cacheable embedder that counts the texts it embeds (and can fail on demand)."""

    name = "counting-1"
    dim = 8

    def __init__(self, fail_after: int | None = None) -> None:
        self.embedded = 0
        self.fail_after = fail_after
        self.inner = HashingEmbedder(8)

    def embed_passages(self, texts):
        if self.fail_after is not None and self.embedded >= self.fail_after:
            raise KeyboardInterrupt
        self.embedded += len(texts)
        return self.inner.embed_passages(texts)

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FINCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(embed_cache, "_OPEN", {})
    return tmp_path / "cache"


TEXTS = [f"passage number {i} about revenue" for i in range(300)]


def test_a_rerun_embeds_nothing_again(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = Counting()
    a = embed_passages(first, TEXTS)
    assert first.embedded == 300
    monkeypatch.setattr(embed_cache, "_OPEN", {})  # as a new process would
    second = Counting()
    b = embed_passages(second, [*TEXTS, "a new one"])
    assert second.embedded == 1
    np.testing.assert_array_equal(a, b[:300])
    assert list(cache_dir.glob("embeddings/counting-1/*.keys.npy"))


def test_duplicates_are_embedded_once_and_order_is_kept(cache_dir: Path) -> None:
    e = Counting()
    out = embed_passages(e, ["b", "a", "b", "c"])
    assert e.embedded == 3
    np.testing.assert_array_equal(out[0], out[2])
    np.testing.assert_array_equal(out[1], HashingEmbedder(8).embed_passages(["a"])[0])


def test_an_interrupted_job_keeps_whole_shards_and_resumes(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_cache, "SHARD", 100)
    with pytest.raises(KeyboardInterrupt):
        embed_passages(Counting(fail_after=150), TEXTS)
    monkeypatch.setattr(embed_cache, "_OPEN", {})
    again = Counting()
    embed_passages(again, TEXTS)
    assert again.embedded == 200  # the first shard of 100 survived; nothing half-written
    assert not list(cache_dir.rglob("*.tmp"))


@pytest.mark.parametrize("damage", ["cut", "emptied", "rows", "dim"])
def test_a_damaged_shard_is_embedded_again_never_read_as_wrong_vectors(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    monkeypatch.setattr(embed_cache, "SHARD", 100)
    good = embed_passages(Counting(), TEXTS)
    vecs = sorted(cache_dir.glob("embeddings/counting-1/*.vecs.npy"))[1]
    data = vecs.read_bytes()
    bad = {
        "cut": lambda: data[: len(data) // 2],
        "emptied": lambda: b"",
        "rows": lambda: _npy(np.zeros((99, 8), dtype=np.float32)),
        "dim": lambda: _npy(np.zeros((100, 4), dtype=np.float32)),
    }[damage]
    vecs.write_bytes(bad())
    monkeypatch.setattr(embed_cache, "_OPEN", {})  # as a new process would
    again = Counting()
    np.testing.assert_array_equal(embed_passages(again, TEXTS), good)
    assert again.embedded == 100  # the damaged shard's texts only


def _npy(array: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def test_off_switch_and_cheap_embedders_skip_the_cache(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    DenseIndex.build(TEXTS[:5], HashingEmbedder(16))
    assert not cache_dir.exists()
    monkeypatch.setenv("FINCHUNK_CACHE_DIR", "off")
    e = Counting()
    embed_passages(e, TEXTS[:5])
    embed_passages(e, TEXTS[:5])
    assert e.embedded == 10 and not cache_dir.exists()


def test_a_watched_embedder_reports_what_each_call_needs_and_does(cache_dir: Path) -> None:
    from finchunk.retrieve.neural.dense import Watched

    needed, done = [], []
    inner = Counting()
    watched = Watched(inner, needed.append, done.append)
    assert (watched.name, watched.dim) == (inner.name, inner.dim)
    embed_passages(inner, TEXTS[:100])  # cached before: found, not embedded again
    vectors = DenseIndex.build(TEXTS, watched).vectors
    assert needed == [300]
    assert sum(done) == 300 and inner.embedded == 300  # 100 found, 200 embedded in batches
    assert len(done) > 2
    np.testing.assert_array_equal(vectors, embed_passages(inner, TEXTS))
    np.testing.assert_array_equal(
        watched.embed_queries(["revenue"]), inner.embed_queries(["revenue"])
    )


def test_watching_an_uncached_embedder_changes_no_vector() -> None:
    from finchunk.retrieve.neural.dense import Watched

    needed, done = [], []
    plain = HashingEmbedder(16)
    watched = Watched(plain, needed.append, done.append)
    np.testing.assert_array_equal(embed_passages(watched, TEXTS), embed_passages(plain, TEXTS))
    assert needed == [300] and sum(done) == 300


def test_a_slow_job_writes_a_shard_every_few_seconds_and_resumes_there(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_cache, "FLUSH_S", 0.0)  # every batch is "slow": written at once
    with pytest.raises(KeyboardInterrupt):
        embed_passages(Counting(fail_after=150), TEXTS)  # batches of 64: 192 made, then stopped
    monkeypatch.setattr(embed_cache, "_OPEN", {})
    again = Counting()
    out = embed_passages(again, TEXTS)
    assert again.embedded == 300 - 192  # every finished batch was kept
    np.testing.assert_array_equal(out, HashingEmbedder(8).embed_passages(TEXTS))
