"""Small PDFs written with fpdf2 for the PDF parser and FinanceBench tests."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

RUNNING_HEADER = "ACME Corp - Annual Report 2023"

TABLE_ROWS = [
    ("(Millions) 2023 2022 2021", True),
    ("Net sales $ 5,363 $ 4,869 $ 5,058", False),
    ("Cost of sales (3,120) (2,950) (2,801)", False),
    ("Operating expenses", True),
    ("Selling, general and administrative (1) 1,012 987 954", False),
    ("Research and development 402 398 377", False),
    ("Operating income $ 829 $ 534 $ 926", False),
]


def _page(pdf: FPDF, number: int) -> None:
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    pdf.cell(0, 6, RUNNING_HEADER, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)


def _footer(pdf: FPDF, number: int) -> None:
    pdf.set_y(-20)
    pdf.set_font("Helvetica", size=9)
    pdf.cell(0, 6, str(number), align="C")


def _line(pdf: FPDF, text: str, *, bold: bool = False, size: int = 10) -> None:
    pdf.set_font("Helvetica", style="B" if bold else "", size=size)
    pdf.cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")


def _paragraph(pdf: FPDF, lines: list[str]) -> None:
    for t in lines:
        _line(pdf, t)
    pdf.ln(3)


def write_report(path: Path) -> Path:
    """A three-page annual report: headings, paragraphs, a list, a table with a note."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    _page(pdf, 1)
    _line(pdf, "PART I", bold=True, size=12)
    _line(pdf, "Item 1. Business", bold=True)
    _paragraph(
        pdf,
        [
            "ACME Corp makes anvils, rockets and other equipment for desert operations in more",
            "than forty countries, and sells them through its own stores and online channels.",
            "The company was founded in 1949.",
        ],
    )
    _line(pdf, "Our principal markets include:")
    for item in (
        "Desert logistics and road maintenance",
        "Aerospace hobbyists",
        "Industrial customers",
    ):
        _line(pdf, f"\u00b7 {item}")
    pdf.ln(3)
    _paragraph(
        pdf,
        [
            "Employees numbered 1,250 at year end, most of them in manufacturing",
            "plants located in Arizona and New Mexico.",
        ],
    )
    _footer(pdf, 1)
    _page(pdf, 2)
    _line(pdf, "PART II", bold=True, size=12)
    _line(pdf, "Item 7. Management's Discussion and Analysis", bold=True)
    _paragraph(
        pdf,
        [
            "Net sales grew ten percent in 2023, driven by rocket skates and a strong season for",
            "anvils. Gross margin improved as freight costs eased during the second half.",
        ],
    )
    _line(pdf, "Consolidated Statement of Income", bold=True)
    for text, bold in TABLE_ROWS:
        _line(pdf, text, bold=bold)
    _line(pdf, "(1) Includes restructuring charges of $12 million in 2023.", size=8)
    pdf.ln(3)
    _paragraph(pdf, ["Liquidity remained strong, with cash of $2.8 billion at year end."])
    _footer(pdf, 2)
    _page(pdf, 3)
    _line(pdf, "Item 8. Financial Statements", bold=True)
    _paragraph(
        pdf,
        [
            "The financial statements follow the notes on risk factors and are audited",
            "by an independent registered public accounting firm.",
        ],
    )
    _footer(pdf, 3)
    pdf.output(str(path))
    return path


def write_blank(path: Path) -> Path:
    """A PDF with a drawing and no text layer (like a scanned page)."""
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 50, style="F")
    pdf.output(str(path))
    return path


def write_encrypted(path: Path) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(text="confidential")
    pdf.set_encryption(owner_password="owner", user_password="user")
    pdf.output(str(path))
    return path


def write_simple(path: Path, pages: list[list[str]]) -> Path:
    """One line of text per entry, one PDF page per list."""
    pdf = FPDF()
    pdf.set_auto_page_break(False)
    for lines in pages:
        pdf.add_page()
        for t in lines:
            _line(pdf, t)
    pdf.output(str(path))
    return path


def write_scanned(
    path: Path,
    pages: list[list[str]],
    dpi: int = 200,
    fonts: tuple[str, ...] = ("Helvetica",),
    size: float = 11,
) -> Path:
    """An image-only PDF, like a scanner's: each page of ``pages`` (lines of text, ``size``
    points, in ``fonts`` page by page, in turn) is written with fpdf2, rendered to an image
    with pdfium at ``dpi``, and the images alone make the pages of the result (no text
    layer)."""
    import pypdfium2 as pdfium

    text_pdf = FPDF()
    text_pdf.set_auto_page_break(False)
    for n, lines in enumerate(pages):
        text_pdf.add_page()
        text_pdf.set_font(fonts[n % len(fonts)], size=size)
        for line in lines:
            text_pdf.cell(0, size * 0.64, line, new_x="LMARGIN", new_y="NEXT")
    source = pdfium.PdfDocument(bytes(text_pdf.output()))
    scan = FPDF()
    try:
        for i in range(len(source)):
            image = source[i].render(scale=dpi / 72).to_pil().convert("L")
            scan.add_page()
            scan.image(image, x=0, y=0, w=scan.w, h=scan.h)
    finally:
        source.close()
    scan.output(str(path))
    return path


GLOSSY_FOOTER = "Annual Report 2023 | Example Group plc"


def _at(pdf: FPDF, x: float, w: float, text: str, *, bold: bool = False, size: int = 10) -> None:
    """One cell at ``x`` (mm), right-aligned in ``w``; the line does not advance."""
    pdf.set_font("Helvetica", style="B" if bold else "", size=size)
    pdf.set_x(x)
    pdf.cell(w, 5, text, align="R" if w else "", new_x="RIGHT", new_y="TOP")


def _row(pdf: FPDF, label: str, cells: list[str], *, bold: bool = False) -> None:
    pdf.set_font("Helvetica", style="B" if bold else "", size=10)
    pdf.set_x(15)
    pdf.cell(85, 5, label, new_x="RIGHT", new_y="TOP")
    for i, c in enumerate(cells):
        _at(pdf, 110 + 30 * i, 28, c, bold=bold)
    pdf.ln(5)


GLOSSY_BODY = [
    "Example Group designs and sells industrial valves and pumps in forty countries, and its",
    "service business keeps them running for utilities, refineries and water companies.",
    "Revenue grew in every region during the year, helped by price increases and volumes.",
]


def write_glossy(path: Path) -> Path:
    """An annual report set in type sizes (non-bold page titles, bold sub-headings, numbered
    sections), with a table whose column headers sit over its number columns in two stacked
    rows, a note heading right below a table, a cover-table row and a running footer."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)

    def footer(n: int) -> None:
        pdf.set_y(-15)
        pdf.set_font("Helvetica", size=8)
        pdf.cell(0, 5, f"{GLOSSY_FOOTER} | {n}", align="C")

    pdf.add_page()
    pdf.set_y(20)
    _line(pdf, "Strategic Report", size=24)
    pdf.ln(2)
    _line(pdf, "Our markets", size=16)
    _paragraph(pdf, GLOSSY_BODY)
    _line(pdf, "Demand in 2023", bold=True)
    _line(pdf, "Regional outlook", bold=True)
    _paragraph(pdf, GLOSSY_BODY)
    _line(pdf, "1 Overview", bold=True)
    _paragraph(pdf, GLOSSY_BODY[:2])
    _line(pdf, "1.2 Revenue recognition", bold=True)
    _paragraph(pdf, GLOSSY_BODY[1:])
    _line(pdf, "Title of each class Trading Symbol Name of each exchange", bold=True)
    _paragraph(pdf, ["Ordinary shares EXG London Stock Exchange"])
    footer(1)

    pdf.add_page()
    pdf.set_y(20)
    _line(pdf, "Financial Review", size=24)
    _paragraph(pdf, GLOSSY_BODY)
    _line(pdf, "Consolidated Statement of Cash Flows", bold=True)
    _at(pdf, 110, 58, "CLASS A", bold=True)
    _at(pdf, 170, 28, "CLASS B", bold=True)
    pdf.ln(5)
    for i, c in enumerate(["2023", "2022", "2023"]):
        _at(pdf, 110 + 30 * i, 28, c, bold=True)
    pdf.ln(5)
    for label, cells in GLOSSY_ROWS:
        _row(pdf, label, cells)
    _line(pdf, "NOTE 9. Income Taxes", bold=True)
    _paragraph(pdf, GLOSSY_BODY[:2])
    footer(2)
    pdf.output(str(path))
    return path


GLOSSY_ROWS = [
    ("Net income", ["1,200", "1,100", "300"]),
    ("Depreciation and amortisation", ["410", "395", "80"]),
    ("Cash from operations", ["1,610", "1,495", "380"]),
]


#: A statement whose columns are products and services, each over two years (stacked
#: header rows), printed as a filing prints it: ``$`` at a column's left edge, numbers
#: right-aligned, a ")" hanging right of the digits, a label wrapped over two lines.
STATEMENT_COLUMNS = ["Products 2023", "Products 2022", "Services 2023", "Services 2022"]
STATEMENT_PAGE_1 = [
    ("Net sales", ["$ 5,363", "$ 4,869", "$ 1,200", "$ 1,100"]),
    ("Cost of sales", ["(3,120)", "(2,950)", "(410)", "(395)"]),
    ("Gross margin", ["2,243", "1,919", "790", "705"]),
    ("Operating expenses:", []),
    (
        "Selling, general and administrative expenses, including|amortization of intangibles",
        ["1,012", "987", "120", "115"],
    ),
    ("Research and development (1)", ["402", "398", "35", "-"]),
    ("Total operating expenses", ["1,414", "1,385", "155", "115"]),
    ("Gross margin percentage", ["41.8 %", "39.4 %", "65.8 %", "64.1 %"]),
]
STATEMENT_PAGE_2 = [
    ("Operating income", ["$ 829", "$ 534", "$ 635", "$ 590"]),
    ("Interest expense", ["(45)", "(50)", "-", "-"]),
    ("Income before income taxes", ["784", "484", "635", "590"]),
    ("Income taxes", ["(165)", "(102)", "(133)", "(124)"]),
    ("Net income", ["$ 619", "$ 382", "$ 502", "$ 466"]),
]


def _statement_header(pdf: FPDF) -> None:
    for i, seg in enumerate(("Products", "Services")):
        pdf.set_font("Helvetica", style="B", size=10)
        pdf.set_x(105 + 48 * i)
        pdf.cell(46, 5, seg, align="C", new_x="RIGHT", new_y="TOP")
    pdf.ln(5)
    for i, year in enumerate(("2023", "2022", "2023", "2022")):
        _at(pdf, 105 + 24 * i, 22, year, bold=True)
    pdf.ln(5)


def _statement_row(pdf: FPDF, label: str, cells: list[str]) -> None:
    *wrapped, label = label.split("|")
    for part in wrapped:  # the label's first lines, numbers on its last (bottom-aligned)
        _line(pdf, part)
    pdf.set_font("Helvetica", size=10)
    pdf.set_x(15)
    pdf.cell(85, 5, label, new_x="RIGHT", new_y="TOP")
    for i, c in enumerate(cells):
        x = 105 + 24 * i
        if c.startswith("$ "):
            _at(pdf, x, 0, "$")
            c = c[2:]
        if c.startswith("(") and i % 2:  # a ")" set apart, right of the digits
            _at(pdf, x, 21, c[:-1])
            _at(pdf, x + 21, 0, ")")
        elif c.endswith(" %"):
            _at(pdf, x, 20, c[:-2])
            _at(pdf, x + 20, 0, "%")
        else:
            _at(pdf, x, 22, c)
    pdf.ln(5)


def write_statement(path: Path) -> Path:
    """Three pages: an income statement with stacked column headers (segment over year)
    that runs on over a page break (its header rows repeated on the second page), a note
    below it, running heads and page numbers."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    _page(pdf, 1)
    _line(pdf, "Item 8. Financial Statements", bold=True)
    _paragraph(pdf, ["The statement below shows the results of both segments for two years."])
    _line(pdf, "Consolidated Statement of Operations", bold=True)
    _line(pdf, "(In millions, except percentages)")
    _statement_header(pdf)
    for label, cells in STATEMENT_PAGE_1:
        _statement_row(pdf, label, cells)
    _footer(pdf, 1)
    _page(pdf, 2)
    _statement_header(pdf)
    for label, cells in STATEMENT_PAGE_2:
        _statement_row(pdf, label, cells)
    _line(pdf, "(1) Includes a charge of $12 million for a cancelled project in 2023.", size=8)
    pdf.ln(3)
    _paragraph(pdf, ["Margins rose in both segments as freight costs eased."])
    _footer(pdf, 2)
    _page(pdf, 3)
    _line(pdf, "Item 9. Changes in Accountants", bold=True)
    _paragraph(pdf, ["None."])
    _footer(pdf, 3)
    pdf.output(str(path))
    return path
