"""The context header: what each parser's metadata puts in it, never inside a span, on by
default (``--no-header`` turns it off)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from finchunk.chunk import Fixed, Strategy, Structure, make_chunker
from finchunk.chunk.header import doc_type_label, document_line, period
from finchunk.cli import app
from finchunk.model import SPAN_JOINER, Document
from finchunk.parse.markdown import parse_markdown

DATA = Path(__file__).parent / "data" / "informe_ejemplo.md"

IX_10Q = """<html><body>
<div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:DocumentType" contextRef="q">10-Q</ix:nonNumeric>
<ix:nonNumeric name="dei:DocumentFiscalYearFocus" contextRef="q">2025</ix:nonNumeric>
<ix:nonNumeric name="dei:DocumentFiscalPeriodFocus" contextRef="q">Q2</ix:nonNumeric>
<ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="q">June 28, 2025</ix:nonNumeric>
<ix:nonNumeric name="dei:TradingSymbol" contextRef="q">TNY</ix:nonNumeric>
</ix:hidden></ix:header></div>
<p>Registrant: <ix:nonNumeric name="dei:EntityRegistrantName" contextRef="q"
>Tiny Co</ix:nonNumeric></p>
<h2>Item 2. Management's Discussion and Analysis</h2>
<p>Net sales rose 5 % in the quarter, driven by services and wearables across regions.</p>
</body></html>"""

COVER_10K = """<html><body>
<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p>
<p>FORM 10-K</p>
<p>ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)</p>
<p>For the fiscal year ended December 31, 2023</p>
<p>ACME HOLDINGS CORP</p>
<p>(Exact name of registrant as specified in its charter)</p>
<h2>Item 1. Business</h2>
<p>We make anvils and sell them to coyotes in many countries around the world.</p>
</body></html>"""

SGML_10Q = """<SEC-DOCUMENT>0000912057-00-023442.txt : 20000511
<SEC-HEADER>0000912057-00-023442.hdr.sgml : 20000511
CONFORMED PERIOD OF REPORT:\t20000401
FILER:
\tCOMPANY DATA:
\t\tCOMPANY CONFORMED NAME:\t\t\tOLD FRUIT CO
\tFILING VALUES:
\t\tFORM TYPE:\t\t10-Q
</SEC-HEADER>
<DOCUMENT>
<TYPE>10-Q
<TEXT>
PART I. FINANCIAL INFORMATION

Net sales for the quarter were higher than a year ago, with growth in every segment.
</TEXT>
</DOCUMENT>
</SEC-DOCUMENT>
"""


def _headers(doc: Document) -> list[str]:
    return [c.header for c in Structure(size=400, header=True).chunk(doc)]


def _check_outside_spans(doc: Document) -> None:
    for chunker in (Structure(size=200, header=True), Fixed(size=120, overlap=10, header=True)):
        for c in chunker.chunk(doc):
            assert c.body == SPAN_JOINER.join(doc.text[s:e] for s, e in c.spans)
            assert c.text == f"{c.header}\n{c.body}"
            line = c.header.split(" > ")[0]
            assert line not in doc.text  # the header is nothing the document's text holds


def test_inline_xbrl_dei_facts_give_entity_ticker_form_and_quarter() -> None:
    pytest.importorskip("selectolax")
    from finchunk.parse.html import parse_html

    doc = parse_html(IX_10Q, "tiny")
    assert doc.metadata["ticker"] == "TNY"
    heads = _headers(doc)
    assert (
        heads[-1]
        == "Tiny Co (TNY) | 10-Q | Q2 FY 2025 > Item 2. Management's Discussion and Analysis"
    )
    _check_outside_spans(doc)


def test_cover_page_gives_registrant_form_and_fiscal_year() -> None:
    pytest.importorskip("selectolax")
    from finchunk.parse.html import parse_html

    doc = parse_html(COVER_10K, "acme")
    assert _headers(doc)[-1] == "ACME HOLDINGS CORP | 10-K | FY 2023 > Item 1. Business"


def test_sgml_header_form_type_and_period_of_report() -> None:
    pytest.importorskip("selectolax")
    from finchunk.parse.html import parse_html

    doc = parse_html(SGML_10Q, "old")
    assert doc.metadata["form"] == "10-Q"  # FORM TYPE, without CONFORMED SUBMISSION TYPE
    assert _headers(doc)[0].startswith("OLD FRUIT CO | 10-Q | period ended 2000-04-01")


def test_pdf_cover_page_and_metadata(tmp_path: Path) -> None:
    pytest.importorskip("pypdfium2")
    fpdf = pytest.importorskip("fpdf")
    from finchunk.parse.pdf import parse_pdf_file

    pdf = fpdf.FPDF()
    pdf.set_title("0000012345-24-000001")  # an accession number: says nothing the fields don't
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    for line in (
        "FORM 10-K",
        "For the fiscal year ended December 31, 2023",
        "_______________ ROADRUNNER INC.",
        "(Exact name of registrant as specified in its charter)",
        "Roadrunner sells birdseed to the public in every state of the union.",
    ):
        pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    path = tmp_path / "rr.pdf"
    pdf.output(str(path))
    doc = parse_pdf_file(path)
    assert doc.title == "ROADRUNNER INC. > 10-K 2023-12-31"  # not the producer's accession
    assert {k: doc.metadata[k] for k in ("form", "period_end", "issuer")} == {
        "form": "10-K",
        "period_end": "2023-12-31",
        "issuer": "ROADRUNNER INC.",
    }
    assert _headers(doc)[0].startswith("ROADRUNNER INC. | 10-K | FY 2023")


def test_lesson_row_metadata_columns(tmp_path: Path) -> None:
    from finchunk.lesson import read_documents

    path = tmp_path / "documents.csv"
    rows = [
        ("kid-x", "Documento de datos fundamentales — Fondo X (Acc)", "kid", "Fondo X (Acc)"),
        ("ia-y", "Informe anual 2023 — Ybarra, S.A.", "informe_anual", "Ybarra"),
    ]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id_doc", "titulo", "tipo", "texto", "emisor", "anio", "idioma"])
        for doc_id, title, kind, issuer in rows:
            w.writerow(
                [doc_id, title, kind, "# Riesgos\n\nTexto del documento.\n", issuer, 2023, "es"]
            )
    kid, annual = read_documents(path)
    assert _headers(kid)[-1] == (
        "Documento de datos fundamentales — Fondo X (Acc) | KID | ejercicio 2023 > Riesgos"
    )
    assert _headers(annual)[-1] == "Ybarra | informe anual | ejercicio 2023 > Riesgos"


def test_financebench_document_information(tmp_path: Path) -> None:
    from finchunk.datasets.financebench import FBDocument
    from finchunk.evaluate.financebench_gold import with_metadata

    q = FBDocument("3M_2023Q2_10Q", "3M", "10q", 2023, tmp_path / "x.pdf")
    k = FBDocument("3M_2018_10K", "3M", "10k", 2018, tmp_path / "y.pdf")
    e = FBDocument("AMCOR_2022_8K_dated-2022-04-26", "Amcor", "8k", 2022, tmp_path / "z.pdf")
    assert document_line(q.metadata, q.title) == "3M | 10-Q | Q2 FY 2023"
    assert document_line(k.metadata, k.title) == "3M | 10-K | FY 2018"
    assert document_line(e.metadata, e.title) == "Amcor | 8-K | 2022"
    assert e.metadata["date"] == "2022-04-26"
    parsed = {"format": "pdf", "form": "10-Q", "issuer": "3M COMPANY", "period_end": "2018-12-31"}
    merged = with_metadata(parsed, k.metadata)  # the document information wins
    assert merged["issuer"] == "3M" and merged["doc_type"] == "10k" and "form" not in merged
    assert merged["period_end"] == "2018-12-31" and merged["format"] == "pdf"


def test_document_line_rules() -> None:
    pytest.importorskip("selectolax")
    from finchunk.parse.html_meta import header_metadata

    assert document_line({}, "Informe de prueba") == "Informe de prueba"
    meta = {
        "issuer": "Wells Fargo & Company",
        "ticker": "WFC",
        "form": "10-K",
        "fiscal_year": "2024",
    }
    assert document_line(meta, "Wells Fargo & Company > 10-K 2024-12-31") == (
        "Wells Fargo & Company (WFC) | 10-K | FY 2024"
    )
    assert header_metadata({"COMPANY CONFORMED NAME": "WELLS FARGO & COMPANY/MN"}) == {
        "issuer": "WELLS FARGO & COMPANY"
    }
    assert doc_type_label("10k_annualreport") == "annual report"
    assert doc_type_label("Earnings") == "earnings release"
    assert doc_type_label("10-K405") == "10-K405"
    assert period({"year": "2024", "language": "en"}) == "2024"


def test_headers_are_on_by_default_and_off_on_request(tmp_path: Path) -> None:
    from finchunk.retrieve.index.config import IndexConfig

    assert all(make_chunker(s).header for s in Strategy)
    assert IndexConfig().header is True
    doc = parse_markdown(DATA.read_text(encoding="utf-8"), "informe")
    assert all(c.header for c in make_chunker("structure").chunk(doc))
    runner = CliRunner()
    for flags, on in (([], True), (["--no-header"], False)):
        out = tmp_path / f"chunks{len(flags)}.jsonl"
        r = runner.invoke(app, ["chunk", str(DATA), "-o", str(out), *flags])
        assert r.exit_code == 0, r.output
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        assert rows and all(bool(row["header"]) is on for row in rows)


def test_eval_default_is_header_on(tmp_path: Path) -> None:
    from tests.test_eval import write_corpus

    d, p, q = write_corpus(tmp_path)
    out = tmp_path / "report.json"
    args = ["eval", "--docs", str(d), "--passages", str(p), "--questions", str(q)]
    r = CliRunner().invoke(app, [*args, "--strategies", "fixed", "-k", "3", "-o", str(out)])
    assert r.exit_code == 0, r.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert {row["header"] for row in report["results"]} == {True}
