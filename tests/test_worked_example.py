"""The lesson's worked example on a small Spanish report (tests/data/informe_ejemplo.md):
a key-figures table, notes ¹ and ² right after it, and "Nota 1. Arrendamientos" later."""

from __future__ import annotations

from pathlib import Path

import pytest

from finchunk.chunk import Fixed, Recursive, Structure
from finchunk.evaluate.measures import coverage
from finchunk.model import Document, ElementKind
from finchunk.parse.markdown import parse_markdown_file

DATA = Path(__file__).parent / "data" / "informe_ejemplo.md"


@pytest.fixture(scope="module")
def doc() -> Document:
    return parse_markdown_file(DATA)


def _element(doc: Document, kind: ElementKind, startswith: str):
    return next(
        e for e in doc.elements if e.kind is kind and doc.element_text(e).startswith(startswith)
    )


def test_parser_finds_table_notes_and_citations(doc: Document) -> None:
    table = _element(doc, ElementKind.TABLE, "Millones de euros")
    n1 = _element(doc, ElementKind.NOTE, "¹")
    n2 = _element(doc, ElementKind.NOTE, "²")
    nota1 = _element(doc, ElementKind.NOTE, "Nota 1.")
    assert table.cites == ("1", "2")
    assert (n1.mark, n2.mark, nota1.mark) == ("1", "2", "note:1")
    assert nota1.section[-1] == "3. Notas a los estados financieros"
    # m² is a unit, not a citation of note ².
    plantilla = _element(doc, ElementKind.TEXT, "La plantilla")
    assert plantilla.cites == ()


def test_fixed_windows_cut_the_table(doc: Document) -> None:
    table = _element(doc, ElementKind.TABLE, "Millones de euros")
    chunks = Fixed(size=500, overlap=50).chunk(doc)
    touching = [c for c in chunks if any(s < table.end and e > table.start for s, e in c.spans)]
    assert len(touching) >= 2
    assert all(coverage(table.span, c.spans) < 1.0 for c in touching)


def test_recursive_keeps_the_table_but_separates_note_2(doc: Document) -> None:
    table = _element(doc, ElementKind.TABLE, "Millones de euros")
    n1 = _element(doc, ElementKind.NOTE, "¹")
    n2 = _element(doc, ElementKind.NOTE, "²")
    chunks = Recursive(size=500).chunk(doc)
    holder = next(c for c in chunks if coverage(table.span, c.spans) == 1.0)
    assert coverage(n1.span, holder.spans) == 1.0
    assert coverage(n2.span, holder.spans) == 0.0


def test_structure_makes_one_chunk_of_table_and_both_notes(doc: Document) -> None:
    table = _element(doc, ElementKind.TABLE, "Millones de euros")
    n1 = _element(doc, ElementKind.NOTE, "¹")
    n2 = _element(doc, ElementKind.NOTE, "²")
    chunks = Structure(size=800).chunk(doc)
    holder = next(c for c in chunks if coverage(table.span, c.spans) == 1.0)
    assert holder.spans == (table.span, n1.span, n2.span)
    assert holder.body == "\n\n".join(doc.text[s:e] for s, e in holder.spans)
    assert holder.kind == "table"


def test_structure_header_names_title_and_section(doc: Document) -> None:
    chunks = Structure(size=800, header=True).chunk(doc)
    table_chunk = next(c for c in chunks if c.kind == "table")
    assert table_chunk.header == "Informe anual 2023 de Alfa Energía, S.A. > 2. Cifras clave"
    assert table_chunk.text == table_chunk.header + "\n" + table_chunk.body


def test_coverage_fractions() -> None:
    assert coverage((10, 20), [(0, 15)]) == 0.5
    assert coverage((10, 20), [(12, 14), (13, 16), (18, 30)]) == pytest.approx(0.6)
    assert coverage((10, 20), []) == 0.0
    assert coverage((10, 20), [(0, 100)]) == 1.0
    assert coverage((10, 20), [(20, 30), (0, 10)]) == 0.0


def test_structure_attaches_the_nearest_following_note_of_a_repeated_mark() -> None:
    from finchunk.parse.markdown import parse_markdown

    text = (
        "| a | b |\n|---|---|\n| Ventas¹ | 1 |\n\n¹ Primera tabla.\n\n"
        "| c | d |\n|---|---|\n| Gastos¹ | 2 |\n\n¹ Segunda tabla.\n"
    )
    doc = parse_markdown(text, "d")
    tables = [c for c in Structure().chunk(doc) if c.kind == "table"]
    assert [c.body.split("\n\n")[-1] for c in tables] == ["¹ Primera tabla.", "¹ Segunda tabla."]
