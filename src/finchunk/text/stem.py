"""Plural stemmers for lexical retrieval: English (Harman's S-stemmer, 1991) and Spanish.

English: "statements" → "statement", "liabilities" → "liability", "flows" → "flow"; words
ending in "us" or "ss" ("gross", "bonus") stay. Only plural endings are touched, so the
stemmer is safe on financial vocabulary. On Spanish it folds the vowel plurals ("ingresos",
"ventas") and leaves "-des"/"-nes" half-folded ("sociedades" → "sociedade").

Spanish (:func:`stem_word_es`): "-ces" → "-z" ("veces" → "vez"), consonant + "es" → the
consonant ("sociedades" → "sociedad", "operaciones" → "operacion", "capitales" → "capital"),
vowel + "s" → the vowel ("ingresos" → "ingreso"). Not for English text ("sales" → "sal").

:class:`finchunk.text.analysis.TextPipeline` applies one of them to its tokens after stop
words are removed ("does" is a stop word, never "doe"). Both are cached per word.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=65536)
def stem_word(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and not w.endswith(("eies", "aies")):
        return w[:-3] + "y"
    if w.endswith("es") and not w.endswith(("aes", "ees", "oes")):
        return w[:-1]
    if w.endswith("s") and not w.endswith(("us", "ss")):
        return w[:-1]
    return w


_ES_CONSONANT_PLURAL = ("des", "les", "nes", "res", "jes", "yes")


@lru_cache(maxsize=65536)
def stem_word_es(word: str) -> str:
    w = word.lower()
    if w.endswith("ces"):
        return w[:-3] + "z"
    if w.endswith(_ES_CONSONANT_PLURAL):
        return w[:-2]
    if w.endswith(("as", "es", "os")):
        return w[:-1]
    return w
