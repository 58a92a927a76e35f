"""Who may write an index, and which generations its readers still read.

**Writers.** One build at a time (Lucene's ``write.lock``): :func:`writer_lock` holds an
advisory ``flock`` on ``IDX/LOCK`` from planning to publish. It is released when the build
ends or its process dies, so a crashed build never leaves a stale lock; a second writer
gets :class:`IndexBusyError` at once.

**Readers.** An opened index is a snapshot: it reads the generation it opened, however many
builds publish after it (Lucene's point-in-time reader). The reader holds a *shared*
``flock`` on its generation's ``manifest.json`` (:class:`GenerationHold`) until it is
closed or collected; a build deletes an older generation, and the segments only it uses,
only when it can take that file's lock *exclusively* (:func:`claim_unread`), and it keeps
the lock while it deletes. A generation still read is left for a later build to delete.

The race between a reader that has just read ``CURRENT`` and a build deleting that
generation is closed on the reader's side: it takes its lock without waiting, then checks
that the manifest it locked is still the one on disk, and otherwise reads ``CURRENT`` again
(:func:`hold_live`).

Where ``fcntl`` is missing (Windows) nothing is locked: builds run unguarded and delete
older generations at once.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from finchunk.errors import InputError

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

#: The writer's lock file of an index (held with ``flock`` while a build runs).
LOCK = "LOCK"
#: How many times a reader reads ``CURRENT`` again when a build deleted the generation it
#: named between the read and the lock (each retry follows a publish: a few suffice).
HOLD_TRIES = 8


class IndexBusyError(InputError):
    """Another process is writing the index: two builds at once would each publish over
    the other's work, and one's cleanup would delete the other's new segment."""


@contextmanager
def writer_lock(root: Path) -> Iterator[None]:
    """Hold ``root``'s writer lock while the block runs (see the module's docstring)."""
    if fcntl is None:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(root / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise IndexBusyError(
                f"{root}: another finchunk process is writing this index; run again when "
                "it has finished"
            ) from None
        yield
    finally:
        os.close(fd)


def _lock(path: Path, how: int) -> int | None:
    """An open descriptor of ``path`` locked ``how`` (without waiting), or None when the
    file is gone, another process holds a lock that excludes ``how``, or the lock taken is
    on a file no longer at ``path`` (deleted or replaced since it was opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
        here = os.stat(path)
        mine = os.fstat(fd)
        if (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino):
            return fd
    except (BlockingIOError, FileNotFoundError):
        pass  # a build holds or has deleted it: not ours to read or to delete
    os.close(fd)
    return None


class GenerationHold:
    """A reader's shared lock on one generation's manifest, released by :meth:`release`
    or when the hold is collected (a finalizer closes the descriptor)."""

    __slots__ = ("gen", "_release", "__weakref__")

    def __init__(self, gen: Path, fd: int | None) -> None:
        self.gen = gen
        self._release: Callable[[], None] | None = (
            weakref.finalize(self, os.close, fd) if fd is not None else None
        )

    def release(self) -> None:
        if self._release is not None:
            self._release()


def hold_live(live: Callable[[], Path], manifest: str) -> GenerationHold:
    """A hold on the generation ``live()`` names (``live`` reads ``CURRENT``), read again
    when a build deleted that generation before it could be locked."""
    gen = live()
    if fcntl is None:  # pragma: no cover - not POSIX
        return GenerationHold(gen, None)
    for _ in range(HOLD_TRIES):
        fd = _lock(gen / manifest, fcntl.LOCK_SH)
        if fd is not None:
            return GenerationHold(gen, fd)
        gen = live()
    raise InputError(
        f"{gen.parent}: the index was published over {HOLD_TRIES} times while it was being "
        "opened; open it again"
    )


@contextmanager
def claim_unread(gen: Path, manifest: str) -> Iterator[bool]:
    """Whether no reader holds generation ``gen`` (True also when its manifest is gone: a
    partial generation). While the block runs no reader can take it, so it may be deleted."""
    if fcntl is None:  # pragma: no cover - not POSIX
        yield True
        return
    path = gen / manifest
    fd = _lock(path, fcntl.LOCK_EX)
    try:
        yield fd is not None or not path.exists()
    finally:
        if fd is not None:
            os.close(fd)
