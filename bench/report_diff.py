"""Check that a report keeps every figure of an earlier one: ``before.json after.json``.

Every value in BEFORE must be in AFTER at the same place and be equal (floats to the last
digit written); AFTER may hold more (new measures, new keys). Prints each difference and
exits 1 if there is one, else prints how many figures were compared.

    python bench/report_diff.py /tmp/old/eval-report.json finchunk-demo/eval-report.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def differences(before: Any, after: Any, where: str = "") -> Iterator[str]:
    """Places where ``after`` lacks or changes a value of ``before``."""
    if isinstance(before, dict):
        if not isinstance(after, dict):
            yield f"{where or '/'}: was an object, now {type(after).__name__}"
            return
        for key, value in before.items():
            if key not in after:
                yield f"{where}/{key}: missing"
            else:
                yield from differences(value, after[key], f"{where}/{key}")
    elif isinstance(before, list):
        if not isinstance(after, list) or len(after) != len(before):
            n = len(after) if isinstance(after, list) else type(after).__name__
            yield f"{where}: {len(before)} items before, {n} after"
            return
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            yield from differences(b, a, f"{where}[{i}]")
    elif before != after:
        yield f"{where}: {before!r} → {after!r}"


def count(value: Any) -> int:
    if isinstance(value, dict):
        return sum(count(v) for v in value.values())
    if isinstance(value, list):
        return sum(count(v) for v in value)
    return 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--ignore", action="append", default=[], help="Top-level keys to skip.")
    args = ap.parse_args(argv)
    before = json.loads(args.before.read_text(encoding="utf-8"))
    after = json.loads(args.after.read_text(encoding="utf-8"))
    for key in args.ignore:
        before.pop(key, None)
    diffs = list(differences(before, after))
    for d in diffs[:50]:
        print(d)
    if diffs:
        print(f"{len(diffs)} difference(s)", file=sys.stderr)
        return 1
    print(f"identical: {count(before)} figures of {args.before} kept in {args.after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
