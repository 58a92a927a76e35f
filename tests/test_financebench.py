"""FinanceBench: loader, filing filter, token windows, the benchmark and its CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.chunk.overlap import RecursiveOverlap, with_overlap
from finchunk.chunk.tokens import CHARS_PER_TOKEN, Tokenizer, Tokens, cl100k
from finchunk.cli.bench import app
from finchunk.datasets.financebench import FBDocument, FBQuestion, FinanceBench, load_financebench
from finchunk.errors import InputError
from finchunk.evaluate.align import QuoteIndex
from finchunk.evaluate.financebench import (
    DEFAULT_RETRIEVERS,
    BenchConfig,
    FBScope,
    FBStrategy,
    filtered_filings,
    run_benchmark,
)
from finchunk.model import ElementKind
from finchunk.parse.pdf import parse_pdf_file
from finchunk.retrieve.query.retriever import parse_retriever

from .pdf_fixtures import write_report, write_simple

GLOBEX_PAGES = [
    ["Globex Corporation annual report for fiscal 2022."],
    [
        "Revenue of the Globex segments grew in fiscal 2022, led by cloud services.",
        "Cloud services revenue 1,200 1,050",
        "Hardware revenue 800 760",
    ],
]


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _question(qid: str, doc: str, question: str, page: int, text: str) -> dict:
    return {
        "financebench_id": qid,
        "company": doc.split("_")[0],
        "doc_name": doc,
        "question_type": "metrics-generated",
        "question_reasoning": "",
        "question": question,
        "answer": "",
        "evidence": [{"evidence_text": text, "doc_name": doc, "evidence_page_num": page}],
    }


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("financebench")
    (root / "pdfs").mkdir()
    write_report(root / "pdfs" / "ACME_2023_10K.pdf")
    write_simple(root / "pdfs" / "GLOBEX_2022_10K.pdf", GLOBEX_PAGES)
    _jsonl(
        root / "financebench_document_information.jsonl",
        [
            {"doc_name": "ACME_2023_10K", "company": "ACME", "doc_type": "10k", "doc_period": 2023},
            {
                "doc_name": "GLOBEX_2022_10K",
                "company": "Globex Corporation",
                "doc_type": "10k",
                "doc_period": 2022,
            },
            {
                "doc_name": "INITECH_2021_10K",
                "company": "Initech",
                "doc_type": "10k",
                "doc_period": 2021,
            },
        ],
    )
    _jsonl(
        root / "financebench_open_source.jsonl",
        [
            # evidence_page_num is 0-based: 1 is the second page. Dropped — and glued words.
            _question(
                "q1",
                "ACME_2023_10K",
                "What were ACME's FY2023 net sales and operating income in the income statement?",
                1,
                "Net sales $ 5,363 $ 4,869 $ 5,058\nCost of sales(3,120)",
            ),
            _question(
                "q2",
                "GLOBEX_2022_10K",
                "How much cloud services revenue did Globex report for FY22?",
                1,
                "Cloud services revenue 1,200 1,050",
            ),
            _question("q3", "INITECH_2021_10K", "What is Initech's 2021 revenue?", 0, "Revenue"),
        ],
    )
    return root


def test_loader_skips_missing_pdfs_and_pages_are_one_based(data: Path) -> None:
    fb = load_financebench(data)
    assert [q.id for q in fb.questions] == ["q1", "q2"] and fb.skipped == ("q3",)
    assert sorted(fb.documents) == ["ACME_2023_10K", "GLOBEX_2022_10K"]
    assert fb.questions[0].evidence[0].page == 2
    assert fb.documents["GLOBEX_2022_10K"].period == 2022
    assert "INITECH_2021_10K" in fb.catalogue


def test_gold_evidence_aligns_on_its_page(data: Path) -> None:
    fb = load_financebench(data)
    ev = fb.questions[0].evidence[0]
    doc = parse_pdf_file(fb.documents[ev.doc_name].path)
    found = QuoteIndex(doc.text).align(ev.text, doc.pages[ev.page - 1])
    assert found is not None and found.exact
    assert doc.page_at(found.span[0]) == 2
    # The statement is a Markdown table now: the quote's row reads with its columns.
    assert doc.text[found.span[0] : found.span[1]].startswith("Net sales | $5,363 | $4,869 |")


def test_loader_errors_name_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        load_financebench(tmp_path / "absent")
    (tmp_path / "financebench_document_information.jsonl").write_text("{}\n")
    (tmp_path / "financebench_open_source.jsonl").write_text('{"doc_name": "A"}\n{oops\n')
    with pytest.raises(InputError, match=r"financebench_document_information.jsonl \(line 1\)"):
        load_financebench(tmp_path)
    (tmp_path / "financebench_document_information.jsonl").write_text('{"doc_name": "A"}\n')
    with pytest.raises(InputError, match=r"financebench_open_source.jsonl \(line 1\).*missing"):
        load_financebench(tmp_path)


def _plans(questions: list[str]) -> list[tuple[tuple[str, ...], str]]:
    """``filtered_filings`` over a few filings: (filings, residual query) per question."""
    docs = [
        FBDocument(name, company, "10k", year, Path(f"{name}.pdf"))
        for name, company, year in [
            ("BESTBUY_2019_10K", "Best Buy", 2019),
            ("BESTBUY_2023_10K", "Best Buy", 2023),
            ("MGMRESORTS_2022_10K", "MGM Resorts", 2022),
            ("COCACOLA_2022_10K", "Coca-Cola", 2022),
            ("AES_2022_10K", "AES Corporation", 2022),
        ]
    ]
    qs = [FBQuestion(str(i), q, "", "", "", "", "", ()) for i, q in enumerate(questions)]
    fb = FinanceBench(Path("."), tuple(qs), {d.name: d for d in docs}, {}, ())
    plans = filtered_filings(fb, qs)
    return [(plans[q.id].filings, plans[q.id].query) for q in qs]


def test_filtered_scope_keeps_the_filings_of_the_company_and_latest_year() -> None:
    got = _plans(
        [
            "What is Best Buy's FY2019 inventory?",
            "Did BestBuy grow in fiscal 2023?",
            "Which region led MGM during FY22?",
            "Coca Cola's 2022 dividends?",
            "What did AES earn in 2022?",
            "Best Buy margins in 2010?",  # no filing of that year: all the company's
            "Which company grew most in 2022?",  # no company: that year's filings
            "Best Buy's growth between FY2019 and FY2023?",  # the latest year holds both
            "Did BBY grow in FY2019?",  # an abbreviation, when no name matches
            "Did CCOLA pay dividends in 2022?",
        ]
    )
    assert [filings for filings, _ in got] == [
        ("BESTBUY_2019_10K",),
        ("BESTBUY_2023_10K",),
        ("MGMRESORTS_2022_10K",),
        ("COCACOLA_2022_10K",),
        ("AES_2022_10K",),
        ("BESTBUY_2019_10K", "BESTBUY_2023_10K"),
        ("AES_2022_10K", "COCACOLA_2022_10K", "MGMRESORTS_2022_10K"),
        ("BESTBUY_2023_10K",),
        ("BESTBUY_2019_10K",),
        ("COCACOLA_2022_10K",),
    ]
    # What the filter consumed (company, years) is not searched for again.
    (_, rest), (_, short) = _plans(
        ["What is Best Buy's FY2019 inventory? BBY rose in 2018.", "Did BBY grow in FY2019?"]
    )
    assert rest == "What is inventory? rose in ."
    assert short == "Did grow in ?"


def test_filtered_scope_searches_the_whole_question_over_an_index_of_the_kept_filings() -> None:
    from finchunk.evaluate.financebench import FilterPlan, scope_queries
    from finchunk.retrieve.kinds import FilterStatistics

    q = FBQuestion("1", "What is Best Buy's FY2019 inventory?", "", "", "", "", "", ())
    plans = {"1": FilterPlan(("BESTBUY_2019_10K",), "What is inventory?")}
    (kept,) = scope_queries(FBScope.FILTERED, [q], plans)
    assert (kept.text, kept.docs, kept.isolated) == (q.question, ("BESTBUY_2019_10K",), True)
    (masked,) = scope_queries(FBScope.FILTERED, [q], plans, FilterStatistics.INDEX)
    assert (masked.docs, masked.isolated) == (("BESTBUY_2019_10K",), False)
    assert BenchConfig().filter_statistics is FilterStatistics.KEPT


def test_token_windows_have_exact_spans(tmp_path: Path) -> None:
    doc = parse_pdf_file(write_report(tmp_path / "r.pdf"))
    enc = cl100k()
    chunks = Tokens(size=16).chunk(doc)
    assert len(chunks) > 5
    for c in chunks:
        assert c.body == "\n\n".join(doc.text[s:e] for s, e in c.spans)
        assert all(len(enc.encode_ordinary(doc.text[s:e])) <= 16 + 2 for s, e in c.spans)
    covered = {i for c in chunks for s, e in c.spans for i in range(s, e)}
    furniture = {
        i for e in doc.elements if e.kind is ElementKind.FURNITURE for i in range(e.start, e.end)
    }
    lost = [
        i
        for i, ch in enumerate(doc.text)
        if not ch.isspace() and i not in covered and i not in furniture
    ]
    assert lost == []
    by_chars = Tokens(size=16, tokenizer=Tokenizer.CHARS).chunk(doc)
    assert all(sum(e - s for s, e in c.spans) <= 16 * CHARS_PER_TOKEN for c in by_chars)
    with pytest.raises(InputError):
        Tokens(size=8, overlap=8)


def test_recursive_overlap_repeats_whole_words(tmp_path: Path) -> None:
    doc = parse_pdf_file(write_report(tmp_path / "r.pdf"))
    chunks = RecursiveOverlap(size=120, overlap=30).chunk(doc)
    plain = RecursiveOverlap(size=120, overlap=0).chunk(doc)
    assert len(chunks) == len(plain) > 3
    for a, b in zip(chunks[1:], plain[1:], strict=True):
        assert a.spans[-1][1] == b.spans[-1][1] and a.spans[0][0] <= b.spans[0][0]
    text = "alpha beta gamma delta epsilon zeta eta theta"
    ranges = [(0, 17), (17, 36), (36, len(text))]
    led = with_overlap(text, ranges, 10)
    assert [text[s:e] for s, e in led] == [
        "alpha beta gamma ",
        "gamma delta epsilon zeta ",
        "zeta eta theta",
    ]


def test_benchmark_report(data: Path) -> None:
    fb = load_financebench(data)
    config = BenchConfig(
        strategies=(FBStrategy.BASE128, FBStrategy.BYTITLE),
        scopes=tuple(FBScope),
        ks=(1, 5),
        retrievers=tuple(parse_retriever(r) for r in DEFAULT_RETRIEVERS),
    )
    report = run_benchmark(fb, config)
    assert (report["documents"], report["questions"], report["skipped"]) == (2, 2, 1)
    assert report["alignment"]["aligned"] == report["alignment"]["quotes"] == 2
    assert len(report["results"]) == 2 * 3 * 3 * 2
    row = report["results"][0]
    assert set(row) == {
        "strategy",
        "header",
        "retriever",
        "scope",
        "k",
        "page_accuracy",
        "page_recall",
        "evidence_recall",
        "chars",
        "ndcg",
        "mrr",
        "tuned_on_benchmark",
    }
    tuned = {r["retriever"] for r in report["results"] if r["tuned_on_benchmark"]}
    assert tuned == {"bm25-fin"}
    at5 = [r for r in report["results"] if r["k"] == 5 and r["scope"] == "document"]
    assert all(r["page_accuracy"] == 1.0 for r in at5)
    assert {c["strategy"] for c in report["chunks"]} == {"base128", "bytitle"}
    assert report["filter"]["own_filing_kept"] == 1.0
    assert report == run_benchmark(fb, config)  # deterministic
    _check_comparisons(report, config)


def test_benchmark_budgets_score_chunks_and_evidence(data: Path) -> None:
    fb = load_financebench(data)
    config = BenchConfig(
        strategies=(FBStrategy.BYTITLE,),
        scopes=(FBScope.DOCUMENT,),
        ks=(1,),
        retrievers=(parse_retriever("bm25"),),
        budgets=(300, 1200),
        budget_tokens=(80,),
    )
    rows = run_benchmark(fb, config)["budgets"]
    assert {(r["budget"], r["unit"], r["packing"]) for r in rows} == {
        (b, u, p)
        for b, u in ((300, "chars"), (1200, "chars"), (80, "tokens"))
        for p in ("stop", "skip", "evidence")
    }
    for r in rows:
        assert r["scope"] == "document" and r["by_type"]
        assert r["chars"] <= r["budget"] * (4 * 4 if r["unit"] == "tokens" else 1)
        if r["unit"] == "chars":
            assert r["chars"] <= r["budget"]


def _check_comparisons(report: dict, config: BenchConfig) -> None:
    """Each retriever against the first, per strategy, scope and k (5 here): the means are
    the results' page accuracy, and wins + losses + ties are the questions."""
    first = str(config.retrievers[0])
    rows = report["comparisons"]
    assert len(rows) == 2 * 3 * (len(config.retrievers) - 1)  # strategies × scopes × others
    acc = {
        (r["strategy"], r["scope"], r["k"], r["retriever"]): r["page_accuracy"]
        for r in report["results"]
    }
    for c in rows:
        assert c["a"] == first and c["b"] != first and c["k"] == 5
        assert c["mean_a"] == acc[(c["strategy"], c["scope"], 5, first)]
        assert c["mean_b"] == acc[(c["strategy"], c["scope"], 5, c["b"])]
        assert c["wins"] + c["losses"] + c["ties"] == c["questions"] == report["questions"]


def test_cli_writes_json_and_prints_the_paper(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "fb.json"
    result = CliRunner().invoke(
        app,
        [
            "financebench",
            "--data",
            str(data),
            "--strategies",
            "base256,structure",
            "--scope",
            "document,filtered",
            "--retriever",
            "bm25,bm25-fin",
            "-k",
            "1-3",
            "--bm25-k1",
            "0.7",
            "--bm25-b",
            "0.4",
            "-o",
            str(out),
        ],
        env={"COLUMNS": "260"},
    )
    assert result.exit_code == 0, result.output
    assert "73.05" in result.output and "Base 256" in result.output
    assert "bm25-fin (tuned on FinanceBench)" in result.output
    report = json.loads(out.read_text())
    assert {r["k"] for r in report["results"]} == {1, 2, 3}
    bad = CliRunner().invoke(app, ["financebench", "--data", str(data), "--strategies", "nope"])
    assert bad.exit_code == 2 and "unknown strategy" in bad.output


def test_real_financebench_counts(shared_data: Path) -> None:
    fb = load_financebench(shared_data / "financebench")
    assert (len(fb.questions), len(fb.documents), len(fb.skipped)) == (129, 74, 21)
    capex = next(q for q in fb.questions if q.id == "financebench_id_03029")
    assert capex.evidence[0].page == 60  # evidence_page_num 59 is 0-based


def test_cli_old_spellings_give_the_new_flags_report(data: Path, tmp_path: Path) -> None:
    """``--retrievers``, ``--k`` and ``--json FILE`` (deprecated) = ``--retriever``, ``-k``,
    ``-o``; ``--json`` alone prints the report on stdout."""
    base = ["financebench", "--data", str(data), "--strategies", "base256", "--scope", "document"]
    runner = CliRunner()
    old = runner.invoke(
        app, [*base, "--retrievers", "bm25", "--k", "1,2", "--json", str(tmp_path / "old.json")]
    )
    new = runner.invoke(
        app, [*base, "--retriever", "bm25", "-k", "1,2", "-o", str(tmp_path / "new.json")]
    )
    assert old.exit_code == 0 and new.exit_code == 0, old.output + new.output
    assert old.stderr.count("deprecated") == 3 and "deprecated" not in new.stderr
    drop_wall = [json.loads((tmp_path / n).read_text()) for n in ("old.json", "new.json")]
    for r in drop_wall:
        r.pop("wall_s")
    assert drop_wall[0] == drop_wall[1]
    printed = runner.invoke(app, [*base, "--retriever", "bm25", "-k", "1,2", "--json"])
    assert printed.exit_code == 0, printed.output
    report = json.loads(printed.stdout)
    report.pop("wall_s")
    assert report == drop_wall[1]


def test_cli_delivers_distinct_pages_and_runs_dense_through_the_watched_embedder(
    data: Path, tmp_path: Path
) -> None:
    out = tmp_path / "fb.json"
    args = ["financebench", "--data", str(data), "--strategies", "base128", "--scope"]
    result = CliRunner().invoke(
        app,
        [*args, "document", "--retriever", "bm25,dense", "--embedder", "hashing", "-k", "3"]
        + ["--distinct", "page", "-o", str(out), "--run-out", str(tmp_path / "runs")],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "at most one chunk per page" in result.output
    assert json.loads(out.read_text())["distinct"] == "page"
    for path in (tmp_path / "runs").glob("*.jsonl"):
        for line in path.read_text().splitlines()[1:]:
            pages = [(h["doc_id"], h["pages"][0]) for h in json.loads(line)["hits"]]
            assert len(pages) == len(set(pages))  # one chunk per page in every ranking
    plain = CliRunner().invoke(app, [*args, "document", "--retriever", "bm25", "-k", "3"])
    assert plain.exit_code == 0, plain.output
    assert "at most one chunk per" not in plain.output
