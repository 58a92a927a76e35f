"""Build a Markdown document block by block, recording each block's exact offsets.

Offsets are recorded while the text is written (never recovered with ``str.find``): each
block is one canonical passage, blocks are separated by one blank line, and a block never
holds a blank line nor leading or trailing whitespace.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from finchunk.datasets.records import DocumentRecord, PassageRecord, PassageType, QuestionType

BLOCK_SEPARATOR = "\n\n"
_SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def sup(n: int) -> str:
    """The superscript note mark for ``n``: ``sup(2) == "²"``, ``sup(10) == "¹⁰"``."""
    return str(n).translate(_SUPERSCRIPT_DIGITS)


class MarkdownWriter:
    """Appends blocks to one document and records a passage per block."""

    __slots__ = ("id_doc", "passages", "_parts", "_pos", "_section")

    def __init__(self, id_doc: str, title: str) -> None:
        self.id_doc = id_doc
        self.passages: list[PassageRecord] = []
        self._parts: list[str] = []
        self._pos = 0
        self._section = title
        self.heading(1, title)

    def _add(self, block: str, kind: PassageType) -> str:
        if not block or block != block.strip() or BLOCK_SEPARATOR in block:
            raise ValueError(f"{self.id_doc}: malformed block {block[:40]!r}")
        if self._parts:
            self._parts.append(BLOCK_SEPARATOR)
            self._pos += len(BLOCK_SEPARATOR)
        start = self._pos
        self._parts.append(block)
        self._pos += len(block)
        pid = f"{self.id_doc}-p{len(self.passages) + 1:03d}"
        self.passages.append(PassageRecord(pid, self.id_doc, self._section, kind, start, self._pos))
        return pid

    def heading(self, level: int, text: str) -> str:
        """A heading opens a section: its own passage and the following ones carry ``text``."""
        self._section = text
        return self._add(f"{'#' * level} {text}", PassageType.TITULO)

    def para(self, text: str) -> str:
        return self._add(text, PassageType.TEXTO)

    def note(self, text: str) -> str:
        """A footnote (``"¹ ..."``) or a note to the accounts (``"Nota 1. ..."``)."""
        return self._add(text, PassageType.NOTA)

    def table(
        self, header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int = 1
    ) -> str:
        """A GFM pipe table; columns from ``numeric_from`` on are right-aligned."""
        rule = ["---" if i < numeric_from else "---:" for i in range(len(header))]
        lines = [_row(header), _row(rule)]
        lines.extend(_row(r) for r in rows)
        return self._add("\n".join(lines), PassageType.TABLA)

    def bullets(self, items: Sequence[str]) -> str:
        return self._add("\n".join(f"- {it}" for it in items), PassageType.LISTA)

    def numbered(self, items: Sequence[str]) -> str:
        return self._add(
            "\n".join(f"{i}. {it}" for i, it in enumerate(items, 1)), PassageType.LISTA
        )

    def text(self) -> str:
        """The document text: the blocks and a final newline."""
        return "".join(self._parts) + "\n"


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


@dataclass(frozen=True, slots=True)
class Draft:
    """A question before it gets its id."""

    tipo: QuestionType
    pregunta: str
    respuesta: str
    gold: tuple[str, ...]
    evidencia: tuple[str, ...]
    docs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BuiltDoc:
    """A written document: its record, passages, picked questions and named passages."""

    record: DocumentRecord
    passages: list[PassageRecord]
    drafts: list[Draft]
    anchors: dict[str, str]


class Drafts:
    """Candidate questions of one document, by type, to be sampled down to a quota."""

    __slots__ = ("_by_type", "_docs")

    def __init__(self, id_doc: str) -> None:
        self._docs = (id_doc,)
        self._by_type: dict[QuestionType, list[Draft]] = {}

    def add(
        self,
        tipo: QuestionType,
        pregunta: str,
        respuesta: str,
        gold: Sequence[str],
        evidencia: Sequence[str],
        docs: Sequence[str] | None = None,
    ) -> None:
        """A candidate; ``docs`` defaults to this document."""
        where = self._docs if docs is None else tuple(docs)
        draft = Draft(tipo, pregunta, respuesta, tuple(gold), tuple(evidencia), where)
        self._by_type.setdefault(tipo, []).append(draft)

    @property
    def doc_id(self) -> str:
        return self._docs[0]

    def unanswerable(self, pregunta: str) -> None:
        self.add(QuestionType.NO_RESPONDIBLE, pregunta, NO_ANSWER, (), ())

    def pick(self, rng: random.Random, quota: Mapping[QuestionType, int]) -> list[Draft]:
        """``quota[t]`` candidates of each type ``t``, sampled, in the order they were added."""
        out: list[Draft] = []
        for tipo, k in quota.items():
            pool = self._by_type.get(tipo, [])
            if len(pool) < k:
                raise ValueError(f"{self._docs[0]}: {len(pool)} {tipo} candidates, need {k}")
            out.extend(pool[i] for i in sorted(rng.sample(range(len(pool)), k)))
        return out


NO_ANSWER = "No consta en los documentos."
