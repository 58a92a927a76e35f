"""Evaluation: the gold model (``gold``), runs and the one ranking loop (``runs``), measures
as values (``measures``), ``finchunk eval`` (``harness``), quote gold (``quotes``,
``align``), corpora (``corpus``) and FinanceBench (``financebench``). Called, this module
is :func:`finchunk.api.evaluate`: ``finchunk.evaluate(questions, files)``."""

# ``finchunk.evaluate(...)`` calls :func:`finchunk.api.evaluate` (:mod:`finchunk._callable`).
from finchunk._callable import make_callable  # noqa: E402

make_callable(__name__, "evaluate")
