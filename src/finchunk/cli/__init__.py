"""The ``finchunk`` command line: every typer and rich use of the package lives here.

* :mod:`~finchunk.cli.main` — the root app (``finchunk = "finchunk.cli:main"``);
* :mod:`~finchunk.cli.common` — option parsing, consoles, errors, progress bars;
* :mod:`~finchunk.cli.chunk_eval` — ``chunk``, ``eval``;
* :mod:`~finchunk.cli.retrieve` — ``index``, ``search``, ``ask``, ``view``;
* :mod:`~finchunk.cli.datasets` — ``generate``, ``demo``;
* :mod:`~finchunk.cli.bench` — ``bench financebench``;
* :mod:`~finchunk.cli.facts` — ``facts load|get|history|frame``;
* :mod:`~finchunk.cli.render` — rich tables and text of reports, hits and answers;
* :mod:`~finchunk.cli.helppages` — the pre-rendered ``--help`` pages.

Importing this package imports nothing else: ``app`` is imported on first use, and
:func:`main` answers ``--help`` from the stored pages (at 80 columns; at another width,
from the cache, or rendered and kept there: :mod:`finchunk.cli.helppages`) before importing
it.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["app", "main"]


def main() -> None:
    """The ``finchunk`` command: a stored help page when that is all that is asked, else
    the app."""
    from finchunk.cli.helppages import cached_page, main_page

    page = cached_page(sys.argv[1:])
    if page is None:
        page = main_page(sys.argv[1:])
    if page is not None:
        sys.stdout.write(page)
        return
    from finchunk.cli.main import app

    app()


def __getattr__(name: str) -> Any:
    if name == "app":
        from finchunk.cli.main import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
