"""Digest of the parsed output of every real file: a refactor of a parser must not change it.

Parses each filing in ../shared/data/edgar (.htm/.html and SGML .txt; not the XBRL .xml or
companyfacts .json), the CNMV PDFs in ../shared/data/es and the FinanceBench PDFs with
``finchunk.parse.load`` and records per file a SHA-256 of ``doc.text``, of ``doc.pages`` and
of every element (kind, start, end, level, section, cites, mark, page), with counts. Write a
snapshot before a change, then compare after it (about a minute on one core):

    .venv/bin/python bench/parse_digest.py --out /tmp/before.json
    .venv/bin/python bench/parse_digest.py --out /tmp/after.json --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from finchunk.model import Document, ElementKind
from finchunk.parse import load

_DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data"


def files(root: Path) -> Iterator[Path]:
    for p in sorted((root / "edgar").rglob("*")):
        if p.suffix.lower() in {".htm", ".html", ".txt"}:
            yield p
    yield from sorted((root / "es").rglob("*.pdf"))
    yield from sorted((root / "financebench" / "pdfs").glob("*.pdf"))


def _sha(data: str) -> str:
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def digest(doc: Document) -> dict[str, object]:
    elements = hashlib.sha256()
    for e in doc.elements:
        row = (str(e.kind), e.start, e.end, e.level, e.section, e.cites, e.mark, e.page)
        elements.update(repr(row).encode("utf-8", "surrogatepass"))
    return {
        "text": _sha(doc.text),
        "pages": _sha(repr(doc.pages)),
        "elements": elements.hexdigest(),
        "n_elements": len(doc.elements),
        "n_pages": len(doc.pages),
        "n_furniture": sum(e.kind is ElementKind.FURNITURE for e in doc.elements),
        "n_notes": sum(e.kind is ElementKind.NOTE for e in doc.elements),
    }


def snapshot(root: Path) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    t0 = time.perf_counter()
    for p in files(root):
        key = str(p.relative_to(root))
        try:
            out[key] = digest(load(p))
        except Exception as exc:  # noqa: BLE001 - a failure is part of the snapshot
            out[key] = {"error": f"{type(exc).__name__}: {exc}"}
    print(f"{len(out)} files in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    return out


def compare(before: dict[str, dict[str, object]], after: dict[str, dict[str, object]]) -> int:
    keys = sorted(before.keys() | after.keys())
    changed = [k for k in keys if before.get(k) != after.get(k)]
    for k in changed:
        a, b = before.get(k, {}), after.get(k, {})
        counts = {f: (a.get(f), b.get(f)) for f in a.keys() | b.keys() if a.get(f) != b.get(f)}
        print(f"changed: {k} {counts}")
    print(f"{len(keys)} files, {len(changed)} changed")
    return 1 if changed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=_DEFAULT)
    ap.add_argument("--out", type=Path, required=True, help="write the snapshot here (JSON)")
    ap.add_argument("--compare", type=Path, help="an earlier snapshot to compare with")
    args = ap.parse_args()
    snap = snapshot(args.data)
    args.out.write_text(json.dumps(snap, indent=1, sort_keys=True), encoding="utf-8")
    if args.compare:
        return compare(json.loads(args.compare.read_text(encoding="utf-8")), snap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
