"""Pausing Python's cyclic garbage collector around work that makes many objects, no cycles.

Parsing a document into elements and packing them into chunks make tens of thousands of
small objects that the collector tracks. Every 700 allocations it scans the youngest; each
tenth of those scans the next; and once enough survivors pile up it rescans *every* tracked
object in the process: in an application that has imported LangChain or pyarrow, or holds
other documents, each such pass costs milliseconds and a large parse triggers several.
Measured in ``bench/chunk_speed.py``'s process (80k tracked objects: the peers' modules and
a parsed document): parse + structure chunking of the fb input took 329 ms with the
collector on and 217 ms with its tracked objects frozen. Nothing these functions make is
cyclic, so reference counting frees all of it; :func:`paused` turns the collector off for
their duration and back on after (only if it was on: a caller's own ``gc.disable()``
stands). The index build's bookkeeping uses it too.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def paused() -> Iterator[None]:
    """The cyclic collector off while the block runs (reference counting still frees)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def collector_paused(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """``fn`` run with the cyclic collector :func:`paused`."""

    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with paused():
            return fn(*args, **kwargs)

    return run
