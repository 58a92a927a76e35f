"""Ablation of the BM25 text pipeline: each option alone on top of the lesson's BM25, then
all together (the default), on the development data and on FinanceBench (dev data too).

Every cell is the measure of a configuration, then its per-question wins/losses against
``lesson`` (rank_bm25's BM25Okapi over the lesson's tokenizer, k1 1.5, b 0.75) from
:func:`finchunk.evaluate.measures.compare`.

* demo corpus (``finchunk demo``; Spanish, 248 questions): bm25, structure and fixed,
  header on, recall@3 and @5, scope corpus;
* EDGAR dev set (``devsets/edgar_dev.jsonl``, 121 questions): structure, header on,
  recall@5, scope document and scope corpus (the 17 filings);
* FinanceBench (129 questions): bytitle and base256, header off, page accuracy @5/@10,
  scopes document and corpus.

    python bench/lexical_ablation.py --demo /tmp/lex-demo --edgar ../shared/data/edgar \\
        [--financebench ../shared/data/financebench --fb-docs /tmp/fbdocs.pkl] \\
        [--configs lesson,default | --grid] [--json OUT]

``--grid`` runs k1 x b around the default pipeline instead (:data:`GRID_K1` x
:data:`GRID_B`), each cell against ``default``.

With no data set named it runs the development data: the default demo corpus (generated
into ``--demo``'s folder, /tmp/lex-demo, when missing) and the EDGAR dev set when
../shared/data/edgar is there. ``--fb-docs`` is a pickle of ``parse_documents(fb)``
(written there when missing).

Results, and which defaults they chose: ``bench/README.md``, "BM25 text pipeline".
"""

from __future__ import annotations

import argparse
import json
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from finchunk.chunk import Strategy, make_chunker
from finchunk.datasets import SampleConfig, generate, write_lesson_files
from finchunk.evaluate.gold import GoldSet, gold_from_corpus
from finchunk.evaluate.harness import chunk_corpus, queries
from finchunk.evaluate.measures import Measure, PageHit, Recall, compare, score
from finchunk.evaluate.runs import Query, rank
from finchunk.evaluate.scope import Scope
from finchunk.model import Chunk
from finchunk.retrieve.lexical.bm25 import LESSON_PARAMS, BM25Params
from finchunk.retrieve.query.retriever import RetrieverOptions
from finchunk.retrieve.query.texts import InMemoryTexts
from finchunk.text.analysis import LESSON_TEXT, NumberMode, Stemmer

_L = LESSON_PARAMS
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DEMO = Path("/tmp/lex-demo")


def _text(**changes: object) -> BM25Params:
    return replace(_L, text=replace(LESSON_TEXT, **changes))


def _default(**changes: object) -> BM25Params:
    return replace(BM25Params(), text=replace(BM25Params().text, **changes))


#: The lesson's BM25, each option alone on top of it, the default (every option chosen),
#: then the default with one choice undone or changed.
CONFIGS: dict[str, BM25Params] = {
    "lesson": _L,
    "+marks": _text(marks=True),
    "+years": _text(years=True),
    "+numbers uncounted": _text(numbers=NumberMode.UNCOUNTED),
    "+numbers drop": _text(numbers=NumberMode.DROP),
    "+plural-en": _text(stem=Stemmer.PLURAL_EN),
    "+plural-es": _text(stem=Stemmer.PLURAL_ES),
    "+prefix 4": _text(prefix=4),
    "b 0.5": replace(_L, b=0.5),
    "b 0.3": replace(_L, b=0.3),
    "k1 0.9": replace(_L, k1=0.9),
    "default": BM25Params(),
    "default −marks": _default(marks=False),
    "default −years": _default(years=False),
    "default, numbers counted": _default(numbers=NumberMode.COUNT),
    "default, numbers drop": _default(numbers=NumberMode.DROP),
    "default +plural-en": _default(stem=Stemmer.PLURAL_EN),
    "default −prefix": _default(prefix=0),
    "default, prefix 3": _default(prefix=3),
    "default, prefix 5": _default(prefix=5),
    "default, b 0.3": replace(BM25Params(), b=0.3),
    "default, b 0.75": replace(BM25Params(), b=0.75),
    "default, k1 1.5": replace(BM25Params(), k1=1.5),
}


GRID_K1 = (0.5, 0.7, 0.9, 1.2, 1.5)
GRID_B = (0.3, 0.4, 0.5, 0.6, 0.75)


def grid() -> dict[str, BM25Params]:
    """The default pipeline over k1 x b, the default first (the others compare to it)."""
    d = BM25Params()
    out = {"default": d}
    for k1 in GRID_K1:
        for b in GRID_B:
            if (k1, b) != (d.k1, d.b):
                out[f"k1 {k1}, b {b}"] = replace(d, k1=k1, b=b)
    return out


@dataclass(frozen=True)
class Cell:
    """One column: a chunked corpus, its queries, gold and measures."""

    name: str
    chunks: Sequence[Chunk]
    queries: Sequence[Query]
    gold: GoldSet
    measures: Sequence[tuple[str, Measure]]


def per_question(cell: Cell, params: BM25Params) -> dict[str, dict[str, float]]:
    """For each of the cell's measures, the value of every question under ``params``."""
    k = max(m.at for _, m in cell.measures)  # type: ignore[attr-defined]
    source = InMemoryTexts([c.text for c in cell.chunks])
    run = rank(
        cell.queries,
        cell.chunks,
        "bm25",
        k,
        source=source,
        options=RetrieverOptions(bm25=params),
        pad=True,
    )
    s = score(run, cell.gold, [m for _, m in cell.measures])
    return {f"{cell.name} {label}": dict(s.per_query[m]) for label, m in cell.measures}


def demo_cells(folder: Path) -> list[Cell]:
    from finchunk.evaluate.corpus import read_corpus

    if not (folder / "documents.parquet").exists():
        print(f"writing the default demo corpus to {folder}")
        write_lesson_files(generate(SampleConfig()), folder)
    corpus = read_corpus(
        folder / "documents.parquet", folder / "passages.parquet", folder / "questions.csv"
    )
    gold, qs = gold_from_corpus(corpus), queries(corpus, Scope.CORPUS)
    ms = [("R@3", Recall(3)), ("R@5", Recall(5))]
    out = []
    for s in (Strategy.STRUCTURE, Strategy.FIXED):
        chunks = chunk_corpus(corpus, make_chunker(s, header=True))
        out.append(Cell(f"demo {s.value}", chunks, qs, gold, ms))
    return out


def edgar_cells(devset: Path, files: Path) -> list[Cell]:
    from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

    corpus = build_quote_corpus(read_quote_questions(devset), files).corpus
    gold = gold_from_corpus(corpus)
    chunks = chunk_corpus(corpus, make_chunker(Strategy.STRUCTURE, header=True))
    ms = [("R@5", Recall(5))]
    return [
        Cell(f"edgar {scope.value}", chunks, queries(corpus, scope), gold, ms)
        for scope in (Scope.DOCUMENT, Scope.CORPUS)
    ]


def financebench_cells(folder: Path, pickled: Path) -> list[Cell]:
    from finchunk.datasets.financebench import load_financebench
    from finchunk.evaluate.financebench import (
        FBScope,
        FBStrategy,
        align_gold,
        chunk_all,
        make_strategy,
        parse_documents,
        scope_queries,
    )

    fb = load_financebench(folder)
    if pickled.is_file():
        docs = pickle.loads(pickled.read_bytes())
    else:
        docs = parse_documents(fb)
        pickled.write_bytes(pickle.dumps(docs))
    questions = list(fb.questions)
    gold, _ = align_gold(questions, docs)
    ms = [("acc@5", PageHit(5)), ("acc@10", PageHit(10))]
    out = []
    for strategy in (FBStrategy.BYTITLE, FBStrategy.BASE256):
        chunks = chunk_all(docs, make_strategy(strategy))
        for scope in (FBScope.DOCUMENT, FBScope.CORPUS):
            qs = scope_queries(scope, questions, None)
            out.append(Cell(f"fb {strategy.value} {scope.value}", chunks, qs, gold, ms))
    return out


def ablate(
    cells: Sequence[Cell], configs: dict[str, BM25Params], log: Callable[[str], None] = print
) -> dict[str, dict[str, dict[str, float]]]:
    """config → column → {mean, wins, losses} against the first config (``lesson``, or
    ``default`` in the grid)."""
    base: dict[str, dict[str, float]] = {}
    table: dict[str, dict[str, dict[str, float]]] = {}
    for name, params in configs.items():
        values: dict[str, dict[str, float]] = {}
        for cell in cells:
            values.update(per_question(cell, params))
        base = base or values
        table[name] = {}
        for column, v in values.items():
            c = compare(base[column], v, column)
            table[name][column] = {"mean": c.mean_b, "wins": c.wins, "losses": c.losses}
        log(f"{name}: " + ", ".join(f"{c} {x['mean']:.3f}" for c, x in table[name].items()))
    return table


def markdown(table: dict[str, dict[str, dict[str, float]]]) -> str:
    """One row per configuration; each cell ``mean +wins/−losses`` against the first."""
    columns = list(next(iter(table.values())))
    lines = ["| config | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for name, row in table.items():
        cells = [f"{row[c]['mean']:.3f} +{row[c]['wins']}/−{row[c]['losses']}" for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--demo", type=Path)
    ap.add_argument("--edgar", type=Path, help="the EDGAR filings folder")
    ap.add_argument("--devset", type=Path, default=Path("devsets/edgar_dev.jsonl"))
    ap.add_argument("--financebench", type=Path)
    ap.add_argument("--fb-docs", type=Path, default=Path("/tmp/fbdocs.pkl"))
    ap.add_argument("--configs", help="comma list of CONFIGS names (default: all)")
    ap.add_argument("--grid", action="store_true", help="k1 x b around the default")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not (args.demo or args.edgar or args.financebench):
        args.demo = DEMO
        if (SHARED / "edgar").is_dir():
            args.edgar = SHARED / "edgar"
        else:
            print(f"{SHARED / 'edgar'} not found: the EDGAR dev set is skipped")
    cells: list[Cell] = []
    if args.demo:
        cells += demo_cells(args.demo)
    if args.edgar:
        cells += edgar_cells(args.devset, args.edgar)
    if args.financebench:
        cells += financebench_cells(args.financebench, args.fb_docs)
    if args.grid:
        configs = grid()
    else:
        names = args.configs.split(",") if args.configs else list(CONFIGS)
        configs = {n: CONFIGS[n] for n in ["lesson", *names] if n in CONFIGS}
    table = ablate(cells, configs)
    print(markdown(table))
    if args.json:
        args.json.write_text(json.dumps(table, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
