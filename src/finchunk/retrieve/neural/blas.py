"""NumPy's BLAS and the threads of a forward pass (:mod:`finchunk.retrieve.neural.splade`'s).

A window's matrices are small, and OpenBLAS's own threads busy-wait for each other on them: on
a loaded machine they multiply the CPU a window costs by up to 7 (bitwise the same arrays). So
a forward pass runs with the BLAS on one thread (:data:`one_blas_thread`, through
``threadpoolctl`` where installed) and spreads a text's windows over threads of its own, one
per core (:func:`in_threads`), which keeps a quiet machine's cores busy without the spinning.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np


def _cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@functools.cache
def _blas_threads() -> Any:
    """threadpoolctl's view of the BLAS libraries loaded (None without threadpoolctl)."""
    try:
        import threadpoolctl
    except ImportError:
        return None
    return threadpoolctl.ThreadpoolController()


class _OneBlasThread:
    """The BLAS's thread count is the process's: threads that encode questions at once
    share one limit, set by the first to enter and restored by the last to leave (nested
    limits restored out of order would leave the BLAS on one thread for good)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._limiter: Any = None

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        controller = _blas_threads()
        if controller is None:  # threadpoolctl is missing: the same results, more CPU
            yield
            return
        with self._lock:
            if not self._inside:
                self._limiter = controller.limit(limits=1, user_api="blas")
            self._inside += 1
        try:
            yield
        finally:
            with self._lock:
                self._inside -= 1
                if not self._inside:
                    self._limiter.restore_original_limits()


#: The BLAS on one thread for the block (unchanged where threadpoolctl is missing).
one_blas_thread = _OneBlasThread()


def in_threads(fn: Callable[[int], np.ndarray], n: int) -> Iterator[np.ndarray]:
    """``fn(0) … fn(n - 1)`` in order, computed by one thread per core (NumPy releases the GIL
    in its products), a batch at a time so that few results wait in memory: the cores the
    BLAS's own threads would have used, without their busy waiting."""
    workers = min(n, _cores())
    if workers < 2:
        yield from map(fn, range(n))
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers, thread_name_prefix="splade") as pool:
        for start in range(0, n, 4 * workers):
            yield from pool.map(fn, range(start, min(n, start + 4 * workers)))
