"""The information need apart from the instructions to the answering model: sentences and
clauses addressed to the answerer are set aside by their structure, hints that say where to
look are kept, and a bare question is searched as it is."""

from __future__ import annotations

import pytest

from finchunk.retrieve.need import information_need, section_hints


@pytest.mark.parametrize(
    "question",
    [
        "What was total revenue in 2022?",
        "plantilla media",
        "How much did NVIDIA contribute to employee 401(k) plans in fiscal 2025?",
        "¿Qué importe de deuda de Boreal Telecom vence en 2024, según el informe de 2022?",
        "List the segments of 3M in 2022.",
        "What was revenue in 2022 (in the Americas)?",
    ],
)
def test_a_bare_question_is_searched_as_it_is(question: str) -> None:
    need = information_need(question)
    assert need.text == question and need.set_aside == ()


@pytest.mark.parametrize(
    ("question", "need", "aside"),
    [
        ("What was net income in 2022? If the figure is missing, reply 'none'.",
         "What was net income in 2022?", "If the figure is missing, reply 'none'."),
        ("Who is the CFO of Acme? Give me the title of the position.",
         "Who is the CFO of Acme?", "Give me the title of the position."),
        ("What were total assets (in EUR thousands)?", "What were total assets?",
         "(in EUR thousands)"),
        ("What was net income in 2022, according to the annual report?",
         "What was net income in 2022?", ", according to the annual report"),
        ("What was the operating margin, rounded to one decimal?",
         "What was the operating margin?", ", rounded to one decimal"),
        ("You are an analyst. What drove the margin decline?",
         "What drove the margin decline?", "You are an analyst."),
        ("¿Cuál fue la plantilla media en 2023? Responde en una frase.",
         "¿Cuál fue la plantilla media en 2023?", "Responde en una frase."),
        ("¿Cuál fue el beneficio neto (en miles de euros)? Si no aparece, indica 'n/d'.",
         "¿Cuál fue el beneficio neto?", "(en miles de euros)"),
    ],
)  # fmt: skip
def test_instructions_are_set_aside_by_structure(question: str, need: str, aside: str) -> None:
    got = information_need(question)
    assert got.text == need
    assert aside in got.set_aside
    assert got.note().startswith("instructions set aside:")


def test_a_section_named_in_an_instruction_is_kept_as_a_hint() -> None:
    q = (
        "What is the FY2018 capital expenditure of Acme? Rely on the details shown in the "
        "cash flow statement."
    )
    got = information_need(q)
    assert got.text == "What is the FY2018 capital expenditure of Acme? cash flow statement"
    assert got.hints == ("cash flow statement",)
    assert section_hints("Básate en el estado de flujos de efectivo.") == [
        "estado de flujos de efectivo"
    ]


def test_only_instructions_are_searched_as_they_are() -> None:
    q = "Answer in one sentence."
    assert information_need(q).text == q


def test_search_says_what_it_set_aside_unless_told_to_keep_it(tmp_path) -> None:
    from pathlib import Path

    from typer.testing import CliRunner

    from finchunk.cli import app

    runner = CliRunner()
    data = Path(__file__).parent / "data"
    assert runner.invoke(app, ["index", str(data), "-o", str(tmp_path / "idx")]).exit_code == 0
    q = "¿Cuál fue la plantilla media? Responde en una frase."
    args = ["search", str(tmp_path / "idx"), q, "--retriever", "bm25", "--json"]
    aside = runner.invoke(app, args)
    kept = runner.invoke(app, [*args, "--keep-instructions"])
    assert aside.exit_code == kept.exit_code == 0, aside.output + kept.output
    assert "instructions set aside: 'Responde en una frase.'" in aside.stdout
    assert "instructions set aside" not in kept.stdout
