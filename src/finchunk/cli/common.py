"""What every command shares: option parsing (k ranges, comma lists, header modes), the
consoles, the one way errors are shown, and the progress bars.

Only light modules are imported here: ``finchunk --help`` imports this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from finchunk.errors import FinchunkError, InputError

if TYPE_CHECKING:
    from rich.progress import Progress

    from finchunk.retrieve.bm25 import BM25Params

T = TypeVar("T")
console = Console()
err_console = Console(stderr=True)


class HeaderMode(StrEnum):
    ON = "on"
    OFF = "off"
    BOTH = "both"

    def values(self) -> list[bool]:
        return {"on": [True], "off": [False], "both": [False, True]}[self.value]


#: ``--bm25-k1`` / ``--bm25-b`` (eval, bench financebench, index); None: the default of
#: :class:`finchunk.retrieve.bm25.BM25Params` (k1 0.9, b 0.5; a test checks these help texts).
BM25K1Opt = Annotated[
    float | None,
    typer.Option("--bm25-k1", help="BM25 k1, term-frequency saturation (> 0; default 0.9)."),
]
BM25BOpt = Annotated[
    float | None,
    typer.Option("--bm25-b", help="BM25 b, length normalisation 0-1 (default 0.5)."),
]


def bm25_params(k1: float | None, b: float | None) -> BM25Params:
    """BM25's default parameters with the ``--bm25-k1`` / ``--bm25-b`` given (validated)."""
    from dataclasses import replace

    from finchunk.retrieve.bm25 import BM25Params

    given = {n: v for n, v in (("k1", k1), ("b", b)) if v is not None}
    return replace(BM25Params(), **given)


def parse_ks(spec: str, option: str = "--k") -> list[int]:
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
        msg = f"{option}: expected a range like 1-10 or a list like 3,5; got {spec!r}"
        raise InputError(msg) from None
    if not out or min(out) < 1:
        raise InputError(f"{option}: values must be positive integers; got {spec!r}")
    return sorted(out)


def positive_int(option: str) -> Callable[[str], int]:
    """A converter for ``parse_list``: a positive whole number, or an error naming ``option``."""

    def convert(text: str) -> int:
        if not text.isdigit() or int(text) < 1:
            raise InputError(f"{option}: expected positive whole numbers, got {text!r}")
        return int(text)

    return convert


def parse_list(spec: str, convert: Callable[[str], T], option: str) -> list[T]:
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if not items:
        raise InputError(f"{option}: empty list")
    return [convert(s) for s in items]


def print_error(message: str) -> None:
    """``error: MESSAGE`` as one line on stderr; the message is shown as it is (brackets such
    as ``finchunk[html]`` are not read as markup) and never wrapped."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn finchunk's own errors into one clear line on stderr and exit status 2."""
    try:
        yield
    except FinchunkError as exc:
        print_error(str(exc))
        raise typer.Exit(2) from None


def progress_bar() -> Progress:
    """The progress bar every long command shows (on stderr, gone when done)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )


class StageBars:
    """Stages of a long job (an index build) as progress bars: ``stage(name, total)`` starts
    one, hiding the previous; ``advance(n)`` moves the current one."""

    def __init__(self, progress: Progress) -> None:
        self._p = progress
        self._task: int | None = None

    def stage(self, name: str, total: int) -> None:
        if self._task is not None:
            self._p.update(self._task, visible=False)
        self._task = self._p.add_task(name, total=total)

    def advance(self, n: int = 1) -> None:
        if self._task is not None:
            self._p.advance(self._task, n)


@contextmanager
def stage_bars() -> Iterator[StageBars]:
    with progress_bar() as p:
        yield StageBars(p)
