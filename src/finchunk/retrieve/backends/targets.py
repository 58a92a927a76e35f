"""Where ``finchunk index`` writes: an index folder (:mod:`finchunk.retrieve.index.build`) or
PostgreSQL (:mod:`finchunk.retrieve.backends.pg_write`, imported only for a database URL).
The choice lives here, above both, so the index layer never reaches up into a backend."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from finchunk.files import is_database_url
from finchunk.retrieve.index.build import build_index
from finchunk.retrieve.index.config import BuildReport, IndexConfig, OnError, Progress
from finchunk.retrieve.index.sources import Source

if TYPE_CHECKING:
    from finchunk.retrieve.index.pieces import Work
    from finchunk.retrieve.neural.dense import Embedder

_DEFAULT_CONFIG = IndexConfig()


def build_into(
    sources: Sequence[Source],
    target: str | Path,
    config: IndexConfig = _DEFAULT_CONFIG,
    *,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    work: Work | None = None,
    prune: bool = False,
    on_error: OnError = OnError.FAIL,
) -> BuildReport:
    """Build into PostgreSQL (``target`` a ``postgresql://`` URL: a whole generation each
    time; ``prune`` does not apply) or the index folder ``target``
    (:func:`~finchunk.retrieve.index.build.build_index`): what ``finchunk index`` runs."""
    if is_database_url(target):
        from finchunk.retrieve.backends.pg_write import build_pg_index

        return build_pg_index(
            sources,
            str(target),
            config,
            embedder=embedder,
            progress=progress,
            work=work,
            on_error=on_error,
        )
    return build_index(
        sources,
        target,
        config,
        embedder=embedder,
        progress=progress,
        work=work,
        prune=prune,
        on_error=on_error,
    )
