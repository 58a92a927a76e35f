"""Pre-rendered ``--help`` pages, so that ``finchunk [COMMAND ...] --help`` answers without
importing typer and rich (they are most of the CLI's start-up time).

``help.json`` beside this module holds, for every command path (``""``, ``"index"``,
``"facts load"``, ...), the page typer renders for ``--help`` at 80 columns without colour,
and the versions of typer, click and rich that rendered them.
:func:`cached_page` answers an argument list of the form ``[COMMAND ...] --help`` from it
when the help is for 80 columns (a pipe, ``COLUMNS=80``, a terminal of that width); at
another width (:func:`help_width`: ``$COLUMNS``, else the terminal's) from the pages
rendered at that width before, kept in finchunk's cache folder
(``CACHE/help/<digest of help.json>.json``), else :func:`main_page` renders the page at that
width and keeps it there. Any other argument list (options before ``--help``, an unknown
command) goes to the app.
A test renders every page again and compares (``tests/test_cli_help.py``); after changing a
command's options or help, write the file again with::

    python -m finchunk.cli.helppages

This module imports only the standard library (and :func:`finchunk.files.cache_root`);
:func:`render_pages` and a page at a new width import the app.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HELP_FILE = Path(__file__).with_name("help.json")
HELP_OPTION = "--help"
#: The width the stored pages are rendered at (a terminal's default, and rich's off one).
WIDTH = 80
PROG = "finchunk"
#: The folder of the cache holding pages rendered at other widths.
CACHE_FOLDER = "help"


def help_width() -> int:
    """The width rich renders the help at here: ``$COLUMNS``, else the size of the first of
    stdin, stdout and stderr that is a terminal, else 80 (rich's own rule)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):
            continue
        return width or WIDTH
    return WIDTH


def _help_names(argv: Sequence[str]) -> list[str] | None:
    """The command path of ``[COMMAND ...] --help``, or None for any other argument list."""
    if not argv or argv[-1] != HELP_OPTION:
        return None
    names = list(argv[:-1])
    return None if any(n.startswith("-") for n in names) else names


def _read(path: Path) -> tuple[dict[str, Any], bytes] | None:
    try:
        raw = path.read_bytes()
        pages = json.loads(raw)["pages"]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no stored pages (or unreadable): the app renders the page itself
    return (pages, raw) if isinstance(pages, dict) else None


def _cache_file(raw: bytes) -> Path | None:
    """Where the pages at other widths than 80 for this ``help.json`` are kept (None: no
    cache)."""
    import hashlib

    from finchunk.files import cache_root

    root = cache_root()
    if root is None:
        return None
    return root / CACHE_FOLDER / f"{hashlib.sha256(raw).hexdigest()[:16]}.json"


def _page(pages: Any, names: list[str]) -> str | None:
    page = pages.get(" ".join(names)) if isinstance(pages, dict) else None
    return page if isinstance(page, str) else None


def cached_page(
    argv: Sequence[str], path: Path = HELP_FILE, width: int | None = None
) -> str | None:
    """The pre-rendered page for ``argv`` (``[COMMAND ...] --help``) at ``width`` (default
    :func:`help_width`): the stored page at 80 columns, one kept in the cache at another
    width; None when ``argv`` asks for something else or no page is stored for it."""
    names = _help_names(argv)
    if names is None:
        return None
    stored = _read(path)
    if stored is None:
        return None
    pages, raw = stored
    width = help_width() if width is None else width
    if width == WIDTH:
        return _page(pages, names)
    cache = _cache_file(raw)
    if cache is None:
        return None
    try:
        kept = json.loads(cache.read_bytes())
    except (OSError, ValueError):
        return None
    return _page(kept.get(str(width)) if isinstance(kept, dict) else None, names)


def main_page(argv: Sequence[str], path: Path = HELP_FILE, width: int | None = None) -> str | None:
    """The page for ``argv`` at ``width`` rendered now and kept in the cache for the next
    time (None when ``argv`` is not a plain help request, there is no cache to keep it in,
    or the app does not render it: the app then answers as usual)."""
    names = _help_names(argv)
    stored = _read(path)
    width = help_width() if width is None else width
    cache = _cache_file(stored[1]) if stored is not None else None
    if names is None or cache is None or width == WIDTH:
        return None
    page = render_page(names, width)
    if page is None:
        return None
    try:
        kept = json.loads(cache.read_bytes())
        kept = kept if isinstance(kept, dict) else {}
    except (OSError, ValueError):
        kept = {}
    at_width = kept.setdefault(str(width), {})
    if isinstance(at_width, dict):
        at_width[" ".join(names)] = page
    with contextlib.suppress(OSError):  # a cache that cannot be written is no cache
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
        tmp.replace(cache)
        for old in cache.parent.glob("*.json"):  # an older help.json's pages
            if old != cache:
                old.unlink(missing_ok=True)
    return page


def renderer_versions() -> dict[str, str]:
    """The installed versions of what renders the pages."""
    from importlib.metadata import version

    return {name: version(name) for name in ("typer", "click", "rich")}


def command_paths(command: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path under the click ``command`` (itself first), in name order."""
    out = [prefix]
    for name in sorted(getattr(command, "commands", {}) or {}):
        out += command_paths(command.commands[name], (*prefix, name))
    return out


def _render(names: Sequence[str], width: int) -> tuple[int, str]:
    """The exit status and output of ``finchunk NAMES --help`` at ``width``, no colour."""
    from typer.testing import CliRunner

    from finchunk.cli.main import app

    env = {"COLUMNS": str(width), "NO_COLOR": "1", "TERM": "dumb", "TERMINAL_WIDTH": None}
    done = CliRunner().invoke(
        app, [*names, HELP_OPTION], env=env, prog_name=PROG, terminal_width=width
    )
    return done.exit_code, done.output


def render_page(names: Sequence[str], width: int) -> str | None:
    """``finchunk NAMES --help`` as typer renders it at ``width`` columns without colour
    (None when it fails: not a command)."""
    code, output = _render(names, width)
    return output if code == 0 else None


def render_pages(width: int = WIDTH) -> dict[str, str]:
    """Every command's ``--help`` page as typer renders it (80 columns, no colour)."""
    import typer

    from finchunk.cli.main import app

    pages = {}
    for path in command_paths(typer.main.get_command(app)):
        code, output = _render(path, width)
        if code != 0:
            raise RuntimeError(f"finchunk {' '.join(path)} --help failed: {output}")
        pages[" ".join(path)] = output
    return pages


def write_pages(path: Path = HELP_FILE) -> int:
    """Render every page into ``path`` (atomically); the number of pages."""
    pages = render_pages()
    stored = {"rendered_with": renderer_versions(), "pages": pages}
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(stored, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return len(pages)


if __name__ == "__main__":
    print(f"{HELP_FILE}: {write_pages()} pages")
