"""``finchunk demo``: the lesson's whole analysis on the bundled sample corpus, one command.

It writes the generated corpus as lesson-schema files, reads them back exactly as
``finchunk eval`` would, and reports (terminal tables, ``report.md``, PNG figures):

1. strategies × header off/on at k = 3 and 5: recall, complete, characters, chunk counts;
2. recall against characters delivered over k = 1..10, and recall within budgets of
   500-4,000 characters, whole chunks against evidence delivery;
3. recall@5 by question type;
4. an equal budget of characters: each strategy's best k within it, and budgeted recall;
5. fixed windows of 300 / 500 / 1,000 characters at the same budget;
6. tables indexed as Markdown vs linearised;
7. a metadata filter (the question's own documents) instead of a context header.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from finchunk.chunk import Fixed, Strategy, make_chunker
from finchunk.chunk.tables import linearize_tables
from finchunk.evaluate.corpus import Corpus, read_corpus
from finchunk.evaluate.gold import gold_from_corpus
from finchunk.evaluate.harness import EvalSettings, Scope, Variant, VariantRun, evaluate_runs
from finchunk.evaluate.measures import Budget, Chars, Delivered, Recall, score
from finchunk.evaluate.report import markdown_table
from finchunk.files import atomic_write_text, write_json

MAIN_KS = tuple(range(1, 11))
#: Budgets of the recall-within-a-budget curve (characters per question).
BUDGET_CURVE = (500, 800, 1200, 2000, 2400, 4000)
STRATEGIES = (Strategy.FIXED, Strategy.RECURSIVE, Strategy.STRUCTURE, Strategy.BYTITLE)


@dataclass(frozen=True)
class DemoConfig:
    out: Path = Path("finchunk-demo")
    budget: int = 1300
    fixed_sizes: tuple[int, ...] = (300, 500, 1000)
    sample: Any = None  # a finchunk.datasets SampleConfig; None = the default corpus


@dataclass
class Section:
    title: str
    text: str
    table: list[dict[str, Any]] = field(default_factory=list)
    figure: str | None = None


Tick = Callable[[], None]


def main_variants() -> list[Variant]:
    return [Variant(s.value, make_chunker(s, header=h)) for s in STRATEGIES for h in (False, True)]


def _label(v: Variant) -> str:
    return f"{v.strategy}{' +header' if v.header else ''}"


def best_k_within(report_rows: list[dict[str, Any]], budget: int) -> dict[str, Any] | None:
    """The largest k whose mean characters delivered fit in ``budget``."""
    fitting = [r for r in report_rows if r["chars"] <= budget]
    return max(fitting, key=lambda r: r["k"]) if fitting else None


def _budget_row(
    corpus: Corpus, vr: VariantRun, rows: list[dict[str, Any]], budget: int
) -> dict[str, Any]:
    best = best_k_within(rows, budget)
    cut = Budget(budget)
    measures = (Recall(cut), Delivered(cut), Chars(cut))
    s = score(vr.run, gold_from_corpus(corpus), measures)
    return {
        "variant": _label(vr.variant),
        "best_k": best["k"] if best else 0,
        "recall_at_best_k": best["recall"] if best else 0.0,
        "chars_at_best_k": best["chars"] if best else 0.0,
        "budgeted_recall": round(s.mean(measures[0]), 4),
        "budgeted_chunks": round(s.mean(measures[1]), 2),
        "budgeted_chars": round(s.mean(measures[2]), 1),
    }


def _rows_of(report: dict[str, Any], v: Variant) -> list[dict[str, Any]]:
    return [r for r in report["results"] if r["strategy"] == v.strategy and r["header"] == v.header]


def section_main(report: dict[str, Any]) -> Section:
    counts = {(c["strategy"], c["header"]): c for c in report["chunks"]}
    table = []
    for r in report["results"]:
        if r["k"] not in (3, 5):
            continue
        c = counts[(r["strategy"], r["header"])]
        table.append(
            {
                "strategy": r["strategy"],
                "header": "on" if r["header"] else "off",
                "k": r["k"],
                "recall": r["recall"],
                "complete": r["complete"],
                "chars": r["chars"],
                "chunks": c["count"],
                "mean chunk chars": c["mean_chars"],
            }
        )
    return Section(
        "1. Strategies × context header (BM25)",
        "Recall: share of gold passages at least half covered by the top-k chunks. Complete: "
        "share of questions with every gold passage retrieved. Chars: mean characters "
        "delivered per question.",
        table,
    )


def section_budgets(report: dict[str, Any]) -> Section:
    """Recall within each budget of :data:`BUDGET_CURVE`: whole chunks packed in rank order
    against evidence delivery over the same ranking."""
    grid: dict[tuple[str, int], dict[str, Any]] = {}
    for r in report.get("budgets", []):
        if r["packing"] == "stop":
            continue
        label = f"{r['strategy']}{' +header' if r['header'] else ''}"
        row = grid.setdefault((label, r["budget"]), {"variant": label, "budget": r["budget"]})
        name = "chunks" if r["packing"] == "skip" else "evidence"
        row[f"{name} recall"] = r["recall"]
        row[f"{name} chars"] = r["chars"]
        if "answer" in r:
            row[f"{name} answer"] = r["answer"]
    return Section(
        "2b. Recall within a budget: whole chunks against evidence",
        "The same ranking delivered two ways within each budget: whole chunks in rank order, "
        "skipping one that does not fit; or evidence (the paragraphs, table rows and notes of "
        "the top chunks, scored on their own, a section's header once). Answer: share of "
        "questions whose gold answer's figures appear in what is delivered. Compare at the "
        "same budget, not the same k.",
        list(grid.values()),
        figure="recall_vs_budget.png",
    )


def section_by_type(report: dict[str, Any]) -> Section:
    rows = [r for r in report["by_type"] if r["k"] == 5]
    types = sorted({r["type"] for r in rows})
    grid: dict[str, dict[str, Any]] = {}
    for r in rows:
        label = f"{r['strategy']}{' +header' if r['header'] else ''}"
        grid.setdefault(label, {"variant": label})[f"{r['type']}"] = r["recall"]
    n = {r["type"]: r["questions"] for r in rows}
    return Section(
        "3. Recall@5 by question type",
        "Questions per type: " + ", ".join(f"{t} {n[t]}" for t in types) + ".",
        list(grid.values()),
    )


def run_budget(
    corpus: Corpus, report: dict[str, Any], runs: Sequence[VariantRun], budget: int
) -> Section:
    table = [_budget_row(corpus, vr, _rows_of(report, vr.variant), budget) for vr in runs]
    return Section(
        f"4. Equal budget: {budget:,} characters",
        "best_k: the largest k whose mean characters delivered fit the budget; budgeted "
        "recall: chunks delivered in rank order until the next one would exceed the budget.",
        table,
    )


def run_fixed_sizes(corpus: Corpus, cfg: DemoConfig, tick: Tick) -> Section:
    variants = [Variant(f"fixed-{n}", Fixed(size=n, overlap=n // 10)) for n in cfg.fixed_sizes]
    report, runs = evaluate_runs(corpus, variants, MAIN_KS, on_question=tick)
    table = [_budget_row(corpus, vr, _rows_of(report, vr.variant), cfg.budget) for vr in runs]
    return Section(
        f"5. Fixed windows (10 % overlap) at {cfg.budget:,} characters",
        "Smaller windows fit more chunks in the budget; larger ones cut fewer passages.",
        table,
    )


def run_linearised(corpus: Corpus, tick: Tick) -> Section:
    base = make_chunker(Strategy.STRUCTURE, header=False)
    variants = [
        Variant("structure (tables as Markdown)", base),
        Variant(
            "structure (tables linearised)", base, index_text=lambda c: linearize_tables(c.text)
        ),
    ]
    report, _ = evaluate_runs(corpus, variants, (3, 5), on_question=tick)
    table = [
        {
            "variant": r["strategy"],
            "k": r["k"],
            "recall": r["recall"],
            "complete": r["complete"],
            "chars": r["chars"],
        }
        for r in report["results"]
    ]
    return Section(
        "6. Tables as Markdown vs linearised (BM25)",
        'Linearised: each row as "row label: column = value; …"; spans are unchanged.',
        table,
    )


def run_filter(corpus: Corpus, report: dict[str, Any], tick: Tick) -> Section:
    variants = [Variant(s.value, make_chunker(s, header=False)) for s in STRATEGIES]
    filtered, _ = evaluate_runs(corpus, variants, (5,), EvalSettings(scope=Scope.DOCUMENT), tick)
    at5 = {(r["strategy"], r["header"]): r["recall"] for r in report["results"] if r["k"] == 5}
    table = [
        {
            "strategy": r["strategy"],
            "no header": at5[(r["strategy"], False)],
            "header": at5[(r["strategy"], True)],
            "filter, no header": r["recall"],
        }
        for r in filtered["results"]
    ]
    return Section(
        "7. Metadata filter instead of a header (recall@5)",
        "Filter: each question searches only its own documents (id_doc), without a header.",
        table,
    )


def write_report(out: Path, corpus: Corpus, sections: Sequence[Section], wall: float) -> Path:
    c = corpus
    parts = [
        "# finchunk demo report",
        "",
        f"Corpus: {len(c.documents)} documents, {len(c.passages)} passages, "
        f"{len(c.questions)} questions ({len(c.answerable)} answerable; unanswerable ones "
        "are excluded from recall). Retriever: BM25 over all documents unless stated.",
        "",
    ]
    for s in sections:
        parts += [f"## {s.title}", "", s.text, ""]
        if s.table:
            parts += [markdown_table(s.table), ""]
        if s.figure:
            parts += [f"![{s.title}]({s.figure})", ""]
    parts.append(
        f"Wall time: {wall:.1f} s. Reproduce sections 1-3 with `finchunk eval --header both "
        f"--budget {','.join(map(str, BUDGET_CURVE))}` on the files in this folder (see "
        "eval-report.json)."
    )
    path = out / "report.md"
    atomic_write_text(path, "\n".join(parts) + "\n")
    return path


def run_analysis(
    corpus: Corpus, cfg: DemoConfig, tick: Tick
) -> tuple[dict[str, Any], list[Section]]:
    from finchunk.evaluate.plots import recall_by_type_dots, recall_vs_budget, recall_vs_chars

    settings = EvalSettings(budgets=BUDGET_CURVE)
    report, runs = evaluate_runs(corpus, main_variants(), MAIN_KS, settings, on_question=tick)
    write_json(cfg.out / "eval-report.json", report)
    curves = Section(
        "2. Recall vs characters delivered, k = 1..10",
        "Each point is one k; up and to the left is better.",
        figure="recall_vs_chars.png",
    )
    recall_vs_chars(
        report["results"],
        cfg.out / "recall_vs_chars.png",
        "Recall vs characters delivered (BM25, k = 1..10)",
    )
    budgets = section_budgets(report)
    recall_vs_budget(
        report["budgets"],
        cfg.out / "recall_vs_budget.png",
        "Recall within a budget of characters (BM25)",
    )
    by_type = section_by_type(report)
    by_type.figure = "recall_by_type.png"
    recall_by_type_dots(
        [r for r in report["by_type"] if r["k"] == 5],
        cfg.out / "recall_by_type.png",
        "Recall@5 by question type",
    )
    sections = [
        section_main(report),
        curves,
        budgets,
        by_type,
        run_budget(corpus, report, runs, cfg.budget),
        run_fixed_sizes(corpus, cfg, tick),
        run_linearised(corpus, tick),
        run_filter(corpus, report, tick),
    ]
    return report, sections


def load_demo_corpus(cfg: DemoConfig) -> Corpus:
    from finchunk.datasets import SampleConfig, generate, write_lesson_files

    sample = generate(cfg.sample or SampleConfig())
    paths = write_lesson_files(sample, cfg.out)
    return read_corpus(paths.documents, paths.passages, paths.questions)


def demo_question_steps(corpus: Corpus, cfg: DemoConfig) -> int:
    """Ranking steps, for the progress bar: one per answerable question and variant."""
    n_variants = 8 + len(cfg.fixed_sizes) + 2 + 4
    return n_variants * len(corpus.answerable)
