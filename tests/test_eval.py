"""Evaluation on a tiny lesson-schema corpus: reading both schemas, recall/complete/chars,
unanswerable questions excluded, and the CLI's JSON."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from finchunk.chunk import Structure
from finchunk.cli import app
from finchunk.errors import InputError
from finchunk.evaluate.corpus import read_corpus
from finchunk.evaluate.harness import EvalSettings, Scope, Variant, evaluate

DATA = Path(__file__).parent / "data" / "informe_ejemplo.md"


def _span_of(text: str, needle: str) -> tuple[int, int]:
    start = text.index(needle)  # test fixture only: the gold is written by hand here
    return start, start + len(needle)


def write_corpus(tmp: Path, english: bool = False) -> tuple[Path, Path, Path]:
    text = DATA.read_text(encoding="utf-8")
    other = "# Informe anual 2023 de Beta\n\n## Cifras\n\nLos ingresos de Beta fueron 50,0.\n"
    table_end = text.index("\n¹ Incluye")
    passages = [
        (
            "p1",
            "alfa",
            "Cifras clave",
            "tabla",
            *_span_of(text, text[text.index("Millones") : table_end]),
        ),
        (
            "p2",
            "alfa",
            "Cifras clave",
            "nota",
            *_span_of(text, "² EBITDA ajustado, sin partidas no recurrentes del ejercicio."),
        ),
        ("p3", "alfa", "Notas", "nota", *_span_of(text, text[text.index("Nota 1. Arr") :].strip())),
        ("p4", "beta", "Cifras", "texto", *_span_of(other, "Los ingresos de Beta fueron 50,0.")),
    ]
    questions = [
        ("q1", "¿Cuánto ingresó Alfa Energía en 2023?", "13.668,9", "p1", "tabla", "true", "alfa"),
        (
            "q2",
            "¿Qué es el EBITDA ajustado de Alfa y cuánto fue?",
            "2.431,0",
            "p1;p2",
            "tabla_y_nota",
            "true",
            "alfa",
        ),
        (
            "q3",
            "¿Cuánto ingresó Alfa por arrendamientos de terrenos y oficinas?",
            "312,4",
            "p3",
            "nota_pie",
            "true",
            "alfa",
        ),
        ("q4", "¿Cuáles fueron los ingresos de Beta?", "50,0", "p4", "texto", "true", "beta"),
        (
            "q5",
            "¿Cuál es el color favorito del presidente?",
            "",
            "",
            "no_respondible",
            "false",
            "alfa",
        ),
    ]
    if english:
        dcols = ["doc_id", "title", "type", "text"]
        pcols = ["passage_id", "doc_id", "section", "type", "start", "end"]
        qcols = [
            "question_id",
            "question",
            "answer",
            "gold_passages",
            "question_type",
            "answerable",
            "doc_ids",
        ]
    else:
        dcols = ["id_doc", "titulo", "tipo", "texto"]
        pcols = ["id_pasaje", "id_doc", "seccion", "tipo", "inicio", "fin"]
        qcols = [
            "id_pregunta",
            "pregunta",
            "respuesta_oro",
            "pasajes_oro",
            "tipo_pregunta",
            "respondible",
            "id_doc",
        ]
    docs = [
        ("alfa", "Alfa Energía 2023", "informe_anual", text),
        ("beta", "Beta 2023", "informe_anual", other),
    ]
    d, p, q = tmp / "documentos.parquet", tmp / "pasajes.parquet", tmp / "preguntas.csv"
    pq.write_table(pa.table({c: [r[i] for r in docs] for i, c in enumerate(dcols)}), d)
    pq.write_table(pa.table({c: [r[i] for r in passages] for i, c in enumerate(pcols)}), p)
    with q.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(qcols)
        w.writerows(questions)
    return d, p, q


@pytest.mark.parametrize("english", [False, True])
def test_reads_both_schemas(tmp_path: Path, english: bool) -> None:
    corpus = read_corpus(*write_corpus(tmp_path, english))
    assert len(corpus.documents) == 2
    assert len(corpus.passages) == 4
    assert [q.answerable for q in corpus.questions] == [True, True, True, True, False]
    assert corpus.documents[0].metadata["type"] == "informe_anual"
    assert corpus.questions[1].gold == ("p1", "p2")


def test_structure_retrieves_table_with_its_note(tmp_path: Path) -> None:
    corpus = read_corpus(*write_corpus(tmp_path))
    report = evaluate(corpus, [Variant("structure", Structure())], [1, 3])
    assert report["corpus"] == {"documents": 2, "passages": 4, "questions": 5, "answerable": 4}
    at1 = next(r for r in report["results"] if r["k"] == 1)
    assert at1["questions"] == 4
    q2 = next(r for r in report["by_type"] if r["k"] == 3 and r["type"] == "tabla_y_nota")
    assert q2["recall"] == 1.0  # table and note ² come in one chunk
    at3 = next(r for r in report["results"] if r["k"] == 3)
    assert at3["recall"] >= at1["recall"]
    assert at3["chars"] >= at1["chars"]


def test_document_scope_only_searches_own_documents(tmp_path: Path) -> None:
    corpus = read_corpus(*write_corpus(tmp_path))
    v = Variant("structure", Structure())
    report = evaluate(corpus, [v], [1], EvalSettings(scope=Scope.DOCUMENT))
    beta = next(r for r in report["by_type"] if r["type"] == "texto")
    assert beta["recall"] == 1.0


def test_bad_passage_span_is_a_clear_error(tmp_path: Path) -> None:
    d, p, q = write_corpus(tmp_path)
    table = pq.read_table(p).to_pylist()
    table[0]["fin"] = 10**6
    pq.write_table(pa.Table.from_pylist(table), p)
    with pytest.raises(InputError, match="p1.*outside document"):
        read_corpus(d, p, q)


def test_cli_eval_writes_the_json_contract(tmp_path: Path) -> None:
    d, p, q = write_corpus(tmp_path)
    out = tmp_path / "report.json"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--docs",
            str(d),
            "--passages",
            str(p),
            "--questions",
            str(q),
            "--strategies",
            "fixed,structure",
            "--header",
            "both",
            "-k",
            "1-3",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report) >= {"corpus", "results", "by_type", "chunks"}
    assert len(report["results"]) == 2 * 2 * 3
    row = report["results"][0]
    assert set(row) == {
        "strategy",
        "header",
        "retriever",
        "k",
        "recall",
        "complete",
        "chars",
        "questions",
        "ndcg",
        "mrr",
    }
    assert row["retriever"] == "bm25" and isinstance(row["header"], bool)
    assert set(report["by_type"][0]) == {
        "strategy",
        "header",
        "retriever",
        "k",
        "type",
        "recall",
        "questions",
    }
    assert set(report["chunks"][0]) == {"strategy", "header", "count", "mean_chars"}
    assert "Recall@k" in result.output


def test_auto_filter_scores_with_the_kept_documents_statistics_unless_told(tmp_path: Path) -> None:
    from finchunk.datasets import SampleConfig, generate, write_lesson_files
    from finchunk.evaluate.harness import queries
    from finchunk.retrieve.kinds import FilterStatistics

    files = write_lesson_files(generate(SampleConfig()), tmp_path)
    corpus = read_corpus(files.documents, files.passages, files.questions)
    kept = queries(corpus, auto_filter=True)
    masked = queries(corpus, auto_filter=True, statistics=FilterStatistics.INDEX)
    named = [q for q in kept if q.docs is not None]
    assert named and all(q.isolated for q in named)  # narrowed: an index of the kept ones
    assert all(not q.isolated for q in kept if q.docs is None)
    assert not any(q.isolated for q in masked)
    assert [q.docs for q in masked] == [q.docs for q in kept]
    assert EvalSettings().filter_statistics is FilterStatistics.KEPT


def test_document_scope_scores_each_question_with_its_documents_own_statistics(
    tmp_path: Path,
) -> None:
    # A question of one filing is ranked as in an index of that filing alone (FinanceBench's
    # per-document scope does the same); INDEX keeps the corpus's statistics and only masks.
    from finchunk.datasets import SampleConfig, generate, write_lesson_files
    from finchunk.evaluate.harness import queries
    from finchunk.retrieve.kinds import FilterStatistics

    files = write_lesson_files(generate(SampleConfig()), tmp_path)
    corpus = read_corpus(files.documents, files.passages, files.questions)
    own = queries(corpus, scope=Scope.DOCUMENT)
    masked = queries(corpus, scope=Scope.DOCUMENT, statistics=FilterStatistics.INDEX)
    assert own and all(q.docs and q.isolated for q in own)
    assert [q.docs for q in masked] == [q.docs for q in own]
    assert not any(q.isolated for q in masked)
    assert not any(q.isolated for q in queries(corpus))  # one corpus index: nothing narrowed
