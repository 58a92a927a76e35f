"""Quote-gold evaluation: quotes aligned to parsed documents, unaligned ones reported and
counted as misses, on Markdown files and on two real SEC filings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.chunk import Structure
from finchunk.cli import app
from finchunk.errors import InputError
from finchunk.evaluate.harness import EvalSettings, Scope, Variant, evaluate
from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

EXAMPLE = Path(__file__).parent / "data" / "informe_ejemplo.md"


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8"
    )
    return path


def test_quotes_align_ignoring_case_and_spacing(tmp_path: Path) -> None:
    rows = [
        {
            "id": "a",
            "doc": "informe_ejemplo.md",
            "question": "¿Cuánto fue el EBITDA ajustado?",
            "type": "tabla",
            "evidence": [
                "| EBITDA² |  2.431,0 | 2.102,7",
                "EBITDA AJUSTADO, sin partidas no recurrentes",
            ],
        },
        {
            "id": "b",
            "doc": "informe_ejemplo.md",
            "question": "¿Qué dice la nota sobre impuestos?",
            "type": "nota",
            "evidence": ["Esta frase no está en el documento."],
        },
    ]
    qs = read_quote_questions(_write_jsonl(tmp_path / "q.jsonl", rows))
    built = build_quote_corpus(qs, EXAMPLE.parent)
    assert built.alignment == {"quotes": 3, "aligned": 2, "unaligned_ids": ["b#1"]}
    doc = built.corpus.documents[0]
    p = built.corpus.passages["a#2"]
    assert doc.text[p.start : p.end] == "EBITDA ajustado, sin partidas no recurrentes"
    report = evaluate(built.corpus, [Variant("structure", Structure())], [5])
    by_type = {r["type"]: r["recall"] for r in report["by_type"]}
    assert by_type == {"tabla": 1.0, "nota": 0.0}  # the unaligned quote counts as a miss


def test_an_evidence_item_may_list_alternative_quotes(tmp_path: Path) -> None:
    rows = [
        {
            "id": "a",
            "doc": "informe_ejemplo.md",
            "question": "¿Cuánto fue el EBITDA ajustado?",
            "evidence": [["| EBITDA² |  2.431,0 | 2.102,7", "EBITDA AJUSTADO, sin partidas"]],
        },
        {"id": "b", "doc": "informe_ejemplo.md", "question": "?", "evidence": [[]]},
    ]
    path = _write_jsonl(tmp_path / "q.jsonl", rows[:1])
    (q,) = read_quote_questions(path)
    assert len(q.evidence) == 2 and q.items == (0, 0)
    built = build_quote_corpus([q], EXAMPLE.parent)
    assert built.corpus.questions[0].items == (0, 0)
    report = evaluate(built.corpus, [Variant("structure", Structure())], [5])
    assert report["by_type"][0]["recall"] == 1.0  # one item, found (in either place)
    with pytest.raises(InputError, match="q2.jsonl:2: evidence must be a list of quotes"):
        read_quote_questions(_write_jsonl(tmp_path / "q2.jsonl", rows))


def test_bad_jsonl_names_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    f.write_text(
        '{"id": "a", "doc": "x.md", "question": "?", "evidence": ["e"]}\n{oops\n', encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"q\.jsonl:2: malformed JSON: .* \(at column \d+\)$"):
        read_quote_questions(f)
    f.write_text('{"id": "a", "doc": "x.md", "question": "?"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"q\.jsonl:1: missing field 'evidence'"):
        read_quote_questions(f)


FILING_QUESTIONS = [
    {
        "id": "aapl-1",
        "doc": "AAPL/aapl-10-k-2024-11-01.html",
        "type": "text",
        "question": "What kinds of products does Apple design and sell?",
        "evidence": [
            "The Company designs, manufactures and markets smartphones, personal "
            "computers, tablets, wearables and accessories, and sells a variety of "
            "related services."
        ],
    },
    {
        "id": "aapl-2",
        "doc": "AAPL/aapl-10-k-2024-11-01.html",
        "type": "text",
        "question": "Which operating system does the iPhone run on?",
        "evidence": [
            "iPhone is the Company's line of smartphones based on its iOS operating system"
        ],
    },
    {
        "id": "nvda-1",
        "doc": "NVDA/nvda-10-k-2025-02-26.html",
        "type": "text",
        "question": "What did NVIDIA pioneer?",
        "evidence": ["NVIDIA pioneered accelerated computing"],
    },
    {
        "id": "nvda-2",
        "doc": "NVDA/nvda-10-k-2025-02-26.html",
        "type": "text",
        "question": "What are NVIDIA's two operating segments?",
        "evidence": ["Our two operating segments are"],
    },
    {
        "id": "nvda-3",
        "doc": "NVDA/nvda-10-k-2025-02-26.html",
        "type": "text",
        "question": "What does NVIDIA say about a quote that is not there?",
        "evidence": ["This sentence does not appear in the NVIDIA annual report at all."],
    },
]


def test_quote_gold_on_two_filings(shared_data: Path, tmp_path: Path) -> None:
    pytest.importorskip("selectolax")
    q = _write_jsonl(tmp_path / "filings.jsonl", FILING_QUESTIONS)
    out = tmp_path / "report.json"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--questions",
            str(q),
            "--files",
            str(shared_data / "edgar"),
            "--strategies",
            "structure,bytitle",
            "--header",
            "on",
            "-k",
            "5",
            "--scope",
            "document",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["alignment"] == {"quotes": 5, "aligned": 4, "unaligned_ids": ["nvda-3#1"]}
    for row in report["results"]:
        # Four of the five quotes align; at least two of those are found in the top 5.
        assert row["recall"] >= 0.4, row
    assert report["corpus"]["documents"] == 2


def test_document_scope_searches_only_the_questions_filing(shared_data: Path) -> None:
    pytest.importorskip("selectolax")
    qs = [read_quote_questions_row(r) for r in FILING_QUESTIONS[:4]]
    built = build_quote_corpus(qs, shared_data / "edgar")
    v = Variant("structure", Structure(header=True))
    corpus_scope = evaluate(built.corpus, [v], [5])["results"][0]["recall"]
    doc_scope = evaluate(built.corpus, [v], [5], EvalSettings(scope=Scope.DOCUMENT))["results"][0][
        "recall"
    ]
    assert doc_scope >= corpus_scope


def read_quote_questions_row(row: dict):
    from finchunk.evaluate.quotes import QuoteQuestion

    return QuoteQuestion(
        row["id"], row["doc"], row["question"], row["type"], tuple(row["evidence"])
    )


def test_a_question_id_given_twice_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    row = '{"id": "a", "doc": "x.md", "question": "?", "evidence": ["e"]}\n'
    f.write_text(row + row.replace('"id": "a"', '"id": "b"') + row, encoding="utf-8")
    with pytest.raises(InputError, match=r"q\.jsonl:3: question id 'a' is given twice \(line 1\)"):
        read_quote_questions(f)
