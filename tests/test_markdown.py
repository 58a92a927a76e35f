"""The block scanner against markdown-it-py (a CommonMark + GFM-tables parser), plus the
note rules that Markdown itself does not know."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from finchunk.model import ElementKind
from finchunk.parse.markdown import SUPERSCRIPT_DIGITS, parse_markdown

from .mdgen import heading, md_list, paragraph, table

_MD = MarkdownIt("commonmark").enable("table")
_OPEN = {
    "heading_open": "heading",
    "paragraph_open": "text",
    "table_open": "table",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
}
_OURS = {
    ElementKind.HEADING: "heading",
    ElementKind.TEXT: "text",
    ElementKind.NOTE: "text",
    ElementKind.TABLE: "table",
    ElementKind.LIST: "list",
}


def _reference_blocks(text: str) -> list[tuple[str, int, int]]:
    lines = text.split("\n")
    out = []
    for tok in _MD.parse(text):
        if tok.level == 0 and tok.type in _OPEN and tok.map:
            last = tok.map[1] - 1
            while last > tok.map[0] and not lines[last].strip():
                last -= 1  # markdown-it's list map includes the blank line after it
            out.append((_OPEN[tok.type], tok.map[0], last))
    return out


def _our_blocks(text: str) -> list[tuple[str, int, int]]:
    doc = parse_markdown(text, "d")
    line_of = [0] * (len(text) + 1)
    line = 0
    for i, ch in enumerate(text):
        line_of[i] = line
        if ch == "\n":
            line += 1
    line_of[len(text)] = line
    return [(_OURS[e.kind], line_of[e.start], line_of[e.end - 1]) for e in doc.elements]


# Blocks separated by blank lines, without table captions (markdown-it keeps a caption
# line as a paragraph of its own, finchunk makes it part of the table on purpose).
_plain_table = table().map(lambda t: t.split("\n", 1)[1] if t.startswith("Millones") else t)
_block = st.one_of(paragraph(), heading(), _plain_table, md_list())


@settings(max_examples=80, deadline=None)
@given(blocks=st.lists(_block, min_size=1, max_size=10))
def test_blocks_match_markdown_it(blocks: list[str]) -> None:
    # A line starting with a superscript mark starts a note: a finchunk rule, not Markdown's.
    lines = "\n\n".join(blocks).split("\n")
    text = "\n".join(
        "x" + ln if ln.lstrip()[:1] and ln.lstrip()[0] in SUPERSCRIPT_DIGITS else ln for ln in lines
    )
    text += "\n"
    assert _our_blocks(text) == _reference_blocks(text), repr(text)


def test_heading_levels_and_section_paths() -> None:
    doc = parse_markdown("# A\n\n## B\n\ntext\n\n### C\n\nmore\n\n## D\n\nend\n", "d")
    paths = [(doc.element_text(e), e.level, e.section) for e in doc.elements]
    assert paths == [
        ("# A", 1, ("A",)),
        ("## B", 2, ("A", "B")),
        ("text", 0, ("A", "B")),
        ("### C", 3, ("A", "B", "C")),
        ("more", 0, ("A", "B", "C")),
        ("## D", 2, ("A", "D")),
        ("end", 0, ("A", "D")),
    ]


def test_notes_superscript_footnote_and_nota() -> None:
    text = (
        "Ingresos¹ y gastos¹⁰ y EBITDA[^a].\n\n¹ Primera nota.\n¹⁰ Décima nota.\n\n"
        "[^a]: Nota al pie.\n\nSuperficie de 30 km³ y 12 m².\n\n"
        "## Notas\n\nNota 3. Impuestos. Véase la Nota 3 y la Nota 9.\n\n"
        "Como se detalla en la nota 3, el tipo es del 25 %.\n"
    )
    doc = parse_markdown(text, "d")
    by_start = {doc.element_text(e)[:10]: e for e in doc.elements}
    assert by_start["Ingresos¹ "].cites == ("1", "10", "^a")
    assert by_start["¹ Primera "].mark == "1"
    assert by_start["¹⁰ Décima "].mark == "10"
    assert by_start["[^a]: Nota"].mark == "^a"
    assert by_start["Superficie"].cites == ()  # unit exponents, and no note ² or ³ exists
    assert by_start["Nota 3. Im"].kind is ElementKind.NOTE
    assert by_start["Nota 3. Im"].mark == "note:3"
    assert by_start["Nota 3. Im"].cites == ()  # not itself, and Nota 9 does not exist
    assert by_start["Como se de"].cites == ("note:3",)


def test_nota_paragraph_outside_a_notes_section_is_text() -> None:
    doc = parse_markdown("## Resultados\n\nNota 1. Esto no es una nota.\n", "d")
    assert doc.elements[-1].kind is ElementKind.TEXT


def test_unit_exponent_is_not_a_citation_even_when_the_note_exists() -> None:
    doc = parse_markdown("Oficinas de 500 m² y ventas².\n\n² Nota dos.\n", "d")
    assert doc.elements[0].cites == ("2",)
    doc = parse_markdown("Oficinas de 500 m².\n\n² Nota dos.\n", "d")
    assert doc.elements[0].cites == ()


def test_caption_line_joins_its_table() -> None:
    doc = parse_markdown("Millones de euros\n| a | b |\n|---|---|\n| 1 | 2 |\n¹ nota\n", "d")
    assert [e.kind for e in doc.elements] == [ElementKind.TABLE, ElementKind.NOTE]
    assert doc.element_text(doc.elements[0]).startswith("Millones de euros\n| a |")


def test_crlf_bom_and_tabs_keep_offsets() -> None:
    text = "\ufeff# Título\r\n\r\nUno\tdos.\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n"
    doc = parse_markdown(text, "d")
    assert doc.text == text
    assert [doc.element_text(e) for e in doc.elements] == [
        "# Título",
        "Uno\tdos.",
        "| a | b |\r\n|---|---|\r\n| 1 | 2 |",
    ]
    assert doc.title == "Título"


# The line classes the scanner reads, as plain Python defines them line by line; the
# scanner computes them with array operations over the whole text.
_LINE_TEXT = st.text(
    alphabet=st.sampled_from(list(" \t\r\n\f\v\xa0\u3000\x1c|#-*+`~[1¹⁴ax\ufeff\udc80")),
    max_size=60,
)


@settings(max_examples=400, deadline=None)
@given(_LINE_TEXT, st.booleans())
def test_line_classes_equal_their_line_by_line_definitions(text: str, wide: bool) -> None:
    import re

    from finchunk.parse.markdown import _STARTERS, _Lines

    if wide:
        text += "é"  # the same lines in a text that is not ASCII (another array type)
    scan = re.sub(r"\r(?!\n)", "\n", text)
    contents = [c[:-1] if c.endswith("\r") else c for c in scan.split("\n")]
    if text.startswith("\ufeff"):
        contents[0] = contents[0][1:]
    lines = _Lines(text)
    assert [lines[i] for i in range(len(lines))] == contents
    assert lines.blank == [not c.strip() for c in contents]
    assert lines.stop_blank == [not c.strip(" \t\r\f\v") for c in contents]
    assert lines.lead == [c.lstrip(" ")[:1] in _STARTERS for c in contents]
    assert lines.bar == ["|" in c for c in contents]
    starter = re.compile(r" {0,3}[#`~*+\-\[0-9" + SUPERSCRIPT_DIGITS + "]")
    stops = [
        i
        for i, c in enumerate(contents)
        if i and (not c.strip(" \t\r\f\v") or starter.match(c) or "|" in c)
    ]
    assert [s for s in lines.stops if s] == stops


def test_a_line_of_spaces_ends_a_paragraph_in_any_text() -> None:
    # (as in CommonMark, a line of no-break or ideographic spaces does not: it is text)
    for blank in (" ", "   ", "      ", "\t", " \t "):
        for tail in ("", " café"):  # ASCII, and not
            doc = parse_markdown(f"one{tail}\n{blank}\ntwo\n", "d")
            assert [doc.element_text(e) for e in doc.elements] == [f"one{tail}", "two"], blank


# Texts whose lines, notes and citations fall across the scan's windows when they are small.
_WINDOWED_TEXT = st.lists(
    st.sampled_from(
        [
            "# Notes",
            "## Nota 2",
            "Note 5. Revenue",
            "see Note 5 and NOTES 7",
            "[^a]: defined",
            "as [^a] says",
            "[^",
            "¹ A note.",
            "text¹ and ²³",
            "km² area",
            "| a | b |",
            "| --- | --- |",
            "| 1 | 2 |",
            "- item",
            "    four spaces",
            " # spaced heading",
            "  - spaced item",
            "   ¹ spaced note",
            "   three",
            "\t tab",
            "",
            " ",
            "📈 wide",
            "\ufeffbom",
            "plain prose",
        ]  # fmt: skip
    ),
    max_size=14,
).flatmap(
    lambda parts: st.sampled_from(["\n", "\r\n", "\r", "\n\n"]).map(lambda sep: sep.join(parts))
)


@settings(max_examples=150, deadline=None)
@given(_WINDOWED_TEXT, st.sampled_from([1, 2, 3, 4, 7, 16]))
def test_the_scan_in_windows_of_any_size_finds_the_same_document(text: str, window: int) -> None:
    from finchunk.parse import markdown

    whole = parse_markdown(text, "d")
    default = markdown._WINDOW
    markdown._WINDOW = window
    try:
        windowed = parse_markdown(text, "d")
    finally:
        markdown._WINDOW = default
    assert [(e.span, e.kind, e.cites, e.mark, e.section) for e in windowed.elements] == [
        (e.span, e.kind, e.cites, e.mark, e.section) for e in whole.elements
    ], repr(text)
