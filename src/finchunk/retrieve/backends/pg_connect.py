"""PostgreSQL for finchunk: connecting (with the ``postgres`` extra's psycopg), the schema's
names and advisory locks, and errors as one line naming the database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from finchunk.errors import FinchunkError, InputError
from finchunk.extras import import_extra
from finchunk.retrieve.index.manifest import FORMAT

if TYPE_CHECKING:
    pass


SCHEMA = "finchunk"


#: pgvector's HNSW build and search parameters.
HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH = 16, 64, 100


#: The advisory lock on ``live``: searches hold it shared, the switch exclusive.
LIVE_LOCK = 0x66696E63686B


#: The writers' advisory lock (a session lock: it goes with a writer that dies): one writer
#: at a time, so a generation schema that no writer holds and no catalog row names is left
#: from a writer that died, and is dropped.
WRITE_LOCK = LIVE_LOCK + 1


#: Memory for building the indexes (an HNSW graph built in memory is much faster).
MAINTENANCE_WORK_MEM = "1GB"


class DatabaseError(FinchunkError):
    """PostgreSQL could not be reached or refused the work."""


def _psycopg() -> Any:
    return import_extra("psycopg", "postgres", "a PostgreSQL index")


def connect(url: str) -> Any:
    """A psycopg connection with pgvector's types (one clear error when it cannot)."""
    psycopg = _psycopg()
    pgvector = import_extra("pgvector.psycopg", "postgres", "a PostgreSQL index")
    try:
        conn = psycopg.connect(url)
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.commit()
        pgvector.register_vector(conn)
    except psycopg.Error as exc:
        raise DatabaseError(f"{_safe(url)}: cannot use PostgreSQL ({_first_line(exc)})") from None
    return conn


def _safe(url: str) -> str:
    """The URL without a password."""
    head, at, tail = url.rpartition("@")
    if not at or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, user = head.partition("//")
    return f"{scheme}//{user.split(':', 1)[0]}:***@{tail}"


def _check_format(url: str, manifest: dict[str, Any]) -> None:
    """A generation is read only in the tables' layout of this finchunk (the cards came in
    format 3): one written before is refused with a line that says to write it again."""
    if manifest.get("format") != FORMAT:
        raise InputError(
            f"{_safe(url)}: the index was written by finchunk "
            f"{manifest.get('finchunk_version')} (format {manifest.get('format')}); this is "
            f"format {FORMAT}: write it again with `finchunk index FILES --to URL`"
        )


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


@contextmanager
def _errors(url: str) -> Iterator[None]:
    psycopg = _psycopg()
    try:
        yield
    except psycopg.Error as exc:
        raise DatabaseError(f"{_safe(url)}: {_first_line(exc)}") from None


def _ident(*names: str) -> Any:
    return _psycopg().sql.Identifier(*names)
