"""What the evaluation's options mean, for the CLI and the Python API alike: the header
modes, ``-k`` cut-offs, comma lists, BM25's parameters, and the corpus, variants and
settings of ``finchunk eval`` / :func:`finchunk.evaluate`. Here, below both, so the API never
imports the CLI; the CLI imports them from here. Light at import (``finchunk --help``)."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from finchunk.chunk import Strategy
from finchunk.errors import InputError
from finchunk.evaluate.scope import Scope
from finchunk.retrieve.kinds import DEFAULT_EMBEDDER, Distinct, FilterStatistics

if TYPE_CHECKING:
    from finchunk.evaluate.corpus import Corpus
    from finchunk.evaluate.harness import EvalSettings, Variant
    from finchunk.retrieve.lexical.bm25 import BM25Params

T = TypeVar("T")


class HeaderMode(StrEnum):
    ON = "on"
    OFF = "off"
    BOTH = "both"

    def values(self) -> list[bool]:
        return {"on": [True], "off": [False], "both": [False, True]}[self.value]


def bm25_params(k1: float | None, b: float | None, prefix: int | None = None) -> BM25Params:
    """BM25's default parameters with the ``--bm25-k1`` / ``--bm25-b`` / ``--bm25-prefix``
    given (validated)."""
    from dataclasses import replace

    from finchunk.retrieve.lexical.bm25 import BM25Params

    params = BM25Params()
    given = {n: v for n, v in (("k1", k1), ("b", b)) if v is not None}
    if prefix is not None:
        given["text"] = replace(params.text, prefix=prefix)
    return replace(params, **given)


#: The most cut-offs one ``-k`` may name: a curve's points, each a row of every report.
MAX_KS = 1000


def parse_ks(spec: str, option: str = "-k") -> list[int]:
    """``"1-10"`` → 1..10; ``"3,5"`` → [3, 5]; mixed forms allowed (``"1-3,5,10"``).

    At most :data:`MAX_KS` values: a range is sized before it is built, so ``1-1000000000``
    is a clear error, not a list of a billion numbers.
    """
    out: set[int] = set()
    try:
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            a, dash, b = part.partition("-")
            lo = int(a)
            hi = int(b) if dash else lo
            if hi - lo + 1 + len(out) > MAX_KS:
                msg = f"{option}: {spec!r} names more than {MAX_KS:,} cut-offs"
                raise InputError(msg)
            out.update(range(lo, hi + 1))
    except ValueError:
        msg = f"{option}: expected a range like 1-10 or a list like 3,5; got {spec!r}"
        raise InputError(msg) from None
    if not out or min(out) < 1:
        raise InputError(f"{option}: values must be positive integers; got {spec!r}")
    return sorted(out)


def positive_int(option: str) -> Callable[[str], int]:
    """A converter for ``parse_list``: a positive whole number, or an error naming ``option``."""

    def convert(text: str) -> int:
        if not text.isdecimal() or int(text) < 1:
            raise InputError(f"{option}: expected positive whole numbers, got {text!r}")
        return int(text)

    return convert


def parse_list(spec: str, convert: Callable[[str], T], option: str) -> list[T]:
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if not items:
        raise InputError(f"{option}: empty list")
    return [convert(s) for s in items]


def eval_variants(
    strategies: str,
    header: HeaderMode,
    retrievers: str = "bm25",
    embedder: str = DEFAULT_EMBEDDER,
    represent: str = "text",
    split_tables: bool = False,
    bm25: BM25Params | None = None,
    reranker: str | None = None,
) -> list[Variant]:
    """Every strategy × header × representation × retriever; a representation other than
    the chunk text names the variant ``strategy:representation``."""
    from finchunk.chunk import make_chunker
    from finchunk.evaluate.harness import Variant
    from finchunk.evaluate.represent import Represent, index_text
    from finchunk.retrieve.query.retriever import parse_named

    names = parse_list(strategies, Strategy, "--strategies")
    kinds = parse_list(retrievers, parse_named, "--retriever")
    params = bm25 or bm25_params(None, None)
    reps = parse_list(represent, lambda r: (r.strip().lower(), index_text(r)), "--represent")
    return [
        Variant(
            s.value if rep == Represent.TEXT else f"{s.value}:{rep}",
            make_chunker(s, header=h, split_tables=split_tables),
            retriever=str(r),
            index_text=fn,
            embedder=embedder,
            bm25=params,
            reranker=reranker,
        )
        for r in kinds
        for s in names
        for h in header.values()
        for rep, fn in reps
    ]


def eval_corpus(
    docs: Path | None, passages: Path | None, questions: Path, files: Path | None
) -> tuple[Corpus, dict[str, Any] | None]:
    """The corpus of ``--questions`` (quote gold JSONL, documents under ``files``; TAT-QA's
    JSON, :mod:`finchunk.datasets.tatqa`; or a CSV with the ``docs`` and ``passages``
    tables) and, for quote gold, its alignment."""
    if questions.suffix.lower() == ".json":
        from finchunk.datasets.tatqa import read_tatqa

        return read_tatqa(questions)[0], None
    if questions.suffix.lower() == ".jsonl":
        from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

        qs = read_quote_questions(questions)
        built = build_quote_corpus(qs, files if files is not None else questions.parent)
        return built.corpus, built.alignment
    if docs is None or passages is None:
        raise InputError("--docs and --passages are required with a questions CSV")
    from finchunk.evaluate.corpus import read_corpus

    return read_corpus(docs, passages, questions), None


def eval_settings(
    threshold: float,
    scope: Scope,
    auto_filter: bool,
    pad: bool,
    distinct: Distinct,
    per_entity: bool,
    budget: str | None,
    statistics: FilterStatistics = FilterStatistics.KEPT,
) -> EvalSettings:
    """The settings of ``finchunk eval``'s options (``budget``: the ``--budget`` list)."""
    from finchunk.evaluate.harness import EvalSettings
    from finchunk.retrieve.query.deliver import Delivery

    budgets = tuple(parse_list(budget, positive_int("--budget"), "--budget")) if budget else ()
    delivery = Delivery(distinct, per_entity)
    return EvalSettings(
        scope, auto_filter, pad, delivery, threshold, budgets, filter_statistics=statistics
    )
