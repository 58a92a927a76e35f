"""Errors that name the file (and, where it helps, the position) they come from."""

from __future__ import annotations


class FinchunkError(Exception):
    """Base class of every error finchunk raises on purpose."""


class ParseError(FinchunkError):
    """A document could not be parsed.

    ``source`` names the file (or the document id when there is no file) and
    ``position`` is a character offset or a human-readable location, when known.
    """

    def __init__(self, source: str, message: str, position: int | str | None = None) -> None:
        self.source = source
        self.message = message
        self.position = position
        where = f"{source}" if position is None else f"{source} (at {position})"
        super().__init__(f"{where}: {message}")


class InputError(FinchunkError):
    """Bad user input other than a document body: a corpus table, a question file, an option."""


class DamagedIndexError(InputError):
    """A file of an index (its arrays, tables or pointers) is truncated, overwritten or
    missing: finchunk wrote it, so the remedy is to build the index again. Not by running
    ``finchunk index`` over it: an update reuses the segments of unchanged files."""

    def __init__(self, path: object, problem: str, gone: bool = False) -> None:
        self.path = path
        # a file gone is also what a reader sees when a build published over the
        # generation it opened (the build deletes what the new generation does not use)
        again = "open the index again if it was updated since it was opened; else " if gone else ""
        super().__init__(
            f"{path}: a damaged index file ({problem}); {again}delete the index and build "
            "it again with `finchunk index`"
        )


class MissingExtraError(InputError):
    """An optional dependency (a package extra) is not installed.

    ``extra`` is the extra that brings it (``pip install 'finchunk[EXTRA]'``), ``what`` the
    work that needs it, ``package`` the package(s) to name, ``source`` the file, when known.
    """

    def __init__(
        self,
        extra: str,
        what: str,
        package: str,
        source: str | None = None,
        alternative: str | None = None,
    ) -> None:
        self.extra = extra
        self.what = what
        self.package = package
        self.source = source
        message = f"{what} needs {package}: pip install 'finchunk[{extra}]'"
        if alternative:
            message += f" (or {alternative})"
        super().__init__(message if source is None else f"{source}: {message}")
