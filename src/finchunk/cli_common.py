"""Option parsing shared by the commands: k ranges, comma lists, header modes, errors."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from finchunk.errors import FinchunkError, InputError

T = TypeVar("T")
err_console = Console(stderr=True)


class HeaderMode(StrEnum):
    ON = "on"
    OFF = "off"
    BOTH = "both"

    def values(self) -> list[bool]:
        return {"on": [True], "off": [False], "both": [False, True]}[self.value]


def parse_ks(spec: str) -> list[int]:
    """``"1-10"`` → 1..10; ``"3,5"`` → [3, 5]; mixed forms allowed (``"1-3,5,10"``)."""
    out: set[int] = set()
    try:
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
    except ValueError:
        msg = f"--k: expected a range like 1-10 or a list like 3,5; got {spec!r}"
        raise InputError(msg) from None
    if not out or min(out) < 1:
        raise InputError(f"--k: values must be positive integers; got {spec!r}")
    return sorted(out)


def parse_list(spec: str, convert: Callable[[str], T], option: str) -> list[T]:
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if not items:
        raise InputError(f"{option}: empty list")
    return [convert(s) for s in items]


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn finchunk's own errors into one clear line on stderr and exit status 2."""
    try:
        yield
    except FinchunkError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
        raise typer.Exit(2) from None


def write_json(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def progress_bar() -> Progress:
    """The progress bar every long command shows (on stderr, gone when done)."""
    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
