"""The one lesson-schema reader/writer: Spanish and English columns, list and boolean cells,
clear errors, and the readers every user goes through."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from finchunk import lesson
from finchunk.errors import InputError
from finchunk.lesson import Passage, Question

TEXT = "# Informe\n\n## Cifras\n\nLos ingresos fueron 10,0.\n"
START = TEXT.index("Los")


def _tables(tmp: Path, english: bool) -> tuple[Path, Path, Path]:
    d, p, q = tmp / "d.parquet", tmp / "p.csv", tmp / "q.csv"
    doc_cols = ["doc_id", "title", "type", "text"] if english else list(lesson.DOCUMENT_COLUMNS)
    values = [["a"], ["A"], ["kid"], [TEXT], ["Acme"]]
    pq.write_table(pa.table(dict(zip([*doc_cols, "issuer"], values, strict=True))), d)
    head = (
        "passage_id,doc_id,section,type,start,end" if english else ",".join(lesson.PASSAGE_COLUMNS)
    )
    p.write_text(f"{head}\np1,a,Cifras,texto,{START},{len(TEXT) - 1}\n", encoding="utf-8")
    qhead = (
        "question_id,question,answer,gold_passages,question_type,answerable,doc_ids"
        if english
        else ",".join(lesson.QUESTION_COLUMNS)
    )
    q.write_text(
        f'{qhead}\nq1,¿Ingresos?,"10,0",p1 ; ,texto,sí,a;b\nq2,¿Otro?,,,texto,no,a\n',
        encoding="utf-8",
    )
    return d, p, q


@pytest.mark.parametrize("english", [False, True])
def test_both_spellings_read_the_same(tmp_path: Path, english: bool) -> None:
    d, p, q = _tables(tmp_path, english)
    (doc,) = lesson.read_documents(d)
    assert doc.text == TEXT and doc.title == "A"
    assert doc.metadata == {"type": "kid", "issuer": "Acme"}
    ps = lesson.read_passages(p, [doc])
    assert ps == {"p1": Passage("p1", "a", START, len(TEXT) - 1, "Cifras", "texto")}
    qs = lesson.read_questions(q, ps)
    assert qs == (
        Question("q1", "¿Ingresos?", "10,0", ("p1",), "texto", True, ("a", "b")),
        Question("q2", "¿Otro?", "", (), "texto", False, ("a",)),
    )


def test_written_files_read_back(tmp_path: Path) -> None:
    ps = [Passage("p1", "a", 3, 9, "S", "texto")]
    qs = [
        Question("q1", 'Dice "hola", ¿y?', "x\ny", ("p1",), "texto", True, ("a", "b")),
        # three passages, two items: the second is stated in p2 or p3
        Question("q2", "¿Dónde?", "", ("p1", "p2", "p3"), "t", True, ("a",), (0, 1, 1)),
    ]
    lesson.write_passages(tmp_path / "p.parquet", ps)
    lesson.write_questions(tmp_path / "q.csv", qs)
    assert list(lesson.read_passages(tmp_path / "p.parquet").values()) == ps
    assert list(lesson.read_questions(tmp_path / "q.csv")) == qs
    assert "p1;p2|p3" in (tmp_path / "q.csv").read_text(encoding="utf-8")
    names = pq.read_table(tmp_path / "p.parquet").column_names
    assert names == list(lesson.PASSAGE_COLUMNS)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["p.parquet", "q.csv"]


def test_errors_name_the_file_the_row_and_the_problem(tmp_path: Path) -> None:
    d, p, q = _tables(tmp_path, english=False)
    docs = lesson.read_documents(d)
    q.write_text(q.read_text(encoding="utf-8").replace(",sí,", ",quizá,"), encoding="utf-8")
    with pytest.raises(InputError, match=r"q\.csv \(line 2\): question 'q1': respondible"):
        lesson.read_questions(q)
    with pytest.raises(InputError, match=r"q\.csv \(line 2\).*unknown passage"):
        lesson.read_questions(q, {})
    p.write_text(f"id_pasaje,id_doc,inicio,fin\np9,a,0,{10**6}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"p\.csv: passage 'p9' span .* outside document 'a'"):
        lesson.read_passages(p, docs)
    p.write_text("id_pasaje,id_doc,inicio\np9,zz,0\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"p\.csv: missing column\(s\) fin/end"):
        lesson.read_passages(p)
    with pytest.raises(InputError, match=r"nada\.csv: no such file"):
        lesson.read_questions(tmp_path / "nada.csv")


HEADER = b"question_id,question,gold_passages\n"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (HEADER + b"q1,Caf\xe9?,p1\n", r"q\.csv: not UTF-8 text \(at byte 41\)"),
        (HEADER + b'q1,"unclosed,p1\n', r"q\.csv \(line 2\): not CSV: unexpected end of data"),
        (HEADER + b"q1," + b"x" * 200_000 + b",p1\n", r"q\.csv \(line 2\): not CSV: field larger"),
        (HEADER + b"q1,a,p1,stray\n", r"q\.csv \(line 2\): 4 fields, the header has 3"),
        (HEADER + b"q1\n", r"q\.csv \(line 2\): no 'question' field"),
        (b"question_id,question,question,gold_passages\n", r"column 'question' is given twice"),
        (b"id_pregunta,pregunta,question,gold_passages\n", r"'pregunta' and 'question' are both"),
    ],
)
def test_a_bad_questions_csv_is_one_error_naming_file_and_line(
    tmp_path: Path, body: bytes, error: str
) -> None:
    # never a traceback (UnicodeDecodeError, csv.Error) and never a silent guess: a stray
    # field, a short row or a column given twice would otherwise lose or swap text
    f = tmp_path / "q.csv"
    f.write_bytes(body)
    with pytest.raises(InputError, match=error):
        lesson.read_questions(f)


def test_blank_lines_and_a_bom_in_a_questions_csv_are_fine(tmp_path: Path) -> None:
    f = tmp_path / "q.csv"
    f.write_bytes(b"\xef\xbb\xbf" + HEADER + b"\nq1,a?,p1\n\nq2,b?,\n")
    qs = lesson.read_questions(f)
    assert [(q.id, q.text, q.gold) for q in qs] == [("q1", "a?", ("p1",)), ("q2", "b?", ())]


def test_bool_and_list_cells() -> None:
    assert [lesson.parse_bool(v, "x") for v in ("true", "Sí", "1", "no", "False", "")] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert lesson.split_list(" p1; ;p2 ") == ("p1", "p2") and lesson.split_list(None) == ()
    assert lesson.join_list(["p1", "p2"]) == "p1;p2"


@pytest.mark.parametrize("start", ["1.5", "true", "x", ""])
def test_a_passage_offset_that_is_not_a_whole_number_is_an_error(
    tmp_path: Path, start: str
) -> None:
    # 1.5 was truncated to 1 and a boolean read as 1: a gold span shifted without a word
    f = tmp_path / "p.csv"
    f.write_text(f"passage_id,doc_id,start,end\np1,a,{start},4\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"p\.csv: passage 'p1' has no integer start and end"):
        lesson.read_passages(f)


def test_whole_number_offsets_read_in_any_spelling(tmp_path: Path) -> None:
    f = tmp_path / "p.csv"
    f.write_text("passage_id,doc_id,start,end\np1,a,1.0,4\n", encoding="utf-8")
    assert lesson.read_passages(f)["p1"].span == (1, 4)


def test_an_id_given_twice_in_any_table_is_an_error(tmp_path: Path) -> None:
    # the second row replaced (passages) or shadowed (documents, questions) the first
    docs, pas, qs = tmp_path / "d.csv", tmp_path / "p.csv", tmp_path / "q.csv"
    docs.write_text('doc_id,title,text\na,A,"# A\n\nRevenue 1."\na,B,"# B"\n', encoding="utf-8")
    pas.write_text("passage_id,doc_id,start,end\np1,a,0,5\np1,a,5,9\n", encoding="utf-8")
    qs.write_text("question_id,question,gold_passages\nq1,A?,\nq1,B?,\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"d\.csv: document id 'a' is given twice"):
        lesson.read_documents(docs)
    with pytest.raises(InputError, match=r"p\.csv: passage id 'p1' is given twice"):
        lesson.read_passages(pas)
    with pytest.raises(InputError, match=r"q\.csv \(line 3\): question id 'q1' is given twice"):
        lesson.read_questions(qs)
