"""Figures for reports (matplotlib, headless). Imported only when a figure is drawn."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from finchunk.extras import import_extra


def _pyplot():
    matplotlib = import_extra("matplotlib", "plot", "drawing figures")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _label(row: dict[str, Any]) -> str:
    return f"{row['strategy']}{' +header' if row['header'] else ''}"


def recall_vs_chars(results: list[dict[str, Any]], path: Path, title: str) -> Path:
    """One line per variant: mean characters delivered (x) vs recall (y), a point per k."""
    plt = _pyplot()
    series: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    for r in results:
        series[_label(r)].append((r["chars"], r["recall"], r["k"]))
    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    for label, pts in series.items():
        pts.sort(key=lambda p: p[2])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=label)
    ax.set_xlabel("characters delivered per question (mean)")
    ax.set_ylabel("recall (passages ≥ 50 % covered)")
    ax.set_title(title)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def recall_by_type_dots(rows: list[dict[str, Any]], path: Path, title: str) -> Path:
    """Dot plot: question types on y, recall on x, one marker series per variant."""
    plt = _pyplot()
    types = sorted({r["type"] for r in rows})
    variants: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        variants[_label(r)][r["type"]] = r["recall"]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(types) + 2), dpi=110)
    markers = "osD^v<>ph*"
    for n, (label, vals) in enumerate(variants.items()):
        ax.scatter(
            [vals.get(t, 0.0) for t in types],
            range(len(types)),
            label=label,
            marker=markers[n % len(markers)],
            s=36,
            alpha=0.85,
        )
    ax.set_yticks(range(len(types)), types)
    ax.set_xlabel("recall@5")
    ax.set_ylabel("question type")
    ax.set_xlim(-0.02, 1.02)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(1.0, 0.0))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
