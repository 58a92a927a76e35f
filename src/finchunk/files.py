"""Reading input files with errors that name them (one place for every parser and loader),
and writing output files (atomically) and JSON reports."""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import InvalidOperation
from pathlib import Path
from typing import Any

from finchunk.errors import DamagedIndexError, InputError, ParseError


def is_database_url(target: object) -> bool:
    """True for ``postgresql://…`` (and ``postgres://…``) index locations."""
    return str(target).startswith(("postgresql://", "postgres://"))


def os_text(name: str | Path) -> str:
    """A name from the file system as text any output can hold. A file name's bytes need
    not be UTF-8 (an old Latin-1 archive: ``caf\\xe9.htm``); Python keeps such bytes as
    lone surrogates, which no UTF-8 file, JSON report or SQLite text accepts, so each
    becomes ``\\xNN``. Deterministic, and distinct names stay distinct; a UTF-8 name is
    returned as it is. For ids, sources and titles: open files by the real path."""
    s = str(name)
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(s).decode("utf-8", "backslashreplace")
    return s


def whole_number(cell: Any) -> int | None:
    """A cell of an input table or JSON file (an offset, a page) as an int: a whole number
    (``7``, ``7.0``, ``"7"``), else None, so that ``7.5`` is not truncated to 7 nor ``True``
    read as 1 without a word."""
    if isinstance(cell, bool):
        return None
    if isinstance(cell, float):
        return int(cell) if cell.is_integer() else None
    try:
        return int(cell)
    except (TypeError, ValueError, OverflowError):
        return None


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


class JSONError(ValueError):
    """Why bytes are not the JSON a reader takes: ``message`` for a person and, when known,
    ``position`` (``line L column C``, or a byte offset) and the ``column`` alone (for a
    reader of one value per line)."""

    def __init__(
        self, message: str, position: int | str | None = None, column: int | None = None
    ) -> None:
        self.message = message
        self.position = position
        self.column = column
        super().__init__(message if position is None else f"{message} (at {position})")


def _no_constant(name: str) -> Any:
    raise JSONError(f"malformed JSON: {name} is not a JSON number")


#: A surrogate escape (backslash-u d800 to dfff) or an encoded surrogate: the sign that a
#: decoded string may hold a lone surrogate, which no UTF-8 file or SQLite text can store.
_SURROGATE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
_SURROGATE_TEXT = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")


def _has_lone_surrogate(value: Any) -> bool:
    """Whether any string (key or value) of a decoded JSON value is not encodable text."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not v.isascii():
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif isinstance(v, dict):
            stack += v.keys()
            stack += v.values()
        elif isinstance(v, list):
            stack += v
    return False


def loads(raw: bytes | str, *, parse_float: Callable[[str], Any] | None = None) -> Any:
    """The JSON value of ``raw``, or :class:`JSONError` for every way a file can fail to be
    JSON: not UTF-8 (byte offset), malformed (line and column), a key given twice in one
    object, ``NaN`` or ``Infinity``, nesting deeper than Python's stack, a number out of
    ``parse_float``'s range or of more than 4,300 digits, a string with a lone surrogate.
    One home: every reader of JSON input decodes through here and words the error with its
    file."""
    try:
        value = json.loads(
            raw, parse_float=parse_float, parse_constant=_no_constant, object_pairs_hook=unique_keys
        )
    except UnicodeDecodeError as exc:
        raise JSONError("not UTF-8 JSON", exc.start) from exc
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise JSONError(f"malformed JSON: {exc.msg}", where, exc.colno) from exc
    except DuplicateKeyError as exc:
        raise JSONError(f"key {exc.args[0]!r} is given twice in one object") from exc
    except RecursionError as exc:
        raise JSONError("JSON nested too deeply") from exc
    except InvalidOperation as exc:  # a number whose exponent Decimal cannot hold
        raise JSONError("malformed JSON: a number out of range") from exc
    except JSONError:
        raise
    except ValueError as exc:  # Python's int-string limit: a number of thousands of digits
        raise JSONError("malformed JSON: a number of more than 4,300 digits") from exc
    sign = _SURROGATE_BYTES if isinstance(raw, bytes) else _SURROGATE_TEXT
    if sign.search(raw) and _has_lone_surrogate(value):  # type: ignore[arg-type]
        raise JSONError("a string holds a lone surrogate (\\ud800-\\udfff): not Unicode text")
    return value


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line; :class:`InputError` naming the file
    and line for a missing file, a line that is not JSON (:func:`loads`) or not an object."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    with p.open("rb") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = loads(line)
            except JSONError as exc:
                at = exc.position if exc.column is None else f"column {exc.column}"
                where = "" if at is None else f" (at {at})"
                raise InputError(f"{p}:{n}: {exc.message}{where}") from exc
            if not isinstance(row, dict):
                raise InputError(f"{p}:{n}: expected a JSON object")
            yield n, row


#: What reading a damaged file of finchunk's own raises: numpy (a short or pickled array),
#: Arrow (``ArrowInvalid`` is a ValueError, ``ArrowIOError`` an OSError), an mmap or a
#: decoder; caught only around the read itself.
_DAMAGE = (OSError, EOFError, ValueError, TypeError, KeyError, IndexError)


@contextmanager
def index_file(path: str | Path) -> Iterator[None]:
    """Read a file of an index inside this block: a failure to read it is a damaged index,
    one :class:`DamagedIndexError` naming the file and the remedy, not numpy's or Arrow's
    traceback."""
    try:
        yield
    except FileNotFoundError as exc:
        raise DamagedIndexError(path, "the file is gone", gone=True) from exc
    except _DAMAGE as exc:
        raise DamagedIndexError(path, f"{type(exc).__name__}: {exc}") from exc


@contextmanager
def atomic_output(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block
    succeeds, deleted when it fails, so a failed run leaves no half-written output. An
    output that cannot be written (a folder of that name, a read-only place, a full disk)
    is an :class:`InputError` naming ``path``; an OSError naming another file (an input
    read inside the block) passes through."""
    p = check_output(path)
    tmp = p.with_name(f".{p.name}.tmp")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # whichever folder on the way failed, it is this output's
        raise InputError(f"{p}: cannot write file: {exc.strerror or exc}") from exc
    try:
        yield tmp
        os.replace(tmp, p)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if exc.filename in (None, str(tmp), str(p), str(p.parent)):
            raise InputError(f"{p}: cannot write file: {exc.strerror or exc}") from exc
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise


def check_output(path: str | Path) -> Path:
    """``path`` as an output file, or an :class:`InputError` before any work is done: a
    folder of that name, or a parent that is a file."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p}: is a folder; give a file name for the output")
    parent = next((a for a in p.parents if a.exists()), None)
    if parent is not None and not parent.is_dir():
        raise InputError(f"{p}: {parent} is a file, not a folder")
    return p


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_output`."""
    with atomic_output(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def json_text(payload: Any) -> str:
    """``payload`` as indented JSON, non-ASCII kept: what ``write_json`` writes and what the
    commands' ``--json`` print."""
    return json.dumps(payload, ensure_ascii=False, indent=2)


def write_json(path: Path, payload: Any) -> None:
    """``payload`` as indented UTF-8 JSON (non-ASCII kept), creating the folder; written
    through :func:`atomic_output`."""
    atomic_write_text(path, json_text(payload) + "\n")
