"""TAT-QA as an eval corpus: documents, header rows, evidence rows found by the answer's
figures, questions without table evidence kept out of recall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from finchunk.datasets.tatqa import header_rows, read_tatqa
from finchunk.errors import InputError

CONTEXT = {
    "table": {
        "uid": "t1",
        "table": [
            ["", "", "Years Ended September 30,", ""],
            ["", "2019", "2018", "2017"],
            ["Fixed Price", "$  1,452.4", "$  1,146.2", "$  1,036.9"],
            ["Other", "44.1", "56.7", "70.8"],
            ["Total sales", "$1,496.5", "$1,202.9", "$1,107.7"],
        ],
    },
    "paragraphs": [
        {"uid": "p1", "order": 1, "text": "Sales by Contract Type: mostly fixed-price."},
        {"uid": "p2", "order": 2, "text": "The table below presents net sales (in millions):"},
    ],
    "questions": [
        {
            "uid": "q1",
            "question": "What is the amount of total sales in 2019?",
            "answer": ["$1,496.5"],
            "derivation": "",
            "answer_type": "span",
            "answer_from": "table-text",
            "rel_paragraphs": ["2"],
            "scale": "million",
        },
        {
            "uid": "q2",
            "question": "What is the change in Other from 2018 to 2019?",
            "answer": -12.6,
            "derivation": "44.1-56.7",
            "answer_type": "arithmetic",
            "answer_from": "table",
            "rel_paragraphs": [],
            "scale": "million",
        },
        {
            "uid": "q3",
            "question": "How many years are shown?",
            "answer": 3,
            "derivation": "",
            "answer_type": "count",
            "answer_from": "table",
            "rel_paragraphs": [],
            "scale": "",
        },
    ],
}


def _corpus(tmp_path: Path):
    path = tmp_path / "tatqa.json"
    path.write_text(json.dumps([CONTEXT]), encoding="utf-8")
    return read_tatqa(path)


def test_stacked_header_rows() -> None:
    assert header_rows(CONTEXT["table"]["table"]) == 2


def test_evidence_rows_with_the_header_row(tmp_path: Path) -> None:
    corpus, summary = _corpus(tmp_path)
    (doc,) = corpus.documents
    assert summary.questions == 3 and summary.without_gold == 1
    q1, q2, q3 = corpus.questions
    texts = {p: doc.text[corpus.passages[p].start : corpus.passages[p].end] for p in q1.gold}
    assert sorted(corpus.passages[p].type for p in q1.gold) == ["header", "paragraph", "row"]
    assert any(t.startswith("| Total sales |") for t in texts.values())
    assert any("Years Ended September 30, 2018" in t for t in texts.values())
    # the derivation's figures find the row of an arithmetic answer
    rows = [doc.text[corpus.passages[p].start : corpus.passages[p].end] for p in q2.gold]
    assert any(r.startswith("| Other |") for r in rows)
    assert not q3.answerable  # a count: no row shows it
    assert [e.kind.value for e in doc.elements].count("table") == 1


def test_not_tatqa_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="x.json: not a TAT-QA JSON file"):
        read_tatqa(bad)
