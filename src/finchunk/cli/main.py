"""The root ``finchunk`` app: every command and command group, registered from the modules
of :mod:`finchunk.cli` that hold them (the ``finchunk`` command is :func:`finchunk.cli.main`).

Importing this module imports typer, rich and light finchunk modules (option enums, errors)
only; each command imports what it needs when it runs, so ``finchunk --help`` stays fast and
works without the optional extras.
"""

from __future__ import annotations

from finchunk.cli import bench, chunk_eval, datasets, facts, retrieve
from finchunk.cli.common import JSON_FILE_ALIAS, K_ALIAS, App, aliased

app = App(
    help="finchunk: chunk financial documents, retrieve, and measure recall against gold passages.",
    no_args_is_help=True,
)
app.add_typer(facts.app, name="facts")
app.add_typer(bench.app, name="bench")
retrieve.register(app)
app.command("generate")(datasets.sample_command)
app.command("chunk")(chunk_eval.chunk)
app.command("eval", cls=aliased(K_ALIAS, JSON_FILE_ALIAS))(chunk_eval.eval_cmd)
app.command("demo")(datasets.demo)
