"""TAT-QA (Zhu et al., ACL 2021) as an evaluation corpus: small units, known answers.

Each TAT-QA context (one table of an annual report and the paragraphs around it) becomes
one Markdown document: the table first, as a pipe table whose stacked column-header rows
are one line above the delimiter row (each column's header cells joined), then the
paragraphs in their order. Questions keep their answers (several spans joined by ``; ``)
and their type (``answer_from``: text, table, table-text). Each question is asked of its
own document (``doc_ids``).

**Gold evidence** (passages of the document's text, each its own evidence item, so that
``Complete`` says "everything needed was delivered"):

* the paragraphs of ``rel_paragraphs`` (text and table-text answers);
* for table and table-text answers, the *evidence rows*: the body rows holding a number
  that the answer or the derivation states (after normalising format, sign and scale with
  :func:`finchunk.evaluate.answers.numbers`), else, for a span answer, the rows whose
  cells contain the answer's text; and then the table's column-header rows, one item: a
  row of figures is read through them;
* a question whose table evidence no row shows (a count or comparison whose figures are
  not in the answer) has no gold and is marked unanswerable: excluded from recall and
  counted in :func:`read_tatqa`'s summary.

**Header rows**: the leading rows whose first cell is empty or whose other cells hold no
figure except years (``Years Ended September 30,`` over ``2019 | 2018 | 2017``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from finchunk.errors import InputError
from finchunk.evaluate.corpus import Corpus
from finchunk.lesson import Passage, Question
from finchunk.model import Document
from finchunk.parse.markdown import parse_markdown

_YEAR = re.compile(r"^\s*(?:FY\s*)?(?:19|20)\d\d\s*$")
_DIGIT = re.compile(r"\d")


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "/")


def header_rows(table: Sequence[Sequence[str]]) -> int:
    """How many leading rows of a TAT-QA table are column headers."""
    n = 0
    for row in table:
        cells = [_cell(c) for c in row]
        rest = [c for c in cells[1:] if c]
        figures = [c for c in rest if _DIGIT.search(c) and not _YEAR.match(c)]
        if cells and (not cells[0] or not figures) and n < len(table) - 1:
            n += 1
        else:
            break
    return max(n, 1)


@dataclass(frozen=True)
class TatqaSummary:
    contexts: int
    questions: int
    without_gold: int


def _row_line(row: Sequence[str]) -> str:
    return "| " + " | ".join(_cell(c) for c in row) + " |"


def _values(text: str) -> set[float]:
    from finchunk.evaluate.answers import numbers

    out: set[float] = set()
    for readings, scale in numbers(text):
        for v, _ in readings:
            out.update((v, v * scale))
    return out


def _answer_text(answer: Any) -> str:
    if isinstance(answer, list):
        return "; ".join(str(a) for a in answer)
    return str(answer)


def _context(n: int, raw: dict[str, Any], source: str) -> tuple[Document, dict[str, Any]]:
    """The document of context ``n`` and where its parts lie in its text."""
    table = raw["table"]["table"]
    width = max(len(r) for r in table)
    rows = [list(r) + [""] * (width - len(r)) for r in table]
    heads = header_rows(rows)
    parts: list[str] = []
    pos = 0
    spans: dict[str, Any] = {"rows": [], "paragraphs": {}}

    def add(text: str) -> tuple[int, int]:
        nonlocal pos
        if parts:
            parts.append("\n")
            pos += 1
        parts.append(text)
        start = pos
        pos += len(text)
        return start, pos

    add(f"# TAT-QA context {n}\n")
    # stacked header rows as one line (a pipe table has one): each column's cells joined
    head = [" ".join(_cell(r[j]) for r in rows[:heads] if _cell(r[j])) for j in range(width)]
    spans["head"] = add(_row_line(head))
    add("| " + " | ".join(["---"] * width) + " |")
    for r in rows[heads:]:
        spans["rows"].append(add(_row_line(r)))
    for p in sorted(raw["paragraphs"], key=lambda p: int(p["order"])):
        add("")
        spans["paragraphs"][str(p["order"])] = add(" ".join(str(p["text"]).split()))
    text = "".join(parts) + "\n"
    doc_id = f"tatqa-{n:03d}"
    doc = parse_markdown(text, doc_id, title=f"TAT-QA context {n}", metadata={}, source=source)
    spans["heads"] = heads
    spans["cells"] = rows
    return doc, spans


def _evidence_rows(q: dict[str, Any], at: dict[str, Any]) -> list[int]:
    """Body rows (indices into the table) holding the answer's or derivation's figures,
    else (a span answer) its text."""
    heads, rows = at["heads"], at["cells"]
    wanted = _values(_answer_text(q["answer"])) | _values(str(q.get("derivation") or ""))
    found = []
    for i in range(heads, len(rows)):
        have = set().union(*(_values(_cell(c)) for c in rows[i][1:])) if rows[i][1:] else set()
        if wanted & have:
            found.append(i)
    if found or not isinstance(q["answer"], list):
        return found
    texts = [str(a).lower() for a in q["answer"] if str(a).strip()]
    for i in range(heads, len(rows)):
        line = " ".join(_cell(c).lower() for c in rows[i])
        if any(t in line for t in texts):
            found.append(i)
    return found


def read_tatqa(path: str | Path) -> tuple[Corpus, TatqaSummary]:
    """TAT-QA's JSON (a list of contexts) as a corpus in the lesson's model."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{p}: not a TAT-QA JSON file ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(c, dict) and "table" in c for c in data):
        raise InputError(f"{p}: not a TAT-QA JSON file (a list of contexts with tables)")
    docs: list[Document] = []
    passages: dict[str, Passage] = {}
    questions: list[Question] = []
    without = 0
    for n, raw in enumerate(data):
        doc, at = _context(n, raw, str(p))
        docs.append(doc)
        for q in raw.get("questions", []):
            gold: list[str] = []

            def passage(kind: str, key: str, span: tuple[int, int], doc: Document = doc) -> str:
                pid = f"{doc.id}-{kind}{key}"
                passages.setdefault(pid, Passage(pid, doc.id, span[0], span[1], "", kind))
                return pid

            source = str(q.get("answer_from", ""))
            for order in q.get("rel_paragraphs", []) or []:
                span = at["paragraphs"].get(str(order))
                if span is not None and source != "table":
                    gold.append(passage("paragraph", str(order), span))
            if source in ("table", "table-text"):
                rows = _evidence_rows(q, at)
                if rows:
                    gold.append(passage("header", "", at["head"]))
                    gold.extend(passage("row", str(i), _row_span(at, i)) for i in rows)
                elif source == "table":
                    gold = []
            if not gold:
                without += 1
            questions.append(
                Question(
                    str(q["uid"]),
                    str(q["question"]),
                    _answer_text(q["answer"]),
                    tuple(dict.fromkeys(gold)),
                    source or "unknown",
                    bool(gold),
                    (doc.id,),
                )
            )
    summary = TatqaSummary(len(docs), len(questions), without)
    return Corpus(tuple(docs), passages, tuple(questions)), summary


def _row_span(at: dict[str, Any], i: int) -> tuple[int, int]:
    """The span of table row ``i`` (a body row: header rows are one line, ``at["head"]``)."""
    return at["rows"][i - at["heads"]]
