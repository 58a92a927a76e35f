"""The conventions every command follows: ``-k`` (5, 1-10, 3,5), ``--retriever``, ``--json``
prints JSON on stdout, ``-o/--out`` writes a file; the old spellings (``--k``,
``--retrievers``, ``--json FILE``) still work for a release, with a note on stderr; help
without ``<bool>`` or ``{files}`` and with each strategy's default size; folders wherever
documents are taken; plain progress lines off a terminal; tables that fit 80 columns."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from finchunk.chunk import DEFAULT_SIZES, Strategy
from finchunk.chunk.source import STRUCTURE_SIZES
from finchunk.cli import app, common, progress
from finchunk.cli.common import (
    JSON_FILE_ALIAS,
    K_ALIAS,
    RETRIEVERS_ALIAS,
    largest_k,
    parse_ks,
    rewrite_aliases,
)
from finchunk.cli.progress import (
    PlainProgress,
)
from finchunk.cli.render import needed_width, print_bench_report, print_eval_tables
from finchunk.errors import InputError

from .test_eval import write_corpus

DATA = Path(__file__).parent / "data" / "informe_ejemplo.md"
WIDE = {"COLUMNS": "100"}


def _flat(text: str) -> str:
    """Help text with the panel's rules and line breaks gone (wrapped words rejoined)."""
    return re.sub(r"[\s│╭╮╰╯─]+", " ", text)


# --- help --------------------------------------------------------------------------------------

COMMANDS = [
    [],
    ["chunk"],
    ["eval"],
    ["index"],
    ["search"],
    ["ask"],
    ["view"],
    ["generate"],
    ["demo"],
    ["bench"],
    ["bench", "financebench"],
    ["facts"],
    ["facts", "get"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "finchunk")
def test_help_shows_no_bool_metavar_and_no_braces(command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    usage = next(line for line in result.output.splitlines() if "Usage:" in line)
    assert "{" not in usage and "}" not in usage, usage


def test_usage_line_names_arguments_in_capitals() -> None:
    chunk = CliRunner().invoke(app, ["chunk", "--help"], env=WIDE).output
    assert re.search(r"Usage: .*chunk \[OPTIONS\] FILES\.\.\.", chunk), chunk
    index = CliRunner().invoke(app, ["index", "--help"], env=WIDE).output
    assert re.search(r"index \[OPTIONS\] \[INPUTS\]\.\.\.", index), index


@pytest.mark.parametrize("command", ["chunk", "index", "view"])
def test_size_help_names_each_strategy_s_default(command: str) -> None:
    help_ = _flat(CliRunner().invoke(app, [command, "--help"], env=WIDE).output)
    for strategy, size in DEFAULT_SIZES.items():
        assert f"{strategy.value} {size}" in help_, (strategy, help_)
    assert f"tokens {DEFAULT_SIZES[Strategy.TOKENS]} tokens" in help_
    for kind, size in STRUCTURE_SIZES.items():
        assert f"{kind.value} {size}" in help_, kind


def test_table_help_names_the_columns_the_reader_accepts() -> None:
    from finchunk.lesson import DOCUMENT_COLUMNS, PASSAGE_COLUMNS, QUESTION_COLUMNS

    for text, columns in (
        (common.DOCS_HELP, DOCUMENT_COLUMNS),
        (common.PASSAGES_HELP, PASSAGE_COLUMNS),
        (common.QUESTIONS_HELP, QUESTION_COLUMNS),
    ):
        for spanish, english in columns.items():
            assert re.search(rf"\b{spanish}\b", text) and re.search(rf"\b{english}\b", text)
    for command in ("eval", "index"):  # view's options are its owner's (the chunk map)
        help_ = _flat(CliRunner().invoke(app, [command, "--help"], env=WIDE).output)
        assert "schema" not in help_ and "doc_id, title, type, text" in help_


def test_hidden_aliases_are_not_in_the_help() -> None:
    fb = _flat(CliRunner().invoke(app, ["bench", "financebench", "--help"], env=WIDE).output)
    assert "--retriever " in fb and "--retrievers" not in fb and "--k " not in fb
    ev = _flat(CliRunner().invoke(app, ["eval", "--help"], env=WIDE).output)
    assert " -k " in ev and "--k " not in ev and "--out" in ev


# --- flags and aliases -------------------------------------------------------------------------


def test_rewrite_aliases_maps_old_spellings_and_leaves_the_new_flag() -> None:
    aliases = (K_ALIAS, RETRIEVERS_ALIAS, JSON_FILE_ALIAS)
    assert rewrite_aliases(["--k", "3", "--retrievers=bm25"], aliases) == [
        "-k",
        "3",
        "--retriever",
        "bm25",
    ]
    assert rewrite_aliases(["--json", "r.json", "-k", "2"], aliases) == ["-o", "r.json", "-k", "2"]
    assert rewrite_aliases(["--json=r.json"], aliases) == ["-o", "r.json"]
    assert rewrite_aliases(["--json"], aliases) == ["--json"]
    assert rewrite_aliases(["--json", "--k", "1"], aliases) == ["--json", "-k", "1"]
    assert rewrite_aliases(["--", "--k"], aliases) == ["--", "--k"]


def test_largest_k_takes_one_k_a_range_or_a_list() -> None:
    assert [largest_k(s) for s in ("5", "1-10", "3,5")] == [5, 10, 5]


def _eval_args(tmp_path: Path) -> list[str]:
    d, p, q = write_corpus(tmp_path)
    return [
        "eval",
        *("--docs", str(d), "--passages", str(p), "--questions", str(q)),
        *("--strategies", "fixed,structure", "--retriever", "bm25"),
    ]


def test_eval_new_flags_and_old_spellings_give_the_same_report(tmp_path: Path) -> None:
    args = _eval_args(tmp_path)
    runner = CliRunner()
    new = runner.invoke(app, [*args, "-k", "1-3", "-o", str(tmp_path / "new.json")])
    old = runner.invoke(app, [*args, "--k", "1-3", "--json", str(tmp_path / "old.json")])
    assert new.exit_code == 0 and old.exit_code == 0, new.output + old.output
    assert (tmp_path / "new.json").read_text() == (tmp_path / "old.json").read_text()
    assert "deprecated" not in new.stderr
    notes = [line for line in old.stderr.splitlines() if "deprecated" in line]
    assert notes == [K_ALIAS.note(), JSON_FILE_ALIAS.note()]
    assert "use -k" in notes[0] and "use -o FILE" in notes[1]
    # The tables are the same either way.
    assert new.stdout.replace("new.json", "X") == old.stdout.replace("old.json", "X")


def test_eval_json_prints_the_report_on_stdout(tmp_path: Path) -> None:
    args = _eval_args(tmp_path)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(app, [*args, "-k", "3,5", "--json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed == json.loads(out.read_text(encoding="utf-8"))
    assert {r["k"] for r in printed["results"]} == {3, 5}
    assert "report →" in result.stderr


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    idx = tmp_path_factory.mktemp("idx") / "idx"
    result = CliRunner().invoke(app, ["index", str(DATA.parent), "-o", str(idx)])
    assert result.exit_code == 0, result.output
    return idx


@pytest.mark.parametrize("spec", ["1-3", "2,3"])
def test_search_k_takes_a_range_or_list_and_uses_the_largest(index: Path, spec: str) -> None:
    def hits(k: str) -> list:
        r = CliRunner().invoke(app, ["search", str(index), "ingresos", "-k", k, "--json"])
        assert r.exit_code == 0, r.output
        return json.loads(r.stdout)["results"]

    assert hits(spec) == hits("3") and len(hits("3")) == 3


def test_a_bad_k_is_one_line_naming_the_option(index: Path) -> None:
    r = CliRunner().invoke(app, ["search", str(index), "ingresos", "-k", "tres"])
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines() == [
        "error: -k: expected a range like 1-10 or a list like 3,5; got 'tres'"
    ]


_MANY = ",".join(map(str, range(1, 1002)))


@pytest.mark.parametrize("spec", ["1-1000000000", "1-600,700-1200", _MANY])
def test_k_names_at_most_a_thousand_cut_offs_and_says_so(spec: str) -> None:
    # sized before it is built: a billion-value range is an error at once, not a huge list
    with pytest.raises(InputError, match="names more than 1,000 cut-offs"):
        parse_ks(spec)


@pytest.mark.parametrize("spec", ["3-", "-3", "1-x", "5-3"])
def test_half_written_or_empty_k_ranges_are_errors(spec: str) -> None:
    with pytest.raises(InputError, match="-k: "):
        parse_ks(spec)


def test_k_ranges_and_lists_mix() -> None:
    assert parse_ks("1-3,5, 10") == [1, 2, 3, 5, 10]
    assert parse_ks("1-1000") == list(range(1, 1001))


def test_demo_takes_o(tmp_path: Path) -> None:
    out = tmp_path / "d"
    small = ["--issuers", "1", "--years", "1", "--funds", "1", "--notes", "1"]
    result = CliRunner().invoke(app, ["demo", "-o", str(out), *small])
    assert result.exit_code == 0, result.output
    assert (out / "report.md").is_file()


# --- folders -----------------------------------------------------------------------------------


def test_chunk_takes_a_folder_with_the_ids_index_gives(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "2023").mkdir(parents=True)
    (docs / "alfa.md").write_text(DATA.read_text(encoding="utf-8"), encoding="utf-8")
    (docs / "2023" / "beta.md").write_text("# Beta\n\nLos ingresos fueron 50.\n", "utf-8")
    (docs / "notes.bin").write_bytes(b"\0")  # not a document: skipped, as index does
    out = tmp_path / "c.jsonl"
    result = CliRunner().invoke(app, ["chunk", str(docs), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "from 2 file(s)" in result.stdout
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["doc_id"] for r in rows} == {"alfa", "2023/beta"}
    missing = CliRunner().invoke(app, ["chunk", str(tmp_path / "nope"), "-o", str(out)])
    assert missing.exit_code == 2
    assert missing.stderr.strip() == f"error: {tmp_path / 'nope'}: no such file or directory"


# --- progress off a terminal -------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_plain_progress_writes_a_line_every_few_seconds() -> None:
    out = Console(record=True, width=200)
    clock = Clock()
    with PlainProgress(out, every=5, clock=clock) as bar:
        task = bar.add_task("ranking", total=250)
        for _ in range(250):
            clock.now += 0.25  # 62.5 s in all: a line every 5 s
            bar.advance(task)
    lines = out.export_text().splitlines()
    assert lines[0] == "ranking: 20/250 (8 %), 5 s, about 58 s left"
    assert lines[11] == "ranking: 240/250 (96 %), 60 s, about 2 s left"
    assert lines[12:] == ["ranking: 250/250 (100 %), 62 s"]  # the last state, once


def test_plain_progress_is_silent_for_a_short_job_and_names_the_task_last_moved() -> None:
    out = Console(record=True, width=200)
    clock = Clock()
    with PlainProgress(out, every=5, clock=clock) as bar:
        bar.add_task("parsing PDFs", total=2)
        ranking = bar.add_task("ranking", total=None)
        bar.advance(ranking)
    assert out.export_text() == ""
    with PlainProgress(out, every=5, clock=clock) as bar:
        parsing = bar.add_task("parsing PDFs", total=2)
        ranking = bar.add_task("ranking", total=None)
        clock.now += 6
        bar.advance(ranking, 3)
        bar.update(parsing, completed=1)
    assert out.export_text().splitlines() == [
        "ranking: 3, 6 s",
        "parsing PDFs: 1/2 (50 %), 6 s, about 6 s left",
    ]


def test_a_long_embedding_job_says_how_long_after_its_first_batch(monkeypatch) -> None:
    from finchunk.retrieve.neural import dense
    from finchunk.retrieve.neural.dense import HashingEmbedder

    monkeypatch.setattr(dense, "make_embedder", lambda name: HashingEmbedder(8))
    said: list[str] = []
    clock = Clock()
    bar = PlainProgress(Console(record=True, width=200), clock=clock)
    watched = progress.watched_embedder(bar, "hashing-8", said.append, clock)
    watched.begin(3000)
    watched.advance(1000)  # found in the cache at once: no measure of the model
    assert said == []
    clock.now += 32.0
    watched.advance(64)  # a batch the model made: 0.5 s a passage, 1936 left
    clock.now += 32.0
    watched.advance(64)
    assert said == [
        "embedding 1,936 more passages: about 16 min at 0.50 s a passage (measured on the "
        "first batch); vectors are cached as they are made, so an interrupted run resumes "
        "where it stopped"
    ]
    quick: list[str] = []
    short = progress.watched_embedder(bar, "hashing-8", quick.append, clock)
    short.begin(100)
    clock.now += 1.0
    short.advance(64)  # 36 left at 1/64 s each: not worth a line
    assert quick == []


def test_the_shared_progress_is_plain_when_stderr_is_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress, "err_console", Console(stderr=True, force_terminal=False))
    assert isinstance(progress.progress_bar(), PlainProgress)
    monkeypatch.setattr(progress, "err_console", Console(stderr=True, force_terminal=True))
    assert not isinstance(progress.progress_bar(), PlainProgress)


# --- narrow terminals --------------------------------------------------------------------------


def _eval_report() -> dict:
    variants = [("structure", True), ("recursive", False), ("bytitle", True)]
    results = [
        {"strategy": s, "header": h, "k": k, "recall": 0.1 + k / 20, "chars": 612.0 * k}
        for s, h in variants
        for k in range(1, 11)
    ]
    types = ("calculo", "comparacion", "nota_pie", "tabla_y_nota", "texto_y_nota")
    by_type = [
        {"strategy": s, "header": h, "k": 5, "type": t, "questions": 12, "recall": 0.5}
        for s, h in variants
        for t in types
    ]
    chunks = [{"strategy": s, "header": h, "count": 300, "mean_chars": 480.0} for s, h in variants]
    corpus = {"documents": 21, "passages": 920, "questions": 264, "answerable": 248}
    return {"corpus": corpus, "results": results, "by_type": by_type, "chunks": chunks}


def test_eval_table_has_one_row_per_retriever() -> None:
    results = [
        {
            "strategy": "structure",
            "header": True,
            "retriever": r,
            "k": 5,
            "recall": rec,
            "chars": 9.0,
        }
        for r, rec in (("bm25", 0.785), ("bm25/dense@20", 0.541))
    ]
    report = {**_eval_report(), "results": results, "by_type": [], "chunks": []}
    wide = _printed(250, lambda c: print_eval_tables(c, report))
    assert re.search(r"structure \+header\s+│\s+0\.785", wide), wide
    assert re.search(r"structure \+header bm25/dense@20\s+│\s+0\.541", wide), wide


def _printed(width: int, show) -> str:
    console = Console(width=width, record=True)
    show(console)
    return console.export_text()


def test_eval_tables_switch_to_long_format_on_80_columns() -> None:
    report = _eval_report()
    narrow = _printed(80, lambda c: print_eval_tables(c, report))
    assert "…" not in narrow
    assert all(len(line) <= 80 for line in narrow.splitlines())
    assert re.search(r"structure \+header\s+│\s+10 │\s+0\.600 │\s+6120 │", narrow), narrow
    assert re.search(r"recursive\s+│ comparacion\s+│\s+12 │\s+0\.500 │", narrow)
    wide = _printed(250, lambda c: print_eval_tables(c, report))
    assert "k=10" in wide and "comparacion (n=12)" in wide and "…" not in wide


def _bench_report() -> dict:
    rows = [
        {
            "scope": "document",
            "strategy": s,
            "header": False,
            "retriever": r,
            "k": k,
            "page_accuracy": 0.5,
            "page_recall": 0.25,
            "evidence_recall": 0.125,
            "chars": 5000.0,
            "tuned_on_benchmark": r == "bm25-fin",
        }
        for s in ("base256", "recursive1024")
        for r in ("bm25-words", "bm25-fin")
        for k in (5, 10)
    ]
    return {
        "documents": 2,
        "pages": 10,
        "questions": 4,
        "skipped": 0,
        "alignment": {"aligned": 4, "quotes": 4, "on_page": 4, "fuzzy": 0, "unaligned_ids": []},
        "results": rows,
        "chunks": [{"strategy": "base256", "header": False, "count": 9, "mean_chars": 900.0}],
    }


def test_bench_table_on_80_columns_keeps_every_retriever_name_whole() -> None:
    narrow = _printed(80, lambda c: print_bench_report(c, _bench_report()))
    table = narrow[: narrow.index("acc: page accuracy")]
    assert "…" not in table and all(len(line) <= 80 for line in table.splitlines())
    assert "bm25-words " in table and "bm25-fin* " in table
    assert "* tuned on FinanceBench" in table
    assert re.search(r"recursive1024\s+│ bm25-fin\*\s+│\s+10 │\s+50\.0 │\s+25\.0 │", table)
    wide = _printed(250, lambda c: print_bench_report(c, _bench_report()))
    assert "bm25-fin (tuned on FinanceBench)" in wide and "acc@10" in wide


def test_needed_width_lets_headers_wrap_at_spaces() -> None:
    from rich.table import Table

    t = Table()
    t.add_column("mean chunk chars")
    t.add_row("12345")
    # "chunk" and "chars" are the longest words: 5 + padding 2 + two rules.
    assert needed_width(Console(width=80), t) == 5 + 2 + 2


def test_plain_progress_takes_a_new_total() -> None:
    out = Console(record=True, width=200)
    clock = Clock()
    with PlainProgress(out, every=5, clock=clock) as bar:
        task = bar.add_task("embedding passages", total=10)
        bar.update(task, total=40)
        clock.now += 6
        bar.advance(task, 10)
    assert out.export_text().splitlines() == [
        "embedding passages: 10/40 (25 %), 6 s, about 18 s left"
    ]


def test_eval_shows_an_embedding_line_for_retrievers_that_embed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from finchunk.cli import chunk_eval
    from finchunk.evaluate.harness import Variant
    from finchunk.retrieve.neural.dense import Watched

    monkeypatch.setattr(progress, "err_console", Console(stderr=True, force_terminal=False))
    bar = progress.progress_bar()
    chunker = object()
    variants = [
        Variant("s", chunker, "bm25", embedder="hashing"),  # type: ignore[arg-type]
        Variant("s", chunker, "dense", embedder="hashing"),  # type: ignore[arg-type]
        Variant("s", chunker, "bm25/dense@20+0.5", embedder="hashing"),  # type: ignore[arg-type]
    ]
    out = chunk_eval._watched(variants, bar)
    assert out[0].embedder == "hashing"
    assert isinstance(out[1].embedder, Watched) and out[1].embedder is out[2].embedder
    out[1].embedder.embed_passages(["a", "b", "c"])
    (task,) = bar._tasks
    assert (task.description, task.total, task.completed) == ("embedding passages", 3, 3)
