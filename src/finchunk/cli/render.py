"""Rich output of the commands: evaluation and benchmark tables, search hits, answers, the
demo's sections and the generated corpus summary.

Each function takes what a library function returned (a report dict, a search result, an
answer) and prints it; the library modules never import rich. Heavy finchunk modules are
imported inside the functions that need them.

A wide table (a column per k, per question type, per measure) is printed in long format when
the console is narrower than it needs (:func:`fit`): one row per variant and k (or type, or
measure), so no name or figure is cut to ``0.1…`` on an 80-column terminal.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# --- fitting the console ----------------------------------------------------------------------


def fit(console: Console, wide: Table, narrow: Callable[[], Table]) -> Table:
    """``wide`` when it fits the console with no cell wrapped or cut (a header may wrap at
    its spaces), else ``narrow()`` (long format)."""
    return wide if needed_width(console, wide) <= console.width else narrow()


def needed_width(console: Console, table: Table) -> int:
    """Columns as wide as their widest cell and their header's longest word, with the
    table's padding and a rule between columns and at both edges."""
    unbounded = console.options.update_width(100_000)
    pad = table.padding[1] + table.padding[3]
    widths = [
        max(
            max((cell_len(w) for w in str(col.header).split()), default=0),
            *(Measurement.get(console, unbounded, c).maximum for c in col.cells),
        )
        + pad
        for col in table.columns
    ]
    return sum(widths) + len(widths) + 1


def long_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
    """A long-format table: text columns first (left), figures right; cells fold, never cut."""
    t = Table(title=title, title_justify="left")
    for i, c in enumerate(columns):
        numeric = bool(rows) and all(_numeric(r[i]) for r in rows)
        t.add_column(c, justify="right" if numeric else "left", overflow="fold")
    for r in rows:
        t.add_row(*r)
    return t


def _numeric(cell: str) -> bool:
    return cell.replace(",", "").replace(".", "").replace(" %", "").strip().isdigit()


# --- finchunk eval ----------------------------------------------------------------------------


def variant_label(row: dict[str, Any]) -> str:
    """``strategy [+header] [retriever]``: the retriever is named unless it is plain ``bm25``
    (so ``--retriever bm25,bm25/dense@20`` prints two rows, not one overwritten by the other)."""
    retriever = row.get("retriever")
    named = f" {retriever}" if retriever and retriever != "bm25" else ""
    return f"{row['strategy']}{' +header' if row['header'] else ''}{named}"


def recall_by_k_table(report: dict[str, Any]) -> Table:
    ks = sorted({r["k"] for r in report["results"]})
    t = Table(title="Recall@k (chars delivered)", show_lines=False)
    t.add_column("variant")
    for k in ks:
        t.add_column(f"k={k}", justify="right")
    rows: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for r in report["results"]:
        rows[variant_label(r)][r["k"]] = r
    for label, by_k in rows.items():
        t.add_row(label, *(f"{by_k[k]['recall']:.3f} ({by_k[k]['chars']:.0f})" for k in ks))
    return t


def recall_by_k_long(report: dict[str, Any]) -> Table:
    """:func:`recall_by_k_table` in long format: ``variant  k  recall  chars``."""
    rows = [
        (variant_label(r), str(r["k"]), f"{r['recall']:.3f}", f"{r['chars']:.0f}")
        for r in report["results"]
    ]
    return long_table("Recall@k (chars delivered)", ("variant", "k", "recall", "chars"), rows)


def by_type_long(report: dict[str, Any], k: int) -> Table:
    """:func:`by_type_table` in long format: ``variant  question type  n  recall``."""
    order: dict[str, int] = {}
    for r in report["by_type"]:
        order.setdefault(variant_label(r), len(order))
    rows = sorted(
        (
            (variant_label(r), r["type"], str(r["questions"]), f"{r['recall']:.3f}")
            for r in report["by_type"]
            if r["k"] == k
        ),
        key=lambda row: (order[row[0]], row[1]),
    )
    return long_table(f"Recall@{k} by question type", ("variant", "type", "n", "recall"), rows)


def by_type_table(report: dict[str, Any], k: int) -> Table | None:
    rows = [r for r in report["by_type"] if r["k"] == k]
    if not rows:
        return None
    types = sorted({r["type"] for r in rows})
    t = Table(title=f"Recall@{k} by question type")
    t.add_column("variant")
    counts = {r["type"]: r["questions"] for r in rows}
    for ty in types:
        t.add_column(f"{ty} (n={counts[ty]})", justify="right")
    grid: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        grid[variant_label(r)][r["type"]] = r["recall"]
    for label, vals in grid.items():
        t.add_row(label, *(f"{vals.get(ty, 0.0):.3f}" for ty in types))
    return t


def chunks_table(report: dict[str, Any]) -> Table:
    t = Table(title="Chunks")
    for c in ("variant", "count", "mean chars"):
        t.add_column(c, justify="left" if c == "variant" else "right")
    for r in report["chunks"]:
        t.add_row(variant_label(r), str(r["count"]), f"{r['mean_chars']:.0f}")
    return t


def print_eval_tables(console: Console, report: dict[str, Any]) -> None:
    c = report["corpus"]
    console.print(
        f"corpus: {c['documents']} documents, {c['passages']} passages, "
        f"{c['questions']} questions ({c['answerable']} answerable; the rest are excluded "
        "from recall)"
    )
    console.print(fit(console, recall_by_k_table(report), lambda: recall_by_k_long(report)))
    ks = sorted({r["k"] for r in report["by_type"]})
    if ks:
        k = 5 if 5 in ks else ks[-1]
        table = by_type_table(report, k)
        if table is not None:
            console.print(fit(console, table, lambda: by_type_long(report, k)))
    console.print(chunks_table(report))
    if report.get("budgets"):
        console.print(budgets_table(report))


def budgets_table(report: dict[str, Any]) -> Table:
    """Recall within each character budget, stopping at the first chunk that does not fit,
    packing (skipping it), and delivering evidence units
    (:mod:`finchunk.retrieve.query.evidence`)."""
    t = Table(title="Recall within a budget (chunks, chars delivered)")
    evidence = any(r["packing"] == "evidence" for r in report["budgets"])
    packings = ("stop", "skip", "evidence") if evidence else ("stop", "skip")
    for col in ("variant", "budget", "stop", "pack", *(("evidence",) if evidence else ())):
        t.add_column(col, justify="left" if col == "variant" else "right")
    grid: dict[tuple[str, int, str], dict[str, dict[str, Any]]] = defaultdict(dict)
    for r in report["budgets"]:
        grid[(variant_label(r), r["budget"], r.get("unit", "chars"))][r["packing"]] = r
    for (label, budget, unit), by in grid.items():
        cells = [
            f"{by[p]['recall']:.3f} ({by[p]['chunks']:.1f}, {by[p]['chars']:.0f})" for p in packings
        ]
        t.add_row(label, f"{budget:,} {'tokens' if unit == 'tokens' else 'chars'}", *cells)
    return t


def print_alignment(console: Console, alignment: dict[str, Any]) -> None:
    """How many gold quotes were found in their documents, and which were not."""
    unaligned = alignment["unaligned_ids"]
    console.print(
        f"quotes aligned: {alignment['aligned']} of {alignment['quotes']}"
        + (f"; not aligned: {', '.join(unaligned)}" if unaligned else "")
    )


# --- finchunk bench financebench ------------------------------------------------------------


def _pick_ks(ks: set[int]) -> tuple[int, int]:
    """The two k shown: 5 and 10 when measured, else the smallest and the largest."""
    return (5 if 5 in ks else min(ks)), (10 if 10 in ks else max(ks))


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def results_table(report: dict[str, Any], scope: str) -> Table | None:
    from finchunk.evaluate.financebench import PAPER_TABLE4

    rows = [r for r in report["results"] if r["scope"] == scope]
    if not rows:
        return None
    lo, hi = _pick_ks({r["k"] for r in rows})
    t = Table(title=f"FinanceBench, scope={scope}")
    cols = ("strategy", "retriever", f"acc@{lo}", f"acc@{hi}", f"pages@{hi}", f"evid@{hi}")
    for col in (*cols, f"chars@{hi}", "paper@10"):
        t.add_column(col, justify="left" if col in ("strategy", "retriever") else "right")
    grid: dict[tuple[str, bool, str], dict[int, dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        grid[(r["strategy"], r["header"], r["retriever"])][r["k"]] = r
    for (strategy, header, retriever), by_k in grid.items():
        paper = PAPER_TABLE4.get(strategy)
        ref = f"{paper[1]:.2f} %" if paper and scope == "document" else ""
        a, b = by_k[lo], by_k[hi]
        tuned = " (tuned on FinanceBench)" if b.get("tuned_on_benchmark") else ""
        t.add_row(
            strategy + (" +header" if header else ""),
            retriever + tuned,
            _pct(a["page_accuracy"]),
            _pct(b["page_accuracy"]),
            _pct(b["page_recall"]),
            _pct(b["evidence_recall"]),
            f"{b['chars']:.0f}",
            ref,
        )
    return t


TUNED_MARK = "*"


def results_long(report: dict[str, Any], scope: str) -> Table | None:
    """:func:`results_table` in long format, one row per variant and k shown:
    ``strategy  retriever  k  acc  pages  evid  chars`` (percentages); a retriever tuned on
    FinanceBench is marked ``*`` and the caption says so; the paper's figures are in the
    legend printed below the tables."""
    rows = [r for r in report["results"] if r["scope"] == scope]
    if not rows:
        return None
    shown = set(_pick_ks({r["k"] for r in rows}))
    cells = [
        (
            r["strategy"] + (" +header" if r["header"] else ""),
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
    t = long_table(f"FinanceBench, scope={scope}", cols, cells)
    if any(r.get("tuned_on_benchmark") for r in rows):
        t.caption = f"{TUNED_MARK} tuned on FinanceBench"
    return t


def _bench_summary(out: Console, report: dict[str, Any]) -> None:
    a = report["alignment"]
    out.print(
        f"FinanceBench: {report['documents']} filings ({report['pages']} pages), "
        f"{report['questions']} questions, {report['skipped']} skipped (PDF missing); "
        f"evidence aligned {a['aligned']}/{a['quotes']} ({a['on_page']} on their gold page, "
        f"{a['fuzzy']} fuzzy)"
    )
    if a["unaligned_ids"]:
        out.print(f"unaligned evidence: {', '.join(a['unaligned_ids'])}")
    if report.get("distinct", "none") != "none":
        out.print(f"delivered: at most one chunk per {report['distinct']} in each top k")
    if report.get("filter"):
        f = report["filter"]
        out.print(
            f"filtered scope: own filing kept for {100 * f['own_filing_kept']:.1f} % of "
            f"questions, {f['mean_filings']} filings searched on average"
        )


def _bench_chunks_table(report: dict[str, Any]) -> Table:
    chunks = Table(title="Chunks")
    for col in ("strategy", "count", "mean chars"):
        chunks.add_column(col, justify="left" if col == "strategy" else "right")
    for r in report["chunks"]:
        head = " +header" if r["header"] else ""
        chunks.add_row(f"{r['strategy']}{head}", str(r["count"]), f"{r['mean_chars']:.0f}")
    return chunks


def comparisons_table(report: dict[str, Any]) -> Table | None:
    """Each retriever against the first one run: page accuracy, questions better/worse."""
    rows = report.get("comparisons") or []
    if not rows:
        return None
    t = Table(title=f"Against {rows[0]['a']}, per question (~: 95 % interval holds 0)")
    for col in ("strategy", "scope", "k", "retriever", "acc", "better/worse"):
        t.add_column(col, justify="right" if col in ("k", "acc") else "left")
    for r in rows:
        noise = " ~" if r["within_noise"] else ""
        t.add_row(
            r["strategy"] + (" +header" if r["header"] else ""),
            r["scope"],
            str(r["k"]),
            r["b"],
            f"{100 * r['mean_a']:.1f} → {100 * r['mean_b']:.1f} %",
            f"+{r['wins']}/−{r['losses']}{noise}",
        )
    return t


def print_bench_report(out: Console, report: dict[str, Any]) -> None:
    from finchunk.evaluate.financebench import PAPER_TABLE4, FBScope

    _bench_summary(out, report)
    for scope in FBScope:
        table = results_table(report, scope.value)
        if table is not None:
            out.print(fit(out, table, lambda s=scope.value: results_long(report, s)))
    versus = comparisons_table(report)
    if versus is not None:
        out.print(versus)
    out.print(
        "acc: page accuracy (a top-k chunk on a gold page); pages: gold pages hit; evid: "
        "evidence covered >= 50 %; chars: characters delivered. paper@10: Table 4 of "
        "arXiv:2402.05131 (page accuracy@10, per-document index; "
        + ", ".join(f"{name} {acc:.2f} %" for name, acc in PAPER_TABLE4.values())
        + "; bytitle is compared with the paper's best element variant)."
    )
    out.print(_bench_chunks_table(report))
    if report.get("budgets"):
        scoped = [{**r, "strategy": f"{r['strategy']} ({r['scope']})"} for r in report["budgets"]]
        out.print(budgets_table({"budgets": scoped}))
    if "wall_s" in report:
        out.print(f"wall time: {report['wall_s']} s")


# --- finchunk search / ask ------------------------------------------------------------------


def section_below_title(title: str, section: tuple[str, ...]) -> tuple[str, ...]:
    """The section path without the leading headings that only repeat the title (a
    Markdown report's "# Title" heading), so a citation names the title once."""

    def key(s: str) -> str:
        return " ".join(s.split()).casefold()

    path = list(section)
    while path and key(path[0]) == key(title):
        path.pop(0)
    return tuple(path)


#: The snippet's length when stdout is not a terminal (on one, the terminal's width).
SNIPPET_CHARS = 160
#: Characters of context kept before the first query term a snippet is centred on.
SNIPPET_LEAD = 40


def snippet(text: str, query: str, width: int) -> Text:
    """One line of ``text`` (whitespace runs made one space) of at most ``width``
    characters: from its start, or from a little before the query's term that opens the
    window holding the most of them when the start holds fewer, with ``…`` where it was
    cut; the query's terms in bold."""
    from finchunk.retrieve.query.search import term_spans

    flat = " ".join(text.split())
    spans = term_spans(flat, query)
    width = max(width, 20)

    def held(at: int) -> int:
        return len({flat[s:e].casefold() for s, e in spans if s >= at and e <= at + width - 2})

    start, best = 0, held(0)
    for s, _ in spans[:50]:
        at = max(0, s - min(SNIPPET_LEAD, width // 4))
        space = flat.find(" ", at, s)
        at = space + 1 if space >= 0 else at
        if held(at) > best:
            start, best = at, held(at)
    lead = "…" if start else ""
    room = width - len(lead)
    end = start + room
    if end < len(flat):
        end -= 1  # room for the closing …
    line = Text(lead + flat[start:end] + ("…" if end < len(flat) else ""))
    shift = len(lead) - start
    for s, e in spans:
        if s >= start and e <= end:
            line.stylize("bold yellow", s + shift, e + shift)
    return line


def print_hits(out: Console, err: Console, result: Any, full: bool = False) -> None:
    """Search hits, two lines each: the citation (rank, score, document, title, section,
    page) and a one-line snippet of the cited text, the query's terms in bold; ``full``:
    the whole text of each chunk instead, and its character spans. Lines are never wrapped
    by the console (piped output is one line a line; a terminal wraps long ones itself)."""
    from finchunk.retrieve.query.search import term_spans

    for note in result.notes:
        err.print(Text(note, style="dim"), soft_wrap=True)
    if not result.hits:
        out.print("no results")
    width = (out.width if out.is_terminal else SNIPPET_CHARS) - 4
    for h in result.hits:
        where = " > ".join(section_below_title(h.title, h.section)) or "(no section)"
        page = f" · p. {h.page}" if h.page is not None else ""
        head = Text(f"#{h.rank}  {h.score:.4f}  ", style="bold")
        head.append(f"{h.doc_id}", style="cyan")
        head.append(f"  {h.title} · {where}{page}")
        if not full:
            out.print(head, soft_wrap=True)
            cited = " … ".join(h.citations) if h.citations else h.text
            out.print(Text("    ").append_text(snippet(cited, result.query, width)), soft_wrap=True)
            continue
        head.append(" · chars " + ", ".join(f"{s}:{e}" for s, e in h.spans))
        body = Text(h.text)
        for s, e in term_spans(h.text, result.query):
            body.stylize("bold yellow", s, e)
        out.print(head, soft_wrap=True)
        out.print(body, soft_wrap=not out.is_terminal)
        out.print()


def render_answer(console: Console, ans: Any) -> None:
    """An :class:`finchunk.ask.AskAnswer`: its route, the figure and its sources, or hits."""
    from finchunk.ask import Route, source_line

    console.print(Text(f"route: {ans.route.value} — {ans.reason}", style="bold"))
    for n in ans.notes:
        console.print(Text(n, style="dim"))
    if ans.fact is not None:
        f = ans.fact
        console.print(Text(f"{f.entity} {f.measure} {f.period}: {f.display}", style="bold"))
        if f.basis:
            hint = " (the latest filing; --as-of DATE for an earlier view)"
            console.print(Text(f.basis + (hint if f.basis.startswith("as of today") else "")))
        if f.formula:
            console.print(Text(f"computed: {f.formula}"))
        for a in f.answers:
            console.print(Text("  source: " + source_line(a)))
    if ans.evidence is not None:  # evidence delivery: the text a model reads, each piece cited
        console.print(Text(ans.evidence.text()))
        return
    for h in ans.hits:
        spans = ", ".join(f"{s}:{e}" for s, e in h.spans)
        console.print(
            Text(f"#{h.rank} {h.doc_id} · {' > '.join(h.section)} · chars {spans}", style="cyan")
        )
        console.print(Text(h.text))
    if ans.route is Route.TEXT and not ans.hits:
        console.print("no matching text")


# --- finchunk demo / generate ---------------------------------------------------------------


SECTION_KEYS = ("strategy", "variant", "header")


def section_table(section: Any, console: Console | None = None) -> Table:
    """A :class:`finchunk.demo.Section`'s table, cells as the Markdown report shows them; in
    long format (``variant  header  measure  value``, one row per measure) when it is wider
    than ``console``."""
    from finchunk.demo import format_cell

    t = Table(title=section.title, title_justify="left")
    if not section.table:
        return t
    cols = list(dict.fromkeys(k for r in section.table for k in r))
    for c in cols:
        t.add_column(c, justify="left" if c in SECTION_KEYS else "right")
    for r in section.table:
        t.add_row(*(format_cell(r.get(c, "")) for c in cols))
    if console is None:
        return t
    keys = [c for c in cols if c in SECTION_KEYS]
    rows = [
        (*(format_cell(r.get(c, "")) for c in keys), c, format_cell(r.get(c, "")))
        for r in section.table
        for c in cols
        if c not in SECTION_KEYS
    ]
    return fit(console, t, lambda: long_table(section.title, (*keys, "measure", "value"), rows))


def sample_summary(corpus: Any, elapsed: float) -> Table:
    """What ``finchunk generate`` wrote: documents, passages, questions by type."""
    table = Table(title=f"Sample corpus ({elapsed:.2f} s)")
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("documents", str(len(corpus.documents)))
    table.add_row("passages", str(len(corpus.passages)))
    table.add_row("questions", str(len(corpus.questions)))
    for kind, n in Counter(str(q.tipo_pregunta) for q in corpus.questions).items():
        table.add_row(f"  {kind}", str(n))
    return table
