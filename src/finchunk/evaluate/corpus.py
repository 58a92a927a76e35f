"""Evaluation corpora in the lesson's schema (Spanish column names) or its English twin.

The tables are read by :mod:`finchunk.lesson` (columns, list and boolean cells, errors);
this module checks them against each other: passages lie inside their documents, questions
cite existing passages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from finchunk.lesson import Passage, Question, read_documents, read_passages, read_questions
from finchunk.model import Document

__all__ = ["Corpus", "Passage", "Question", "read_corpus"]


@dataclass(frozen=True)
class Corpus:
    documents: tuple[Document, ...]
    passages: Mapping[str, Passage]
    questions: tuple[Question, ...]

    @property
    def answerable(self) -> tuple[Question, ...]:
        return tuple(q for q in self.questions if q.answerable)


def read_corpus(docs: str | Path, passages: str | Path, questions: str | Path) -> Corpus:
    """The three tables, each passage checked against its document and each question's
    gold passages against the passages."""
    documents = read_documents(docs)
    ps = read_passages(passages, documents)
    return Corpus(documents, ps, read_questions(questions, ps))
