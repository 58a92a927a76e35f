"""Evaluation: the gold model (``gold``), runs and the one ranking loop (``runs``), measures
as values (``measures``), ``finchunk eval`` (``harness``), quote gold (``quotes``,
``align``), corpora (``corpus``) and FinanceBench (``financebench``)."""
