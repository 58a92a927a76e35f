"""Which chunks a question searches in an evaluation, apart from the evaluation itself so
that naming a scope (a CLI option) does not import numpy or the retrievers. The evaluation
harness (:mod:`finchunk.evaluate.harness`) re-exports it."""

from __future__ import annotations

from enum import StrEnum


class Scope(StrEnum):
    """Which chunks a question searches."""

    CORPUS = "corpus"  # one index over every document
    # only the question's own documents (a metadata filter), scored with their own BM25
    # statistics unless ``--filter-statistics index``
    DOCUMENT = "document"
