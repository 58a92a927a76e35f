"""The ``finchunk`` command line: every typer and rich use of the package lives here.

* :mod:`~finchunk.cli.main` — the root app (``finchunk = "finchunk.cli:main"``);
* :mod:`~finchunk.cli.common` — option parsing, consoles, errors, progress bars;
* :mod:`~finchunk.cli.chunk_eval` — ``chunk``, ``eval``;
* :mod:`~finchunk.cli.retrieve` — ``index``, ``search``, ``ask``, ``view``;
* :mod:`~finchunk.cli.datasets` — ``generate``, ``demo``;
* :mod:`~finchunk.cli.bench` — ``bench financebench``;
* :mod:`~finchunk.cli.facts` — ``facts load|get|history|frame``;
* :mod:`~finchunk.cli.render` — rich tables and text of reports, hits and answers.
"""

from finchunk.cli.main import app, main

__all__ = ["app", "main"]
