"""Text normalisation for lexical retrieval, as in the lesson.

lowercase → NFKD → combining marks (accents) stripped → ``\\w+`` tokens → Spanish and English
stop words removed. "Información" and "informacion" are the same token.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"\w+")

_STOP_ES = """
a al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante
e el ella ellas ellos en entre era erais eran eras eres es esa esas ese eso esos esta estaba
estado estais estamos estan estar estas este esto estos estoy fue fueron fui ha habia han has
hasta hay la las le les lo los mas me mi mis mucho muchos muy nada ni no nos nosotros o os otra
otras otro otros para pero poco por porque que quien quienes se sea sean ser si sido sin sobre
sois somos son soy su sus suya suyo tambien tanto te tiene tienen tu tus un una uno unos vosotros
y ya yo cuál cuáles qué cómo dónde cuánto cuánta cuántos cuántas
"""
_STOP_EN = """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers herself him himself his how i if in into is it its itself just
me more most my myself no nor not now of off on once only or other our ours ourselves out over
own same she should so some such than that the their theirs them themselves then there these they
this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves
"""


# Combining marks (accents) as a regex: one C-level pass instead of a loop per character.
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return decomposed if decomposed.isascii() else _COMBINING.sub("", decomposed)


STOP_WORDS: frozenset[str] = frozenset(_fold(w) for w in (_STOP_ES + _STOP_EN).split())


def normalize(text: str) -> str:
    """Lowercase, NFKD, accents stripped."""
    if text.isascii():
        return text.lower()
    return _fold(text)


def tokenize(text: str, *, stop_words: frozenset[str] = STOP_WORDS) -> list[str]:
    """The tokens BM25 indexes and queries with."""
    return [t for t in _WORD.findall(normalize(text)) if t not in stop_words]


@lru_cache(maxsize=4096)
def query_terms(text: str) -> tuple[str, ...]:
    """Distinct query tokens in first-seen order (cached: queries repeat across configs)."""
    return tuple(dict.fromkeys(tokenize(text)))
