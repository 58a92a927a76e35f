"""Evidence delivery over an opened index, the API and ``ask``: the index stores each
document's layout (elements, sections, pages) at build, so what a search delivers is what
delivery over the parsed documents delivers, nothing parsed again; budgets in characters or
tokens are never exceeded, and a budget too small for any unit says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import finchunk
from finchunk.chunk.header import context_header
from finchunk.cli import app
from finchunk.errors import DamagedIndexError, InputError
from finchunk.model import Document
from finchunk.parse import load
from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.layout import document_layout, stored_document
from finchunk.retrieve.index.manifest import CURRENT, MANIFEST, IndexMismatchError
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.query.evidence import deliver_plan
from finchunk.retrieve.query.evidence_units import Hit, cl100k_tokens
from finchunk.retrieve.query.plan import run_plan
from finchunk.retrieve.query.search import (
    IndexSource,
    evidence_options,
    index_plan,
    search,
    search_options,
)

from .pdf_fixtures import write_report

runner = CliRunner()
SAMPLE = Path("tests/data/informe_ejemplo.md")
QUESTIONS = ("plantilla media", "¿Cuál fue el resultado neto?", "deuda financiera neta")


def _same_layout(a: Document, b: Document) -> None:
    assert a.elements == b.elements
    assert a.pages == b.pages
    assert (a.id, a.text, a.title) == (b.id, b.text, b.title)
    for e in a.elements:  # the header line: the same from the stored (canonical) metadata
        assert context_header(a, e.section) == context_header(b, e.section)


@pytest.mark.parametrize("kind", ["markdown", "pdf"])
def test_a_layout_stored_gives_back_the_parsed_document(kind: str, tmp_path: Path) -> None:
    path = SAMPLE if kind == "markdown" else write_report(tmp_path / "acme.pdf")
    doc = load(path)
    assert doc.elements
    if kind == "pdf":  # pages, notes and the marks that cite them survive
        assert doc.pages and any(e.cites for e in doc.elements)
    back = stored_document(doc.id, doc.text, doc.title, doc.metadata, document_layout(doc))
    _same_layout(doc, back)


def test_a_damaged_layout_is_a_clear_error() -> None:
    with pytest.raises(DamagedIndexError, match="bad layout"):
        stored_document("d", "text", "", {}, '{"elements": [["nope"]]}', "x/documents.parquet")
    with pytest.raises(DamagedIndexError, match="no stored layout"):
        stored_document("d", "text", "", {}, None, "x/documents.parquet")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An index of the sample report and a PDF report; the PDF's path."""
    folder = tmp_path_factory.mktemp("docs")
    (folder / SAMPLE.name).write_bytes(SAMPLE.read_bytes())
    pdf = write_report(folder / "acme.pdf")
    root = tmp_path_factory.mktemp("idx") / "idx"
    build_index(file_sources([folder]), root, IndexConfig())
    return root, pdf


def test_an_index_delivers_what_the_parsed_documents_deliver(built) -> None:
    root, pdf = built
    parsed = {d.id: d for d in (load(SAMPLE), load(pdf))}
    with Index.open(root) as index:
        stored = index.documents(list(parsed))
        for doc_id, doc in parsed.items():
            _same_layout(doc, stored[doc_id])
        for q in (*QUESTIONS, "Item 1. Business revenue", "net sales table note"):
            for budget in (150, 600, 2000):
                options = search_options(k=3, evidence=True, budget=budget)
                result = search(index, q, options)
                assert len(result.evidence.text()) <= budget
                assert len(result.hits) <= 3
                # the same plan and ranking delivered from the documents as parsed
                plan = index_plan(index, q, evidence_options(options))
                ranked = run_plan(plan, IndexSource(index))
                records = index.records_at(ranked.positions)
                ranking = [
                    Hit(r.doc_id, r.spans, s)
                    for r, s in zip(records, ranked.scores.tolist(), strict=True)
                ]
                again = deliver_plan(plan, ranking, parsed, cite=True)
                assert again.to_json() == result.evidence.to_json(), (q, budget)


def test_an_index_of_the_previous_format_is_refused_then_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "idx"
    build_index(file_sources([SAMPLE]), root, IndexConfig())
    manifest = root / (root / CURRENT).read_text().strip() / MANIFEST
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "format": 3}))
    with pytest.raises(IndexMismatchError, match=r"format 3.*rebuild it with `finchunk index`"):
        Index.open(root)
    report = build_index(file_sources([SAMPLE]), root, IndexConfig())
    assert report.rebuilt and "format 3" in report.rebuilt
    with Index.open(root) as index:
        assert index.documents(["informe_ejemplo"])["informe_ejemplo"].elements


def test_the_api_delivers_evidence_within_a_budget(built) -> None:
    root, _ = built
    with finchunk.Index.open(root) as index:
        found = index.search("plantilla media", evidence=True, budget=400)
        text = found.evidence.text()
        assert len(text) <= 400 and "9.870 personas" in text and "[informe_ejemplo" in text
        assert found.to_json()["evidence"]["text"] == text
        tokens = index.search("plantilla media", evidence=True, budget_tokens=60)
        assert tokens.evidence.unit == "tokens"
        assert cl100k_tokens(tokens.evidence.text()) <= 60
        small = index.search("plantilla media", evidence=True, budget=30)
        assert small.evidence.truncated and len(small.evidence.text()) <= 30
        assert any("too small for the best unit" in n for n in small.notes)
        with pytest.raises(InputError, match="--budget-tokens"):
            index.search("plantilla media", budget_tokens=60)
        with pytest.raises(InputError, match="not both"):
            index.search("plantilla media", evidence=True, budget=300, budget_tokens=60)


def test_ask_delivers_evidence_within_a_budget(built) -> None:
    root, _ = built
    args = ["ask", "¿Cuál fue la plantilla media?", "--index", str(root), "--evidence"]
    out = runner.invoke(app, [*args, "--budget", "300"])
    assert out.exit_code == 0, out.output
    assert "9.870 personas" in out.stdout and "[informe_ejemplo" in out.stdout
    data = json.loads(runner.invoke(app, [*args, "--budget-tokens", "70", "--json"]).stdout)
    assert data["route"] == "text" and data["evidence"]["unit"] == "tokens"
    assert data["evidence"]["size"] <= 70
    bad = runner.invoke(app, ["ask", "x", "--index", str(root), "--budget-tokens", "70"])
    assert bad.exit_code != 0 and "--budget-tokens" in bad.output
    answer = finchunk.ask("¿Cuál fue la plantilla media?", index=root, evidence=True, budget=300)
    assert len(answer.evidence.text()) <= 300
    chunks = finchunk.ask("¿Cuál fue la plantilla media?", index=root, budget=300, k=5)
    assert chunks.evidence is None and sum(len(h.text) for h in chunks.hits) <= 300


def test_eval_scores_token_budgets_beside_character_budgets(tmp_path: Path) -> None:
    from finchunk.chunk import Structure
    from finchunk.evaluate.corpus import read_corpus
    from finchunk.evaluate.harness import EvalSettings, Variant, evaluate_runs
    from finchunk.evaluate.measures import TokenBudget, cut, token_counts
    from tests.test_eval import write_corpus

    files = write_corpus(tmp_path)
    corpus = read_corpus(*files)
    settings = EvalSettings(budgets=(300,), budget_tokens=(60, 250))
    report, runs = evaluate_runs(corpus, [Variant("structure", Structure())], [1], settings)
    rows = report["budgets"]
    assert {(r["budget"], r["unit"], r["packing"]) for r in rows} == {
        (b, u, p)
        for b, u in ((300, "chars"), (60, "tokens"), (250, "tokens"))
        for p in ("stop", "skip", "evidence")
    }
    (vr,) = runs
    texts = dict(zip((c.id for c in vr.chunks), vr.texts, strict=True))
    counts = token_counts(vr.run, texts)
    for qid in vr.run.rankings:  # whole chunks within 60 tokens: their tokens fit
        for skip in (False, True):
            taken = cut(vr.run.get(qid), TokenBudget(60, skip, counts))
            assert sum(cl100k_tokens(texts[c.chunk_id]) for c in taken) <= 60
    out = runner.invoke(
        app,
        ["eval", "--docs", str(files[0]), "--passages", str(files[1]), "--questions",
         str(files[2]), "--strategies", "structure", "-k", "1", "--budget-tokens", "60",
         "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    assert {r["unit"] for r in json.loads(out.stdout)["budgets"]} == {"tokens"}
