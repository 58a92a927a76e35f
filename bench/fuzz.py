"""Coverage-guided fuzzing of the parsers and fact readers with atheris (not run in CI).

    .venv/bin/python bench/fuzz.py TARGET -n N [--max-len BYTES] [--corpus DIR [--seed]]

TARGET is one of: markdown, html, sgml, pdf_layout, companyfacts, xbrl, ixbrl, questions (a
quote-gold JSONL and a questions CSV read from the same bytes). Each target
asserts the invariants of issue 14 on every input: no exception but finchunk's own
(:class:`~finchunk.errors.FinchunkError`); every element span inside the text; for the
document parsers, nothing lost: every non-whitespace character of the text lies in a
chunk's span or in a heading or furniture element. libFuzzer prints executions/s and peak
memory (``rss``) at the end; a violated invariant stops the run with the input saved as
``crash-*``. ``--seed`` first writes the target's seed inputs into ``--corpus``: the files of
the hostile corpus (``tests/hostile_corpus.py``) the target reads, and for the fact readers
the small valid filings of ``tests/test_facts_parsers.py``; unseeded, the fact readers stop at
the missing namespace or shape and coverage stays near nothing. Needs atheris (``pip install
atheris``; 3.1.0 ships wheels for CPython 3.12+ only, 3.0.0 for 3.11).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["finchunk"]):
    from finchunk.chunk import Structure
    from finchunk.errors import FinchunkError
    from finchunk.evaluate.quotes import read_quote_questions
    from finchunk.facts.companyfacts import companyfacts_from_bytes
    from finchunk.facts.instance import FilingOverride
    from finchunk.facts.ixbrl import inline_from_bytes
    from finchunk.facts.xbrl import instance_from_bytes
    from finchunk.lesson import read_questions
    from finchunk.model import Document, ElementKind, merge_spans
    from finchunk.parse.encoding import decode_page
    from finchunk.parse.html import parse_html
    from finchunk.parse.markdown import parse_markdown
    from finchunk.parse.pdf import build_document
    from finchunk.parse.pdf_layout import Line

_CHUNKER = Structure(size=400)
_NOT_CHUNKED = (ElementKind.HEADING, ElementKind.FURNITURE)
#: Everything a filing needs given, so that every input reaches the facts' assembly.
_GIVEN = FilingOverride(accn="0000000000-00-000000", form="10-K", filed=date(2024, 11, 1))


def check_document(doc: Document) -> None:
    """Spans inside the text, and nothing lost by the structure chunker."""
    n = len(doc.text)
    for e in doc.elements:
        if not 0 <= e.start <= e.end <= n:
            raise AssertionError(f"element span {e.start}:{e.end} outside text of {n}")
    chunks = _CHUNKER.chunk(doc)
    spans = [s for c in chunks for s in c.spans]
    skipped = [
        e.span for e in doc.elements if e.kind in (ElementKind.HEADING, ElementKind.FURNITURE)
    ]
    covered = 0  # the text before it lies in a span, or was checked
    for s, e in [*merge_spans(spans + skipped), (n, n)]:
        if not 0 <= s <= e <= n:
            raise AssertionError(f"chunk span {s}:{e} outside text of {n}")
        gap = doc.text[covered:s] if s > covered else ""
        if gap.replace("\ufeff", "").strip():  # whitespace and a BOM may lie in no chunk
            i = covered + len(gap) - len(gap.lstrip().lstrip("\ufeff"))
            raise AssertionError(f"character {i} ({doc.text[i : i + 20]!r}) is in no chunk")
        covered = max(covered, e)


def _text(data: bytes) -> str:
    return decode_page(data)[0]


def markdown(data: bytes) -> None:
    check_document(parse_markdown(_text(data), "fuzz"))


def html(data: bytes) -> None:
    check_document(parse_html(_text(data), "fuzz"))


def sgml(data: bytes) -> None:
    body = _text(data)
    head = "<SEC-DOCUMENT>\n<SEC-HEADER>\nCONFORMED SUBMISSION TYPE: 10-K\n</SEC-HEADER>\n"
    check_document(parse_html(head + "<DOCUMENT>\n<TYPE>10-K\n<TEXT>\n" + body, "fuzz"))


def pdf_layout(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    pages = []
    for _ in range(fdp.ConsumeIntInRange(1, 6)):
        lines = []
        for _ in range(fdp.ConsumeIntInRange(0, 12)):
            text = " ".join(fdp.ConsumeUnicodeNoSurrogates(40).split())
            if text:
                lines.append(Line(text, fdp.ConsumeIntInRange(0, 3), fdp.ConsumeBool()))
        pages.append(lines)
    try:
        doc = build_document(pages, "fuzz")
    except FinchunkError:
        return
    check_document(doc)


def companyfacts(data: bytes) -> None:
    companyfacts_from_bytes(data, "fuzz.json")


def xbrl(data: bytes) -> None:
    instance_from_bytes(data, "fuzz.xml", _GIVEN)


def ixbrl(data: bytes) -> None:
    inline_from_bytes(data, "fuzz.htm", _GIVEN)


_QUESTIONS = Path(tempfile.mkdtemp(prefix="finchunk-fuzz-"))


def questions(data: bytes) -> None:
    for name, read in (("q.jsonl", read_quote_questions), ("q.csv", read_questions)):
        path = _QUESTIONS / name
        path.write_bytes(data)
        with contextlib.suppress(FinchunkError):
            read(path)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "markdown": markdown,
    "html": html,
    "sgml": sgml,
    "pdf_layout": pdf_layout,
    "companyfacts": companyfacts,
    "xbrl": xbrl,
    "ixbrl": ixbrl,
    "questions": questions,
}


#: Which hostile-corpus files seed a target: by the name's ending.
_SEED_ENDINGS: dict[str, tuple[str, ...]] = {
    "markdown": (".md",),
    "html": (".htm", ".txt"),
    "sgml": (".htm",),
    "companyfacts": (".json",),
    "xbrl": (".xml",),
    "ixbrl": ("_ix.htm",),
    "questions": (),
}


_QUESTION_SEEDS = [
    ("valid.jsonl", b'{"id": "q1", "doc": "a.md", "question": "Revenue?", "evidence": ["x"]}\n'
     b'{"id": 2, "doc": "b.md", "question": "Costs?", "evidence": [["y", "z"]], "type": "t"}\n'),
    ("valid.csv", b"question_id,question,gold_passages,answerable,doc_ids\n"
     b'q1,"Revenue, 2024?",p1;p2|p3,true,a;b\nq2,Costs?,,no,\n'),
]  # fmt: skip


def _valid_filings(target: str) -> Iterator[tuple[str, bytes]]:
    """The fact tests' small valid inputs: every part a reader needs, for mutation to break."""
    if target == "questions":
        yield from _QUESTION_SEEDS
        return
    if target not in ("companyfacts", "xbrl", "ixbrl"):
        return
    from tests.test_facts_parsers import INLINE, INSTANCE, ROW, _companyfacts

    yield {
        "companyfacts": ("valid.json", json.dumps(_companyfacts([ROW])).encode()),
        "xbrl": ("valid.xml", INSTANCE.encode()),
        "ixbrl": ("valid_ix.htm", INLINE.encode()),
    }[target]


def seeds(target: str, max_len: int) -> Iterator[tuple[str, bytes]]:
    """``(name, bytes)`` seed inputs for ``target``, each cut to ``max_len`` bytes."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests package
    from tests.hostile_corpus import corpus

    endings = _SEED_ENDINGS.get(target, ())
    hostile = ((n, b) for n, b in corpus() if n.endswith(endings))
    if target == "html":  # inline XBRL files are the ixbrl target's seeds
        hostile = ((n, b) for n, b in hostile if not n.endswith("_ix.htm"))
    for name, data in [*_valid_filings(target), *hostile]:
        yield name, data[:max_len]


def write_seeds(target: str, folder: Path, max_len: int) -> int:
    """Write ``target``'s seeds into ``folder`` as ``seed-NAME``; return how many."""
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    for name, data in seeds(target, max_len):
        (folder / f"seed-{name}").write_bytes(data)
        n += 1
    return n


def _guarded(target: Callable[[bytes], None]) -> Callable[[bytes], None]:
    def one_input(data: bytes) -> None:
        # A clear error naming the input is a correct answer to a bad one.
        with contextlib.suppress(FinchunkError):
            target(data)

    return one_input


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target", choices=sorted(TARGETS))
    ap.add_argument("-n", type=int, default=100_000, help="executions (libFuzzer -runs)")
    ap.add_argument("--max-len", type=int, default=4096)
    ap.add_argument("--corpus", help="a folder of seed inputs (grown by the run)")
    ap.add_argument("--seed", action="store_true", help="write the target's seeds into --corpus")
    args, rest = ap.parse_known_args()
    if args.seed:
        if not args.corpus:
            ap.error("--seed needs --corpus DIR")
        n = write_seeds(args.target, Path(args.corpus), args.max_len)
        print(f"{n} seed inputs written to {args.corpus}", file=sys.stderr)
    argv = [sys.argv[0], f"-runs={args.n}", f"-max_len={args.max_len}", "-print_final_stats=1"]
    if args.corpus:
        os.makedirs(args.corpus, exist_ok=True)  # libFuzzer wants the folder to exist
    argv += rest + ([args.corpus] if args.corpus else [])
    atheris.Setup(argv, _guarded(TARGETS[args.target]))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
