"""The one retriever factory: names → retrievers, for search, evaluation and benchmarks alike.

A retriever is named by a :class:`RetrieverSpec`: a first stage (``bm25``, ``dense``,
``hybrid`` …) and optionally a reranker over its top ``depth`` hits, written
``FIRST/RERANKER@DEPTH`` (``bm25/dense@50``: BM25's top 50 re-scored by dense similarity).

Retrievers are built from a :class:`TextSource`: the texts in order, and the expensive
parts retrievers share (a BM25 index per analyzer, passage vectors per embedding model).
:class:`InMemoryTexts` builds them on first use; the persisted index
(:class:`finchunk.retrieve.index.store.Index`) reads them from disk. Either way the same factory
makes the same retriever.

Adding a retriever is one module that calls :func:`register_retriever` (or
:func:`register_reranker`) with a factory ``(source, options) -> Retriever``. Importing the
module registers it; a package can also name the module under the ``finchunk.retrievers``
entry-point group, and the factory imports it the first time an unknown name is asked for
(so ``finchunk eval --retriever NAME`` finds it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from finchunk.errors import InputError
from finchunk.retrieve.base import Reranker, Retriever
from finchunk.retrieve.kinds import (
    AUTO,
    DEFAULT_EMBEDDER,
    AutoSpec,
    RerankerKind,
    RetrieverKind,
    is_auto,
)
from finchunk.retrieve.lexical.analyzers import PLAIN, AnalyzerName, analyzer
from finchunk.retrieve.lexical.bm25 import BM25Params
from finchunk.retrieve.lexical.feedback import FeedbackParams, FeedbackRetriever
from finchunk.retrieve.neural.dense import DenseIndex, Embedder, make_embedder
from finchunk.retrieve.neural.hybrid import ConvexParams, HybridIndex, RRFParams
from finchunk.retrieve.neural.rerank import DEFAULT_DEPTH, DenseReranker, Reranked
from finchunk.retrieve.query.priors import PriorMode, PriorParams, PriorRetriever
from finchunk.retrieve.query.texts import (
    InMemoryTexts,
    TextSource,
)

# --- what retrievers are built from ---------------------------------------------------------


# --- options and names ----------------------------------------------------------------------


@dataclass(frozen=True)
class RetrieverOptions:
    """Parameters retrievers read: the embedding model (a name or an :class:`Embedder`),
    BM25's parameters and text pipeline (:class:`BM25Params`; the ``bm25-lesson`` retriever
    ignores them), fusion's (``hybrid``: RRF; ``hybrid-cc``: the convex combination), the
    document prior's, RM3 feedback's (the ``-rm3`` retrievers); ``reranker``: the model the
    ``model`` reranker runs (a cross-encoder folder or ``URL#MODEL``,
    :mod:`finchunk.retrieve.neural.models`)."""

    embedder: Embedder | str = DEFAULT_EMBEDDER
    bm25: BM25Params = field(default_factory=BM25Params)
    rrf: RRFParams = field(default_factory=RRFParams)
    convex: ConvexParams = field(default_factory=ConvexParams)
    prior: PriorParams = field(default_factory=PriorParams)
    feedback: FeedbackParams = field(default_factory=FeedbackParams)
    reranker: str | None = None

    def make_embedder(self) -> Embedder:
        e = self.embedder
        return make_embedder(e) if isinstance(e, str) else e


_HYBRIDS = frozenset({RetrieverKind.HYBRID, RetrieverKind.HYBRID_CC})
_SPEC = re.compile(
    r"([a-z0-9][a-z0-9_-]*)(?:/([a-z0-9][a-z0-9_-]*)(?:@(\d+))?(?:\+(0(?:\.\d+)?|1(?:\.0+)?|\.\d+))?)?"
)
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


@dataclass(frozen=True, slots=True)
class RetrieverSpec:
    """A first stage, optionally reranked: ``bm25``, ``bm25/dense@50``; ``fuse`` (written
    ``bm25/dense@50+0.5``): the reranker's weight when the two stages' scores are fused
    (:func:`finchunk.retrieve.neural.rerank.fuse_scores`); None: the reranker's score alone."""

    first: str
    rerank: str | None = None
    depth: int = DEFAULT_DEPTH
    fuse: float | None = None

    def __post_init__(self) -> None:
        if self.first not in _RETRIEVERS or (self.rerank and self.rerank not in _RERANKERS):
            load_plugins()
        if self.first not in _RETRIEVERS:
            raise InputError(
                f"unknown retriever {self.first!r}; choose from {', '.join(retriever_names())}"
            )
        if self.rerank is not None and self.rerank not in _RERANKERS:
            raise InputError(
                f"unknown reranker {self.rerank!r}; choose from {', '.join(reranker_names())}"
            )
        if self.depth < 1:
            raise InputError(f"rerank depth must be at least 1, got {self.depth}")
        if self.fuse is not None and (self.rerank is None or not 0.0 <= self.fuse <= 1.0):
            raise InputError(
                f"fusion weight {self.fuse} needs a reranker and a value between 0 and 1"
            )

    def __str__(self) -> str:
        if self.rerank is None:
            return self.first
        fuse = "" if self.fuse is None else f"+{self.fuse:g}"
        return f"{self.first}/{self.rerank}@{self.depth}{fuse}"

    @property
    def parts(self) -> tuple[str, ...]:
        """The retrievers this one fuses, by name: ``hybrid``, ``hybrid-cc`` → ``bm25``,
        ``dense``; a
        fused rerank ``FIRST/R@D+W`` → ``FIRST``, ``FIRST/R@D`` (the reranker alone on the
        same candidates) and ``R`` as a first stage; anything else: none."""
        if self.first in _HYBRIDS and self.rerank is None:
            return (str(RetrieverKind.BM25), str(RetrieverKind.DENSE))
        if self.rerank is None or self.fuse is None:
            return ()
        return (self.first, str(replace(self, fuse=None)), self.rerank)

    @property
    def base(self) -> str:
        """The first stage without its document prior (``bm25-prior`` → ``bm25``)."""
        return _PRIOR_OF.get(self.first, (self.first, None))[0]

    @property
    def prior(self) -> PriorMode | None:
        """The first stage's document prior: fused, two-stage, or None (none)."""
        return _PRIOR_OF.get(self.first, (self.first, None))[1]

    @property
    def needs_embedder(self) -> bool:
        return self.first in _EMBEDDING or self.rerank in _EMBEDDING


def parse_retriever(spec: str | RetrieverKind | RetrieverSpec) -> RetrieverSpec:
    """``"bm25"``, ``"hybrid"``, ``"bm25/dense@50"`` → a :class:`RetrieverSpec`."""
    if isinstance(spec, RetrieverSpec):
        return spec
    text = str(spec).strip().lower()
    m = _SPEC.fullmatch(text)
    if m is None:
        raise InputError(
            f"retriever {spec!r}: expected NAME, FIRST/RERANKER@DEPTH (e.g. bm25/dense@50) "
            "or FIRST/RERANKER@DEPTH+WEIGHT (fused, e.g. bm25/dense@50+0.5)"
        )
    first, rerank, depth, fuse = m.groups()
    return RetrieverSpec(
        first, rerank, int(depth) if depth else DEFAULT_DEPTH, float(fuse) if fuse else None
    )


#: A retriever as parsed once, at the edge: a :class:`RetrieverSpec` or ``auto``.
NamedRetriever = RetrieverSpec | AutoSpec


def parse_named(spec: str | RetrieverKind | RetrieverSpec | AutoSpec) -> NamedRetriever:
    """A retriever (:func:`parse_retriever`), or :data:`~finchunk.retrieve.kinds.AUTO`
    (the query plan chooses one per question): the one parser of retriever names; past
    it, code reads the spec's fields, never the name."""
    if isinstance(spec, RetrieverSpec | AutoSpec):
        return spec
    return AUTO if is_auto(spec) else parse_retriever(spec)


def named_needs_embedder(spec: str | RetrieverSpec | AutoSpec) -> bool:
    """Whether ``spec`` embeds passages (``auto`` as ``eval`` runs it never does)."""
    named = parse_named(spec)
    return isinstance(named, RetrieverSpec) and named.needs_embedder


# --- the registry ---------------------------------------------------------------------------

RetrieverFactory = Callable[[TextSource, RetrieverOptions], Retriever]
RerankerFactory = Callable[[TextSource, RetrieverOptions], Reranker]
_RETRIEVERS: dict[str, RetrieverFactory] = {}
_RERANKERS: dict[str, RerankerFactory] = {}
_EMBEDDING: set[str] = set()
_TUNED: set[str] = set()
#: First stages with a document prior: their base first stage and the prior's mode.
_PRIOR_OF: dict[str, tuple[str, PriorMode]] = {}


def register_retriever(
    name: str, factory: RetrieverFactory, *, embeds: bool = False, tuned_on_benchmark: bool = False
) -> None:
    """Make ``name`` a first stage everywhere a retriever is named (``embeds``: it needs
    an embedding model; ``tuned_on_benchmark``: it was written after looking at a
    benchmark's failures, and its figures there must say so)."""
    _register(_RETRIEVERS, name, factory, embeds)
    if tuned_on_benchmark:
        _TUNED.add(name)


def tuned_on_benchmark(spec: str | RetrieverKind | RetrieverSpec | AutoSpec) -> bool:
    """True when any stage of ``spec`` was tuned on a benchmark (``bm25-fin``; ``auto``
    never is)."""
    s = parse_named(spec)
    return isinstance(s, RetrieverSpec) and (s.first in _TUNED or s.rerank in _TUNED)


def register_reranker(name: str, factory: RerankerFactory, *, embeds: bool = False) -> None:
    """Make ``name`` usable as ``FIRST/name@DEPTH``."""
    _register(_RERANKERS, name, factory, embeds)


def _register(table: dict, name: str, factory: Callable, embeds: bool) -> None:
    if not _NAME.fullmatch(name):
        raise ValueError(f"retriever names are lowercase words with - or _, got {name!r}")
    table[name] = factory
    if embeds:
        _EMBEDDING.add(name)


ENTRY_POINTS = "finchunk.retrievers"
_plugins_loaded = False


def load_plugins() -> None:
    """Import the modules installed packages name under ``finchunk.retrievers`` (once)."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name):
        ep.load()


def retriever_names() -> list[str]:
    return sorted(_RETRIEVERS)


def reranker_names() -> list[str]:
    return sorted(_RERANKERS)


def make_retriever(
    spec: str | RetrieverKind | RetrieverSpec,
    source: TextSource | Sequence[str],
    options: RetrieverOptions | None = None,
    *,
    embedder: Embedder | str | None = None,
) -> Retriever:
    """The retriever ``spec`` names, over ``source`` (a :class:`TextSource` or texts).

    ``embedder`` overrides ``options.embedder`` (dense, hybrid and dense reranking).
    """
    s = parse_retriever(spec)
    opts = options or RetrieverOptions()
    if embedder is not None:
        opts = replace(opts, embedder=embedder)
    src = source if hasattr(source, "lexical") else InMemoryTexts(source)  # type: ignore[arg-type]
    first = _RETRIEVERS[s.first](src, opts)  # type: ignore[arg-type]
    if s.rerank is None:
        return first
    reranker = _RERANKERS[s.rerank](src, opts)  # type: ignore[arg-type]
    return Reranked(first, reranker, s.depth, s.fuse)


# --- the built-ins --------------------------------------------------------------------------


def _bm25(name: AnalyzerName) -> RetrieverFactory:
    """BM25 with analyzer ``name`` over ``options.bm25``."""

    def factory(source: TextSource, options: RetrieverOptions) -> Retriever:
        return source.lexical(analyzer(name), options.bm25)

    return factory


def _dense(source: TextSource, options: RetrieverOptions) -> DenseIndex:
    return source.dense(options.make_embedder())


def _hybrid(source: TextSource, options: RetrieverOptions) -> Retriever:
    return HybridIndex(source.lexical(PLAIN, options.bm25), _dense(source, options), options.rrf)


def _hybrid_cc(source: TextSource, options: RetrieverOptions) -> Retriever:
    lexical = source.lexical(PLAIN, options.bm25)
    return HybridIndex(lexical, _dense(source, options), options.convex)


register_retriever(RetrieverKind.BM25, _bm25(AnalyzerName.PLAIN))
register_retriever(RetrieverKind.BM25_LESSON, _bm25(AnalyzerName.LESSON))
register_retriever(RetrieverKind.BM25_WORDS, _bm25(AnalyzerName.WORDS))
register_retriever(RetrieverKind.BM25_FIN, _bm25(AnalyzerName.WORDS_FIN), tuned_on_benchmark=True)
register_retriever(RetrieverKind.DENSE, _dense, embeds=True)


def _rm3(name: AnalyzerName) -> RetrieverFactory:
    """BM25 with analyzer ``name`` and RM3 feedback (``options.feedback``)."""

    def factory(source: TextSource, options: RetrieverOptions) -> Retriever:
        lexical = source.lexical(analyzer(name), options.bm25)
        return FeedbackRetriever(lexical, source.texts, options.feedback)

    return factory


register_retriever(RetrieverKind.BM25_RM3, _rm3(AnalyzerName.PLAIN))
register_retriever(RetrieverKind.BM25_WORDS_RM3, _rm3(AnalyzerName.WORDS))
register_retriever(RetrieverKind.HYBRID, _hybrid, embeds=True)
register_retriever(RetrieverKind.HYBRID_CC, _hybrid_cc, embeds=True)


def _with_prior(base: RetrieverKind, cards: AnalyzerName, mode: PriorMode) -> RetrieverFactory:
    """``base`` with a document prior: cards read with the ``cards`` analyzer."""

    def factory(source: TextSource, options: RetrieverOptions) -> Retriever:
        docs = source.documents
        if docs is None:
            raise InputError(
                f"retriever {base}-{_PRIOR_SUFFIX[mode]} needs each text's document and the "
                "documents' cards; this source has none (InMemoryTexts(texts, documents=...))"
            )
        first = _RETRIEVERS[base](source, options)
        return PriorRetriever(first, docs, analyzer(cards), options.bm25, mode, options.prior)

    return factory


_PRIOR_SUFFIX = {PriorMode.FUSE: "prior", PriorMode.TWO_STAGE: "docs"}
#: Each first stage with a document prior: ``NAME-prior`` (fused) and ``NAME-docs``
#: (two-stage), cards read as the first stage reads chunks.
_PRIOR_BASES = (
    (RetrieverKind.BM25, AnalyzerName.PLAIN),
    (RetrieverKind.BM25_WORDS, AnalyzerName.WORDS),
    (RetrieverKind.BM25_FIN, AnalyzerName.WORDS_FIN),
    (RetrieverKind.DENSE, AnalyzerName.PLAIN),
    (RetrieverKind.HYBRID, AnalyzerName.PLAIN),
    (RetrieverKind.HYBRID_CC, AnalyzerName.PLAIN),
)
for _base, _cards in _PRIOR_BASES:
    for _mode, _suffix in _PRIOR_SUFFIX.items():
        register_retriever(
            f"{_base}-{_suffix}",
            _with_prior(_base, _cards, _mode),
            embeds=_base in (RetrieverKind.DENSE, *_HYBRIDS),
        )
        _PRIOR_OF[f"{_base}-{_suffix}"] = (str(_base), _mode)


def _dense_rerank(source: TextSource, options: RetrieverOptions) -> Reranker:
    return DenseReranker(source.candidate_vectors(options.make_embedder()))


def _splade_rerank(source: TextSource, options: RetrieverOptions) -> Reranker:
    from finchunk.retrieve.neural.splade import SpladeReranker, load_splade

    splade = load_splade()
    stored = getattr(source, "impacts_for", None)  # sources that may store impacts
    return SpladeReranker(source.texts_at, splade, stored(splade.name) if stored else None)


def _model_rerank(source: TextSource, options: RetrieverOptions) -> Reranker:
    from finchunk.retrieve.neural.models import make_model_reranker

    return make_model_reranker(options.reranker, source.texts_at)


register_reranker(RerankerKind.DENSE, _dense_rerank, embeds=True)
register_reranker(RerankerKind.SPLADE, _splade_rerank)
register_reranker(RerankerKind.MODEL, _model_rerank)


# --- reports --------------------------------------------------------------------------------


def fused_parts(retriever: str | RetrieverSpec | AutoSpec) -> tuple[str, ...]:
    """The retrievers a fused one combines (:attr:`RetrieverSpec.parts`), by name (none
    for ``auto``, which chooses one per question)."""
    s = parse_named(retriever)
    return s.parts if isinstance(s, RetrieverSpec) else ()


def fusion_warnings(
    rows: Sequence[Mapping[str, Any]],
    measure: str = "recall",
    setting: Sequence[str] = ("strategy", "header", "k"),
) -> list[str]:
    """Lines for each setting where a fused retriever (:attr:`RetrieverSpec.parts`) scores below
    one of its parts alone on ``measure``.

    ``rows``: report rows (``finchunk eval``'s by default; the FinanceBench bench's with
    ``measure="page_accuracy"`` and ``scope`` in ``setting``), each with ``retriever``;
    a fused retriever is compared with the parts the same setting holds.
    """
    groups: dict[tuple[Any, ...], dict[str, float]] = {}
    for r in rows:
        key = tuple(r.get(f) for f in setting)
        groups.setdefault(key, {})[str(r["retriever"])] = float(r[measure])
    out = []
    for key, by in groups.items():
        where = " ".join(_setting(f, v) for f, v in zip(setting, key, strict=True))
        for name, value in by.items():
            parts = [p for p in fused_parts(name) if p in by]
            if not parts:
                continue
            best = max(parts, key=lambda p: by[p])
            if value < by[best]:
                out.append(
                    f"{where}: {name} {measure} {value:.3f} is below {best} alone ({by[best]:.3f})"
                )
    return out


def _setting(field: str, value: Any) -> str:
    if field == "header":
        return f"header={'on' if value else 'off'}"
    if field in ("k", "scope"):
        return f"{field}={value}"
    return str(value)
