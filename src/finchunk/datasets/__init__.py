"""Sample corpora in the lesson's schema: a deterministic, seeded Spanish generator.

>>> from finchunk.datasets import SampleConfig, generate, write_lesson_files
>>> corpus = generate(SampleConfig(seed=0))          # 21 documents, 264 questions
>>> files = write_lesson_files(corpus, "finchunk-demo")
"""

from finchunk.datasets.lesson import LessonFiles, read_lesson_files, write_lesson_files
from finchunk.datasets.records import (
    DocType,
    DocumentRecord,
    PassageRecord,
    PassageType,
    QuestionRecord,
    QuestionType,
    SampleConfig,
    SampleCorpus,
)
from finchunk.datasets.sample import expected_question_counts, generate

__all__ = [
    "DocType",
    "DocumentRecord",
    "LessonFiles",
    "PassageRecord",
    "PassageType",
    "QuestionRecord",
    "QuestionType",
    "SampleConfig",
    "SampleCorpus",
    "expected_question_counts",
    "generate",
    "read_lesson_files",
    "write_lesson_files",
]
