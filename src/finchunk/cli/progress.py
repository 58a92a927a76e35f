"""Progress on the command line: bars on a terminal, a plain line every few seconds on
stderr otherwise; the index build's stage bars and the embedding estimate.

Only light modules are imported here: ``finchunk --help`` imports the commands' modules."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from finchunk.cli.common import err_console

if TYPE_CHECKING:
    from rich.progress import Progress

    from finchunk.retrieve.neural.dense import Watched


#: Seconds between two plain progress lines (stderr not a terminal).
PROGRESS_EVERY_S = 5.0


@dataclass(slots=True)
class _Task:
    description: str
    total: float | None
    started: float
    completed: float = 0.0
    visible: bool = True

    def line(self, now: float) -> str:
        done = f"{self.completed:g}"
        took = now - self.started
        left = ""
        if self.total:
            done += f"/{self.total:g} ({100 * self.completed / self.total:.0f} %)"
            if 0 < self.completed < self.total:
                rest = took * (self.total - self.completed) / self.completed
                left = f", about {duration(rest)} left"
        return f"{self.description}: {done}, {took:.0f} s{left}"


def duration(seconds: float) -> str:
    """``42 s``, ``7 min``, ``2 h 05 min``: an estimate's precision."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60:02d} min"


class PlainProgress:
    """The progress of a long command as plain lines on stderr, for logs and pipes: at most
    one line every ``every`` seconds (``ranking: 120/744 (16 %), 12 s``) naming the task last
    moved, and the last state of each task still shown when a line was written before. The
    part of :class:`rich.progress.Progress` the commands use: ``add_task``, ``advance``,
    ``update``, and use as a context manager."""

    def __init__(
        self,
        out: Console,
        every: float = PROGRESS_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._out, self._every, self._clock = out, every, clock
        self._tasks: list[_Task] = []
        self._last = clock()
        self._current: int | None = None
        self._written: tuple[int, float] | None = None  # id() and count of the last line
        self.lines = 0

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.lines and exc[0] is None and self._current is not None:
            task = self._tasks[self._current]
            if self._written != (id(task), task.completed):
                self._write(task)

    def add_task(self, description: str, total: float | None = None, **_: Any) -> int:
        self._tasks.append(_Task(description, total, self._clock()))
        self._current = len(self._tasks) - 1
        return self._current

    def advance(self, task: int, advance: float = 1) -> None:
        self.update(task, advance=advance)

    def update(
        self,
        task: int,
        *,
        completed: float | None = None,
        advance: float | None = None,
        visible: bool | None = None,
        total: float | None = None,
        **_: Any,
    ) -> None:
        t = self._tasks[task]
        if total is not None:
            t.total = total
        if completed is not None:
            t.completed = completed
        if advance:
            t.completed += advance
        if visible is not None:
            t.visible = visible
        if t.visible:
            self._current = task
            if self._clock() - self._last >= self._every:
                self._write(t)

    def _write(self, task: _Task) -> None:
        now = self._clock()
        self._last = now
        self.lines += 1
        self._written = (id(task), task.completed)
        self._out.print(Text(task.line(now)), highlight=False, soft_wrap=True)


def progress_bar() -> Progress | PlainProgress:
    """The progress every long command shows on stderr: a rich bar (gone when done) on a
    terminal, else a plain line every few seconds (:class:`PlainProgress`)."""
    if not err_console.is_terminal:
        return PlainProgress(err_console)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    )


#: A batch that took this long was embedded, not read from the cache: it times the model.
ESTIMATE_AFTER_S = 0.5
#: Work left above which the estimate is printed before the job goes on.
LONG_JOB_S = 60.0


def watched_embedder(
    bar: Progress | PlainProgress,
    embedder: str,
    say: Callable[[str], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Watched:
    """The embedding model ``embedder``, its passage embeddings shown on ``bar`` as an
    ``embedding passages`` task (added when the first vectors are asked for; its total
    grows with each call: the corpus for a dense index, the candidates for a reranker).
    After the first batch the model embedded (not found in the cache), when the passages
    left would take more than :data:`LONG_JOB_S` at that pace, ``say`` (default: a line
    on stderr) gets the estimate, once."""
    from finchunk.retrieve.neural.dense import Watched, make_embedder

    task: int | None = None
    needed = done = 0
    last = clock()
    estimated = False
    tell = say or (lambda line: err_console.print(Text(line), highlight=False))

    def begin(n: int) -> None:
        nonlocal task, needed, last
        needed += n
        last = clock()
        if task is None:
            task = bar.add_task("embedding passages", total=needed)
        else:
            bar.update(task, total=needed)

    def advance(n: int) -> None:
        nonlocal done, last, estimated
        now = clock()
        took, last, done = now - last, now, done + n
        if task is not None:
            bar.advance(task, n)
        if estimated or n <= 0 or took < ESTIMATE_AFTER_S:
            return
        estimated = True
        left = (needed - done) * took / n
        if left >= LONG_JOB_S:
            tell(
                f"embedding {needed - done:,} more passages: about {duration(left)} at "
                f"{took / n:.2f} s a passage (measured on the first batch); vectors are "
                "cached as they are made, so an interrupted run resumes where it stopped"
            )

    return Watched(make_embedder(embedder), begin, advance)


class StageBars:
    """Stages of a long job (an index build) as progress bars: ``stage(name, total)`` starts
    one, hiding the previous; ``advance(n)`` moves the current one."""

    def __init__(self, progress: Progress | PlainProgress) -> None:
        self._p = self.progress = progress
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
