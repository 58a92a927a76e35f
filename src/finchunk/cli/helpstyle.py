"""How the commands' ``--help`` pages look: flags without ``<bool>``, brackets as text,
words too long for a column folded instead of cut, usage lines with arguments in capitals.

Only light modules are imported here: ``finchunk --help`` imports this module."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from rich.columns import Columns
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from typer.core import TyperArgument, TyperOption


def plain_help(command: Any, ctx: typer.Context, params: list[Any]) -> list[Any]:
    """Flags (``--json``, ``--help``, ``--header/--no-header``) take no value: no ``<bool>``
    beside them in the help; brackets in a help text are text (``finchunk[postgres]``), not
    rich markup (escaped once per parameter)."""
    for p in params:
        if isinstance(p, TyperOption) and p.is_flag and p.metavar is None:
            p.metavar = ""
        if p.help and "[" in p.help and not getattr(p, "_finchunk_escaped", False):
            p.help = escape(p.help)
            p._finchunk_escaped = True
    return params


class FoldTable(Table):
    """A help table whose cells wrap a word too long for its column onto the next line
    (rich cuts it to ``…`` by default: ``bm25/dense@100+0…``)."""

    def add_row(self, *renderables: Any, **kwargs: Any) -> None:
        while len(self.columns) < len(renderables):
            self.add_column()
        for column in self.columns:
            column.overflow = "fold"
        super().add_row(*renderables, **kwargs)


class FoldColumns(Columns):
    """The pieces of an option's help (its text, ``[default: ...]``), each folding a word
    too long for the column instead of cutting it."""

    def __init__(self, renderables: Any = None, *args: Any, **kwargs: Any) -> None:
        for r in renderables or ():
            if isinstance(r, Text) and r.overflow is None:
                r.overflow = "fold"
        super().__init__(renderables, *args, **kwargs)


@contextmanager
def folding_help() -> Iterator[None]:
    """typer's rich help rendered with :class:`FoldTable` and :class:`FoldColumns` (its
    module's names swapped while the page is rendered; left as they are if typer renames
    them)."""
    from typer import rich_utils

    names = {"Table": FoldTable, "Columns": FoldColumns}
    saved = {name: getattr(rich_utils, name, None) for name in names}
    if None in saved.values():
        yield
        return
    for name, cls in names.items():
        setattr(rich_utils, name, cls)
    try:
        yield
    finally:
        for name, cls in saved.items():
            setattr(rich_utils, name, cls)


def usage_pieces(command: Any, ctx: typer.Context) -> list[str]:
    """``[OPTIONS] FILES...`` / ``[INPUTS]...``: arguments in capitals, optional ones in brackets
    (typer writes required ones as ``{files}``)."""
    pieces = [command.options_metavar] if command.options_metavar else []
    for p in command.get_params(ctx):
        if isinstance(p, TyperArgument):
            name = (p.metavar or p.name or "").upper()
            name = name if p.required else f"[{name}]"
            pieces.append(name + ("..." if p.nargs != 1 else ""))
    return pieces
