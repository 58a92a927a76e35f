"""A vocabulary bridge from XBRL concept labels, measured as query expansion (an experiment:
no retriever ships it).

The bridge's vocabulary is what ``companyfacts`` JSON carries for every concept it holds (its
``label`` and ``description``; us-gaap and ifrs-full), written by the taxonomy's authors, not
tuned on any benchmark. A question is scored against the concepts (BM25 over each concept's
label, or label and description); the labels of the best ``m`` concepts (those within half
the best score) join the question, each term weighted ``w`` × its concept's share of the
best score, and BM25 scores the weighted query (``BM25Index.search_weighted``). "Revenue"
finds *Sales Revenue, Net* and brings "sales" and "net"; "capital expenditure" finds the
concepts whose descriptions say it.

Development sets (EDGAR dev, per filing and one shared index; the demo corpus), structure +
header; FinanceBench per filing (structure, header off, page accuracy), each cell against
its base retriever in the same run::

    python bench/xbrl_bridge.py --facts ../shared/data/edgar --edgar ../shared/data/edgar \\
        [--demo] [--financebench ../shared/data/financebench] [--base bm25,bm25-words]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from finchunk.datasets.financebench import load_financebench
from finchunk.evaluate.financebench import BenchConfig, FBScope, FBStrategy, run_benchmark
from finchunk.evaluate.scope import Scope
from finchunk.retrieve.base import Hits
from finchunk.retrieve.lexical.analyzers import analyzer
from finchunk.retrieve.lexical.bm25 import BM25Index, BM25Params
from finchunk.retrieve.lexical.lexical import LexicalIndex
from finchunk.retrieve.query.retriever import RetrieverOptions, parse_retriever, register_retriever
from finchunk.retrieve.query.texts import TextSource

TAXONOMIES = ("us-gaap", "ifrs-full")
CELLS = ((1, 0.4), (3, 0.2))  # (concepts m, weight w), fixed before any run


def load_concepts(folder: Path) -> list[tuple[str, str]]:
    """(label, description) of every us-gaap and ifrs-full concept in the companyfacts JSON
    files under ``folder``, in name order (the same concept from several files once)."""
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for path in sorted(folder.rglob("*.json")):
        facts = json.loads(path.read_text(encoding="utf-8")).get("facts", {})
        for taxonomy in TAXONOMIES:
            for name, concept in facts.get(taxonomy, {}).items():
                if concept.get("label"):
                    found[(taxonomy, name)] = (concept["label"], concept.get("description") or "")
    return [found[k] for k in sorted(found)]


class Bridge:
    """BM25 with the question expanded by the labels of the concepts it matches best."""

    def __init__(
        self, lexical: LexicalIndex, labels: Sequence[str], concepts: BM25Index, m: int, w: float
    ) -> None:
        self.lexical, self.labels, self.concepts, self.m, self.w = lexical, labels, concepts, m, w

    @property
    def size(self) -> int:
        return self.lexical.size

    def expanded(self, query: str) -> dict[str, float]:
        pipeline = self.lexical.params.text
        weights = {t: float(n) for t, n in Counter(pipeline.tokens(query)).items()}
        found = self.concepts.search(query, self.m)
        if not len(found):
            return weights
        best = float(found.scores[0])
        for pos, score in found:
            if score < 0.5 * best:
                continue
            for term in pipeline.tokens(self.labels[pos]):
                if not term.isdigit():
                    weights[term] = max(weights.get(term, 0.0), self.w * score / best)
        return weights

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> Hits:
        return self.lexical.bm25.search_weighted(self.expanded(query), k, mask)


def register_cells(concepts: list[tuple[str, str]], bases: Sequence[str]) -> dict[str, list[str]]:
    """The grid's retriever names per base: base × (label, label + description) × CELLS."""
    labels = [label for label, _ in concepts]
    indexes = {
        "label": BM25Index(labels, BM25Params()),
        "desc": BM25Index([f"{lab}. {desc}" for lab, desc in concepts], BM25Params()),
    }
    names: dict[str, list[str]] = {}
    for base in bases:
        name_of = "plain" if base == "bm25" else base.removeprefix("bm25-")
        for mode, index in indexes.items():
            for m, w in CELLS:
                name = f"{base}-bridge-{mode}-m{m}-w{round(w * 10)}"

                def factory(
                    source: TextSource, options: RetrieverOptions, index=index, m=m, w=w, a=name_of
                ):
                    lexical = source.lexical(analyzer(a), options.bm25)
                    return Bridge(lexical, labels, index, m, w)

                register_retriever(name, factory)
                names.setdefault(base, []).append(name)
    return names


def financebench(data: Path, base: str, cells: list[str]) -> None:
    config = BenchConfig(
        strategies=(FBStrategy.STRUCTURE,),
        scopes=(FBScope.DOCUMENT,),
        ks=(5, 10),
        retrievers=tuple(parse_retriever(r) for r in (base, *cells)),
    )
    report = run_benchmark(load_financebench(data), config)
    print(f"FinanceBench per filing, structure, page accuracy, against {base}:", flush=True)
    for c in report["comparisons"]:
        noise = " ~" if c["within_noise"] else ""
        print(
            f"  {c['b']:30s} @{c['k']:<2d} {c['mean_a']:.3f} -> {c['mean_b']:.3f} "
            f"+{c['wins']}/-{c['losses']}{noise}",
            flush=True,
        )


def main() -> None:
    from feedback import grid
    from rerank import demo_corpus, edgar_corpus

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=Path, required=True, help="folder of companyfacts JSON")
    ap.add_argument("--edgar", type=Path, help="the shared EDGAR folder")
    ap.add_argument("--demo", action="store_true")
    ap.add_argument("--financebench", type=Path, help="the FinanceBench folder")
    ap.add_argument("--base", default="bm25,bm25-words")
    args = ap.parse_args()
    concepts = load_concepts(args.facts)
    print(f"{len(concepts)} concepts from {args.facts}", flush=True)
    names = register_cells(concepts, [b.strip() for b in args.base.split(",") if b.strip()])
    for base, cells in names.items():
        if args.edgar:
            corpus = edgar_corpus(args.edgar)
            grid("EDGAR dev set", corpus, Scope.DOCUMENT, base, cells)
            grid("EDGAR dev set", corpus, Scope.CORPUS, base, cells)
        if args.demo:
            grid("demo corpus", demo_corpus(), Scope.CORPUS, base, cells)
        if args.financebench:
            financebench(args.financebench, base, cells)


if __name__ == "__main__":
    main()
