# ruff: noqa: E501
"""What a change to page-furniture detection does to the shared PDFs and filings: per file,
the characters of body text (elements other than furniture) and the furniture lines.

Write one dump per version of the code, then compare them:

    PYTHONPATH=OLD/src .venv/bin/python bench/furniture_diff.py --out /tmp/old.json
    PYTHONPATH=NEW/src .venv/bin/python bench/furniture_diff.py --out /tmp/new.json \\
        --compare /tmp/old.json

The comparison prints, per changed file, the body characters kept (furniture before, body
now) and dropped (body before, furniture now) with examples, and the totals.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from finchunk.model import ElementKind
from finchunk.parse import load

_DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data"


def _files(root: Path) -> list[Path]:
    edgar = [
        p
        for p in sorted((root / "edgar").rglob("*"))
        if p.suffix.lower() in {".htm", ".html", ".txt"}
    ]
    return (
        edgar
        + sorted((root / "es").rglob("*.pdf"))
        + sorted((root / "financebench" / "pdfs").glob("*.pdf"))
    )


def dump(root: Path) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for p in _files(root):
        try:
            doc = load(p)
        except Exception as exc:  # noqa: BLE001 - a failure is part of the dump
            out[str(p.relative_to(root))] = {"error": str(exc)}
            continue
        furniture = [
            doc.text[e.start : e.end] for e in doc.elements if e.kind is ElementKind.FURNITURE
        ]
        body = sum(e.end - e.start for e in doc.elements if e.kind is not ElementKind.FURNITURE)
        out[str(p.relative_to(root))] = {"body": body, "furniture": furniture}
    return out


def compare(before: dict[str, dict[str, object]], after: dict[str, dict[str, object]]) -> None:
    kept_total = dropped_total = changed = 0
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key, {}), after.get(key, {})
        if a == b:
            continue
        changed += 1
        old = Counter(a.get("furniture", []))  # type: ignore[arg-type]
        new = Counter(b.get("furniture", []))  # type: ignore[arg-type]
        kept, dropped = old - new, new - old
        kc = sum(len(t) * n for t, n in kept.items())
        dc = sum(len(t) * n for t, n in dropped.items())
        kept_total += kc
        dropped_total += dc
        print(f"{key}: body {a.get('body')} -> {b.get('body')}; kept {kc} chars "
              f"({sum(kept.values())} lines, e.g. {list(kept)[:3]}), dropped {dc} chars "
              f"({sum(dropped.values())} lines, e.g. {list(dropped)[:3]})"
              + (f" errors {a.get('error')!r} -> {b.get('error')!r}" if 'error' in a or 'error' in b else ""))  # fmt: skip
    print(f"{len(after)} files, {changed} changed: {kept_total} chars of body kept that were "
          f"furniture, {dropped_total} chars now taken as furniture")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=_DEFAULT)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--compare", type=Path)
    args = ap.parse_args()
    now = dump(args.data)
    args.out.write_text(json.dumps(now, ensure_ascii=False), encoding="utf-8")
    if args.compare:
        compare(json.loads(args.compare.read_text(encoding="utf-8")), now)
    print(f"{len(now)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
