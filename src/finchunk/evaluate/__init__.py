"""Evaluation: the gold model (``gold``), runs and the one ranking loop (``runs``), measures
as values (``measures``), ``finchunk eval`` (``harness``; its options as values:
``options``), quote gold (``quotes``, ``align``), corpora (``corpus``), FinanceBench
(``financebench``, ``financebench_gold``) and the report both print (``report``). Called,
this module is :func:`finchunk.api.evaluate`: ``finchunk.evaluate(questions, files)``."""

# ``finchunk.evaluate(...)`` calls :func:`finchunk.api.evaluate` (:mod:`finchunk._callable`).
from finchunk._callable import make_callable  # noqa: E402

make_callable(__name__, "evaluate")
