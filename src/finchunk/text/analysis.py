"""Text normalisation for lexical retrieval.

:func:`tokenize` is the lesson's: lowercase → NFKD → combining marks (accents) stripped →
``\\w+`` tokens → Spanish and English stop words removed. "Información" and "informacion"
are the same token.

:class:`TextPipeline` is what BM25 indexes with: the lesson's steps plus named options
(footnote marks split off, fiscal years normalised, plural stemming after stop-word removal,
numbers kept for matching but out of the length, every word also indexed by its first
characters), the same for chunks, headers and queries.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from finchunk.errors import InputError
from finchunk.files import read_bytes
from finchunk.text.stem import stem_word, stem_word_es

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


_STOP_ES_SET = frozenset(_fold(w) for w in _STOP_ES.split())
_STOP_EN_SET = frozenset(_fold(w) for w in _STOP_EN.split())
STOP_WORDS: frozenset[str] = _STOP_ES_SET | _STOP_EN_SET


def normalize(text: str) -> str:
    """Lowercase, NFKD, accents stripped."""
    if text.isascii():
        return text.lower()
    return _fold(text)


def tokenize(text: str, *, stop_words: frozenset[str] = STOP_WORDS) -> list[str]:
    """The tokens BM25 indexes and queries with."""
    return [t for t in _WORD.findall(normalize(text)) if t not in stop_words]


class Language(StrEnum):
    """The languages finchunk's stop words and models know."""

    EN = "en"
    ES = "es"


#: Each language's own stop words (those the two lists share tell neither apart).
_ONLY = {Language.EN: _STOP_EN_SET - _STOP_ES_SET, Language.ES: _STOP_ES_SET - _STOP_EN_SET}


def language(text: str) -> Language | None:
    """English or Spanish, by which language's own stop words ``text`` holds more of (those
    the two lists share, "a", "no", "me", count for neither). A question with none of
    either, or as many of each (keywords: "revenue guidance 2025"), is English when most of
    its other words of three letters or more are words of English BERT's vocabulary
    (:data:`ENGLISH_VOCAB`, accents folded as its tokenizer folds them); else None: too
    short, mixed or unknown to tell."""
    words = _WORD.findall(normalize(text))
    en = sum(w in _ONLY[Language.EN] for w in words)
    es = sum(w in _ONLY[Language.ES] for w in words)
    if en != es:
        return Language.EN if en > es else Language.ES
    return Language.EN if _mostly_english_words(words) else None


#: The WordPiece vocabulary of BERT-Base uncased (``vocab/README.md``): what the English
#: models read (SPLADE, MiniLM), and the words :func:`language` tells English keywords by.
ENGLISH_VOCAB = Path(__file__).with_name("vocab") / "bert-base-uncased.txt"
_LETTERS = re.compile(r"[^\W\d_]{3,}")


@lru_cache(maxsize=1)
def _english_words() -> frozenset[str]:
    """The vocabulary's whole words (no "##" pieces) of three letters or more."""
    entries = read_bytes(ENGLISH_VOCAB).decode("utf-8", "replace").split()
    return frozenset(w for w in entries if _LETTERS.fullmatch(w))


def english_words() -> frozenset[str]:
    """The vocabulary's whole words of three letters or more (lower case; read once)."""
    return _english_words()


def _mostly_english_words(words: list[str]) -> bool:
    """Whether more than half of ``words``' letter runs of three or more, stop words left
    out, are English vocabulary words (False when there are none)."""
    runs = [r for w in words if w not in STOP_WORDS for r in _LETTERS.findall(w)]
    if not runs:
        return False
    vocabulary = _english_words()
    return 2 * sum(r in vocabulary for r in runs) > len(runs)


@lru_cache(maxsize=4096)
def query_terms(text: str) -> tuple[str, ...]:
    """Distinct query tokens in first-seen order (cached: queries repeat across configs)."""
    return tuple(dict.fromkeys(tokenize(text)))


# --- the text pipeline BM25 indexes with ------------------------------------------------------


class NumberMode(StrEnum):
    """What numeric tokens (all digits: "2018", "5" and "363" of "5,363") do in BM25."""

    COUNT = "count"  #: matched and counted in the document length (the lesson's BM25)
    UNCOUNTED = "uncounted"  #: matched, but the length BM25 normalises by counts words only
    DROP = "drop"  #: removed (years stay when ``years`` is on); the length counts words


class Stemmer(StrEnum):
    NONE = "none"
    PLURAL_EN = "plural-en"  #: Harman's S-stemmer (English plurals; safe on Spanish "-os/-as")
    PLURAL_ES = "plural-es"  #: Spanish plural rules (for Spanish-only corpora)


#: Footnote marks that glue onto words: superscript and subscript digits and signs (NFKD
#: would turn "EBITDA²" into "ebitda2"), and the note symbols. Each becomes a space.
_MARKS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾⁺⁻₀₁₂₃₄₅₆₇₈₉₍₎†‡*§¶"
#: One character class (``str.translate`` with a table took 55-100 us per 600-character
#: Spanish chunk, a third of BM25's indexing time; this takes 5).
_MARK_RE = re.compile("[" + re.escape(_MARKS) + "]")

# Fiscal-year and quarter forms, on lowercased, folded text (each alternative is a fixed
# prefix then a bounded digit run: linear). Two-digit years: 00-49 → 20xx, 50-99 → 19xx.
_FISCAL = re.compile(
    r"\b(?:fy\s?|fiscal\s+(?:year\s+)?)((?:19|20)\d{2}|\d{2})\b"
    r"|\bq([1-4])(fy)?((?:19|20)\d{2}|\d{2})\b"
    r"|\b([1-4])q(fy)?((?:19|20)\d{2}|\d{2})?\b"
)


def _year(digits: str) -> str:
    if len(digits) == 4:
        return digits
    return ("20" if int(digits) < 50 else "19") + digits


def _fiscal(m: re.Match[str]) -> str:
    fy, q1, fy1, y1, q2, fy2, y2 = m.groups()
    if fy is not None:
        y = _year(fy)
        prefix = m.group()[: m.start(1) - m.start()]  # "fy", "fy ", "fiscal year "
        return f"fy{y} {y}" if prefix.startswith("fy") else prefix + y
    quarter, has_fy, digits = (q1, fy1, y1) if q1 is not None else (q2, fy2, y2)
    if digits is None:
        return f"q{quarter}"
    y = _year(digits)
    return f"q{quarter} fy{y} {y}" if has_fy else f"q{quarter} {y}"


def normalize_fiscal(folded: str) -> str:
    """``fy2018``/``fy18``/``fy 2018`` → ``fy2018 2018``; ``fiscal (year) 18`` → ``fiscal
    (year) 2018``; ``3q24``/``q324`` → ``q3 2024``; ``q3fy24`` → ``q3 fy2024 2024``
    (lowercased text). "Fiscal 2018" gains no ``fy2018``: a rare token added to every
    "fiscal YEAR" question outweighed its other terms on the EDGAR dev set (3 losses)."""
    return _FISCAL.sub(_fiscal, folded)


#: What marks a prefix term: ``reve*`` never equals a word (``\\w+`` holds no ``*``).
PREFIX_MARK = "*"


@dataclass(frozen=True, slots=True)
class TextPipeline:
    """How a text (chunk, header or query alike) becomes BM25 terms, and what counts in
    its length: footnote marks split off → lowercase, NFKD, accents stripped → fiscal-year
    forms normalised → ``\\w+`` tokens → stop words removed → plurals stemmed → each
    word's prefix term added.

    ``marks``: superscript/subscript digits and note symbols become spaces before folding;
    ``years``: fiscal-year and quarter forms normalised (:func:`normalize_fiscal`);
    ``numbers``: see :class:`NumberMode`; ``stem``: see :class:`Stemmer`; ``prefix``: each
    word is also a term of its first ``prefix`` characters, marked (``revenues`` →
    ``revenues`` and ``reve*``; a number or a shorter word whole: ``2024*``, ``tax*``), 0
    for none. Prefix terms are a second, truncated field in the same index, out of the
    length: "deliveries" matches "delivered" and "ingresos" "ingreso" through ``deli*`` and
    ``ingr*``, while a word that matches exactly scores in both fields and stays ahead.
    :data:`LESSON_TEXT` (all off, numbers counted) is the lesson's :func:`tokenize`.

    Defaults (measured on the demo corpus and the EDGAR dev set, ``bench/lexical_ablation.py``):
    marks and years on, numbers uncounted, no stemming (plural stemming lost questions on
    both: it conflates "resultados" headings with "resultado", "sales" with "sale"), prefix
    terms of 4 characters (truncation to 4 or 5 is the classic language-independent stemmer,
    McNamee & Mayfield 2004; 3 to 6 were measured, each beside the exact words).
    """

    marks: bool = True
    years: bool = True
    numbers: NumberMode = NumberMode.UNCOUNTED
    stem: Stemmer = Stemmer.NONE
    prefix: int = 4

    def __post_init__(self) -> None:
        for name in ("marks", "years"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"text pipeline: {name} must be true or false")
        n = self.prefix
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputError(
                f"text pipeline: prefix must be a whole number of at least 0, got {n!r}"
            )
        for name, kind in (("numbers", NumberMode), ("stem", Stemmer)):
            try:
                object.__setattr__(self, name, kind(getattr(self, name)))
            except ValueError:
                choices = ", ".join(k.value for k in kind)
                raise InputError(
                    f"text pipeline: unknown {name} {getattr(self, name)!r}; choose from {choices}"
                ) from None

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> TextPipeline:
        """From :func:`dataclasses.asdict` output (an index's saved parameters); without
        ``prefix`` (written before prefix terms existed) none."""
        try:
            return cls(**{"prefix": 0, **raw})
        except TypeError as exc:
            raise InputError(f"text pipeline: {exc}") from None

    def terms(self, text: str) -> tuple[list[str], int]:
        """The terms of ``text`` (its words, then their prefix terms) and its length for
        BM25 (the words BM25 counts)."""
        toks, length = self.words(text)
        if self.prefix:
            toks += [self.prefix_term(t) for t in toks]
        return toks, length

    def prefix_term(self, word: str) -> str:
        """``word``'s prefix term: its first :attr:`prefix` characters, marked; a number
        whole (``revenues`` → ``reve*``, ``tax`` → ``tax*``, ``2024`` → ``2024*``)."""
        return (word if word.isdigit() else word[: self.prefix]) + PREFIX_MARK

    def words(self, text: str) -> tuple[list[str], int]:
        """The words of ``text`` (no prefix terms) and its length for BM25."""
        if self.marks:
            text = _MARK_RE.sub(" ", text)
        folded = normalize(text)
        if self.years:
            folded = normalize_fiscal(folded)
        toks = [t for t in _WORD.findall(folded) if t not in STOP_WORDS]
        if self.stem is not Stemmer.NONE:
            stem = stem_word if self.stem is Stemmer.PLURAL_EN else stem_word_es
            toks = [stem(t) if _plural(t) else t for t in toks]
        if self.numbers is NumberMode.COUNT:
            return toks, len(toks)
        numeric = [t.isdigit() and t.isascii() for t in toks]
        words = len(toks) - sum(numeric)
        if self.numbers is NumberMode.DROP:
            keep_years = self.years
            toks = [
                t
                for t, n in zip(toks, numeric, strict=True)
                if not n or (keep_years and _is_year(t))
            ]
        return toks, words

    def tokens(self, text: str) -> list[str]:
        """Every term of ``text``, prefix terms included (what BM25 indexes and queries)."""
        return self.terms(text)[0]


def _plural(token: str) -> bool:
    return token[-1] == "s" and len(token) > 3 and token.isalpha()


def _is_year(token: str) -> bool:
    return len(token) == 4 and token[:2] in ("19", "20")


#: The lesson's BM25 text: :func:`tokenize` exactly.
LESSON_TEXT = TextPipeline(
    marks=False, years=False, numbers=NumberMode.COUNT, stem=Stemmer.NONE, prefix=0
)
