# ruff: noqa: E501 - generated test data: long literal inputs read best on one line
"""A corpus of malformed and adversarial input files, generated (never copied), and a runner
that puts each through the commands a user runs: ``chunk`` (every strategy), ``index``,
``view`` and, for fact files, ``facts load``.

Each file must give OK or a one-line error naming the file: never a traceback, a hang (a
per-file time limit), a crash, or exit 0 with text lost. ``tests/test_hostile_corpus.py``
runs it in CI; ``python tests/hostile_corpus.py [FOLDER]`` writes the corpus, runs it and
prints the figures (files, slowest file, peak memory).
"""

from __future__ import annotations

import json
import resource
import signal
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from typer.testing import CliRunner

_KB = 1024
#: Distinct words for generated pages (no two lines of a generated page alike).
GREEK = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]  # fmt: skip


def _pdf(objects: list[bytes]) -> bytes:
    """A PDF file of ``objects`` (numbered from 1) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _text_pdf(page_lines: list[list[str]]) -> bytes:
    """A PDF with one page per list of lines (Helvetica, top to bottom)."""
    n = len(page_lines)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode(),
    ]
    font = 3 + 2 * n
    for i, lines in enumerate(page_lines):
        ops = (
            b"BT /F1 11 Tf 72 720 Td 14 TL "
            + b" ".join(
                b"("
                + ln.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")
                + b") '"
                for ln in lines
            )
            + b" ET"
        )
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(f"<< /Length {len(ops)} >>\nstream\n".encode() + ops + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return _pdf(objects)


def _image_pdf() -> bytes:
    ops = b"0.5 g 72 72 468 648 re f"
    return _pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        f"<< /Length {len(ops)} >>\nstream\n".encode() + ops + b"\nendstream",
    ])  # fmt: skip


def _companyfacts(val: str = "100") -> str:
    row = {"start": "2020-01-01", "end": "2020-12-31", "val": 0, "accn": "0000000001-21-000001",
           "fy": 2020, "fp": "FY", "form": "10-K", "filed": "2021-02-01"}  # fmt: skip
    units = {"USD": [row]}
    doc = {"cik": 42, "entityName": "Tiny Co", "facts": {"us-gaap": {"Revenues": {"units": units}}}}
    return json.dumps(doc).replace('"val": 0', f'"val": {val}')


_XBRL_HEAD = (
    '<?xml version="1.0"?>\n<xbrl xmlns="http://www.xbrl.org/2003/instance" '
    'xmlns:g="http://fasb.org/us-gaap/2024" xmlns:dei="http://xbrl.sec.gov/dei/2024" '
    'xmlns:iso4217="http://www.xbrl.org/2003/iso4217">\n'
    '<context id="c"><entity><identifier scheme="http://www.sec.gov/CIK">42</identifier></entity>'
    "<period><startDate>2020-01-01</startDate><endDate>2020-12-31</endDate></period></context>\n"
    '<unit id="u"><measure>iso4217:USD</measure></unit>\n'
    '<dei:DocumentType contextRef="c">10-K</dei:DocumentType>\n'
)


def _xbrl(fact: str) -> str:
    return _XBRL_HEAD + fact + "\n</xbrl>\n"


def _ixbrl(attrs: str, value: str = "1,234") -> str:
    return (
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL" '
        'xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12" '
        'xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:us-gaap="http://fasb.org/us-gaap/2024" '
        'xmlns:dei="http://xbrl.sec.gov/dei/2024" xmlns:iso4217="http://www.xbrl.org/2003/iso4217">'
        '<body><div style="display:none"><ix:header><ix:hidden>'
        '<ix:nonNumeric name="dei:DocumentType" contextRef="c">10-K</ix:nonNumeric></ix:hidden>'
        '<ix:resources><xbrli:context id="c"><xbrli:entity><xbrli:identifier '
        'scheme="http://www.sec.gov/CIK">42</xbrli:identifier></xbrli:entity><xbrli:period>'
        "<xbrli:startDate>2020-01-01</xbrli:startDate><xbrli:endDate>2020-12-31</xbrli:endDate>"
        '</xbrli:period></xbrli:context><xbrli:unit id="u"><xbrli:measure>iso4217:USD'
        "</xbrli:measure></xbrli:unit></ix:resources></ix:header></div>"
        '<p>Revenue <ix:nonFraction name="us-gaap:Revenues" contextRef="c" unitRef="u" '
        f'format="ixt:num-dot-decimal" {attrs}>{value}</ix:nonFraction></p></body></html>'
    )


def _sgml(header: str, body: str, html: bool = False) -> str:
    text = f"<html><body>{body}</body></html>" if html else body
    return (
        f"<SEC-DOCUMENT>\n<SEC-HEADER>\n{header}CONFORMED SUBMISSION TYPE:\t10-K\n</SEC-HEADER>\n"
        f"<DOCUMENT>\n<TYPE>10-K\n<TEXT>\n{text}\n</TEXT>\n</DOCUMENT>\n</SEC-DOCUMENT>\n"
    )


def _paged_html(para: Callable[[int, str], str]) -> str:
    brk = '<div style="page-break-after:always"></div>'
    return (
        "<html><body>"
        + "".join(f"<p>{para(i, w)}</p>{brk}" for i, w in enumerate(GREEK))
        + "</body></html>"
    )


_OOXML_CT = "http://schemas.openxmlformats.org/package/2006/content-types"
_OOXML_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_OFFICE_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
_WML = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_SML = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _package(parts: dict[str, str]) -> bytes:
    """A ZIP package of ``parts`` (name → XML), written deterministically (fixed dates)."""
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, xml in parts.items():
            zf.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), xml.encode())
    return buf.getvalue()


def _docx(body: str, doctype: str = "") -> bytes:
    """A minimal Word package whose body is ``body`` (WordprocessingML)."""
    main = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
    return _package({
        "[Content_Types].xml": f'<?xml version="1.0"?><Types xmlns="{_OOXML_CT}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="{main}"/></Types>',
        "_rels/.rels": f'<?xml version="1.0"?><Relationships xmlns="{_OOXML_REL}"><Relationship Id="rId1" Type="{_OFFICE_DOC}" Target="word/document.xml"/></Relationships>',
        "word/document.xml": f'<?xml version="1.0"?>{doctype}<w:document xmlns:w="{_WML}"><w:body>{body}</w:body></w:document>',
    })  # fmt: skip


def _xlsx(rows: str) -> bytes:
    """A minimal Excel package of one sheet whose ``<sheetData>`` holds ``rows``."""
    ct = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    return _package({
        "[Content_Types].xml": f'<?xml version="1.0"?><Types xmlns="{_OOXML_CT}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="{ct}.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="{ct}.worksheet+xml"/></Types>',
        "_rels/.rels": f'<?xml version="1.0"?><Relationships xmlns="{_OOXML_REL}"><Relationship Id="rId1" Type="{_OFFICE_DOC}" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<?xml version="1.0"?><workbook xmlns="{_SML}" xmlns:r="{_R}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<?xml version="1.0"?><Relationships xmlns="{_OOXML_REL}"><Relationship Id="rId1" Type="{_R}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": f'<?xml version="1.0"?><worksheet xmlns="{_SML}"><sheetData>{rows}</sheetData></worksheet>',
    })  # fmt: skip


def _cells(*values: str) -> str:
    return "".join(f'<c t="inlineStr"><is><t>{v}</t></is></c>' for v in values)


def corpus() -> Iterator[tuple[str, bytes]]:
    """(file name, bytes) of every file of the corpus."""
    md = "# Results\n\n## Revenue\n\nRevenue grew 5 % to 1,234 million.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    yield "ok.md", md.encode()
    yield "empty.md", b""
    yield "spaces.md", b"  \n\t\n"
    yield "bom_only.md", b"\xef\xbb\xbf"
    yield "latin1.md", "# Año\n\nInformación".encode("latin-1")
    yield "cut_utf8.md", "# Año\n\nIngresos de 5 €".encode()[:-1]
    yield "nul.md", b"# T\n\nText\x00with NUL.\n"
    yield "lone_cr.md", b"# Title\r\rFirst.\r\r## Sub\r\rSecond.\r"
    yield "crlf_bom.md", b"\xef\xbb\xbf# T\r\n\r\nText.\r\n"
    yield "heading_spaces.md", ("# a" + " " * 160_000 + "b\n\nText.\n").encode()
    yield "footnote_refs.md", ("[^1]: A note.\n\nText " + "[^" * 100_000).encode()
    yield "delim_spaces.md", ("| a | b |\n|-" + " " * 100_000 + "x\n").encode()
    yield "long_heading.md", ("# Title\n\n# " + "cover block " * 4000 + "\n\nBody.\n").encode()
    yield "only_headings.md", b"# A\n\n## B\n\n### C\n"
    yield "unclosed_fence.md", b"# T\n\n```\ncode\nmore code\n"
    yield "table_only.md", ("| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 2000).encode()
    yield "binary.md", bytes(range(256)) * 16
    yield "huge_line.md", ("word " * 200_000).encode()
    yield "blank_lines.md", b"\n" * 200_000 + b"x"
    yield (
        "html_as.txt",
        b"<!DOCTYPE html><html><body><h1>Results</h1><p>Revenue grew.</p></body></html>",
    )
    yield "plain.txt", b"Just a plain text file.\n\nTwo paragraphs.\n"
    yield "ok.htm", b"<html><body><p><b>Item 7. MD&amp;A</b></p><p>Revenue grew.</p></body></html>"
    yield "empty.htm", b""
    yield "no_text.htm", b"<html><body><script>x()</script><style>p{}</style></body></html>"
    yield (
        "lying_utf16.htm",
        b'<html><head><meta charset="utf-16"></head><body><p>Plain text.</p></body></html>',
    )
    yield (
        "lying_cp037.htm",
        b'<html><head><meta charset="cp037"></head><body><p>Caf\xe9 text.</p></body></html>',
    )
    yield "cut_utf8.htm", "<html><body><p>Año fiscal: ingresos de 5 €".encode()[:-1]
    yield "cp1252.htm", b"<html><body><p>\x93Quoted\x94 \x80 5 caf\xe9</p></body></html>"
    yield "utf16_bom.htm", "\ufeff<html><body><p>UTF-16 text.</p></body></html>".encode("utf-16-le")
    yield "nul.htm", b"<html>\x00<body>x</body></html>"
    # Files read cleanly by another encoding than the declared one (:data:`CLEAN_DECODINGS`).
    page = "<html><body><p>\u201cCafé\u201d: año fiscal, 5 €</p></body></html>"
    meta = '<html><head><meta charset="{}"></head>'
    yield "latin1_as_utf8.htm", page.replace("<html>", meta.format("utf-8")).encode("cp1252")
    yield "latin1_as_utf16.htm", page.replace("<html>", meta.format("utf-16")).encode("cp1252")
    yield "utf8_as_big5.htm", page.replace("<html>", meta.format("big5")).encode()
    yield "utf16_be_bom.htm", ("\ufeff" + page).encode("utf-16-be")
    yield "utf16_le_nobom.htm", page.encode("utf-16-le")
    yield "utf16_be_nobom.htm", page.encode("utf-16-be")
    yield "deep_divs.htm", b"<div>" * 40_000 + b"text"
    yield "deep_spans.htm", b"<span>" * 40_000 + b"text"
    yield "unclosed_tags.htm", b"<table><tr><td>" * 5_000 + b"x"
    yield (
        "page_breaks.htm",
        _paged_html(lambda i, w: f"Revenue grew {i} percent in {2000 + i}.").encode(),
    )
    yield "page_breaks_words.htm", _paged_html(lambda i, w: w).encode()
    yield (
        "entities.htm",
        b'<!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><html><body><p>&b;&b;</p></body></html>',
    )
    yield "remote.htm", b'<html><body><img src="http://127.0.0.1:9/x"><p>Text.</p></body></html>'
    yield (
        "sec_header_open.txt",
        ("<SEC-DOCUMENT>\n" + "<SEC-HEADER>" * 40_000 + "\n<TEXT>\nx\n").encode(),
    )
    yield "sec_header_blank.txt", _sgml("\n" * 120_000, "<p>Body text.</p>", html=True).encode()
    yield (
        "sgml_plain.txt",
        _sgml(
            "COMPANY CONFORMED NAME:\tACME CORP\n", "ITEM 1. BUSINESS\n\nWe sell.\n<PAGE>\n2\n"
        ).encode(),
    )
    yield (
        "sgml_no_text.txt",
        b"<SEC-DOCUMENT>\n<SEC-HEADER>\n</SEC-HEADER>\n<DOCUMENT>\n<TYPE>10-K\n",
    )
    yield "sgml_type_spaces.txt", ("<DOCUMENT>\n<TYPE>" + " " * 100_000 + "<TEXT>\nbody\n").encode()
    yield (
        "ok.pdf",
        _text_pdf(
            [
                ["Acme annual report", f"Body line {w} of the page.", str(i + 1)]
                for i, w in enumerate(GREEK)
            ]
        ),
    )
    yield (
        "digits.pdf",
        _text_pdf([[f"Net sales rose {3 * i + 1} percent in Q{i % 4 + 1}."] for i in range(8)]),
    )
    yield (
        "civil.pdf",
        _text_pdf(
            [["Body text of the page.", w] for w in ["11", "12", "Civil", "14", "2019", "16"]]
        ),
    )
    yield "image_only.pdf", _image_pdf()
    yield "truncated.pdf", _text_pdf([["Some text."]])[:200]
    yield "not_a.pdf", b"%PDF-1.4 this is not a pdf"
    yield "zero.pdf", b""
    yield "random.pdf", zlib.compress(bytes(range(256)) * 64)
    ok_body = '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Results</w:t></w:r></w:p><w:p><w:r><w:t>Revenue grew 5 %.</w:t></w:r></w:p>'
    yield "ok.docx", _docx(ok_body)
    yield "truncated.docx", _docx(ok_body)[:150]
    yield "not_word.docx", _package({"hello.txt": "a zip, but no Word document in it"})
    yield "encrypted.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 1000
    yield (
        "laughs.docx",
        _docx(
            "<w:p><w:r><w:t>&b;</w:t></w:r></w:p>",
            '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>',
        ),
    )
    yield "bad_xml.docx", _docx("<w:p><w:r><w:t>unclosed")
    yield (
        "wide_span.docx",
        _docx(
            '<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="999999999"/></w:tcPr><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>b</w:t></w:r></w:p></w:tc></w:tr></w:tbl>'
        ),
    )
    yield (
        "ok.xlsx",
        _xlsx(
            f'<row r="1">{_cells("Item", "2024")}</row><row r="2">{_cells("Revenue", "1,234")}</row>'
        ),
    )
    yield "truncated.xlsx", _xlsx(f'<row r="1">{_cells("a", "b")}</row>')[:200]
    yield "not_excel.xlsx", _package({"hello.txt": "a zip, but no workbook in it"})
    yield "encrypted.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 1000
    yield (
        "far_cell.xlsx",
        _xlsx('<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>far</t></is></c></row>'),
    )
    yield "empty_sheet.xlsx", _xlsx("")
    yield "ok.json", _companyfacts().encode()
    yield "overflow.json", _companyfacts("1E+999999999").encode()
    yield "huge_int.json", _companyfacts("1" * 5000).encode()
    yield "precise.json", _companyfacts("1234567890123456789012345678901234.5").encode()
    yield "deep.json", b"[" * 50_000 + b"]" * 50_000
    yield "dup_keys.json", _companyfacts().replace('"cik": 42', '"cik": 42, "cik": 43').encode()
    yield "bad.json", b'{"cik": 42, "facts": '
    yield "not_utf8.json", b'{"cik": 42, "entityName": "\xff"}'
    yield "wrong_shape.json", b"[1, 2, 3]"
    yield "nan.json", _companyfacts("NaN").encode()
    yield "lone_surrogate.json", _companyfacts().replace("Tiny Co", "Tiny \\udc00 Co").encode()
    yield (
        "ok.xml",
        _xbrl('<g:Revenues contextRef="c" unitRef="u" decimals="-6">1000000</g:Revenues>').encode(),
    )
    yield (
        "decimals_big.xml",
        _xbrl(
            '<g:Revenues contextRef="c" unitRef="u" decimals="1000000000">1</g:Revenues>'
        ).encode(),
    )
    yield (
        "value_overflow.xml",
        _xbrl(
            '<g:Revenues contextRef="c" unitRef="u" decimals="0">1E+999999999</g:Revenues>'
        ).encode(),
    )
    yield "billion_laughs.xml", (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
                                 b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><x>&b;</x>')  # fmt: skip
    yield "truncated.xml", _xbrl("")[:300].encode()
    yield "ok_ix.htm", _ixbrl('decimals="-3" scale="3"').encode()
    yield "scale_big_ix.htm", _ixbrl('decimals="0" scale="1000000000"').encode()
    yield "scale_long_ix.htm", _ixbrl('decimals="0" scale="' + "9" * 5000 + '"').encode()
    yield "decimals_neg_ix.htm", _ixbrl('decimals="-1000000000" scale="0"').encode()
    # Unicode digits that str.isdigit() accepts and int() refuses (superscripts, subscripts).
    yield "cik_subscript_ix.htm", _ixbrl('decimals="0"').replace(">42<", ">20\u2082<").encode()
    yield "cik_superscript.json", _companyfacts().replace('"cik": 42', '"cik": "4\u00b2"').encode()
    yield "cik_superscript.xml", _xbrl("").replace(">42<", ">4\u00b2<").encode()
    yield (
        "superscripts.htm",
        '<html><body><ix:nonNumeric name="dei:EntityCentralIndexKey">4\u00b2</ix:nonNumeric>'
        '<table><tr><td colspan="\u00b2" rowspan="\u2083">a</td><td>b</td></tr></table>'
        "<p>Revenue grew.</p></body></html>".encode(),
    )


#: Corpus files whose bytes one common encoding reads without replacing any: no U+FFFD in
#: their text (another encoding than the declared one is said in a warning).
CLEAN_DECODINGS = (
    "latin1_as_utf8.htm", "latin1_as_utf16.htm", "utf8_as_big5.htm", "utf16_bom.htm",
    "utf16_be_bom.htm", "utf16_le_nobom.htm", "utf16_be_nobom.htm", "cp1252.htm",
)  # fmt: skip
FACT_SUFFIXES = frozenset({".json", ".xml"})


def write_corpus(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in corpus():
        p = folder / name
        p.write_bytes(data)
        paths.append(p)
    return paths


@dataclass
class Outcome:
    path: Path
    command: str
    exit_code: int
    output: str
    seconds: float
    problems: list[str] = field(default_factory=list)


class Hang(Exception):
    """The per-file time limit ran out."""


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def expire(*_: object) -> None:
        raise Hang(f"over {seconds}s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _commands(path: Path, work: Path) -> list[tuple[str, list[str]]]:
    name = path.name.replace(".", "_")
    if path.suffix in FACT_SUFFIXES or path.name.endswith("_ix.htm"):
        given = (
            []
            if path.suffix == ".json"
            else ["--accn", "0000000001-21-000001", "--filed", "2021-02-01"]
        )
        return [
            ("facts load", ["facts", "load", str(path), "--db", str(work / f"{name}.db"), *given])
        ]
    out = [
        (f"chunk {s}", ["chunk", str(path), "-o", str(work / f"{name}.{s}.jsonl"), "--strategy", s])
        for s in ("fixed", "recursive", "structure", "bytitle")
    ]
    # --no-splade: what is hostile here is the file's shape, which parsing meets; SPLADE's
    # document weights cost time in proportion to the text (~50 s of CPU a megabyte, 512-piece
    # windows: linear by construction, tests/test_splade_impacts.py), not a shape's.
    index = ["index", str(path), "-o", str(work / f"{name}.idx"), "--no-splade"]
    out.append(("index", index))
    out.append(("view", ["view", str(path), "-o", str(work / f"{name}.html")]))
    return out


def _problems(o: Outcome) -> list[str]:
    found = []
    if "Traceback" in o.output:
        found.append("a traceback")
    if o.exit_code not in (0, 1, 2):
        found.append(f"exit {o.exit_code}")
    errors = [ln for ln in o.output.splitlines() if ln.startswith("error:")]
    if o.exit_code == 2 and not errors:
        found.append("exit 2 without an error line")
    for ln in errors:
        if o.path.name not in ln and o.command != "view":
            found.append(f"error does not name the file: {ln}")
    return found


def _lost_text(path: Path) -> str | None:
    """Where text of a document that loaded is in no chunk (None when nothing is lost)."""
    from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
    from finchunk.errors import FinchunkError
    from finchunk.model import ElementKind, merge_spans
    from finchunk.parse import load

    try:
        doc = load(path)
    except FinchunkError:
        return None
    skipped = [
        e.span for e in doc.elements if e.kind in (ElementKind.HEADING, ElementKind.FURNITURE)
    ]
    for chunker in (Fixed(), Recursive(), Structure(), ByTitle()):
        mask = bytearray(len(doc.text))
        for s, e in merge_spans([sp for c in chunker.chunk(doc) for sp in c.spans] + skipped):
            mask[s:e] = b"\x01" * (e - s)
        lost = [
            i
            for i, ch in enumerate(doc.text)
            if not mask[i] and not ch.isspace() and ch != "\ufeff"
        ]
        if lost:
            return f"{chunker.name} loses {len(lost)} chars at {lost[0]}: {doc.text[lost[0] : lost[0] + 30]!r}"
    return None


def run_file(path: Path, work: Path, limit: int = 30) -> list[Outcome]:
    from finchunk.cli import app

    runner = CliRunner()
    outcomes = []
    for command, args in _commands(path, work):
        t = time.perf_counter()
        try:
            with time_limit(limit):
                result = runner.invoke(app, args)
            code, output = result.exit_code, result.output
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                output += f"\nTraceback: {type(result.exception).__name__}: {result.exception}"
        except Hang as exc:
            code, output = -1, f"hang: {exc}"
        o = Outcome(path, command, code, output, time.perf_counter() - t)
        o.problems = _problems(o) + (["hang"] if code == -1 else [])
        outcomes.append(o)
    if any(o.exit_code == 0 and o.command.startswith("chunk") for o in outcomes):
        lost = _lost_text(path)
        if lost:
            outcomes[0].problems.append(lost)
    return outcomes


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "corpus"
    work = folder.parent / "work"
    work.mkdir(parents=True, exist_ok=True)
    paths = write_corpus(folder)
    slowest: tuple[float, str] = (0.0, "")
    bad = 0
    for p in paths:
        t = time.perf_counter()
        outcomes = run_file(p, work)
        took = time.perf_counter() - t
        slowest = max(slowest, (took, p.name))
        codes = " ".join(f"{o.command.split()[-1]}={o.exit_code}" for o in outcomes)
        problems = [f"{o.command}: {x}" for o in outcomes for x in o.problems]
        bad += bool(problems)
        print(f"{p.name:28} {took:6.2f}s {codes}" + (f"  PROBLEMS {problems}" if problems else ""))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / _KB
    print(f"{len(paths)} files, {bad} with problems; slowest {slowest[1]} {slowest[0]:.1f}s; "
          f"peak memory {peak:.0f} MB")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
