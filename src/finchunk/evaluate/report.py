"""The report of both evaluation harnesses, ``finchunk eval`` (:mod:`~finchunk.evaluate.harness`)
and ``finchunk bench financebench`` (:mod:`~finchunk.evaluate.financebench`).

Rows (``--json`` writes them as they are): measures at a k (:func:`means`), chunk counts,
a variant against the first, recall within budgets (:func:`run_budget_rows`).
Shown: :func:`eval_shown` and :func:`bench_shown` lay a report out as lines and
:class:`ReportTable` values (cells as text, and the long format for a narrow terminal) that
the CLI draws with rich (:mod:`finchunk.cli.render`); :func:`markdown_table` writes rows as
Markdown (the demo's ``report.md``). Nothing here imports rich.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from statistics import fmean
from typing import TYPE_CHECKING, Any

from finchunk.evaluate.answers import answer_found
from finchunk.evaluate.gold import GoldSet
from finchunk.evaluate.measures import (
    DEFAULT_THRESHOLD,
    Budget,
    Chars,
    Complete,
    Delivered,
    Measure,
    Recall,
    Scores,
    TokenBudget,
    compare,
    score,
    token_counts,
)
from finchunk.evaluate.runs import Run

if TYPE_CHECKING:
    from finchunk.evaluate.harness import EvidenceRun

Row = dict[str, Any]

# --- rows -----------------------------------------------------------------------------------

#: Decimal places of a measure's mean in a row (characters: 1; the rest: 4).
ROUND = {"chars": 1}


def means(s: Scores, by_key: Mapping[str, Measure]) -> Row:
    """Each measure's mean over the questions, by report key, rounded as :data:`ROUND` says."""
    return {n: round(s.mean(m), ROUND.get(n, 4)) for n, m in by_key.items()}


def chunk_row(keys: Mapping[str, Any], texts: Iterable[str]) -> Row:
    """How many chunks a strategy made and their mean length (of the texts delivered)."""
    lengths = [len(t) for t in texts]
    mean = fmean(lengths) if lengths else 0.0
    return {**keys, "count": len(lengths), "mean_chars": round(mean, 1)}


def comparison_row(
    keys: Mapping[str, Any],
    a: str,
    b: str,
    a_values: Mapping[str, float],
    b_values: Mapping[str, float],
    measure: str,
) -> Row:
    """``b`` against ``a`` on the questions both ran: means, difference, wins and losses per
    question, and whether a paired bootstrap's 95 % interval holds 0."""
    return {**keys, "a": a, "b": b, **compare(a_values, b_values, measure).as_dict()}


#: Per question: recall, complete, chunks (pieces), characters, answer found (None: unknown).
PerQuery = dict[str, tuple[float, float, float, float, bool | None]]


def run_budget_rows(
    run: Run,
    texts: Mapping[str, str],
    gold: GoldSet,
    budgets: Sequence[int],
    threshold: float = DEFAULT_THRESHOLD,
    evidence: EvidenceRun | None = None,
    budget_tokens: Sequence[int] = (),
) -> list[Row]:
    """Per budget: recall, chunks and characters delivered when delivery stops at the first
    chunk that does not fit, when it packs (skips it and goes on), and (given ``evidence``)
    when it delivers evidence units (:mod:`finchunk.retrieve.query.evidence`; ``chunks`` are then
    pieces); each with recall by question type and, where the questions' answers are known,
    answer-bearing recall (:func:`~finchunk.evaluate.answers.answer_found`).
    ``budget_tokens``: budgets in cl100k tokens, scored the same ways (rows with ``"unit":
    "tokens"``; ``chars`` is still the characters delivered)."""
    rows = []
    answers = evidence.answers if evidence is not None else {}
    counts = token_counts(run, texts) if budget_tokens else {}
    for chars, tokens in [*((b, False) for b in budgets), *((b, True) for b in budget_tokens)]:
        if evidence is not None:
            per = evidence.per_query(run, gold, chars, tokens)
            rows.append(budget_row(gold, chars, "evidence", per, tokens))
        for skip in (False, True):
            cut = TokenBudget(chars, skip, counts) if tokens else Budget(chars, skip)
            ms = (Recall(cut, threshold), Complete(cut, threshold), Delivered(cut), Chars(cut))
            s = score(run, gold, ms)
            per = {}
            for g in gold:
                found = None
                if answers.get(g.id):
                    delivered = "\n\n".join(texts[c.chunk_id] for c in cut.apply(run.get(g.id)))
                    found = answer_found(answers[g.id], delivered)
                got = tuple(s.per_query[m][g.id] for m in ms)
                per[g.id] = (*got, found)
            rows.append(budget_row(gold, chars, "skip" if skip else "stop", per, tokens))
    return rows


def budget_row(
    gold: GoldSet, budget: int, packing: str, per: PerQuery, tokens: bool = False
) -> Row:
    """One budget row from per-question values (:data:`PerQuery`), in ``"unit"`` ``tokens``
    (cl100k) with ``tokens``, else ``chars``."""
    values = list(per.values()) or [(0.0, 0.0, 0.0, 0.0, None)]
    row = {
        "budget": budget,
        "unit": "tokens" if tokens else "chars",
        "packing": packing,
        "recall": round(fmean(v[0] for v in values), 4),
        "complete": round(fmean(v[1] for v in values), 4),
        "chunks": round(fmean(v[2] for v in values), 2),
        "chars": round(fmean(v[3] for v in values), 1),
    }
    known = [v[4] for v in values if v[4] is not None]
    if known:
        row["answer"] = round(fmean(float(f) for f in known), 4)
        row["answer_questions"] = len(known)
    row["by_type"] = {
        t: round(fmean(per[g.id][0] for g in gold if g.type == t), 4) for t in gold.types
    }
    return row


# --- tables ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportTable:
    """A table as text: ``right`` says which columns are figures (right-aligned); ``long``
    is the same table in long format (a row per variant and k, type or measure), to show
    when this one is wider than the terminal; ``fold``: cells fold, never cut (long
    format), and the title stands on the left."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    right: tuple[bool, ...]
    long: ReportTable | None = None
    caption: str | None = None
    fold: bool = False
    title_left: bool = False


#: What a report shows, in order: lines of text and tables.
Shown = list[str | ReportTable]


def table(
    title: str, columns: Sequence[str], rows: Iterable[Sequence[str]], left: int = 1
) -> ReportTable:
    """A wide table whose first ``left`` columns are names (left) and the rest figures."""
    cells = tuple(tuple(r) for r in rows)
    return ReportTable(title, tuple(columns), cells, tuple(i >= left for i in range(len(columns))))


def long_table(
    title: str, columns: Sequence[str], rows: Iterable[Sequence[str]], caption: str | None = None
) -> ReportTable:
    """A long-format table: columns whose every cell is a number are right-aligned."""
    cells = tuple(tuple(r) for r in rows)
    right = tuple(bool(cells) and all(_numeric(r[i]) for r in cells) for i in range(len(columns)))
    return ReportTable(title, tuple(columns), cells, right, None, caption, True, True)


def _numeric(cell: str) -> bool:
    return cell.replace(",", "").replace(".", "").replace(" %", "").strip().isdigit()


def format_cell(v: Any) -> str:
    """A table cell as the report shows it: floats rounded by size, the rest as text."""
    if isinstance(v, float):
        return f"{v:,.1f}" if abs(v) >= 10 else f"{v:.3f}"
    return str(v)


def markdown_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Rows (dicts) as a Markdown table, a column per key in order of appearance."""
    if not rows:
        return ""
    cols = list(dict.fromkeys(k for r in rows for k in r))
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(format_cell(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def rows_table(title: str, rows: Sequence[Mapping[str, Any]], keys: Iterable[str]) -> ReportTable:
    """Rows (dicts) as a table, cells as :func:`markdown_table` writes them, columns in
    ``keys`` on the left; in long format a row per row and measure (``keys…  measure
    value``)."""
    names = set(keys)
    cols = list(dict.fromkeys(k for r in rows for k in r))
    cells = tuple(tuple(format_cell(r.get(c, "")) for c in cols) for r in rows)
    kept = [c for c in cols if c in names]
    long = long_table(
        title,
        (*kept, "measure", "value"),
        [
            (*(format_cell(r.get(c, "")) for c in kept), c, format_cell(r.get(c, "")))
            for r in rows
            for c in cols
            if c not in names
        ],
    )
    right = tuple(c not in names for c in cols)
    return ReportTable(title, tuple(cols), cells, right, long, title_left=True)


# --- finchunk eval --------------------------------------------------------------------------


def variant_label(row: Mapping[str, Any]) -> str:
    """``strategy [+header] [retriever]``: the retriever is named unless it is plain ``bm25``
    (so ``--retriever bm25,bm25/dense@20`` prints two rows, not one overwritten by the other)."""
    retriever = row.get("retriever")
    named = f" {retriever}" if retriever and retriever != "bm25" else ""
    return f"{row['strategy']}{' +header' if row['header'] else ''}{named}"


def recall_by_k_table(report: Mapping[str, Any]) -> ReportTable:
    """Recall@k (characters delivered) a column per k; long: ``variant  k  recall  chars``."""
    title = "Recall@k (chars delivered)"
    ks = sorted({r["k"] for r in report["results"]})
    grid: dict[str, dict[int, Row]] = defaultdict(dict)
    for r in report["results"]:
        grid[variant_label(r)][r["k"]] = r
    cells = [
        (label, *(f"{by_k[k]['recall']:.3f} ({by_k[k]['chars']:.0f})" for k in ks))
        for label, by_k in grid.items()
    ]
    long = [
        (variant_label(r), str(r["k"]), f"{r['recall']:.3f}", f"{r['chars']:.0f}")
        for r in report["results"]
    ]
    wide = table(title, ("variant", *(f"k={k}" for k in ks)), cells)
    return replace(wide, long=long_table(title, ("variant", "k", "recall", "chars"), long))


def by_type_table(report: Mapping[str, Any], k: int) -> ReportTable | None:
    """Recall@k a column per question type; long: ``variant  type  n  recall``."""
    rows = [r for r in report["by_type"] if r["k"] == k]
    if not rows:
        return None
    title = f"Recall@{k} by question type"
    types = sorted({r["type"] for r in rows})
    counts = {r["type"]: r["questions"] for r in rows}
    grid: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        grid[variant_label(r)][r["type"]] = r["recall"]
    cells = [(label, *(f"{v.get(ty, 0.0):.3f}" for ty in types)) for label, v in grid.items()]
    wide = table(title, ("variant", *(f"{ty} (n={counts[ty]})" for ty in types)), cells)
    order = {
        label: n for n, label in enumerate(dict.fromkeys(map(variant_label, report["by_type"])))
    }
    long = sorted(
        ((variant_label(r), r["type"], str(r["questions"]), f"{r['recall']:.3f}") for r in rows),
        key=lambda row: (order[row[0]], row[1]),
    )
    return replace(wide, long=long_table(title, ("variant", "type", "n", "recall"), long))


def chunks_table(report: Mapping[str, Any], first: str = "variant") -> ReportTable:
    """Chunk counts and mean length per strategy (and header)."""
    cells = [
        (variant_label(r), str(r["count"]), f"{r['mean_chars']:.0f}") for r in report["chunks"]
    ]
    return table("Chunks", (first, "count", "mean chars"), cells)


def budgets_table(rows: Sequence[Mapping[str, Any]]) -> ReportTable:
    """Recall within each budget (characters or cl100k tokens, the row's ``unit``), stopping
    at the first chunk that does not fit, packing (skipping it), and delivering evidence
    units (:mod:`finchunk.retrieve.query.evidence`)."""
    evidence = any(r["packing"] == "evidence" for r in rows)
    packings = ("stop", "skip", "evidence") if evidence else ("stop", "skip")
    grid: dict[tuple[str, int, str], dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for r in rows:
        grid[(variant_label(r), r["budget"], r.get("unit", "chars"))][r["packing"]] = r
    cell = "{0[recall]:.3f} ({0[chunks]:.1f}, {0[chars]:.0f})".format
    cells = [
        (label, f"{budget:,} {unit}", *(cell(by[p]) for p in packings))
        for (label, budget, unit), by in grid.items()
    ]
    columns = ("variant", "budget", "stop", "pack", *(("evidence",) if evidence else ()))
    return table("Recall within a budget (chunks, chars delivered)", columns, cells)


def _better_worse(r: Mapping[str, Any]) -> str:
    """Questions better and worse than the first variant, ``~`` when within the noise."""
    return f"+{r['wins']}/−{r['losses']}{' ~' if r['within_noise'] else ''}"


def versus_table(rows: Sequence[Mapping[str, Any]]) -> ReportTable | None:
    """Each variant against the first (``finchunk eval``'s ``comparisons``): the measure's
    means, questions better and worse."""
    if not rows:
        return None
    first = rows[0]
    cells = [(r["b"], f"{r['mean_a']:.3f} → {r['mean_b']:.3f}", _better_worse(r)) for r in rows]
    title = f"Against {first['a']}, per question (~: 95 % interval holds 0)"
    return table(title, ("variant", first["measure"], "better/worse"), cells)


def eval_shown(report: Mapping[str, Any]) -> Shown:
    """What ``finchunk eval`` prints: the quotes aligned (quote gold), the corpus, recall by
    k, recall by question type at k = 5 (or the largest k), each variant against the first
    (as ``bench financebench`` shows its retrievers), chunks, budgets."""
    shown: Shown = []
    if "alignment" in report:
        a = report["alignment"]
        unaligned = a["unaligned_ids"]
        shown.append(
            f"quotes aligned: {a['aligned']} of {a['quotes']}"
            + (f"; not aligned: {', '.join(unaligned)}" if unaligned else "")
        )
    c = report["corpus"]
    shown.append(
        f"corpus: {c['documents']} documents, {c['passages']} passages, "
        f"{c['questions']} questions ({c['answerable']} answerable; the rest are excluded "
        "from recall)"
    )
    shown.append(recall_by_k_table(report))
    ks = sorted({r["k"] for r in report["by_type"]})
    by_type = by_type_table(report, 5 if 5 in ks else ks[-1]) if ks else None
    if by_type is not None:
        shown.append(by_type)
    versus = versus_table(report.get("comparisons") or [])
    if versus is not None:
        shown.append(versus)
    shown.append(chunks_table(report))
    if report.get("budgets"):
        shown.append(budgets_table(report["budgets"]))
    return shown


# --- finchunk bench financebench ------------------------------------------------------------

#: A retriever tuned on FinanceBench, in long format (the caption says so).
TUNED_MARK = "*"


def _pick_ks(ks: set[int]) -> tuple[int, int]:
    """The two k shown: 5 and 10 when measured, else the smallest and the largest."""
    return (5 if 5 in ks else min(ks)), (10 if 10 in ks else max(ks))


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _strategy(r: Mapping[str, Any]) -> str:
    return r["strategy"] + (" +header" if r["header"] else "")


def results_table(
    report: Mapping[str, Any], scope: str, paper: Mapping[str, tuple[str, float]]
) -> ReportTable | None:
    """Page accuracy at two k, pages and evidence hit, characters, and the paper's figure
    (``paper``: Table 4 by strategy) of one scope; long: a row per variant and k shown."""
    rows = [r for r in report["results"] if r["scope"] == scope]
    if not rows:
        return None
    lo, hi = _pick_ks({r["k"] for r in rows})
    grid: dict[tuple[str, bool, str], dict[int, Mapping[str, Any]]] = defaultdict(dict)
    for r in rows:
        grid[(r["strategy"], r["header"], r["retriever"])][r["k"]] = r
    cells = []
    for (strategy, header, retriever), by_k in grid.items():
        known = paper.get(strategy)
        a, b = by_k[lo], by_k[hi]
        tuned = " (tuned on FinanceBench)" if b.get("tuned_on_benchmark") else ""
        cells.append(
            (
                strategy + (" +header" if header else ""),
                retriever + tuned,
                _pct(a["page_accuracy"]),
                _pct(b["page_accuracy"]),
                _pct(b["page_recall"]),
                _pct(b["evidence_recall"]),
                f"{b['chars']:.0f}",
                f"{known[1]:.2f} %" if known and scope == "document" else "",
            )
        )
    cols = ("strategy", "retriever", f"acc@{lo}", f"acc@{hi}", f"pages@{hi}", f"evid@{hi}")
    wide = table(f"FinanceBench, scope={scope}", (*cols, f"chars@{hi}", "paper@10"), cells, 2)
    return replace(wide, long=_results_long(rows, scope, {lo, hi}))


def _results_long(rows: Sequence[Mapping[str, Any]], scope: str, shown: set[int]) -> ReportTable:
    """``strategy  retriever  k  acc  pages  evid  chars`` (percentages); a retriever tuned on
    FinanceBench is marked :data:`TUNED_MARK` and the caption says so; the paper's figures
    are in the legend printed below the tables."""
    cells = [
        (
            _strategy(r),
            r["retriever"] + (TUNED_MARK if r.get("tuned_on_benchmark") else ""),
            str(r["k"]),
            f"{100 * r['page_accuracy']:.1f}",
            f"{100 * r['page_recall']:.1f}",
            f"{100 * r['evidence_recall']:.1f}",
            f"{r['chars']:.0f}",
        )
        for r in rows
        if r["k"] in shown
    ]
    cols = ("strategy", "retriever", "k", "acc %", "pages %", "evid %", "chars")
    tuned = any(r.get("tuned_on_benchmark") for r in rows)
    caption = f"{TUNED_MARK} tuned on FinanceBench" if tuned else None
    return long_table(f"FinanceBench, scope={scope}", cols, cells, caption)


def comparisons_table(rows: Sequence[Mapping[str, Any]]) -> ReportTable | None:
    """Each retriever against the first one run: page accuracy, questions better/worse."""
    if not rows:
        return None
    cells = [
        (
            _strategy(r),
            r["scope"],
            str(r["k"]),
            r["b"],
            f"{100 * r['mean_a']:.1f} → {100 * r['mean_b']:.1f} %",
            _better_worse(r),
        )
        for r in rows
    ]
    cols = ("strategy", "scope", "k", "retriever", "acc", "better/worse")
    title = f"Against {rows[0]['a']}, per question (~: 95 % interval holds 0)"
    return ReportTable(title, cols, tuple(cells), tuple(c in ("k", "acc") for c in cols))


def _bench_summary(report: Mapping[str, Any]) -> list[str]:
    a = report["alignment"]
    lines = [
        f"FinanceBench: {report['documents']} filings ({report['pages']} pages), "
        f"{report['questions']} questions, {report['skipped']} skipped (PDF missing); "
        f"evidence aligned {a['aligned']}/{a['quotes']} ({a['on_page']} on their gold page, "
        f"{a['fuzzy']} fuzzy)"
    ]
    if a["unaligned_ids"]:
        lines.append(f"unaligned evidence: {', '.join(a['unaligned_ids'])}")
    if report.get("distinct", "none") != "none":
        lines.append(f"delivered: at most one chunk per {report['distinct']} in each top k")
    if report.get("filter"):
        f = report["filter"]
        lines.append(
            f"filtered scope: own filing kept for {100 * f['own_filing_kept']:.1f} % of "
            f"questions, {f['mean_filings']} filings searched on average"
        )
    return lines


def bench_shown(report: Mapping[str, Any]) -> Shown:
    """What ``finchunk bench financebench`` prints: the benchmark and its alignment, a
    results table per scope, the comparisons, the legend, chunks, budgets, wall time."""
    from finchunk.evaluate.financebench import PAPER_TABLE4, FBScope  # it imports this module

    shown: Shown = [*_bench_summary(report)]
    for scope in FBScope:
        results = results_table(report, scope.value, PAPER_TABLE4)
        if results is not None:
            shown.append(results)
    versus = comparisons_table(report.get("comparisons") or [])
    if versus is not None:
        shown.append(versus)
    shown.append(
        "acc: page accuracy (a top-k chunk on a gold page); pages: gold pages hit; evid: "
        "evidence covered >= 50 %; chars: characters delivered. paper@10: Table 4 of "
        "arXiv:2402.05131 (page accuracy@10, per-document index; "
        + ", ".join(f"{name} {acc:.2f} %" for name, acc in PAPER_TABLE4.values())
        + "; bytitle is compared with the paper's best element variant)."
    )
    shown.append(chunks_table(report, "strategy"))
    if report.get("budgets"):
        shown.append(
            budgets_table(
                [{**r, "strategy": f"{r['strategy']} ({r['scope']})"} for r in report["budgets"]]
            )
        )
    if "wall_s" in report:
        shown.append(f"wall time: {report['wall_s']} s")
    return shown
