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
    """A heat map: question types (rows) × variants (columns), each cell its recall written
    in it (eight overlapping marker series could not be read)."""
    plt = _pyplot()
    types = sorted({r["type"] for r in rows})
    variants: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        variants[_label(r)][r["type"]] = r["recall"]
    labels = list(variants)
    grid = [[variants[v].get(t, 0.0) for v in labels] for t in types]
    fig, ax = plt.subplots(figsize=(1.1 * len(labels) + 2.5, 0.45 * len(types) + 1.8), dpi=110)
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0.0, vmax=1.0, aspect="auto")
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(types)), types, fontsize=8)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, fraction=0.03, pad=0.02, label="recall")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def recall_vs_budget(rows: list[dict[str, Any]], path: Path, title: str) -> Path:
    """Recall within each character budget: whole chunks packed (left) and evidence
    delivery (right), one line per variant, the same colour in both panels."""
    plt = _pyplot()
    series: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for r in rows:
        if r["packing"] in ("skip", "evidence") and r.get("unit", "chars") == "chars":
            series[(r["packing"], _label(r))].append((r["budget"], r["recall"]))
    labels = list(dict.fromkeys(label for _, label in series))
    colours = {label: f"C{i % 10}" for i, label in enumerate(labels)}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), dpi=110, sharey=True)
    for ax, (packing, name) in zip(
        axes, (("skip", "whole chunks (packed)"), ("evidence", "evidence delivery")), strict=True
    ):
        for label in labels:
            pts = sorted(series.get((packing, label), []))
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", ms=3, label=label, c=colours[label])
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("budget (characters per question)")
        ax.grid(alpha=0.3)
        ax.set_ylim(0, 1.02)
    axes[0].set_ylabel("recall (passages ≥ 50 % covered)")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, fontsize=8, loc="lower center", ncol=min(4, len(names)))
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.12, 1, 1))  # room for the legend below both panels
    fig.savefig(path)
    plt.close(fig)
    return path
