"""Harman's S-stemmer (1991): English plurals folded to singular, for lexical retrieval.

"statements" → "statement", "liabilities" → "liability", "flows" → "flow"; words ending in
"us" or "ss" ("gross", "bonus") stay. Only plural endings are touched, so the stemmer is
safe on financial vocabulary, and it is cheap: a regex visits only words ending in "s".

:func:`words_only` also drops numbers ("5,363", "(1,577)", "2018", "12.5%"): in financial
filings numbers make up a large share of the tokens of tables, so BM25's length
normalisation punishes exactly the statement tables questions are about, while the numbers
themselves rarely match a question (mostly years, printed on every page). Tokens that mix
letters and digits ("FY2018", "3M", "Q2") stay.

Used by the ``bm25-words`` and ``bm25-fin`` retrievers of the FinanceBench benchmark, on
chunk texts and queries alike (the delivered chunk text is never changed).
"""

from __future__ import annotations

import re

_PLURAL = re.compile(r"\b[A-Za-z]{3,}s\b")
_NUMBER = re.compile(r"(?<![\w.])[$(]?\d[\d,.]*\)?%?(?!\w)")


def stem_word(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and not w.endswith(("eies", "aies")):
        return w[:-3] + "y"
    if w.endswith("es") and not w.endswith(("aes", "ees", "oes")):
        return w[:-1]
    if w.endswith("s") and not w.endswith(("us", "ss")):
        return w[:-1]
    return w


def stem_text(text: str) -> str:
    """``text`` with every plural word replaced by its singular (lowercased)."""
    return _PLURAL.sub(lambda m: stem_word(m.group()), text)


def drop_numbers(text: str) -> str:
    """``text`` with every standalone number replaced by a space."""
    return _NUMBER.sub(" ", text)


def words_only(text: str) -> str:
    """Plural-folded words, numbers dropped: what the ``bm25-words`` retriever indexes."""
    return stem_text(drop_numbers(text))
