"""Pre-rendered ``--help`` pages, so that ``finchunk [COMMAND ...] --help`` answers without
importing typer and rich (they are most of the CLI's start-up time).

``help.json`` beside this module holds, for every command path (``""``, ``"index"``,
``"facts load"``, ...), the page typer renders for ``--help`` at 80 columns without colour,
and the versions of typer, click and rich that rendered them.
:func:`cached_page` answers an argument list of the form ``[COMMAND ...] --help`` from it;
any other argument list (options before ``--help``, an unknown command) goes to the app.
A test renders every page again and compares (``tests/test_cli_help.py``); after changing a
command's options or help, write the file again with::

    python -m finchunk.cli.helppages

This module imports only the standard library; :func:`render_pages` imports the app.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HELP_FILE = Path(__file__).with_name("help.json")
HELP_OPTION = "--help"
#: The width the pages are rendered at (a terminal's default).
WIDTH = 80
PROG = "finchunk"


def cached_page(argv: Sequence[str], path: Path = HELP_FILE) -> str | None:
    """The pre-rendered page for ``argv`` (``[COMMAND ...] --help``), or None when
    ``argv`` asks for something else or no page is stored for it."""
    if not argv or argv[-1] != HELP_OPTION:
        return None
    names = list(argv[:-1])
    if any(n.startswith("-") for n in names):
        return None
    try:
        pages = json.loads(path.read_text(encoding="utf-8"))["pages"]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no stored pages (or unreadable): the app renders the page itself
    page = pages.get(" ".join(names)) if isinstance(pages, dict) else None
    return page if isinstance(page, str) else None


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


def render_pages() -> dict[str, str]:
    """Every command's ``--help`` page as typer renders it (80 columns, no colour)."""
    import typer
    from typer.testing import CliRunner

    from finchunk.cli.main import app

    runner = CliRunner()
    env = {"COLUMNS": str(WIDTH), "NO_COLOR": "1", "TERM": "dumb"}
    pages = {}
    for path in command_paths(typer.main.get_command(app)):
        done = runner.invoke(
            app, [*path, HELP_OPTION], env=env, prog_name=PROG, terminal_width=WIDTH
        )
        if done.exit_code != 0:
            raise RuntimeError(f"finchunk {' '.join(path)} --help failed: {done.output}")
        pages[" ".join(path)] = done.output
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
