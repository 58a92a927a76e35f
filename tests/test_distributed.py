"""Indexing on Dask: the same corpus built here and on a 2-worker local cluster gives the same
index (chunk ids, spans, texts, vectors, BM25 scores, rankings); a worker killed mid-build
is retried, and a build that fails for good publishes nothing."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import numpy as np
import pytest

pytest.importorskip("distributed", reason="the dask extra (finchunk[dask]) is not installed")

import distributed  # noqa: E402

from finchunk.datasets import SampleConfig, generate, write_lesson_files  # noqa: E402
from finchunk.errors import InputError  # noqa: E402
from finchunk.model import Document  # noqa: E402
from finchunk.retrieve.backends.distributed import DaskWork, DistributedBuildError  # noqa: E402
from finchunk.retrieve.index.build import Source, build_index, document_sources
from finchunk.retrieve.index.config import OnError
from finchunk.retrieve.index.store import Index  # noqa: E402
from tests.backend_corpus import CONFIG, QUERIES, write_corpus  # noqa: E402


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[Source]:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=50
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _same_index(a: Index, b: Index) -> None:
    for col in ("id", "doc_id", "spans", "text", "section", "pages", "header", "metadata"):
        assert a.chunks.column(col).to_pylist() == b.chunks.column(col).to_pylist(), col
    assert a.document_rows() == b.document_rows()
    assert all(r["layout"] for r in a.document_rows().values())  # what evidence delivery cuts
    assert np.array_equal(np.asarray(a.source.vectors()), np.asarray(b.source.vectors()))
    for q in QUERIES:
        la, lb = a.source.lexical(), b.source.lexical()
        assert np.max(np.abs(la.scores(q) - lb.scores(q))) <= 1e-9
        for name in ("bm25", "dense", "hybrid", "hybrid-cc"):
            assert a.retriever(name).search(q, 10) == b.retriever(name).search(q, 10)


def test_a_dask_build_equals_the_local_build(sources, client, tmp_path: Path) -> None:
    build_index(sources, tmp_path / "local", CONFIG)
    report = build_index(sources, tmp_path / "dask", CONFIG, work=DaskWork(client, parts=5))
    assert report.chunks == Index.open(tmp_path / "local").size
    _same_index(Index.open(tmp_path / "local"), Index.open(tmp_path / "dask"))
    # an update on the cluster: one document changed, the others reused, as locally
    changed = [*sources[:-1], _edited(sources[-1], " Nota añadida sobre liquidez.")]
    build_index(changed, tmp_path / "local", CONFIG)
    again = build_index(changed, tmp_path / "dask", CONFIG, work=DaskWork(client, parts=3))
    assert again.updated == [sources[-1].doc_id] and len(again.unchanged) == len(sources) - 1
    _same_index(Index.open(tmp_path / "local"), Index.open(tmp_path / "dask"))


def _edited(src: Source, extra: str) -> Source:
    doc = src.loader()
    new = Document(doc.id, doc.text + extra, doc.title, doc.metadata, source=doc.source)
    return document_sources([new])[0]


def _killing(src: Source, marker: Path | None) -> Source:
    """``src`` whose loading kills its worker process (once, when ``marker`` is given: the
    marker file is written first; always without one)."""
    load = src.loader

    def loader() -> Document:
        if marker is None or not marker.exists():
            if marker is not None:
                marker.write_text("killed once")
            os.kill(os.getpid(), signal.SIGKILL)
        return load()

    return replace(src, loader=loader)


def test_a_worker_killed_mid_build_is_retried(sources, client, tmp_path: Path) -> None:
    build_index(sources, tmp_path / "local", CONFIG)
    marker = tmp_path / "killed"
    flaky = [*sources[:3], _killing(sources[3], marker), *sources[4:]]
    build_index(flaky, tmp_path / "dask", CONFIG, work=DaskWork(client, parts=4))
    assert marker.exists()  # a worker did die
    _same_index(Index.open(tmp_path / "local"), Index.open(tmp_path / "dask"))


def _unreadable(src: Source) -> Source:
    """``src`` whose loading fails as a broken file does (an InputError naming it)."""

    def loader() -> Document:
        raise InputError(f"{src.source}: not a readable document")

    return replace(src, loader=loader)


def test_a_dask_build_skips_an_unreadable_document_as_a_local_build_does(
    sources, client, tmp_path: Path
) -> None:
    broken = [*sources[:2], _unreadable(sources[2]), *sources[3:]]
    here = build_index(broken, tmp_path / "local", CONFIG, on_error=OnError.SKIP)
    work = DaskWork(client, parts=3, on_error=OnError.SKIP)
    there = build_index(broken, tmp_path / "dask", CONFIG, work=work)
    assert there.skipped == here.skipped == [(sources[2].source, ANY)]
    assert there.added == here.added and sources[2].doc_id not in there.added
    _same_index(Index.open(tmp_path / "local"), Index.open(tmp_path / "dask"))
    with pytest.raises(InputError, match="not a readable document"):
        build_index(broken, tmp_path / "failing", CONFIG, work=DaskWork(client, parts=3))
    assert not (tmp_path / "failing" / "CURRENT").exists()


def _allowed_failures(dask_scheduler: Any, n: int) -> int:
    before, dask_scheduler.allowed_failures = dask_scheduler.allowed_failures, n
    return before


def test_a_build_failing_for_good_leaves_the_previous_generation(
    sources, client, tmp_path: Path
) -> None:
    root = tmp_path / "idx"
    build_index(sources[:2], root, CONFIG)
    before = Index.open(root)
    doomed = [*sources[:3], _killing(sources[3], None), *sources[4:]]
    allowed = client.run_on_scheduler(_allowed_failures, n=0)
    try:
        with pytest.raises(DistributedBuildError, match="nothing was published") as err:
            build_index(doomed, root, CONFIG, work=DaskWork(client, parts=3))
    finally:
        client.run_on_scheduler(_allowed_failures, n=allowed)
    assert "\n" not in str(err.value)
    after = Index.open(root)
    assert after.gen == before.gen
    assert after.chunks.equals(before.chunks)
    hits = after.retriever("bm25").search(QUERIES[0], 10)
    assert hits == before.retriever("bm25").search(QUERIES[0], 10)
    kept = ["CURRENT", "LOCK", before.gen.name, *before.manifest.segments]
    assert sorted(p.name for p in root.iterdir()) == sorted(kept)  # no partial segment


def test_eval_on_dask_reports_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from finchunk import parallel
    from finchunk.cli import app

    parts: list[int] = []
    cut = parallel.cut
    monkeypatch.setattr(parallel, "cut", lambda items, n: parts.append(n) or cut(items, n))

    files = write_lesson_files(
        generate(SampleConfig(issuers=2, years=1, funds=1, notes=1)), tmp_path
    )
    args = ["eval", "--docs", str(files.documents), "--passages", str(files.passages)]
    args += ["--questions", str(files.questions), "--strategies", "fixed,structure"]
    args += ["--retriever", "bm25,dense", "--embedder", "hashing", "-k", "1,5", "--json"]
    runner = CliRunner()
    here = runner.invoke(app, args)
    there = runner.invoke(app, [*args, "--dask"])
    assert here.exit_code == 0 and there.exit_code == 0, there.output
    assert parts  # chunking and embedding went to the cluster
    assert json.loads(there.stdout) == json.loads(here.stdout)


def test_index_dask_on_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from finchunk.cli import app

    data = str(Path(__file__).parent / "data")
    runner = CliRunner()
    for name, extra in (("here", []), ("there", ["--dask"])):
        args = ["index", data, "-o", str(tmp_path / name), "--dense", "--model", "hashing"]
        done = runner.invoke(app, [*args, *extra])
        assert done.exit_code == 0, done.output
    _same_index(Index.open(tmp_path / "here"), Index.open(tmp_path / "there"))


def test_index_dask_skips_an_unreadable_file_of_a_folder(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from finchunk.cli import app

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nRevenue grew.\n", encoding="utf-8")
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"%PDF-1.7\nnot a pdf")
    args = ["index", str(tmp_path / "docs"), "-o", str(tmp_path / "idx"), "--dask"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 1, done.output
    assert "skipped:" in done.output and "broken.pdf" in done.output and "1 added" in done.output
