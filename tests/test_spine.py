"""The spine: one retriever factory, runs, measures as values, comparisons.

A toy retriever and a toy reranker are each one module that registers itself
(``tests/toy_retriever.py``, ``tests/toy_reranker.py``); they then work in eval,
FinanceBench-style scoring and search without touching finchunk.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from finchunk.chunk import Structure
from finchunk.errors import InputError
from finchunk.evaluate.gold import GoldPassage, GoldSet, QuestionGold
from finchunk.evaluate.harness import Variant, evaluate
from finchunk.evaluate.measures import (
    NDCG,
    RR,
    Budget,
    Chars,
    Complete,
    Delivered,
    PageHit,
    Recall,
    compare,
    score,
)
from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions
from finchunk.evaluate.runs import (
    Query,
    Run,
    ScoredChunk,
    rank,
    read_jsonl,
    write_jsonl,
    write_trec,
)
from finchunk.model import Chunk, Document
from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.query.retriever import make_retriever, parse_retriever, retriever_names
from finchunk.retrieve.query.search import SearchOptions, search

from . import toy_reranker, toy_retriever  # noqa: F401  (they register themselves)
from .test_financebench import data  # noqa: F401  (the tiny FinanceBench fixture)

DATA = Path(__file__).parent / "data"


def _hit(rank: int, doc: str, span: tuple[int, int], chars: int = 10, pages=()) -> ScoredChunk:
    return ScoredChunk(f"{doc}#{rank}", doc, (span,), tuple(pages), 1.0 / rank, rank, chars)


# --- registry and specs ---------------------------------------------------------------------


def test_specs_parse_and_print_back() -> None:
    assert str(parse_retriever("BM25")) == "bm25"
    spec = parse_retriever("bm25/toy-short@7")
    assert (spec.first, spec.rerank, spec.depth) == ("bm25", "toy-short", 7)
    assert str(spec) == "bm25/toy-short@7"
    assert "toy" in retriever_names()
    with pytest.raises(InputError, match="unknown retriever"):
        parse_retriever("nope")
    with pytest.raises(InputError, match="unknown reranker"):
        parse_retriever("bm25/nope")


def test_reranker_keeps_negative_scores_and_reorders_the_first_stage() -> None:
    texts = ["revenue grew", "revenue and revenue again, a long text", "costs", "revenue"]
    first = make_retriever("bm25", texts).search("revenue", 10)
    assert set(first.positions.tolist()) == {0, 1, 3}
    reranked = make_retriever("bm25/toy-short@10", texts).search("revenue", 10)
    assert reranked.positions.tolist() == [3, 0, 1]  # shortest first; "costs" never ranked
    assert (reranked.scores < 0).all()
    top1 = make_retriever("bm25/toy-short@1", texts).search("revenue", 1)
    assert top1.positions.tolist() == [first.positions[0]]  # depth 1: nothing to reorder


def test_reranking_deeper_than_its_depth_keeps_the_first_stage_order_below_it() -> None:
    from finchunk.retrieve.neural.rerank import Reranked

    texts = ["revenue " * n + "sales" for n in range(1, 6)] + ["costs"] * 7
    first = make_retriever("bm25", texts)
    ranked = first.search("revenue", 5)
    assert ranked.positions.tolist() == [4, 3, 2, 1, 0]
    scored: list[list[int]] = []

    class LowestPositionFirst:
        def score(self, query: str, positions: np.ndarray) -> np.ndarray:
            scored.append(positions.tolist())
            return -positions.astype(np.float32)

    for weight in (None, 0.5):
        scored.clear()
        reranked = Reranked(first, LowestPositionFirst(), depth=3, weight=weight)
        deep = reranked.search("revenue", 5)
        assert scored == [ranked.positions[:3].tolist()]  # only the depth is re-scored
        assert deep.positions[3:].tolist() == ranked.positions[3:].tolist()
        assert deep.scores.tolist() == sorted(deep.scores.tolist(), reverse=True)
        assert deep.scores[3] < deep.scores[2]
        assert reranked.search("revenue", 3) == deep[:3]  # the same head at k = depth
        if weight is None:
            assert deep.positions.tolist() == [2, 3, 4, 1, 0]


def test_fused_reranking_weighs_both_stages() -> None:
    texts = ["revenue grew", "revenue and revenue again, a long text", "costs", "revenue"]
    first = make_retriever("bm25", texts).search("revenue", 10)
    spec = parse_retriever("bm25/toy-short@10+0.5")
    assert (spec.rerank, spec.depth, spec.fuse) == ("toy-short", 10, 0.5)
    assert str(spec) == "bm25/toy-short@10+0.5"
    # weight 0: the first stage's order; weight 1: the reranker's order (scaled scores)
    only_first = make_retriever("bm25/toy-short@10+0", texts).search("revenue", 10)
    assert only_first.positions.tolist() == first.positions.tolist()
    only_second = make_retriever("bm25/toy-short@10+1", texts).search("revenue", 10)
    assert only_second.positions.tolist() == [3, 0, 1]
    fused = make_retriever(spec, texts).search("revenue", 10)
    assert set(fused.positions.tolist()) == {0, 1, 3}
    assert ((fused.scores >= 0) & (fused.scores <= 1)).all()
    assert fused.scores.tolist() == sorted(fused.scores.tolist(), reverse=True)
    for bad in ("bm25+0.5", "bm25/toy-short@10+1.5"):
        with pytest.raises(InputError, match="WEIGHT"):
            parse_retriever(bad)


def test_fuse_scores_scale_each_stage_to_the_unit_interval() -> None:
    from finchunk.retrieve.neural.rerank import fuse_scores, minmax

    assert minmax(np.array([2.0, 4.0, 3.0])).tolist() == [0.0, 1.0, 0.5]
    assert minmax(np.array([5.0, 5.0])).tolist() == [1.0, 1.0]
    texts = ["revenue grew", "costs", "costs", "costs"]
    (lone,) = make_retriever("bm25/toy-short@10+0.5", texts).search("revenue", 5)
    assert lone == (0, 1.0)  # a lone candidate is the best of both stages
    fused = fuse_scores(np.array([10.0, 0.0]), np.array([-1.0, 1.0]), 0.25)
    assert fused.tolist() == pytest.approx([0.75, 0.25])


# --- the toy retriever everywhere -----------------------------------------------------------


QUOTES = [
    {
        "id": "ebitda",
        "doc": "informe_ejemplo.md",
        "question": "¿Cuánto fue el EBITDA ajustado?",
        "type": "tabla",
        "evidence": ["EBITDA ajustado, sin partidas no recurrentes"],
    },
    {
        "id": "plantilla",
        "doc": "informe_ejemplo.md",
        "question": "¿Cuál fue la plantilla media?",
        "type": "texto",
        "evidence": ["plantilla media"],
    },
]


def test_toy_retriever_and_reranker_run_through_eval(tmp_path: Path) -> None:
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in QUOTES) + "\n")
    corpus = build_quote_corpus(read_quote_questions(qfile), DATA).corpus
    chunker = Structure(size=800)
    variants = [Variant("structure", chunker, r) for r in ("bm25", "toy", "toy/toy-short@5")]
    report = evaluate(corpus, variants, [1, 5])
    rows = {(r["retriever"], r["k"]): r for r in report["results"]}
    assert set(rows) == {(r, k) for r in ("bm25", "toy", "toy/toy-short@5") for k in (1, 5)}
    assert rows[("toy", 5)]["recall"] > 0
    assert [c["b"] for c in report["comparisons"]] == [
        "structure/toy",
        "structure/toy/toy-short@5",
    ]


def test_toy_retriever_in_financebench_scoring(data: Path) -> None:  # noqa: F811
    from finchunk.datasets.financebench import load_financebench
    from finchunk.evaluate.financebench import BenchConfig, FBScope, FBStrategy, run_benchmark

    config = BenchConfig(
        strategies=(FBStrategy.BYTITLE,),
        ks=(1, 5),
        retrievers=(parse_retriever("toy"), parse_retriever("bm25/toy-short@5")),
    )
    runs: list[Run] = []
    report = run_benchmark(load_financebench(data), config, _progress(runs))
    assert {r["retriever"] for r in report["results"]} == {"toy", "bm25/toy-short@5"}
    at5 = [r for r in report["results"] if r["k"] == 5 and r["scope"] == FBScope.DOCUMENT]
    assert all(r["page_accuracy"] == 1.0 for r in at5)
    assert len(runs) == 2 * 3 and all(set(run) == {"q1", "q2"} for run in runs)


def _progress(runs: list[Run]):
    from finchunk.evaluate.financebench import Progress

    return Progress(run=runs.append)


def test_toy_retriever_and_reranker_in_search(tmp_path: Path) -> None:
    build_index(file_sources([DATA]), tmp_path / "idx", IndexConfig())
    index = Index.open(tmp_path / "idx")
    q = "EBITDA ajustado"
    toy = search(index, q, SearchOptions(k=3, retriever="toy"))
    assert toy.hits and str(toy.retriever) == "toy"
    rr = search(index, q, SearchOptions(k=3, retriever="bm25/toy-short@20"))
    lengths = [len(h.text) for h in rr.hits]
    assert lengths == sorted(lengths) and all(h.score < 0 for h in rr.hits)


# --- runs --------------------------------------------------------------------------------


def _doc(doc_id: str, text: str) -> Document:
    return Document(doc_id, text)


def test_one_ranking_loop_serves_every_scope() -> None:
    a = _doc("a", "revenue revenue growth")
    b = _doc("b", "revenue fell, costs rose, margins shrank")
    chunks = [Chunk.build(a, [(0, 22)]), Chunk.build(b, [(0, 13)]), Chunk.build(b, [(14, 40)])]
    queries = [
        Query("all", "revenue costs"),
        Query("only-b", "revenue costs", ("b",)),
        Query("own-b", "revenue", ("b",), isolated=True),
        Query("none", "revenue", ()),
    ]
    run = rank(queries, chunks, "bm25", 5)
    assert sorted(h.chunk_id for h in run.get("all")) == sorted(c.id for c in chunks)
    assert {h.doc_id for h in run.get("only-b")} == {"b"}
    assert [h.chunk_id for h in run.get("own-b")] == [chunks[1].id]
    assert run.get("none") == ()
    assert [h.rank for h in run.get("all")] == [1, 2, 3]
    text_of = {c.id: c.text for c in chunks}
    assert all(h.chars == len(text_of[h.chunk_id]) for h in run.get("all"))


def test_runs_round_trip_as_jsonl_and_write_trec(tmp_path: Path) -> None:
    run = Run("structure/bm25", {"q1": (_hit(1, "d", (0, 5), pages=(2,)), _hit(2, "e", (3, 9)))})
    again = read_jsonl(write_jsonl(run, tmp_path / "r.jsonl"))
    assert again.rankings == run.rankings and again.name == run.name
    lines = write_trec(run, tmp_path / "r.trec").read_text().splitlines()
    assert lines[0].split() == ["q1", "Q0", "d#1", "1", "1.000000", "structure/bm25"]
    (tmp_path / "bad.jsonl").write_text('{"qid": "x"}\n')
    with pytest.raises(InputError, match="not a finchunk run"):
        read_jsonl(tmp_path / "bad.jsonl")


# --- measures -----------------------------------------------------------------------------


GOLD = QuestionGold("q", (GoldPassage("d", (0, 10)), GoldPassage("d", (20, 30))), type="t")


def test_measures_on_a_hand_computed_ranking() -> None:
    ranking = (
        _hit(1, "d", (40, 50)),  # nothing
        _hit(2, "d", (0, 6)),  # passage 1 at 60 %
        _hit(3, "d", (24, 30)),  # passage 2 at 60 %
    )
    assert Recall(1).value(ranking, GOLD) == 0.0
    assert Recall(2).value(ranking, GOLD) == 0.5
    assert Complete(3).value(ranking, GOLD) == 1.0
    assert Chars(2).value(ranking, GOLD) == 20.0
    ndcg = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert NDCG(3).value(ranking, GOLD) == pytest.approx(ndcg)
    assert NDCG(1).value(ranking, GOLD) == 0.0
    assert RR(3).value(ranking, GOLD) == 0.5
    assert RR(1).value(ranking, GOLD) == 0.0
    assert str(NDCG(10)) == "nDCG@10" and str(Recall(Budget(1300))) == "Recall@1300c"


def test_an_item_stated_in_several_places_counts_once_wherever_it_is_found() -> None:
    # item 0 is stated at (0, 10) or (50, 60); item 1 only at (20, 30)
    spans = ((0, 10), (20, 30), (50, 60))
    gold = QuestionGold("q", tuple(GoldPassage("d", s) for s in spans), items=(0, 1, 0))
    assert gold.evidence == 2
    ranking = (_hit(1, "d", (50, 60)), _hit(2, "d", (0, 10)), _hit(3, "d", (20, 30)))
    assert Recall(1).value(ranking, gold) == 0.5  # the alternative retrieves item 0
    assert Recall(2).value(ranking, gold) == 0.5  # the second place adds nothing
    assert Complete(3).value(ranking, gold) == 1.0
    assert RR(3).value(ranking, gold) == 1.0
    ndcg = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))  # new items at ranks 1 and 3
    assert NDCG(3).value(ranking, gold) == pytest.approx(ndcg)
    sized = (_hit(1, "d", (0, 10), 500), _hit(2, "d", (50, 60), 500), _hit(3, "d", (20, 30), 300))
    assert Recall(Budget(1000)).value(sized, gold) == 0.5
    assert Recall(Budget(1300)).value(sized, gold) == 1.0
    with pytest.raises(ValueError, match="items"):
        QuestionGold("q", (GoldPassage("d", (0, 1)),), items=(0, 1))
    with pytest.raises(ValueError, match="does not hold"):
        QuestionGold("q", (GoldPassage("d", (0, 1)),), evidence=1, items=(2,))


def test_coverage_counts_over_the_union_of_chunks() -> None:
    split = (_hit(1, "d", (0, 3)), _hit(2, "d", (3, 6)))  # 30 % + 30 % of passage 1
    assert Recall(1).value(split, GOLD) == 0.0 and Recall(2).value(split, GOLD) == 0.5
    assert RR(2).value(split, GOLD) == 0.5


def test_budget_stops_or_skips() -> None:
    ranking = (_hit(1, "d", (0, 10), 500), _hit(2, "d", (40, 50), 900), _hit(3, "d", (20, 30), 300))
    assert Delivered(Budget(1000)).value(ranking, GOLD) == 1.0
    assert Delivered(Budget(1000, skip=True)).value(ranking, GOLD) == 2.0
    assert Recall(Budget(1000, skip=True)).value(ranking, GOLD) == 1.0


def test_pages_and_missing_questions_are_scored_not_dropped() -> None:
    gold = GoldSet.of(
        [
            QuestionGold("q1", (GoldPassage("d", (0, 10)),), frozenset({("d", 3)})),
            QuestionGold("q2", (GoldPassage("d", (0, 10)),), frozenset({("d", 1)})),
        ]
    )
    run = Run("r", {"q1": (_hit(1, "d", (0, 10), pages=(3,)),)})
    s = score(run, gold, [PageHit(5), Recall(5)])
    assert s.missing == ("q2",)
    assert s.per_query[PageHit(5)] == {"q1": 1.0, "q2": 0.0}
    assert s.mean(Recall(5)) == 0.5


def test_ndcg_and_rr_agree_with_ir_measures() -> None:
    ir = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(3)
    golds, rankings, qrels, scored = [], {}, [], []
    for q in range(12):
        n_gold = int(rng.integers(1, 4))
        passages = tuple(GoldPassage("d", (100 * i, 100 * i + 10)) for i in range(n_gold))
        golds.append(QuestionGold(f"q{q}", passages))
        qrels += [ir.Qrel(f"q{q}", f"p{i}", 1) for i in range(n_gold)]
        ranking = []
        for r, target in enumerate(rng.permutation(8)[:6].tolist(), 1):
            # each chunk fully covers one passage (target < n_gold) or none
            span = (100 * target, 100 * target + 10) if target < n_gold else (5000, 5010)
            ranking.append(ScoredChunk(f"c{q}-{r}", "d", (span,), (), 10.0 - r, r, 1))
            doc = f"p{target}" if target < n_gold else f"junk{r}"
            scored.append(ir.ScoredDoc(f"q{q}", doc, 10.0 - r))
        rankings[f"q{q}"] = tuple(ranking)
    s = score(Run("r", rankings), GoldSet.of(golds), [NDCG(5), RR(5)])
    theirs = ir.calc_aggregate([ir.nDCG @ 5, ir.RR @ 5], qrels, scored)
    assert s.mean(NDCG(5)) == pytest.approx(theirs[ir.nDCG @ 5], abs=1e-9)
    assert s.mean(RR(5)) == pytest.approx(theirs[ir.RR @ 5], abs=1e-9)


def test_paired_bootstrap_is_seeded_and_says_when_noise() -> None:
    a = {f"q{i}": float(i % 2) for i in range(40)}
    better = {q: 1.0 for q in a}
    c = compare(a, better, "Recall@5")
    assert (c.wins, c.losses, c.ties) == (20, 0, 20)
    assert c.difference == 0.5 and c.low > 0 and not c.within_noise
    assert c == compare(a, better, "Recall@5")
    flip = {q: 1.0 - v for q, v in a.items()}
    assert compare(a, flip).within_noise


def test_an_installed_plugin_is_found_by_name(tmp_path: Path) -> None:
    """A package naming its module under the ``finchunk.retrievers`` entry points."""
    (tmp_path / "myretriever.py").write_text(
        "from finchunk.retrieve.query.retriever import register_retriever\n"
        "from finchunk.retrieve.lexical.lexical import LexicalIndex\n"
        "register_retriever('mine', lambda source, options: LexicalIndex.build(source.texts))\n"
    )
    info = tmp_path / "myretriever-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: myretriever\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[finchunk.retrievers]\nmine = myretriever\n")
    code = (
        "from finchunk.retrieve.query.retriever import make_retriever\n"
        "r = make_retriever('mine', ['revenue grew', 'costs'])\n"
        "print(r.search('revenue', 3).positions.tolist())\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0]"


def test_eval_and_bench_write_their_runs(data: Path, tmp_path: Path) -> None:  # noqa: F811
    from typer.testing import CliRunner

    from finchunk.cli import app

    qfile = tmp_path / "q.jsonl"
    qfile.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in QUOTES) + "\n")
    args = ["eval", "--questions", str(qfile), "--files", str(DATA), "--strategies", "structure"]
    result = CliRunner().invoke(app, [*args, "--header", "off", "--run-out", str(tmp_path / "e")])
    assert result.exit_code == 0, result.output
    run = read_jsonl(tmp_path / "e" / "structure_bm25.jsonl")
    ranks = [h.rank for h in run.get("ebitda")]
    assert set(run) == {"ebitda", "plantilla"} and ranks == list(range(1, len(ranks) + 1))
    assert (tmp_path / "e" / "structure_bm25.trec").read_text().startswith("ebitda Q0 ")
    # auto: what search would run, question by question (Spanish questions: BM25, and the
    # document prior over the corpus's several documents)
    result = CliRunner().invoke(
        app, [*args, "--header", "off", "--retriever", "auto", "--run-out", str(tmp_path / "a")]
    )
    assert result.exit_code == 0, result.output
    auto = read_jsonl(tmp_path / "a" / "structure_auto.jsonl")
    assert auto.params["retriever"] == "auto" and sum(auto.params["auto"].values()) == 2
    bench = [
        "bench", "financebench", "--data", str(data), "--strategies", "bytitle",
        "--scope", "document", "--retriever", "bm25,hybrid", "--embedder", "hashing",
        "-k", "1,5", "--run-out", str(tmp_path / "b"),
    ]  # fmt: skip
    result = CliRunner().invoke(app, bench)
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "b").glob("*.jsonl"))
    assert names == ["bytitle_bm25_document.jsonl", "bytitle_hybrid_document.jsonl"]
    assert set(read_jsonl(tmp_path / "b" / names[1])) == {"q1", "q2"}
    bench[bench.index("bm25,hybrid")] = "auto"
    bench[bench.index(str(tmp_path / "b"))] = str(tmp_path / "ba")
    result = CliRunner().invoke(app, bench)
    assert result.exit_code == 0, result.output
    auto = read_jsonl(tmp_path / "ba" / "bytitle_auto_document.jsonl")
    assert auto.params["retriever"] == "auto" and sum(auto.params["auto"].values()) == 2
