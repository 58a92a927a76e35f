"""Incremental indexes: segments, deletions as masks, merges; always equal to a full rebuild."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

import finchunk.retrieve.index.build as build_module
from finchunk.model import Document
from finchunk.parse.markdown import parse_markdown
from finchunk.retrieve.index.build import build_index, document_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.lexical.analyzers import PLAIN
from finchunk.retrieve.lexical.bm25 import BM25Params
from finchunk.retrieve.lexical.lexical import LexicalIndex
from finchunk.retrieve.neural.dense import HashingEmbedder

WORDS = [
    "ingresos",
    "gastos",
    "deuda",
    "dividendo",
    "acción",
    "riesgo",
    "tipos",
    "interés",
    "crudo",
    "gas",
    "fondo",
    "rentabilidad",
    "beneficio",
    "margen",
    "caja",
    "inversión",
    "emisor",
    "bono",
    "cupón",
    "plazo",
    "liquidez",
    "capital",
    "reservas",
]
QUERIES = [
    "ingresos y gastos",
    "deuda bono cupón plazo",
    "riesgo de tipos de interés",
    "dividendo por acción",
    "liquidez caja capital reservas margen",
    "fondo rentabilidad 2024",
]
CARD_QUERIES = ["documento 5", "Documento 12", "documento 100 101", "documento 3 nota"]
EMB = HashingEmbedder(64)


def _doc(i: int, rng: random.Random, extra: str = "") -> Document:
    sections = []
    for s in range(rng.randint(1, 4)):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 60)))
        sections.append(f"## Sección {s}\n\n{words} {rng.randint(2019, 2024)}.\n")
    text = f"# Documento {i}\n\n" + "\n".join(sections) + extra
    return parse_markdown(text, f"d{i:03d}", title=f"Documento {i}", metadata={"n": str(i)})


def _same_search(a: Index, b: Index) -> None:
    assert a.size == b.size
    assert a.chunks.column("id").to_pylist() == b.chunks.column("id").to_pylist()
    assert a.texts == b.texts
    la, lb = a.source.lexical(), b.source.lexical()
    for q in QUERIES:
        np.testing.assert_allclose(la.scores(q), lb.scores(q), rtol=0, atol=1e-9)
        ha, hb = la.search(q, 20), lb.search(q, 20)
        assert ha.positions.tolist() == hb.positions.tolist()
        np.testing.assert_allclose(ha.scores, hb.scores, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(np.asarray(a.source.vectors()), np.asarray(b.source.vectors()))
    _same_cards(a, b)


def _same_cards(a: Index, b: Index) -> None:
    """The stored card postings score as BM25 over every card built afresh."""
    params = a.header.bm25_params
    assert a.source.documents.cards == b.source.documents.cards
    assert a.manifest.card_stats == b.manifest.card_stats
    built = LexicalIndex.build(a.source.documents.cards, params)
    stored_a = a.source.documents.lexical(PLAIN, params)
    stored_b = b.source.documents.lexical(PLAIN, params)
    assert stored_a.size == stored_b.size == len(a.manifest.documents)
    for q in CARD_QUERIES + QUERIES:
        want = built.scores(q)
        assert want.max() > 0 or q in QUERIES
        np.testing.assert_allclose(stored_a.scores(q), want, rtol=0, atol=1e-9)
        np.testing.assert_allclose(stored_b.scores(q), want, rtol=0, atol=1e-9)


def _build(docs: list[Document], root: Path):
    return build_index(
        document_sources(docs), root, IndexConfig(model=EMB.name), embedder=EMB, prune=True
    )


def test_updates_in_segments_equal_a_full_rebuild(tmp_path: Path) -> None:
    rng = random.Random(7)
    docs = [_doc(i, rng) for i in range(30)]
    _build(docs, tmp_path / "idx")
    for step in range(4):  # replace, add and remove documents, one generation each
        docs[3 + step] = _doc(3 + step, rng, extra="\nNota añadida sobre liquidez.\n")
        docs.append(_doc(100 + step, rng))
        del docs[10 + step]
        report = _build(docs, tmp_path / "idx")
        assert report.rebuilt is None and len(report.unchanged) == len(docs) - 2
        fresh = tmp_path / f"fresh{step}"
        _build(docs, fresh)
        inc = Index.open(tmp_path / "idx")
        assert len(inc.manifest.segments) == step + 2 and inc.manifest.live_df
        assert inc.manifest.live_card_df  # replaced and removed documents' cards masked
        cards = inc.source.documents.lexical(PLAIN, inc.header.bm25_params)
        assert len(cards.bm25.parts) == step + 2  # the segments' stored postings, not a rebuild
        _same_search(inc, Index.open(fresh))
        assert inc.manifest.bm25_stats == Index.open(fresh).manifest.bm25_stats
        assert inc.document_text(docs[3].id) == docs[3].text
        lazy, full = Index.open(tmp_path / "idx"), Index.open(fresh)
        whole = [full.chunk(i) for i in range(full.size)]
        assert [lazy.chunk(i) for i in range(lazy.size)] == whole
        assert "chunks" not in vars(lazy)  # read from row groups, not the whole table
        assert all(lazy.document_text(d.id) == d.text for d in docs)


def test_unchanged_reindex_writes_nothing(tmp_path: Path) -> None:
    rng = random.Random(1)
    docs = [_doc(i, rng) for i in range(8)]
    _build(docs, tmp_path / "idx")
    before = sorted(p.name for p in (tmp_path / "idx").iterdir())
    report = _build(docs, tmp_path / "idx")
    assert len(report.unchanged) == 8 and report.chunks == Index.open(tmp_path / "idx").size
    assert sorted(p.name for p in (tmp_path / "idx").iterdir()) == before


def test_segments_merge_when_they_pile_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_module, "MAX_SEGMENTS", 3)
    rng = random.Random(2)
    docs = [_doc(i, rng) for i in range(12)]
    _build(docs, tmp_path / "idx")
    counts = []
    for step in range(4):
        docs[step] = _doc(step, rng, extra=f"\nCambio {step}.\n")
        _build(docs, tmp_path / "idx")
        counts.append(len(Index.open(tmp_path / "idx").manifest.segments))
    assert counts == [2, 3, 2, 3]  # the small ones merged, the first (largest) kept
    assert "s000001" in Index.open(tmp_path / "idx").manifest.segments
    names = {p.name for p in (tmp_path / "idx").iterdir() if p.name.startswith("s")}
    assert names == set(Index.open(tmp_path / "idx").manifest.segments)  # old ones deleted
    _build(docs, tmp_path / "fresh")
    _same_search(Index.open(tmp_path / "idx"), Index.open(tmp_path / "fresh"))


def test_changed_bm25_pipeline_rewrites_the_postings(tmp_path: Path) -> None:
    rng = random.Random(3)
    docs = [_doc(i, rng) for i in range(6)]
    _build(docs, tmp_path / "idx")
    config = IndexConfig(model=EMB.name, bm25=BM25Params(k1=1.2))
    build_index(document_sources(docs), tmp_path / "idx", config, embedder=EMB)
    build_index(document_sources(docs), tmp_path / "fresh", config, embedder=EMB)
    inc = Index.open(tmp_path / "idx")
    assert len(inc.manifest.segments) == 1 and inc.manifest.bm25_params.k1 == 1.2
    _same_search(inc, Index.open(tmp_path / "fresh"))


OLD_MTIME = 1_600_000_000  # long settled


def _settled_folder(folder: Path) -> Path:
    """Three Markdown files last modified long ago."""
    folder.mkdir()
    for i in range(3):
        f = folder / f"d{i}.md"
        f.write_text(f"# D{i}\n\ningresos {i} gastos\n", encoding="utf-8")
        os.utime(f, (OLD_MTIME, OLD_MTIME))
    return folder


def test_reindex_trusts_settled_stats_and_hashes_recent_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from finchunk.retrieve.index.build import file_sources

    folder = _settled_folder(tmp_path / "docs")
    build_index(file_sources([folder]), tmp_path / "idx")
    recent = folder / "d1.md"
    recent.write_text("# D1\n\ningresos 9 gastos\n", encoding="utf-8")  # same size, new mtime
    reads: list[str] = []
    import finchunk.retrieve.index.sources as sources_module

    real = sources_module.read_bytes
    monkeypatch.setattr(sources_module, "read_bytes", lambda p: reads.append(str(p)) or real(p))
    report = build_index(file_sources([folder]), tmp_path / "idx")
    assert report.updated == ["d1"] and report.unchanged == ["d0", "d2"]
    assert reads == [str(recent)]  # the settled files were not read
    reads.clear()
    again = build_index(file_sources([folder]), tmp_path / "idx")
    assert again.unchanged == ["d0", "d1", "d2"] and reads == [str(recent)]  # racy: hashed


def test_settled_unchanged_folder_is_answered_from_the_manifest_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import finchunk.retrieve.index.store as store_module
    from finchunk.retrieve.index.build import file_sources

    folder = _settled_folder(tmp_path / "docs")
    first = build_index(file_sources([folder]), tmp_path / "idx")

    def no_documents(gen: Path) -> list:
        raise AssertionError("documents read")

    monkeypatch.setattr(store_module, "read_documents", no_documents)
    same = build_index(file_sources([folder]), tmp_path / "idx")
    assert same.unchanged == ["d0", "d1", "d2"] and same.chunks == first.chunks
    monkeypatch.undo()
    os.utime(folder / "d1.md", (OLD_MTIME + 1, OLD_MTIME + 1))  # touched: the full path decides
    touched = build_index(file_sources([folder]), tmp_path / "idx")
    assert touched.unchanged == ["d0", "d1", "d2"] and not touched.updated
    other = build_index(file_sources([folder]), tmp_path / "idx", IndexConfig(header=False))
    assert other.rebuilt and len(other.updated) == 3  # another configuration is not unchanged


def test_removed_rows_are_read_from_their_row_groups_only(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from finchunk.retrieve.index.segments import read_rows

    def _row_texts(path: Path, rows: np.ndarray) -> list[str]:
        return read_rows(path, rows, ["text"]).column("text").to_pylist()

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"text": [f"t{i}" for i in range(100)]}), path, row_group_size=7)
    rows = np.array([0, 6, 7, 50, 99])
    assert _row_texts(path, rows) == ["t0", "t6", "t7", "t50", "t99"]
    assert _row_texts(path, np.array([], dtype=np.int64)) == []
