"""Quote alignment on normalised alphanumeric sequences."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from finchunk.evaluate.align import QuoteIndex, align_quote, normalize_quote

TEXT = (
    "Item 7. Management’s Discussion — Results\n"
    "Net sales were $5,363 million in 2018; the Company’s ﬁnancial position\n"
    "remained strong. Café sales rose.\n"
)


def _quoted(quote: str) -> str:
    span = align_quote(TEXT, quote)
    assert span is not None, quote
    return TEXT[span[0] : span[1]]


def test_case_whitespace_and_dropped_punctuation() -> None:
    assert _quoted("managements discussion  results") == "Management’s Discussion — Results"
    assert _quoted("NET SALES WERE $5,363") == "Net sales were $5,363"


def test_glued_words_and_dropped_non_ascii() -> None:
    # FinanceBench evidence drops — and ’ and glues words across line breaks.
    assert _quoted("Discussion Results Net sales") == "Discussion — Results\nNet sales"
    assert _quoted("the Companys financialposition") == "the Company’s ﬁnancial position"


def test_ligatures_and_accents_fold() -> None:
    assert _quoted("financial") == "ﬁnancial"
    assert _quoted("Cafe sales") == "Café sales"


def test_absent_and_empty_quotes() -> None:
    assert align_quote(TEXT, "operating income") is None
    assert align_quote(TEXT, " — … ") is None
    assert align_quote("", "anything") is None


def test_region_restricts_and_first_occurrence_wins() -> None:
    text = "Revenue grew.\n\nRevenue grew again.\n\nRevenue grew."
    idx = QuoteIndex(text)
    assert idx.align("revenue grew").span == (0, 12)
    second = text.index("Revenue grew again")
    found = idx.align("revenue grew", (second, len(text)))
    assert found is not None and found.span[0] == second and found.exact


def test_fuzzy_fallback_is_reported() -> None:
    base = (
        "The Company recorded restructuring charges of twelve million dollars in the "
        "fourth quarter, primarily for severance in its European operations."
    )
    text = "Preamble.\n" + base + "\nAfterword."
    quote = base.replace("twelve", "eleven")
    idx = QuoteIndex(text)
    assert idx.align(quote) is None
    found = idx.align(quote, fuzzy=True)
    assert found is not None and not found.exact and 0.6 <= found.score < 1.0
    s, e = found.span
    assert "restructuring charges" in text[s:e] and "Preamble" not in text[s:e]


def test_large_document_builds_once() -> None:
    text = ("Net income $ 1,234 — the Company’s results.\n" * 20000) + "Unique closing line."
    idx = QuoteIndex(text)
    assert idx.align("unique closing line") is not None
    assert len(idx.norm) < len(text)


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("abcXYZ019 —’é\nﬁ,."), min_size=1, max_size=80),
    st.integers(0, 79),
    st.integers(1, 40),
)
def test_aligned_span_normalises_to_the_quote(text: str, start: int, length: int) -> None:
    start = min(start, len(text) - 1)
    quote = text[start : start + length]
    span = align_quote(text, quote)
    if not normalize_quote(quote):
        assert span is None
        return
    assert span is not None
    assert normalize_quote(text[span[0] : span[1]]) == normalize_quote(quote)
