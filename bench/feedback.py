"""RM3 pseudo-relevance feedback (``bm25-rm3``) against BM25 on the development sets.

A grid of feedback texts × expansion terms × original-query weight, each cell's recall@1/3/5/10
and questions better/worse than ``bm25`` at k = 5 (paired bootstrap; ~: within noise).
Development data only: the EDGAR dev set (document scope, or one shared index with
``--edgar-scope corpus``) and the Spanish demo corpus (one shared index); structure + header::

    PYTHONPATH=src python bench/feedback.py --edgar ../shared/data/edgar [--demo] \\
        [--docs 3,5,10] [--terms 5,10,20] [--weights 0.5,0.7,0.8,0.9] [--base bm25]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from finchunk.chunk import make_chunker
from finchunk.evaluate.corpus import Corpus
from finchunk.evaluate.gold import gold_from_corpus
from finchunk.evaluate.harness import EvalSettings, Variant, run_variant
from finchunk.evaluate.measures import Recall, compare, score
from finchunk.evaluate.scope import Scope
from finchunk.retrieve.lexical.feedback import FeedbackParams
from finchunk.retrieve.query.retriever import RetrieverOptions, make_retriever, register_retriever
from finchunk.retrieve.query.texts import TextSource
from rerank import demo_corpus, edgar_corpus

KS = (1, 3, 5, 10)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def register_cell(base: str, fb: FeedbackParams) -> str:
    """A retriever name for ``base``'s RM3 retriever with ``fb`` fixed."""
    name = f"{base}-rm3-d{fb.docs}-t{fb.terms}-w{round(fb.weight * 100)}"

    def factory(source: TextSource, options: RetrieverOptions):
        return make_retriever(f"{base}-rm3", source, replace(options, feedback=fb))

    register_retriever(name, factory)
    return name


def grid(label: str, corpus: Corpus, scope: Scope, base: str, cells: list[str]) -> None:
    gold = gold_from_corpus(corpus)
    chunker = make_chunker("structure", header=True)
    settings = EvalSettings(scope=scope)
    print(f"{label}: {len(gold)} questions, structure + header, {scope.value} scope", flush=True)
    print(f"  {'retriever':28s} " + " ".join(f"R@{k:<4d}" for k in KS) + "  vs base @5")
    first: dict[str, float] | None = None
    for name in [base, *cells]:
        t = time.perf_counter()
        vr = run_variant(corpus, Variant("structure", chunker, name), 10, settings)
        secs = (time.perf_counter() - t) / max(len(gold), 1)
        ms = [Recall(k) for k in KS]
        s = score(vr.run, gold, ms)
        at5 = dict(s.per_query[Recall(5)])
        versus = ""
        if first is None:
            first = at5
        else:
            c = compare(first, at5)
            versus = f"+{c.wins}/−{c.losses}{' ~' if c.within_noise else ''}"
        cols = " ".join(f"{s.mean(m):.3f}" for m in ms)
        print(f"  {name:28s} {cols}  {versus:10s} {secs * 1000:.1f} ms/question", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgar", type=Path, help="the shared EDGAR folder")
    ap.add_argument("--edgar-scope", type=Scope, default=Scope.DOCUMENT)
    ap.add_argument("--demo", action="store_true", help="also the Spanish demo corpus")
    ap.add_argument("--base", default="bm25", help="bm25 or bm25-words")
    ap.add_argument("--docs", default="3,5,10")
    ap.add_argument("--terms", default="5,10,20")
    ap.add_argument("--weights", default="0.5,0.7,0.8,0.9")
    args = ap.parse_args()
    cells = [
        register_cell(args.base, FeedbackParams(d, t, w))
        for d in _ints(args.docs)
        for t in _ints(args.terms)
        for w in _floats(args.weights)
    ]
    if args.edgar:
        grid("EDGAR dev set", edgar_corpus(args.edgar), args.edgar_scope, args.base, cells)
    if args.demo:
        grid("demo corpus", demo_corpus(), Scope.CORPUS, args.base, cells)


if __name__ == "__main__":
    main()
