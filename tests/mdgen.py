"""Hypothesis strategies for Markdown documents shaped like financial reports."""

from __future__ import annotations

from hypothesis import strategies as st

_WORDS = st.sampled_from(
    [
        "ingresos",
        "beneficio",
        "neto",
        "EBITDA",
        "deuda",
        "millones",
        "euros",
        "2023",
        "2022",
        "13.668,9",
        "1.002,4",
        "revenue",
        "net",
        "income",
        "the",
        "of",
        "y",
        "de",
        "la",
        "el",
        "sociedad",
        "grupo",
        "m²",
        "Nota",
        "1",
        "véase",
        "%",
        "(1)",
    ]
    + ["¹", "²", "³", "¹⁰"]
)
_SUPS = ["¹", "²", "³", "⁴", "¹⁰"]


@st.composite
def sentence(draw, min_words=1, max_words=40) -> str:
    words = draw(st.lists(_WORDS, min_size=min_words, max_size=max_words))
    return " ".join(words) + draw(st.sampled_from([".", "", ":", " "]))


@st.composite
def paragraph(draw) -> str:
    lines = draw(st.lists(sentence(), min_size=1, max_size=4))
    return "\n".join(lines)


@st.composite
def heading(draw) -> str:
    return "#" * draw(st.integers(1, 6)) + " " + draw(sentence(1, 6)).strip()


@st.composite
def table(draw) -> str:
    cols = draw(st.integers(2, 4))
    rows = draw(st.integers(1, 12))
    cell = st.sampled_from(["Ingresos", "EBITDA¹", "13.668,9", "(12,5)", "—", "2.431,0²", "x"])
    header = "| " + " | ".join(draw(st.lists(cell, min_size=cols, max_size=cols))) + " |"
    sep = "|" + "|".join(["---"] * cols) + "|"
    body = [
        "| " + " | ".join(draw(st.lists(cell, min_size=cols, max_size=cols))) + " |"
        for _ in range(rows)
    ]
    caption = draw(st.sampled_from(["", "Millones de euros\n"]))
    return caption + "\n".join([header, sep, *body])


@st.composite
def md_list(draw) -> str:
    n = draw(st.integers(1, 6))
    ordered = draw(st.booleans())
    items = [(f"{i + 1}. " if ordered else "- ") + draw(sentence(1, 12)).strip() for i in range(n)]
    return "\n".join(items)


@st.composite
def note(draw) -> str:
    kind = draw(st.sampled_from(["sup", "fn", "nota"]))
    text = draw(sentence(1, 20)).strip()
    if kind == "sup":
        return f"{draw(st.sampled_from(_SUPS))} {text}"
    if kind == "fn":
        return f"[^{draw(st.integers(1, 3))}]: {text}"
    return f"Nota {draw(st.integers(1, 3))}. {text}"


BLOCK = st.one_of(paragraph(), heading(), table(), md_list(), note())


@st.composite
def markdown_doc(draw) -> str:
    blocks = draw(st.lists(BLOCK, min_size=1, max_size=14))
    seps = draw(
        st.lists(
            st.sampled_from(["\n\n", "\n", "\n\n\n"]), min_size=len(blocks), max_size=len(blocks)
        )
    )
    text = "".join(b + s for b, s in zip(blocks, seps, strict=True))
    if draw(st.booleans()):
        text = "## Notas a los estados financieros\n\n" + text
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text
