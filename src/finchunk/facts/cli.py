"""``finchunk facts ...`` commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="Point-in-time XBRL fact store: load, get, history, frame.", no_args_is_help=True)
