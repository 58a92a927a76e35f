"""Work spread over a Dask cluster while one is active (``finchunk eval --dask``, ``finchunk
bench financebench --dask``): chunking document by document and embedding passages, in
consecutive parts whose results are joined in order, so the results equal a run here.

Without an active cluster (:func:`on_cluster`) everything runs in this process; on the
workers themselves no cluster is active, so nothing is sent on again. This module imports
no Dask: the client is handed in by the caller
(:func:`finchunk.retrieve.backends.distributed.dask_client`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")
R = TypeVar("R")

#: How many parts per worker thread work is cut into (load balance vs overhead).
PARTS_PER_THREAD = 4
_CLIENT: ContextVar[Any] = ContextVar("finchunk_dask_client", default=None)


@contextmanager
def on_cluster(client: Any) -> Iterator[None]:
    """Within the block, :func:`map_parts` runs on ``client``'s cluster."""
    token = _CLIENT.set(client)
    try:
        yield
    finally:
        _CLIENT.reset(token)


def active() -> bool:
    return _CLIENT.get() is not None


def cut(items: Sequence[T], parts: int) -> list[list[T]]:
    """``items`` in at most ``parts`` consecutive runs of near-equal length."""
    n = max(1, min(parts, len(items)))
    bounds = np.linspace(0, len(items), n + 1).round().astype(int)
    return [list(items[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def map_parts(fn: Callable[..., list[R]], items: Sequence[T], *args: Any) -> list[R]:
    """``fn(part, *args)`` over consecutive parts of ``items`` (on the cluster when one is
    active), the lists it returns joined in order: equal to ``fn(items, *args)``."""
    client = _CLIENT.get()
    if client is None or len(items) < 2:
        return fn(list(items), *args)
    threads = sum(client.nthreads().values()) or 1
    parts = cut(items, threads * PARTS_PER_THREAD)
    futures = client.map(fn, parts, *[[a] * len(parts) for a in args], pure=False)
    try:
        return [r for done in client.gather(futures) for r in done]
    finally:
        client.cancel(futures)


def chunk_documents(docs: Sequence[Any], chunker: Any) -> list[Any]:
    """Every document's chunks, documents in order (a part of documents per task)."""
    return map_parts(_chunk_part, docs, chunker)


def _chunk_part(docs: Sequence[Any], chunker: Any) -> list[Any]:
    return [c for d in docs for c in chunker.chunk(d)]
