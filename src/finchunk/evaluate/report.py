"""Rich tables for an evaluation report (the dict ``evaluate`` returns)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from rich.console import Console
from rich.table import Table


def variant_label(row: dict[str, Any]) -> str:
    return f"{row['strategy']}{' +header' if row['header'] else ''}"


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
    console.print(recall_by_k_table(report))
    ks = sorted({r["k"] for r in report["by_type"]})
    if ks:
        table = by_type_table(report, 5 if 5 in ks else ks[-1])
        if table is not None:
            console.print(table)
    console.print(chunks_table(report))
