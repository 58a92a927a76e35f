"""Reading input files with errors that name them (one place for every parser and loader),
and writing output files (atomically) and JSON reports."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from finchunk.errors import InputError, ParseError


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes; :class:`ParseError` naming the file when it cannot be read."""
    p = Path(path)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise ParseError(str(p), f"cannot read file: {exc.strerror or exc}") from exc


class DuplicateKeyError(ValueError):
    """A JSON object names one key twice (``json`` would keep the last one silently)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads``: the object, or DuplicateKeyError naming the
    key given twice."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line; :class:`InputError` naming the file
    and line for a missing file, bad JSON or a line that is not a JSON object."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    with p.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{p}:{n}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict):
                raise InputError(f"{p}:{n}: expected a JSON object")
            yield n, row


@contextmanager
def atomic_output(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block
    succeeds, deleted when it fails, so a failed run leaves no half-written output."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp")
    try:
        yield tmp
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_output`."""
    p = Path(path)
    try:
        with atomic_output(p) as tmp:
            tmp.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{p}: cannot write file: {exc.strerror or exc}") from exc


def json_text(payload: Any) -> str:
    """``payload`` as indented JSON, non-ASCII kept: what ``write_json`` writes and what the
    commands' ``--json`` print."""
    return json.dumps(payload, ensure_ascii=False, indent=2)


def write_json(path: Path, payload: Any) -> None:
    """``payload`` as indented UTF-8 JSON (non-ASCII kept), creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json_text(payload) + "\n", encoding="utf-8")
