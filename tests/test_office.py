"""Word .docx and Excel .xlsx → elements with exact spans, generated here with python-docx
and openpyxl: headings and section paths, paragraphs, lists, tables as Markdown, footnotes
as notes the citing paragraph carries, numbers as displayed; the slice invariant and the
nothing-lost property under every chunker; bad packages as one-line errors; the CLI."""

from __future__ import annotations

import datetime as dt
import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.cli import app
from finchunk.errors import ParseError
from finchunk.model import Document, ElementKind, merge_spans
from finchunk.parse import load

docx = pytest.importorskip("docx")
openpyxl = pytest.importorskip("openpyxl")

FOOTNOTE = "Restated for the sale of the Chemicals segment."
_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _add_footnote(d, paragraph, text: str) -> None:
    """A footnote part with one footnote (id 1) and a reference to it at the end of
    ``paragraph`` (python-docx writes no footnotes; the part is added through its OPC API)."""
    from docx.opc.constants import CONTENT_TYPE as CT
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import parse_xml

    blob = (
        f'<w:footnotes xmlns:w="{_W_NS}">'
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p>'
        "</w:footnote>"
        f'<w:footnote w:id="1"><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:footnote>'
        "</w:footnotes>"
    ).encode()
    part = Part(PackURI("/word/footnotes.xml"), CT.WML_FOOTNOTES, blob, d.part.package)
    d.part.relate_to(part, RT.FOOTNOTES)
    paragraph._p.append(parse_xml(f'<w:r xmlns:w="{_W_NS}"><w:footnoteReference w:id="1"/></w:r>'))


def write_docx(path: Path, title: str = "Acme Annual Report 2024") -> Path:
    d = docx.Document()
    d.core_properties.title = title
    d.add_heading("Acme Annual Report", 0)
    d.add_heading("Results of Operations", 1)
    p = d.add_paragraph("Net sales rose 12% to $4.2 billion")
    _add_footnote(d, p, FOOTNOTE)
    d.add_paragraph("Growth came from three places:")
    d.add_paragraph("Retail stores", style="List Bullet")
    d.add_paragraph("Online orders", style="List Bullet")
    d.add_heading("Segment Results", 2)
    t = d.add_table(rows=3, cols=3)
    rows = [["Segment", "2024", "2023"], ["Retail", "1,200", "1,100"], ["Wholesale", "800", "750"]]
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            t.cell(i, j).text = v
    d.add_paragraph("Wholesale | margins held at 31%.")
    d.add_heading("Liquidity", 1)
    d.add_paragraph("Cash was $1.1 billion at year end.")
    d.add_paragraph("Repay the notes", style="List Number")
    d.add_paragraph("Buy back shares", style="List Number")
    d.save(str(path))
    return path


def write_xlsx(path: Path, title: str = "") -> Path:
    wb = openpyxl.Workbook()
    wb.properties.title = title
    ws = wb.active
    ws.title = "Income statement"
    ws.append(["Line item", "FY2024", "FY2023"])
    ws.append(["Revenue", 4200.5, 3900])
    ws.append([])  # an empty row inside the range
    ws.append(["Operating margin", 0.123, 0.118])
    ws.append(["Net loss", -1234, None])
    ws["B2"].number_format = "#,##0.00"
    ws["C2"].number_format = '"$"#,##0'
    ws["B4"].number_format = "0.0%"
    ws["C4"].number_format = "0.0%"
    ws["B5"].number_format = "#,##0;(#,##0)"
    notes = wb.create_sheet("Notes")
    notes["B2"] = "Period end"
    notes["C2"] = dt.datetime(2024, 12, 31)
    notes["B3"] = "Prepared by"
    notes["C3"] = "Group finance"
    wb.create_sheet("Empty")
    wb.save(str(path))
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("office")
    write_docx(root / "report.docx")
    write_xlsx(root / "model.xlsx")
    return root


def _texts(doc: Document, kind: ElementKind) -> list[str]:
    return [doc.element_text(e) for e in doc.elements if e.kind is kind]


def _check_slices(doc: Document) -> None:
    last = 0
    for e in doc.elements:
        assert last <= e.start < e.end <= len(doc.text)
        s = doc.text[e.start : e.end]
        assert s == s.strip() and s
        last = e.end


def _check_nothing_lost(doc: Document) -> None:
    skipped = [
        e.span for e in doc.elements if e.kind in (ElementKind.HEADING, ElementKind.FURNITURE)
    ]
    for chunker in (Fixed(size=120), Recursive(size=120), Structure(size=200), ByTitle()):
        chunks = chunker.chunk(doc)
        for c in chunks:
            assert c.body == "\n\n".join(doc.text[s:e] for s, e in c.spans)
        mask = bytearray(len(doc.text))
        for s, e in merge_spans([sp for c in chunks for sp in c.spans] + skipped):
            mask[s:e] = b"\x01" * (e - s)
        lost = [i for i, ch in enumerate(doc.text) if not mask[i] and not ch.isspace()]
        assert not lost, (chunker.name, doc.text[lost[0] : lost[0] + 30])


def test_docx_elements_sections_and_spans(folder: Path) -> None:
    doc = load(folder / "report.docx")
    assert doc.id == "report" and doc.title == "Acme Annual Report 2024"
    assert doc.metadata["format"] == "docx" and doc.pages == ()
    heads = [(doc.element_text(e), e.level) for e in doc.elements if e.kind is ElementKind.HEADING]
    assert heads == [
        ("Acme Annual Report", 1),
        ("Results of Operations", 1),
        ("Segment Results", 2),
        ("Liquidity", 1),
    ]
    table = next(e for e in doc.elements if e.kind is ElementKind.TABLE)
    assert table.section == ("Results of Operations", "Segment Results")
    assert doc.element_text(table) == (
        "| Segment | 2024 | 2023 |\n| --- | --- | --- |\n"
        "| Retail | 1,200 | 1,100 |\n| Wholesale | 800 | 750 |"
    )
    assert _texts(doc, ElementKind.LIST) == [
        "- Retail stores\n- Online orders",
        "1. Repay the notes\n2. Buy back shares",
    ]
    assert "Wholesale | margins held at 31%." in _texts(doc, ElementKind.TEXT)
    _check_slices(doc)


def test_docx_footnote_is_a_note_the_paragraph_cites(folder: Path) -> None:
    doc = load(folder / "report.docx")
    cite = next(e for e in doc.elements if doc.element_text(e).startswith("Net sales"))
    assert doc.element_text(cite) == "Net sales rose 12% to $4.2 billion[1]"
    assert cite.cites == ("1",)
    note = next(e for e in doc.elements if e.kind is ElementKind.NOTE)
    assert doc.element_text(note) == f"[1] {FOOTNOTE}" and note.mark == "1"
    assert note.section == ("Results of Operations",)  # before the next heading
    chunk = next(c for c in Structure(size=400).chunk(doc) if c.spans[0][0] == cite.start)
    assert note.span in chunk.spans  # the paragraph carries its note


def test_xlsx_sheets_tables_and_displayed_numbers(folder: Path) -> None:
    doc = load(folder / "model.xlsx")
    assert doc.title == "model"  # an empty core title: the document id
    assert doc.metadata == {"format": "xlsx", "sheets": ["Income statement", "Notes"]}
    assert _texts(doc, ElementKind.HEADING) == ["Income statement", "Notes"]
    tables = [e for e in doc.elements if e.kind is ElementKind.TABLE]
    assert [t.section for t in tables] == [("Income statement",), ("Notes",)]
    assert doc.element_text(tables[0]) == (
        "| Line item | FY2024 | FY2023 |\n| --- | --- | --- |\n"
        "| Revenue | 4,200.50 | $3,900 |\n"
        "| Operating margin | 12.3% | 11.8% |\n"
        "| Net loss | (1,234) |  |"
    )
    # the used range B2:C3, empty first row and column trimmed
    assert doc.element_text(tables[1]) == (
        "| Period end | 2024-12-31 |\n| --- | --- |\n| Prepared by | Group finance |"
    )
    _check_slices(doc)


@pytest.mark.parametrize("name", ["report.docx", "model.xlsx"])
def test_nothing_lost_under_every_chunker(folder: Path, name: str) -> None:
    _check_nothing_lost(load(folder / name))


def test_artefact_titles_are_not_titles(tmp_path: Path) -> None:
    doc = load(write_docx(tmp_path / "memo.docx", title="Microsoft Word - memo.docx"))
    assert doc.title == "Acme Annual Report"  # the Title paragraph instead
    assert load(write_xlsx(tmp_path / "m.xlsx", title="Book1")).title == "m"
    assert load(write_xlsx(tmp_path / "n.xlsx", title="Budget 2025")).title == "Budget 2025"


def _zip(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


@pytest.mark.parametrize("suffix", [".docx", ".xlsx"])
def test_bad_packages_are_one_line_errors_naming_the_file(tmp_path: Path, suffix: str) -> None:
    good = tmp_path / f"good{suffix}"
    (write_docx if suffix == ".docx" else write_xlsx)(good)
    cases = {
        "empty": b"",
        "encrypted": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504,
        "truncated": good.read_bytes()[:300],
        "text": b"not a package at all",
    }
    for stem, data in cases.items():
        (tmp_path / f"{stem}{suffix}").write_bytes(data)
    _zip(tmp_path / f"other{suffix}", {"hello.txt": b"a zip, but not an Office file"})
    for stem in [*cases, "other"]:
        path = tmp_path / f"{stem}{suffix}"
        with pytest.raises(ParseError) as err:
            load(path)
        message = str(err.value)
        assert message.startswith(str(path)) and "\n" not in message, message
    with pytest.raises(ParseError, match="password-protected"):
        load(tmp_path / f"encrypted{suffix}")


def test_empty_body_is_an_error(tmp_path: Path) -> None:
    docx.Document().save(str(tmp_path / "blank.docx"))
    with pytest.raises(ParseError, match="empty"):
        load(tmp_path / "blank.docx")
    wb = openpyxl.Workbook()
    wb.save(str(tmp_path / "blank.xlsx"))
    with pytest.raises(ParseError, match="every sheet is empty"):
        load(tmp_path / "blank.xlsx")


def test_cli_chunk_index_and_search(folder: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "c.jsonl"
    done = runner.invoke(app, ["chunk", str(folder / "report.docx"), "-o", str(out)])
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["doc_id"] == "report" for r in rows)
    assert any("| Retail | 1,200 | 1,100 |" in r["text"] for r in rows)
    (folder / "~$report.docx").write_bytes(b"\0" * 162)  # Word's lock file: left out
    idx = tmp_path / "idx"
    done = runner.invoke(app, ["index", str(folder), "-o", str(idx)])
    assert done.exit_code == 0, done.output
    assert "skipped" not in done.output
    done = runner.invoke(app, ["search", str(idx), "operating margin", "--json"])
    assert done.exit_code == 0, done.output
    assert "model" in done.output
    view = tmp_path / "v.html"
    done = runner.invoke(app, ["view", str(folder / "model.xlsx"), "-o", str(view)])
    assert done.exit_code == 0, done.output
    assert view.stat().st_size > 0


def test_eval_with_quote_gold_in_a_docx_and_an_xlsx(folder: Path, tmp_path: Path) -> None:
    questions = tmp_path / "q.jsonl"
    rows = [
        {"id": "q1", "doc": "report.docx", "question": "How much did net sales rise?",
         "type": "text", "evidence": ["Net sales rose 12% to $4.2 billion"]},
        {"id": "q2", "doc": "model.xlsx", "question": "What was the operating margin?",
         "type": "table", "evidence": ["Operating margin | 12.3% | 11.8%"]},
    ]  # fmt: skip
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = tmp_path / "eval.json"
    args = ["eval", "--questions", str(questions), "--files", str(folder), "--k", "1-3"]
    done = CliRunner().invoke(app, [*args, "--strategies", "structure", "--json", str(report)])
    assert done.exit_code == 0, done.output
    result = json.loads(report.read_text(encoding="utf-8"))
    assert "quotes aligned: 2 of 2" in done.output, done.output
    assert max(r["recall"] for r in result["results"]) > 0


def test_docx_numbered_lists_count_and_bullets_stay_bullets(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("Steps", style="Heading 1")
    for text in ("first step", "second step"):
        d.add_paragraph(text, style="List Number")
    for text in ("a bullet", "another"):
        d.add_paragraph(text, style="List Bullet")
    path = tmp_path / "steps.docx"
    d.save(str(path))
    doc = load(path)
    assert "1. first step\n2. second step\n- a bullet\n- another" in doc.text
