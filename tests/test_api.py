"""The top-level Python API (:mod:`finchunk.api`): its examples run, it returns what the CLI
returns, its defaults are the CLI's, and ``import finchunk`` stays light."""

from __future__ import annotations

import doctest
import inspect
import json
import os
import pydoc
import re
import subprocess
import sys
import warnings
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import finchunk
import finchunk.api
import finchunk.api_index
import finchunk.retrieve.query.search
from finchunk.cli import app
from finchunk.cli import chunk_eval as cli_chunk
from finchunk.cli import retrieve as cli_retrieve
from finchunk.errors import InputError, ParseError

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
EXAMPLE = DATA / "informe_ejemplo.md"
SRC = str(ROOT / "src")
runner = CliRunner()
QUESTION = "¿Cuál fue la plantilla media?"


# --- every example runs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "module", [finchunk, finchunk.api, finchunk.api_index, finchunk.retrieve.query.search]
)
def test_docstring_examples_run(module: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples read tests/data, as from the repository root
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = doctest.testmod(module, extraglobs={"finchunk": finchunk}, report=True)
    assert found.attempted > 0 and found.failed == 0, found


def test_every_public_name_has_a_docstring_with_an_example() -> None:
    for name in finchunk.__all__:
        obj = getattr(finchunk.api, name)
        assert obj.__doc__ and ">>>" in obj.__doc__, name
        if not isinstance(obj, type):  # the class: its methods say what they return
            assert "Returns" in obj.__doc__ and "Raises" in obj.__doc__, name
    for name in ("build", "open", "search"):
        doc = getattr(finchunk.api.Index, name).__doc__
        assert ">>>" in doc and "Returns" in doc and "Raises" in doc, name


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def test_docs_python_blocks_run(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _python_blocks(ROOT / "docs" / "python.md")
    assert len(blocks) >= 4
    monkeypatch.chdir(ROOT)
    scope: dict[str, Any] = {"__name__": "__docs__"}
    for block in blocks:  # in order, sharing one namespace, as CI runs them
        exec(compile(block, "docs/python.md", "exec"), scope)


# --- help and names --------------------------------------------------------------------------


def test_help_is_a_map_of_the_api() -> None:
    text = pydoc.render_doc(finchunk, renderer=pydoc.plaintext)
    for name in ("finchunk.load", "finchunk.chunk", "finchunk.Index.build", "finchunk.Index.open",
                 "index.search", "finchunk.ask", "finchunk.evaluate", "1-based",
                 "zero_based_pages", "docs/python.md"):  # fmt: skip
        assert name in text, name
    assert sorted(finchunk.__all__) == ["Index", "ask", "chunk", "evaluate", "load"]
    assert set(finchunk.__all__) <= set(dir(finchunk))
    assert finchunk.Index is finchunk.api.Index and finchunk.load is finchunk.api.load


def test_the_module_names_are_the_calls_too() -> None:
    """finchunk.chunk / ask / evaluate stay the modules (their attributes work) and are
    callable whichever was imported first."""
    import finchunk.ask
    import finchunk.chunk
    import finchunk.evaluate

    assert callable(finchunk.chunk) and finchunk.chunk.Strategy.STRUCTURE == "structure"
    assert callable(finchunk.ask) and finchunk.ask.Route.TEXT == "text"
    assert callable(finchunk.evaluate) and hasattr(finchunk.evaluate, "__path__")
    assert inspect.signature(finchunk.chunk) == inspect.signature(finchunk.api.chunk)
    from finchunk import chunk

    assert chunk is finchunk.chunk
    code = (
        "import sys\n"
        "from finchunk.chunk import Structure\n"  # the submodule first, then the call
        "import finchunk\n"
        f"print(len(finchunk.chunk({str(EXAMPLE)!r})) > 0, Structure().header)\n"
    )
    assert _python(code) == "True False"


def _python(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def test_import_finchunk_is_light() -> None:
    heavy = ("numpy", "pyarrow", "typer", "rich", "finchunk.api", "finchunk.parse")
    code = f"import sys, finchunk\nprint([m for m in {heavy!r} if m in sys.modules])"
    assert _python(code) == "[]"


# --- defaults are the CLI's ------------------------------------------------------------------


def _defaults(fn: Any) -> dict[str, Any]:
    return {
        n: p.default
        for n, p in inspect.signature(fn).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def _same(api: Any, cli: Any) -> bool:
    """A default as the API spells it against the CLI's (enums by value, -k "5" as 5)."""
    if isinstance(cli, Enum):
        cli = cli.value
    if isinstance(api, Enum):
        api = api.value
    if cli == "none" and api is None:  # --distinct none
        return True
    return str(api) == str(cli)


@pytest.mark.parametrize(
    ("api", "cli", "names"),
    [
        (finchunk.api.chunk, cli_chunk.chunk, {"strategy", "size", "overlap", "header"}),
        (
            finchunk.api.Index.build,
            cli_retrieve.index_cmd,
            {"out", "strategy", "size", "overlap", "header", "dense", "prune", "on_error"},
        ),
        (
            finchunk.api.Index.search,
            cli_retrieve.search_cmd,
            {
                "k",
                "retriever",
                "distinct",
                "per_entity",
                "budget",
                "auto_filter",
                "filter_statistics",
                "evidence",
                "budget_tokens",
            },
        ),  # fmt: skip
        (
            finchunk.api.ask,
            cli_retrieve.ask_cmd,
            {"index", "facts", "as_of", "k", "retriever", "budget", "budget_tokens", "evidence"},
        ),
        (
            finchunk.api.evaluate,
            cli_chunk.eval_cmd,
            {"strategies", "header", "k", "scope", "threshold", "retriever"},
        ),
    ],
)
def test_defaults_are_the_cli_s(api: Any, cli: Any, names: set[str]) -> None:
    ours, theirs = _defaults(api), _defaults(cli)
    assert names <= ours.keys() and names <= theirs.keys()
    for n in names:
        a, c = ours[n], theirs[n]
        if n == "strategies":
            a = ",".join(a)
        if n == "header" and isinstance(c, Enum):  # eval: --header on
            a = "on" if a else "off"
        assert _same(a, c), (api.__qualname__, n, a, c)
    assert _defaults(finchunk.api.Index.build)["embedder"] is None
    assert cli_retrieve.index_cmd.__defaults__ is not None


# --- the same results as the CLI -------------------------------------------------------------


def _cli(*args: str) -> str:
    done = runner.invoke(app, list(args))
    assert done.exit_code == 0, done.output
    return done.stdout


def _ranked(payload: dict[str, Any]) -> list[tuple[str, float]]:
    return [(r["chunk_id"], r["score"]) for r in payload["results"]]


@pytest.mark.parametrize(
    ("question", "options", "cli_options"),
    [
        (QUESTION, {}, []),
        ("EBITDA ingresos", {"k": 3, "distinct": "page"}, ["-k", "3", "--distinct", "page"]),
        ("arrendamientos", {"retriever": "bm25-words", "k": 2}, ["--retriever", "bm25-words",
                                                                 "-k", "2"]),
        ("plantilla", {"budget": 400}, ["--budget", "400"]),
    ],
)  # fmt: skip
def test_build_open_search_equals_the_cli(
    tmp_path: Path, question: str, options: dict[str, Any], cli_options: list[str]
) -> None:
    built = tmp_path / "api"
    with finchunk.Index.build(DATA, built) as index:
        ours = index.search(question, **options).to_json()
    _cli("index", str(DATA), "-o", str(tmp_path / "cli"))
    for where in (built, tmp_path / "cli"):  # the CLI on ours; ours on the CLI's
        theirs = json.loads(_cli("search", str(where), question, "--json", *cli_options))
        assert _ranked(theirs) == _ranked(ours) and theirs["notes"] == ours["notes"]
    with finchunk.Index.open(tmp_path / "cli") as index:
        assert index.search(question, **options).to_json() == ours
    assert ours["results"], ours


def test_chunk_equals_finchunk_chunk(tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    _cli("chunk", str(DATA), "-o", str(out), "--size", "600")
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r.to_json() for r in finchunk.chunk(DATA, size=600)] == lines
    assert [r.to_json() for r in finchunk.chunk([EXAMPLE], size=600)] == lines


def test_evaluate_equals_finchunk_eval(tmp_path: Path) -> None:
    questions = DATA / "questions.jsonl"
    out = json.loads(_cli("eval", "--questions", str(questions), "--json", "-k", "1,3"))
    ours = finchunk.evaluate(questions, k=[1, 3])
    assert ours == out
    assert {r["strategy"] for r in ours["results"]} == set(finchunk.api.EVAL_STRATEGIES)


# --- load, chunk, search: what they take -----------------------------------------------------


def test_load_reads_a_path_or_text() -> None:
    from_file = finchunk.load(EXAMPLE)
    assert finchunk.load(str(EXAMPLE)).text == from_file.text
    text = EXAMPLE.read_text(encoding="utf-8")
    from_text = finchunk.load(text, doc_id="informe")
    assert (from_text.id, from_text.text) == ("informe", from_file.text)
    assert finchunk.load("Revenue was 5.2 million.").id == "text"
    with pytest.raises(ParseError, match="missing.md: no such file"):
        finchunk.load("missing.md")
    with pytest.raises(InputError, match="empty"):
        finchunk.load("  ")


def test_chunk_takes_text_a_document_or_paths() -> None:
    text = "# A\n\nRevenue grew.\n\n## B\n\nCosts fell."
    records = finchunk.chunk(text, strategy="fixed", size=20)
    doc = finchunk.load(text)
    assert records and all(doc.text[s:e] in r.text for r in records for s, e in r.spans)
    assert all(r.header for r in finchunk.chunk(doc))  # the header is on, as in the CLI
    assert not any(r.header for r in finchunk.chunk(doc, header=False))
    with pytest.raises(InputError, match="unknown strategy"):
        finchunk.chunk(doc, strategy="nope")


def test_chunk_of_a_folder_skips_an_unreadable_file_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text("# Good\n\nText.", encoding="utf-8")
    (tmp_path / "empty.md").write_text("", encoding="utf-8")
    with pytest.warns(UserWarning, match="skipped: .*empty.md"):
        records = finchunk.chunk(tmp_path)
    assert {r.doc_id for r in records} == {"good"}
    with pytest.raises(ParseError, match="empty.md"):
        finchunk.chunk(tmp_path, on_error="fail")


def test_search_filters_as_a_mapping_or_strings(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, issuer, year in (("alfa", "Alfa", 2023), ("beta", "Beta", 2022)):
        (docs / f"{name}.md").write_text(EXAMPLE.read_text("utf-8"), encoding="utf-8")
        meta = {"emisor": issuer, "fiscal_year": year}
        (docs / f"{name}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    with finchunk.Index.build(docs, tmp_path / "idx") as index:
        assert len(index) == 2 * len(finchunk.chunk(EXAMPLE))
        by_map = index.search("plantilla", filters={"issuer": "Beta"})
        by_year = index.search("plantilla", filters={"fiscal_year": 2022})  # = year
        by_text = index.search("plantilla", filters=["year=2022"])
        assert {h.doc_id for h in by_map} == {"beta"}
        assert _ranked(by_year.to_json()) == _ranked(by_map.to_json()) == _ranked(by_text.to_json())
        assert by_map[0].record.metadata["year"] == "2022"
        one_each = index.search("plantilla", k=5, distinct="document")
        assert sorted(h.doc_id for h in one_each) == ["alfa", "beta"]
        with pytest.raises(InputError, match="distinct"):
            index.search("plantilla", distinct="paragraph")
        with pytest.raises(InputError, match="empty question"):
            index.search(" ")
    with pytest.raises(InputError, match="closed"):
        index.search("plantilla")


def test_hits_carry_their_spans_pages_and_citations(tmp_path: Path) -> None:
    doc = finchunk.load(EXAMPLE)
    with finchunk.Index.build(EXAMPLE, tmp_path / "idx") as index:
        hits = list(index.search(QUESTION, k=5))
    for rank, h in enumerate(hits, 1):
        assert h.rank == rank and h.doc_id == "informe_ejemplo"
        assert h.citations == tuple(doc.text[s:e] for s, e in h.spans)
        assert h.pages == () and h.zero_based_pages == () and h.page is None  # Markdown
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_zero_based_pages_count_from_zero() -> None:
    from finchunk.records import ChunkRecord
    from finchunk.retrieve.query.search import Hit

    hit = Hit(1, ChunkRecord("c", "d", ((0, 1),), "x", pages=(3, 4)), "", 1.0, ("x",))
    assert (hit.page, hit.pages, hit.zero_based_pages) == (3, (3, 4), (2, 3))


def test_build_updates_and_reports(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text(EXAMPLE.read_text("utf-8"), encoding="utf-8")
    finchunk.Index.build(folder, tmp_path / "idx").close()
    with finchunk.Index.build(folder, tmp_path / "idx") as again:
        assert again.report is not None and again.report.unchanged == ["a"]
        assert "open" in repr(again)
    assert finchunk.Index.open(tmp_path / "idx").report is None
    with pytest.raises(InputError, match="no such index"):
        finchunk.Index.open(tmp_path / "nothing")


def test_dense_build_with_an_embedder_name(tmp_path: Path) -> None:
    with finchunk.Index.build(EXAMPLE, tmp_path / "idx", embedder="hashing") as index:
        assert index.store is not None and index.store.header.model == "hashing-256"
        hits = index.search(QUESTION, k=2, retriever="dense")
        assert len(hits) == 2


def test_ask_through_an_index_object_or_its_folder(tmp_path: Path) -> None:
    with finchunk.Index.build(DATA, tmp_path / "idx") as index:
        a = finchunk.ask(QUESTION, index=index)
    b = finchunk.ask(QUESTION, index=tmp_path / "idx", as_of="2024-01-01")
    assert a.to_json() == b.to_json() and a.route.value == "text"
    cli = json.loads(_cli("ask", QUESTION, "--index", str(tmp_path / "idx"), "--json"))
    assert cli == a.to_json()
    with pytest.raises(InputError, match="as_of"):
        finchunk.ask(QUESTION, index=tmp_path / "idx", as_of="yesterday")
    with pytest.raises(InputError, match="--index"):
        finchunk.ask(QUESTION)


def test_evaluate_ids_drop_the_suffix_as_chunk_and_index_do(tmp_path: Path) -> None:
    from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

    corpus = build_quote_corpus(read_quote_questions(DATA / "questions.jsonl"), DATA).corpus
    assert [d.id for d in corpus.documents] == [finchunk.chunk(EXAMPLE)[0].doc_id]
    assert {p.doc_id for p in corpus.passages.values()} == {"informe_ejemplo"}
    assert {i for q in corpus.questions for i in q.doc_ids} == {"informe_ejemplo"}
    (tmp_path / "informe_ejemplo.txt").write_text("# Otro\n\nTexto.", encoding="utf-8")
    (tmp_path / "informe_ejemplo.md").write_text(EXAMPLE.read_text("utf-8"), "utf-8")
    rows = [{"id": f"q{i}", "doc": f"informe_ejemplo.{s}", "question": "x", "evidence": ["Texto"]}
            for i, s in enumerate(("md", "txt"))]  # fmt: skip
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(InputError, match="'informe_ejemplo' is also used by informe_ejemplo.md"):
        finchunk.evaluate(qfile)


def test_metadata_names_agree_between_documents_and_records(tmp_path: Path) -> None:
    from finchunk.records import document_records
    from finchunk.text.metadata import canonical_metadata

    assert canonical_metadata({"fiscal_year": "2024", "issuer": "A"}) == {
        "year": "2024",
        "issuer": "A",
    }
    # a sidecar's year (the canonical name) wins over a filing's fiscal_year
    assert canonical_metadata({"fiscal_year": "2024", "year": "2023"}) == {"year": "2023"}
    (tmp_path / "a.md").write_text("# A\n\nText.", encoding="utf-8")
    (tmp_path / "a.meta.json").write_text('{"fiscal_year": 2021}', encoding="utf-8")
    doc = finchunk.load(tmp_path / "a.md")
    (record,) = document_records(doc, finchunk.chunk.make_chunker("structure").chunk(doc))
    assert record.metadata["year"] == "2021" == str(doc.metadata["fiscal_year"])
