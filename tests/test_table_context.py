"""Tables that keep their meaning: lead-in and caption in the table's chunk, long tables as
row groups carrying the column-header rows, per-source-kind sizes, index representations."""

from __future__ import annotations

import pytest

from finchunk.chunk import Structure, make_chunker
from finchunk.chunk.source import STRUCTURE_SIZES, SourceKind, source_kind
from finchunk.chunk.tablectx import is_caption, is_lead_in
from finchunk.errors import InputError
from finchunk.evaluate.represent import index_text, naive_text
from finchunk.model import ChunkKind, Document, Element, ElementKind, merge_spans
from finchunk.parse.markdown import parse_markdown

MD = """# Informe

## Cifras clave

El grupo cerró el ejercicio con una posición sólida en todos sus negocios y mercados.

La siguiente tabla presenta las principales magnitudes del ejercicio:

Millones de euros

| Concepto | 2024 | 2023 |
| --- | ---: | ---: |
| Ventas | 10.978,1 | 10.731,3 |
| EBITDA | 1.427,2 | 1.470,2 |

La tasa impositiva efectiva se situó en el 23,3 %.
"""


def _table_chunk(doc: Document, chunker: Structure):
    tables = [c for c in chunker.chunk(doc) if c.kind is ChunkKind.TABLE]
    assert len(tables) == 1
    return tables[0]


def test_markdown_lead_in_and_caption_join_the_table_as_one_span() -> None:
    doc = parse_markdown(MD, "d")
    c = _table_chunk(doc, Structure(size=800))
    assert c.body.startswith("La siguiente tabla presenta")
    assert "Millones de euros" in c.body and c.body.endswith("| EBITDA | 1.427,2 | 1.470,2 |")
    assert len(c.spans) == 1  # contiguous source: nothing copied
    others = [x for x in Structure(size=800).chunk(doc) if x.id != c.id]
    assert not any("La siguiente tabla" in x.body for x in others)
    assert any(x.body.startswith("El grupo cerró") for x in others)


def test_without_table_context_the_table_stands_alone() -> None:
    doc = parse_markdown(MD, "d")
    c = _table_chunk(doc, Structure(size=800, table_context=False))
    assert c.body.startswith("| Concepto")


def _doc(parts: list[tuple[ElementKind, str]], section=("Item 7",)) -> Document:
    """A document from (kind, text) blocks separated by blank lines, as the HTML parser
    writes them."""
    text, elements, pos = "", [], 0
    for kind, body in parts:
        if text:
            text += "\n\n"
            pos += 2
        elements.append(Element(kind, pos, pos + len(body), section=section))
        text += body
        pos += len(body)
    return Document("f", text, title="Filing", elements=tuple(elements), source="f.htm")


TABLE = "|  | 2024 | 2023 |\n| --- | --- | --- |\n| Americas | $167,045 | $162,560 |"


def test_filing_lead_in_ending_with_colon_and_units_line_are_attached() -> None:
    doc = _doc(
        [
            (ElementKind.TEXT, "Net sales grew in every segment during the year."),
            (ElementKind.TEXT, "Net sales by reportable segment were as follows:"),
            (ElementKind.TEXT, "(in millions, except per share data)"),
            (ElementKind.TABLE, TABLE),
        ]
    )
    c = _table_chunk(doc, Structure(size=800))
    assert c.body.startswith("Net sales by reportable segment were as follows:")
    assert "(in millions" in c.body


def test_a_plain_sentence_or_another_section_is_not_a_lead_in() -> None:
    long_para = "Revenue grew. " * 60  # a long paragraph that happens to precede a table
    doc = _doc([(ElementKind.TEXT, long_para.strip()), (ElementKind.TABLE, TABLE)])
    assert _table_chunk(doc, Structure(size=2000)).body.startswith("|")
    doc = Document(
        "f",
        "The following table shows sales:\n\n" + TABLE,
        elements=(
            Element(ElementKind.TEXT, 0, 32, section=("A",)),
            Element(ElementKind.TABLE, 34, 34 + len(TABLE), section=("B",)),
        ),
    )
    assert _table_chunk(doc, Structure(size=800)).body.startswith("|")


@pytest.mark.parametrize(
    ("text", "lead", "caption"),
    [
        ("The following table presents revenue by segment.", True, False),
        ("La tabla siguiente resume su contribución en 2022.", True, False),
        ("Millones de euros", False, True),
        ("(in thousands, except per share data)", False, True),
        ("Revenue grew eight percent in the year.", False, False),
    ],
)
def test_lead_in_and_caption_rules(text: str, lead: bool, caption: bool) -> None:
    assert is_lead_in(text) is lead
    assert is_caption(text) is caption


ROWS = "\n".join(f"| Línea {i:02d} | {i},0 | {i + 1},5 |" for i in range(40))
LONG = f"""# Informe

## Balance

Las partidas del balance se detallan a continuación:

| Partida | 2024 | 2023 |
| --- | ---: | ---: |
{ROWS}
"""


def test_long_table_splits_into_row_groups_carrying_the_header_rows() -> None:
    doc = parse_markdown(LONG, "d")
    chunks = Structure(size=300, split_tables=True).chunk(doc)
    tables = [c for c in chunks if c.kind is ChunkKind.TABLE]
    assert len(tables) > 3
    head = tables[1].spans[0]
    assert doc.slice(head).startswith("Las partidas") and doc.slice(head).endswith("| ---: |")
    assert tables[0].spans[0][0] == head[0] and len(tables[0].spans) == 1
    rows_seen: list[str] = []
    for c in tables:
        assert merge_spans(c.spans) == sorted(c.spans)  # disjoint
        assert sum(e - s for s, e in c.spans) <= 300
        rows_seen += [ln for ln in c.body.split("\n") if ln.startswith("| Línea")]
        if c is not tables[0]:
            assert c.spans[0] == head and c.body.startswith(doc.slice(head))
    assert rows_seen == [ln for ln in ROWS.split("\n")]  # every row once, in order


def test_row_groups_carry_the_notes_their_rows_cite() -> None:
    text = LONG.replace("| Línea 35 | 35,0 |", "| Línea 35¹ | 35,0 |") + "\n¹ Incluye ajustes.\n"
    doc = parse_markdown(text, "d")
    tables = [c for c in Structure(size=300, split_tables=True).chunk(doc) if c.kind == "table"]
    with_note = [c for c in tables if "Incluye ajustes" in c.body]
    assert len(with_note) == 1 and "Línea 35¹" in with_note[0].body


def test_whole_tables_by_default() -> None:
    doc = parse_markdown(LONG, "d")
    assert len([c for c in Structure(size=300).chunk(doc) if c.kind == "table"]) == 1


def test_source_kinds_and_their_sizes() -> None:
    md = parse_markdown("# T\n\nTexto.", "m")
    assert source_kind(md) is SourceKind.MARKDOWN
    assert source_kind(Document("p", "x", metadata={"format": "pdf"})) is SourceKind.PDF
    assert source_kind(Document("h", "x", source="/a/b.htm")) is SourceKind.SEC
    assert source_kind(Document("s", "x", metadata={"cik": "320193"})) is SourceKind.SEC
    chunker = make_chunker("structure")
    assert isinstance(chunker, Structure) and chunker.size is None
    for kind, doc in [
        (SourceKind.MARKDOWN, md),
        (SourceKind.SEC, Document("h", "x", source="b.html")),
    ]:
        assert chunker.size_for(doc) == STRUCTURE_SIZES[kind]
    assert Structure(size=123).size_for(md) == 123
    with pytest.raises(InputError):
        Structure(size=0)


def test_default_size_follows_the_source_kind() -> None:
    para = "Una frase corta del informe anual. " * 8
    text = "# T\n\n" + "\n\n".join(para.strip() for _ in range(12))
    md = parse_markdown(text, "m")
    pdf = parse_markdown(text, "p", metadata={"format": "pdf"})
    n = STRUCTURE_SIZES
    for doc, kind in [(md, SourceKind.MARKDOWN), (pdf, SourceKind.PDF)]:
        chunks = Structure().chunk(doc)
        assert max(sum(e - s for s, e in c.spans) for c in chunks) <= n[kind]
    if n[SourceKind.MARKDOWN] != n[SourceKind.PDF]:
        assert len(Structure().chunk(md)) != len(Structure().chunk(pdf))


def test_naive_representation() -> None:
    doc = parse_markdown(MD, "d", title="Informe")
    chunks = Structure(size=800, header=True).chunk(doc)
    table = next(c for c in chunks if c.kind is ChunkKind.TABLE)
    rep = naive_text(table)
    assert rep.startswith(table.header + "\n")
    assert (
        "Millones de euros" in rep and "| Concepto | 2024 | 2023 |" in rep and "Ventas" not in rep
    )
    text = next(c for c in chunks if c.body.startswith("El grupo"))
    assert naive_text(text) == text.header + "\n" + text.body
    assert index_text("text") is None and index_text("naive") is naive_text
    with pytest.raises(InputError):
        index_text("summary")
