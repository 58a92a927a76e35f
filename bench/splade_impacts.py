"""Stored SPLADE impacts (uint16) against the exact weights: does quantising change ``auto``'s
ranking? EDGAR dev questions, each over its own filing (structure + header), BM25's top 100
reranked as ``auto`` does (``bm25/splade@100+0.5``) once with the exact weights (the rerank
before impacts were stored) and once with the impacts' weights, from the same encoding.

Prints, for ``-k`` 5 and 10, the questions whose top k differ as a set (a different set
can change recall@k; the same set cannot) and as an order::

    PYTHONPATH=src python bench/splade_impacts.py --edgar ../shared/data/edgar [--questions 20]

Needs ``pip install 'finchunk[splade]'``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from finchunk.chunk import make_chunker
from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions
from finchunk.retrieve.neural.rerank import fuse_scores
from finchunk.retrieve.neural.splade import load_splade
from finchunk.retrieve.neural.splade_impacts import IMPACT_SCALE, quantise
from finchunk.retrieve.query.retriever import make_retriever

ROOT = Path(__file__).resolve().parents[1]
DEPTH, WEIGHT = 100, 0.5


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgar", type=Path, required=True, help="the shared EDGAR folder")
    ap.add_argument("--questions", type=int, default=None, help="the first N (default: all)")
    args = ap.parse_args()
    questions = read_quote_questions(ROOT / "devsets" / "edgar_dev.jsonl")[: args.questions]
    corpus = build_quote_corpus(questions, args.edgar).corpus
    chunker = make_chunker("structure", header=True)
    texts_of = {d.id: [c.text for c in chunker.chunk(d)] for d in corpus.documents}
    bm25 = {d: make_retriever("bm25", texts) for d, texts in texts_of.items()}
    splade = load_splade()
    differ = {5: [0, 0], 10: [0, 0]}  # k → [sets differ, orders differ]
    changed: list[str] = []
    t = time.perf_counter()
    for q in corpus.questions:
        doc = q.doc_ids[0]
        pool = bm25[doc].search(q.text, DEPTH)
        terms, w = splade.query(q.text)
        if not terms.size or not len(pool):
            continue
        weights = splade.weights([texts_of[doc][p] for p in pool.positions.tolist()], terms)
        exact = weights @ w
        stored = (quantise(weights) * IMPACT_SCALE) @ w
        ranks = []
        for scores in (exact, stored):
            fused = fuse_scores(pool.scores, scores, WEIGHT)
            ranks.append(pool.positions[np.argsort(-fused, kind="stable")].tolist())
        for k, counts in differ.items():
            a, b = ranks[0][:k], ranks[1][:k]
            counts[0] += set(a) != set(b)
            counts[1] += a != b
            if k == 5 and set(a) != set(b):
                changed.append(q.id)
    n = len(corpus.questions)
    print(f"{n} EDGAR dev questions, each over its filing, {time.perf_counter() - t:.0f} s")
    for k, (sets, orders) in differ.items():
        print(f"  top {k}: set differs for {sets}/{n}, order for {orders}/{n}")
    if changed:
        print("  top 5 set changed: " + ", ".join(changed))


if __name__ == "__main__":
    main()
