"""The index, search, ask and view commands, through a typer app that ``register`` fills."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from finchunk.cli.retrieve import register

app = typer.Typer()
register(app)
runner = CliRunner()

DOC = """# Fondo Ejemplo KID

## Costes

Los gastos corrientes son del 1,25 % anual del patrimonio.

## Objetivo

El fondo invierte en renta variable europea con <b>riesgo</b> alto.

## Plazo

Periodo de mantenimiento recomendado: cinco años.
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    d = tmp_path / "docs"
    d.mkdir()
    (d / "fondo.md").write_text(DOC, encoding="utf-8")
    (d / "fondo.meta.json").write_text('{"emisor": "Fondo Ejemplo", "tipo": "kid", "anio": 2024}')
    (d / "otro.md").write_text(DOC.replace("1,25", "0,40").replace("Ejemplo", "Otro"), "utf-8")
    (d / "otro.meta.json").write_text('{"emisor": "Fondo Otro", "tipo": "kid", "anio": 2024}')
    return d


def test_index_then_search_json_with_citations(docs, tmp_path):
    idx = tmp_path / "idx"
    r = runner.invoke(app, ["index", str(docs), "-o", str(idx), "--dense", "--model", "hashing"])
    assert r.exit_code == 0, r.output
    assert "2 added" in r.output
    for kind in ("bm25", "dense", "hybrid"):
        r = runner.invoke(
            app,
            [
                "search",
                str(idx),
                "gastos corrientes",
                "-k",
                "2",
                "--retriever",
                kind,
                "--filter",
                "issuer=otro",
                "--json",
            ],
        )
        assert r.exit_code == 0, r.output
        data = json.loads(r.output)
        first = data["results"][0]
        assert set(first) >= {
            "rank",
            "chunk_id",
            "doc_id",
            "section",
            "page",
            "spans",
            "score",
            "text",
        }
        assert first["doc_id"] == "otro" and first["section"][-1] == "Costes"
        text = (docs / "otro.md").read_text(encoding="utf-8")
        s, e = first["spans"][0]
        assert text[s:e] in first["text"] and "0,40" in text[s:e]
    r = runner.invoke(app, ["index", str(docs), "-o", str(idx), "--dense", "--model", "hashing"])
    assert "2 unchanged" in r.output


def test_search_text_output_and_per_document(docs, tmp_path):
    idx = tmp_path / "idx"
    assert runner.invoke(app, ["index", str(docs), "-o", str(idx)]).exit_code == 0
    r = runner.invoke(
        app, ["search", str(idx), "¿Qué gastos corrientes tiene?", "--per-document", "-k", "5"]
    )
    assert r.exit_code == 0, r.output
    assert "fondo" in r.output and "otro" in r.output and "Costes" in r.output


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_cli_errors_are_one_clear_line(docs, tmp_path):
    r = runner.invoke(app, ["search", str(tmp_path / "nope"), "x"])
    assert r.exit_code == 2 and "no such index" in _flat(r.output)
    idx = tmp_path / "idx"
    runner.invoke(app, ["index", str(docs), "-o", str(idx)])
    r = runner.invoke(app, ["search", str(idx), "x", "--filter", "issuer"])
    assert r.exit_code == 2 and "FIELD=VALUE" in _flat(r.output)
    r = runner.invoke(app, ["search", str(idx), "x", "--retriever", "dense"])
    assert r.exit_code == 2 and "no dense vectors" in _flat(r.output)
    r = runner.invoke(app, ["index", "-o", str(idx)])
    assert r.exit_code == 2 and "give files" in _flat(r.output)


def test_ask_and_view_commands(docs, tmp_path):
    idx = tmp_path / "idx"
    runner.invoke(app, ["index", str(docs), "-o", str(idx)])
    r = runner.invoke(
        app,
        ["ask", "¿Cuál es el periodo de mantenimiento recomendado?", "--index", str(idx), "--json"],
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["route"] == "text" and data["results"]
    out = tmp_path / "map.html"
    r = runner.invoke(
        app,
        [
            "view",
            str(docs / "fondo.md"),
            "--strategies",
            "fixed,structure",
            "--range",
            "0:200",
            "-o",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    assert "<b>riesgo" not in page
    assert 'data-row="fixed"' in page and 'data-row="structure"' in page


def test_index_a_lesson_documents_table_and_auto_filter_by_issuer(tmp_path):
    from finchunk.datasets import SampleConfig, generate, write_lesson_files

    files = write_lesson_files(
        generate(SampleConfig(issuers=2, years=1, funds=1, notes=0)), tmp_path / "demo"
    )
    idx = tmp_path / "idx"
    r = runner.invoke(app, ["index", "--docs", str(files.documents), "-o", str(idx)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        [
            "search",
            str(idx),
            "¿Cuántos consejeros independientes tenía Boreal Telecom en 2023?",
            "--auto-filter",
            "--json",
        ],
    )
    data = json.loads(r.output)
    assert data["filters"] == ["issuer=Boreal Telecom", "year=2023"]
    assert {h["doc_id"] for h in data["results"]} == {"ia-boreal-telecom-2023"}


def test_view_a_table_document_with_its_passages(tmp_path):
    from finchunk.datasets import SampleConfig, generate, write_lesson_files

    corpus = generate(SampleConfig(issuers=1, years=1, funds=0, notes=0))
    files = write_lesson_files(corpus, tmp_path / "demo")
    doc_id = corpus.documents[0].id_doc
    out = tmp_path / "map.html"
    r = runner.invoke(
        app,
        [
            "view",
            doc_id,
            "--docs",
            str(files.documents),
            "--passages",
            str(files.passages),
            "-o",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    n_passages = sum(p.id_doc == doc_id for p in corpus.passages)
    page = out.read_text(encoding="utf-8")
    assert (
        f'data-row="passages"><div class="name">passages'
        f'<span class="count" data-expected="{n_passages}"' in page
    )
    assert f"; passages: {n_passages})" in _flat(r.output)  # passages are not counted as chunks
    r = runner.invoke(app, ["view", "nope", "--docs", str(files.documents)])
    assert r.exit_code == 2 and "no document with id" in _flat(r.output)


def test_search_names_the_title_once(tmp_path):
    idx = tmp_path / "idx"
    example = Path(__file__).parent / "data" / "informe_ejemplo.md"
    assert runner.invoke(app, ["index", str(example), "-o", str(idx)]).exit_code == 0
    r = runner.invoke(
        app, ["search", str(idx), "EBITDA ajustado", "-k", "1"], env={"COLUMNS": "300"}
    )
    assert r.exit_code == 0, r.output
    head = next(line for line in r.output.splitlines() if line.startswith("#1"))
    title = "Informe anual 2023 de Alfa Energía, S.A."
    assert head.count(title) == 1, head


def test_section_below_title_drops_only_a_repeated_title():
    from finchunk.cli.render import section_below_title

    assert section_below_title("Informe  2023", ("informe 2023", "2. Cifras")) == ("2. Cifras",)
    assert section_below_title("Informe", ("Resumen", "Informe")) == ("Resumen", "Informe")


LONG_DOC = (
    "# Informe\n\n## Riesgos\n\n"
    + " ".join(["Texto de relleno sin interés."] * 12)
    + (" Los gastos corrientes del fondo son del 1,25 % anual del patrimonio, cobrados a diario.")
    + "\n"
)


def test_search_lists_one_line_of_each_result_and_full_prints_the_texts(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "largo.md").write_text(LONG_DOC, encoding="utf-8")
    idx = tmp_path / "idx"
    assert runner.invoke(app, ["index", str(tmp_path / "docs"), "-o", str(idx)]).exit_code == 0
    r = runner.invoke(app, ["search", str(idx), "gastos corrientes", "-k", "5"])
    assert r.exit_code == 0, r.output
    head, line = r.stdout.splitlines()  # one result: its citation and a snippet
    assert head.startswith("#1  ") and "largo  Informe · Riesgos" in head
    assert line.startswith("    …") and "gastos corrientes" in line  # around the terms
    assert len(line) > 80  # piped: not wrapped at 80 columns
    full = runner.invoke(app, ["search", str(idx), "gastos corrientes", "--full"])
    assert full.exit_code == 0
    assert (
        "chars " in full.stdout and " ".join(["Texto de relleno sin interés."] * 12) in full.stdout
    )
    assert "cobrados a diario." in full.stdout


def test_a_snippet_is_one_line_around_the_query_terms():
    from finchunk.cli.render import snippet

    text = "Primera frase.\n\n" + "relleno " * 30 + "los gastos corrientes suben. Final."
    line = snippet(text, "gastos corrientes", 60)
    assert "\n" not in line.plain and len(line.plain) <= 60
    assert line.plain.startswith("…") and "gastos corrientes" in line.plain
    bold = {line.plain[s.start : s.end] for s in line.spans}
    assert bold == {"gastos", "corrientes"}
    assert snippet("Corto.", "nada", 60).plain == "Corto."
    assert snippet("gastos " + "x" * 100, "gastos", 30).plain == "gastos " + "x" * 22 + "…"
