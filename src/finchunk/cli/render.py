"""Rich output of the commands: evaluation and benchmark tables (laid out by
:mod:`finchunk.evaluate.report`, drawn here), search hits, answers, the demo's sections and
the generated corpus summary.

Each function takes what a library function returned (a report dict, a search result, an
answer) and prints it; the library modules never import rich. Heavy finchunk modules are
imported inside the functions that need them.

A wide table (a column per k, per question type, per measure) is printed in long format when
the console is narrower than it needs (:func:`fit`): one row per variant and k (or type, or
measure), so no name or figure is cut to ``0.1…`` on an 80-column terminal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from finchunk.evaluate.report import ReportTable

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


def rich_table(table: ReportTable) -> Table:
    """A report's table (:class:`~finchunk.evaluate.report.ReportTable`) drawn by rich."""
    t = Table(title=table.title, title_justify="left" if table.title_left else "center")
    for name, right in zip(table.columns, table.right, strict=True):
        justify = "right" if right else "left"
        t.add_column(name, justify=justify, overflow="fold" if table.fold else "ellipsis")
    for row in table.rows:
        t.add_row(*row)
    if table.caption:
        t.caption = table.caption
    return t


def show_table(console: Console, table: ReportTable) -> Table:
    """The table, or its long format when it does not fit ``console`` (:func:`fit`)."""
    wide = rich_table(table)
    long = table.long
    return wide if long is None else fit(console, wide, lambda: rich_table(long))


def print_shown(console: Console, shown: Sequence[str | ReportTable]) -> None:
    """A report as :mod:`finchunk.evaluate.report` lays it out: lines and tables in turn."""
    for item in shown:
        console.print(item if isinstance(item, str) else show_table(console, item))


def print_eval_tables(console: Console, report: dict[str, Any]) -> None:
    """``finchunk eval``'s tables (:func:`finchunk.evaluate.report.eval_shown`)."""
    from finchunk.evaluate.report import eval_shown

    print_shown(console, eval_shown(report))


def print_bench_report(out: Console, report: dict[str, Any]) -> None:
    """``finchunk bench financebench``'s tables (:func:`finchunk.evaluate.report.bench_shown`)."""
    from finchunk.evaluate.report import bench_shown

    print_shown(out, bench_shown(report))


def show_report(
    report: dict[str, Any],
    shown: Sequence[str | ReportTable],
    out: Path | None,
    as_json: bool,
    notes: Sequence[str] = (),
    after: Sequence[str] = (),
) -> None:
    """What ``eval`` and ``bench`` end with: the tables (``shown``) on stdout, or with
    ``as_json`` the report as JSON on stdout and the rest on stderr; each note; the report
    written to ``out`` when given; then the lines ``after``."""
    import typer

    from finchunk.cli.common import console, err_console
    from finchunk.files import json_text, write_json

    said = err_console if as_json else console
    if as_json:
        typer.echo(json_text(report))
    else:
        print_shown(console, shown)
    for line in notes:
        said.print(f"[yellow]note:[/] {line}")
    if out:
        write_json(out, report)
        said.print(f"report → {out}")
    for line in after:
        said.print(line)


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


def section_table(section: Any, console: Console) -> Table:
    """A :class:`finchunk.demo.Section`'s table, cells as the Markdown report shows them; in
    long format (``variant  header  measure  value``, one row per measure) when it is wider
    than ``console``."""
    from finchunk.evaluate.report import rows_table

    return show_table(console, rows_table(section.title, section.table, SECTION_KEYS))


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
