"""The BM25 text pipeline: footnote marks, fiscal years, stop words before stemming, numbers
out of the length, validated parameters, and the parameters an index is built with."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from finchunk.errors import InputError
from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.lexical.bm25 import LESSON_PARAMS, BM25Index, BM25Params
from finchunk.retrieve.lexical.lexical import LexicalIndex
from finchunk.retrieve.query.retriever import RetrieverOptions, make_retriever, tuned_on_benchmark
from finchunk.text.analysis import LESSON_TEXT, NumberMode, Stemmer, TextPipeline, tokenize

P = TextPipeline()


@pytest.mark.parametrize(
    "text",
    ["| EBITDA² |", "EBITDA⁽¹⁾", "EBITDA†", "EBITDA‡ ", "EBITDA*", "EBITDA₃", "ebitda¹²"],
)
def test_footnote_marks_split_off_before_folding(text: str) -> None:
    assert P.words(text)[0] == ["ebitda"]
    assert LESSON_TEXT.tokens("| EBITDA² |") == ["ebitda2"]  # NFKD: the mark glues on


def test_marked_row_matches_the_bare_word_in_chunks_headers_and_queries() -> None:
    texts = ["Resumen > Cifras\n| EBITDA² | 2.100 |", "Costes de personal", "Ventas netas"]
    for query in ("EBITDA", "EBITDA²", "ebitda ajustado"):
        assert make_retriever("bm25", texts).search(query, 1).positions.tolist() == [0]
    assert make_retriever("bm25-lesson", texts).search("EBITDA", 1) == []


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("FY2018", ["fy2018", "2018"]),
        ("FY18", ["fy2018", "2018"]),
        ("FY 2018", ["fy2018", "2018"]),
        ("fy99", ["fy1999", "1999"]),
        ("fiscal 2018", ["fiscal", "2018"]),
        ("fiscal year 18", ["fiscal", "year", "2018"]),
        ("Q3 2024", ["q3", "2024"]),
        ("3Q24", ["q3", "2024"]),
        ("3Q 2024", ["q3", "2024"]),
        ("Q3FY24", ["q3", "fy2024", "2024"]),
        ("3M 10K 2018", ["3m", "10k", "2018"]),
    ],
)
def test_fiscal_years_and_quarters_normalised(text: str, terms: list[str]) -> None:
    assert P.words(text)[0] == terms


def test_fiscal_forms_match_across_chunks_and_queries() -> None:
    texts = ["3M 10K 2018 revenue", "FY2018 capital expenditure", "fiscal 2017 revenue", "other"]
    bm25 = make_retriever("bm25", texts)
    for query in ("FY18", "FY 2018", "FY2018"):
        assert sorted(bm25.search(query, 4).positions.tolist()) == [0, 1], query
    for query in ("fiscal 2018", "fiscal year 18"):
        assert {0, 1} <= set(bm25.search(query, 4).positions.tolist()), query
    assert bm25.search("revenue in FY2017", 1).positions.tolist() == [2]
    # The words analyzer keeps years though it drops other numbers.
    words = make_retriever("bm25-words", texts)
    assert words.search("What did 3M report for FY2018?", 1).positions.tolist() == [0]


def test_accents_and_case_fold_and_lesson_equals_tokenize() -> None:
    assert P.words("INFORMACIÓN Información informacion")[0] == ["informacion"] * 3
    for text in ("¿Cuál fue la INFORMACIÓN de 2023?", "What was the revenue of Apple²?"):
        assert LESSON_TEXT.tokens(text) == tokenize(text)


def test_stop_words_are_removed_before_stemming() -> None:
    en = TextPipeline(stem=Stemmer.PLURAL_EN)
    assert en.words("Does the company have liabilities?")[0] == ["company", "liability"]
    assert en.words("gross bonus sales 1990s")[0] == ["gross", "bonus", "sale", "1990s"]
    es = TextPipeline(stem=Stemmer.PLURAL_ES)
    assert es.words("¿Cuáles son los ingresos de las sociedades?")[0] == ["ingreso", "sociedad"]
    assert es.words("operaciones capitales veces análisis")[0] == [
        "operacion",
        "capital",
        "vez",
        "analisis",
    ]
    assert P.words("Does the company have liabilities?")[0] == ["company", "liabilities"]


def test_every_word_is_also_indexed_by_its_prefix_out_of_the_length() -> None:
    terms, length = P.terms("Revenues and tax in FY2024")
    assert terms == [
        "revenues", "tax", "fy2024", "2024", "reve*", "tax*", "fy20*", "2024*",
    ]  # fmt: skip
    assert length == 3  # the words; "2024" is a number, the prefix terms are not counted
    assert P.words("Revenues and tax in FY2024") == (terms[:4], 3)
    assert TextPipeline(prefix=0).tokens("Revenues and tax") == ["revenues", "tax"]
    assert TextPipeline(prefix=3).tokens("ingresos") == ["ingresos", "ing*"]


def test_prefix_terms_match_other_forms_and_exact_words_stay_ahead() -> None:
    texts = ["Vehicle deliveries rose", "We delivered 1.8 million vehicles", "Warranty costs"]
    hits = BM25Index(texts, BM25Params()).search("How many cars were delivered?", 3)
    assert hits.positions.tolist() == [1, 0]  # the exact word first, the other form found
    assert BM25Index(texts, BM25Params(text=TextPipeline(prefix=0))).search(
        "How many cars were delivered?", 3
    ).positions.tolist() == [1]
    es = BM25Index(["Los ingresos crecieron", "Gastos de personal"], BM25Params())
    assert es.search("ingreso", 2).positions.tolist() == [0]


def test_a_query_word_and_its_prefix_term_score_as_the_two_terms() -> None:
    """Search sums a word and its prefix term as one list (a number or a short word
    doubled, its prefix term being the same postings): the scores of the raw terms."""
    rng = np.random.default_rng(11)
    vocab = ["tax", "taxes", "taxable", "neta", "netas", "net", "2024", "20245", "ventas"]
    texts = [" ".join(rng.choice(vocab, rng.integers(1, 12))) for _ in range(300)]
    index = BM25Index(texts, BM25Params())
    for query in ("tax neta 2024", "taxes netas", "net ventas 20245 tax", "taxable"):
        raw = Counter(P.tokens(query))
        for k in (300, 5):  # every chunk, and the dense top k
            got = index.search(query, k)
            want = index.search_weighted({t: float(c) for t, c in raw.items()}, k)
            assert got.positions.tolist() == want.positions.tolist(), query
            assert got.scores.tolist() == pytest.approx(want.scores.tolist(), rel=1e-6)
        scores = index.scores(query)
        assert scores[got.positions].tolist() == pytest.approx(got.scores.tolist(), rel=1e-6)


def test_numbers_match_but_do_not_lengthen_a_table() -> None:
    table = "Revenue | " + " | ".join(f"{n:,}" for n in range(1000, 1040))
    texts = [table, "Revenue", "Costs and expenses"]
    uncounted = BM25Index(texts, BM25Params(k1=1.5, b=0.75))
    counted = BM25Index(texts, BM25Params(k1=1.5, b=0.75, text=TextPipeline(numbers="count")))
    a, b = uncounted.scores("revenue")[:2]
    assert a == pytest.approx(b)  # one word each: the 80 number tokens are not length
    a, b = counted.scores("revenue")[:2]
    assert a < b / 2
    assert uncounted.search("1,020", 1).positions.tolist() == [0]  # still matched
    dropped = BM25Index(texts, BM25Params(text=TextPipeline(numbers=NumberMode.DROP)))
    assert dropped.search("1,020", 1) == []


def test_rankings_are_deterministic() -> None:
    texts = [
        f"ingresos {i % 7} ventas {'netas' * (i % 3)} EBITDA² FY{2018 + i % 4}" for i in range(60)
    ]
    runs = [
        make_retriever("bm25", list(texts)).search("ingresos FY2019 EBITDA", 20) for _ in range(3)
    ]
    assert runs[0] == runs[1] == runs[2]
    assert P.terms(texts[5]) == P.terms(texts[5])


@pytest.mark.parametrize(
    "bad",
    [
        {"k1": 0},
        {"k1": -1.0},
        {"b": 1.5},
        {"b": -0.1},
        {"k1": "1.2"},
        {"b": True},
        {"epsilon": -1},
        {"k1": float("nan")},
        {"text": "plain"},
    ],
)
def test_bad_bm25_parameters_are_refused(bad: dict) -> None:
    with pytest.raises(InputError, match="BM25"):
        BM25Params(**bad)


def test_bad_pipeline_options_are_refused_and_dicts_round_trip() -> None:
    with pytest.raises(InputError, match="numbers"):
        TextPipeline(numbers="sometimes")
    with pytest.raises(InputError, match="stem"):
        TextPipeline(stem="porter")
    with pytest.raises(InputError, match="marks"):
        TextPipeline(marks="yes")
    for bad in (-1, 2.5, True):
        with pytest.raises(InputError, match="prefix"):
            TextPipeline(prefix=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="BM25 parameters"):
        BM25Params.from_dict({"k2": 1})
    params = BM25Params(k1=0.7, b=0.2, text=TextPipeline(stem="plural-es"))
    assert BM25Params.from_dict(asdict(params)) == params
    assert BM25Params.from_dict({"k1": 1.5, "b": 0.75, "epsilon": 0.25}) == LESSON_PARAMS
    assert BM25Params.from_dict(asdict(BM25Params())) == BM25Params()
    older = asdict(BM25Params())  # saved before prefix terms existed: indexed without them
    del older["text"]["prefix"]
    assert BM25Params.from_dict(older).text.prefix == 0


def test_only_bm25_fin_is_marked_tuned_on_the_benchmark() -> None:
    assert tuned_on_benchmark("bm25-fin")
    assert not any(tuned_on_benchmark(r) for r in ("bm25", "bm25-lesson", "bm25-words"))


def _docs(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(
        "# Informe 2024\n\n## Cifras\n\n| EBITDA² | 2.100 |\n|---|---|\n| Ventas | 13.668 |\n"
        "\n## Riesgos\n\nEl grupo está expuesto al precio del crudo y a los tipos de cambio.\n",
        encoding="utf-8",
    )
    (docs / "b.md").write_text(
        "# Acme 10-K FY2023\n\n## Revenue\n\nRevenue increased 12% to $4.2 billion.\n",
        encoding="utf-8",
    )
    return docs


def test_index_built_with_other_k1_and_b_searches_with_them(tmp_path: Path) -> None:
    params = BM25Params(k1=0.6, b=0.2)
    build_index(file_sources([_docs(tmp_path)]), tmp_path / "idx", IndexConfig(bm25=params))
    index = Index.open(tmp_path / "idx")
    assert index.manifest.bm25_params == params
    retriever = index.retriever("bm25")
    assert isinstance(retriever, LexicalIndex) and retriever.params == params
    fresh = LexicalIndex.build(index.texts, params)
    for q in ("EBITDA 2024", "revenue FY23", "precio del crudo"):
        np.testing.assert_allclose(retriever.scores(q), fresh.scores(q), rtol=1e-6)
    default = LexicalIndex.build(index.texts)
    assert not np.allclose(retriever.scores("EBITDA ventas"), default.scores("EBITDA ventas"))
    assert index.retriever("bm25-lesson").params == LESSON_PARAMS  # type: ignore[attr-defined]


def test_cli_flags_reach_the_manifest_and_name_the_defaults(tmp_path: Path) -> None:
    from finchunk.cli.bench import app as bench_app
    from finchunk.cli.retrieve import register

    app = typer.Typer()
    register(app)
    runner = CliRunner()
    docs, idx = _docs(tmp_path), tmp_path / "idx"
    r = runner.invoke(
        app, ["index", str(docs), "-o", str(idx), "--bm25-k1", "0.7", "--bm25-b", "0.3"]
    )
    assert r.exit_code == 0, r.output
    assert Index.open(idx).manifest.bm25_params == BM25Params(k1=0.7, b=0.3)
    r = runner.invoke(app, ["index", str(docs), "-o", str(tmp_path / "p0"), "--bm25-prefix", "0"])
    assert r.exit_code == 0, r.output
    saved = Index.open(tmp_path / "p0").manifest.bm25_params
    assert saved == BM25Params(text=TextPipeline(prefix=0))
    r = runner.invoke(app, ["index", str(docs), "-o", str(tmp_path / "p"), "--bm25-prefix", "-1"])
    assert r.exit_code != 0 and "prefix" in r.output
    r = runner.invoke(app, ["index", str(docs), "-o", str(tmp_path / "bad"), "--bm25-b", "2"])
    assert r.exit_code != 0 and "between 0 and 1" in r.output
    default = BM25Params()
    for cli in (app, bench_app):
        text = runner.invoke(cli, ["index" if cli is app else "financebench", "--help"]).output
        text = re.sub(r"[\s│]+", " ", text)  # help lines rejoined where the panel wrapped them
        assert f"default {default.k1:g}" in text and f"default {default.b:g}" in text
        assert f"default {default.text.prefix};" in text
    assert RetrieverOptions().bm25 == default


def test_eval_flags_build_variants_with_those_parameters() -> None:
    from finchunk.cli.chunk_eval import eval_variants
    from finchunk.cli.common import HeaderMode, bm25_params
    from finchunk.cli.main import app as root

    params = bm25_params(0.7, None)
    assert params == BM25Params(k1=0.7)
    variants = eval_variants("structure,fixed", HeaderMode.ON, "bm25,bm25-lesson", bm25=params)
    assert {v.bm25 for v in variants} == {params}
    text = CliRunner().invoke(root, ["eval", "--help"], env={"COLUMNS": "200"}).output
    assert "--bm25-k1" in text and "--bm25-b" in text and "--bm25-prefix" in text
    assert bm25_params(None, None, 0).text == TextPipeline(prefix=0)
