"""BM25: the lesson's normalisation, stable ties, and parity with rank_bm25's BM25Okapi."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from finchunk.retrieve.base import Hits
from finchunk.retrieve.kinds import RetrieverKind
from finchunk.retrieve.lexical.bm25 import LESSON_PARAMS, BM25Index, BM25Params
from finchunk.retrieve.lexical.lexical import LexicalIndex
from finchunk.retrieve.query.retriever import RetrieverOptions, make_retriever
from finchunk.text.analysis import tokenize


def test_normalisation_strips_accents_case_and_stop_words() -> None:
    assert tokenize("¿Cuál fue la INFORMACIÓN de los ingresos en 2023?") == [
        "informacion",
        "ingresos",
        "2023",
    ]
    assert tokenize("What was the revenue of Apple?") == ["revenue", "apple"]


def test_ties_break_by_chunk_order() -> None:
    scores = np.array([0.5, 2.0, 2.0, 0.0, 2.0], dtype=np.float32)
    assert Hits.top(scores, 3).positions.tolist() == [1, 2, 4]
    index = BM25Index(["alfa beta", "gamma delta", "alfa epsilon", "alfa zeta", "eta theta"])
    # "alfa" is in 3 of 5 texts: its idf is floored as in rank_bm25, not negative.
    assert [i for i, _ in index.search("alfa", 3)] == [0, 2, 3]


def test_save_and_load_give_the_same_scores(tmp_path: Path) -> None:
    index = BM25Index(["ingresos alfa 2023", "ingresos beta", "gastos de personal"])
    index.save(tmp_path / "bm25")
    again = BM25Index.load(tmp_path / "bm25")
    assert again.scores("ingresos alfa").tolist() == index.scores("ingresos alfa").tolist()


def test_mask_restricts_candidates_and_unknown_terms_score_zero() -> None:
    index = BM25Index(["ingresos alfa", "ingresos beta", "gastos"])
    mask = np.array([False, True, True])
    assert index.search("ingresos", 2, mask)[0][0] == 1
    assert index.scores("palabrainexistente").tolist() == [0.0, 0.0, 0.0]
    assert BM25Index([]).search("x", 3) == []


def _parity(texts: list[str], queries: list[str]) -> float:
    """The ``bm25-lesson`` retriever's scores equal BM25Okapi's, whatever BM25 options are
    configured; returns the mean top-10 overlap (ties may order apart)."""
    options = RetrieverOptions(bm25=BM25Params(k1=0.9, b=0.3))
    ours = make_retriever(RetrieverKind.BM25_LESSON, texts, options)
    assert isinstance(ours, LexicalIndex) and ours.params == LESSON_PARAMS
    ref = BM25Okapi([tokenize(t) for t in texts])
    overlaps = []
    for q in queries:
        ref_scores = ref.get_scores(tokenize(q))
        np.testing.assert_allclose(ours.scores(q), ref_scores, rtol=1e-4, atol=1e-4)
        a = {i for i, _ in ours.search(q, 10)}
        matched = [i for i in np.argsort(-ref_scores, kind="stable") if ref_scores[i] > 0]
        b = set(matched[:10])  # search ranks only the texts sharing a term with the query
        assert len(a) == len(b)
        overlaps.append(len(a & b) / max(len(b), 1))
    return float(np.mean(overlaps))


def test_parity_with_rank_bm25_on_financebench_pages(shared_data: Path) -> None:
    pdfium = pytest.importorskip("pypdfium2")
    fb = shared_data / "financebench"
    pdf = fb / "pdfs" / "3M_2018_10K.pdf"
    if not pdf.exists():
        pytest.skip(f"{pdf} not present")
    document = pdfium.PdfDocument(str(pdf))
    texts = [document[i].get_textpage().get_text_range() for i in range(len(document))]
    queries = []
    with (fb / "financebench_open_source.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            queries.append(json.loads(line)["question"])
    overlap = _parity(texts, queries[:60])
    assert overlap >= 0.95, overlap


def test_parity_with_rank_bm25_on_report_text() -> None:
    text = (Path(__file__).parent / "data" / "informe_ejemplo.md").read_text(encoding="utf-8")
    texts = [line for line in text.splitlines() if len(line) > 20] * 3
    texts += [f"{t} adicional {i}" for i, t in enumerate(texts)]
    queries = [
        "ingresos arrendamientos",
        "EBITDA ajustado",
        "plantilla media sede Madrid",
        "deuda financiera neta 2023",
        "dividendo por acción",
    ]
    assert _parity(texts, queries) >= 0.9


_KID = "Fondo Ejemplo Renta Variable Europea | documento de datos fundamentales | 2023 > "
KID = [  # a short document's chunks, its header line on each
    _KID + "Costes\nGastos corrientes del fondo: 1,25 %.",
    _KID + "Objetivo\nRenta variable europea.",
    _KID + "Riesgos\nRiesgo 4 de 7.",
]


def test_a_term_every_chunk_holds_never_lowers_a_score() -> None:
    """In an index of a few chunks most terms are in over half of them, the mean idf is
    negative, and so was rank_bm25's floor: the more often a chunk names the fund, the
    lower it scored for "fondo". The floor is 0 there now; the lesson's BM25 keeps
    rank_bm25's."""
    ours = BM25Index(KID, BM25Params())
    assert ours.stats.idf_mean < 0
    assert (ours.scores("fondo") == 0).all()
    gastos = ours.scores("¿Cuáles son los gastos del fondo?")
    assert gastos[0] > 0 and (gastos[1:] == 0).all()
    lesson = BM25Index(KID, LESSON_PARAMS).scores("fondo")
    expected = BM25Okapi([tokenize(t) for t in KID]).get_scores(tokenize("fondo"))
    np.testing.assert_allclose(lesson, expected, rtol=1e-6)
    assert lesson[0] < lesson[1] < 0  # rank_bm25's negative floor, reproduced


def test_older_parameters_read_back_with_their_floor() -> None:
    assert BM25Params.from_dict({"k1": 1.5, "b": 0.75, "epsilon": 0.25}) == LESSON_PARAMS
    stored = {"k1": 0.9, "b": 0.5, "epsilon": 0.25, "text": {}}  # a pipeline index, before
    assert BM25Params.from_dict(stored).floor_at_zero


def test_postgresql_blocks_group_chunks_of_one_kind_of_section() -> None:
    """PostgreSQL's BM25 blocks: chunks sorted by their innermost section's title (numbering
    and case set aside), then length, then position, in runs of the block size."""
    from finchunk.retrieve.backends.pg_bm25 import blocks_of

    sections = [
        ["Report A", "3. Net debt"], ["Report A", "4. Staff"], None,
        ["Report B", "2. NET DEBT"], ["Report B", "(5) staff"], ["Report B", "2. Net debt"],
    ]  # fmt: skip
    lengths = np.array([9.0, 5.0, 1.0, 4.0, 5.0, 9.0])
    # order: None (""); "net debt" by length (3, then 0 and 5 by position); "staff" (1, 4)
    assert blocks_of(sections, lengths, 2).tolist() == [1, 2, 0, 0, 2, 1]
    assert blocks_of(sections, lengths, 100).tolist() == [0] * 6
    assert blocks_of([], np.zeros(0), 4).dtype == np.int32
