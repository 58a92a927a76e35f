"""The development question set over real EDGAR filings (devsets/edgar_dev.jsonl) stays
well-formed: enough questions of every type, unique ids, documents that exist, and every
evidence quote aligning to the parsed document text."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

DEVSET = Path(__file__).resolve().parents[1] / "devsets" / "edgar_dev.jsonl"
TYPES = ("text", "table", "table_note", "note")


def test_devset_questions_are_well_formed() -> None:
    qs = read_quote_questions(DEVSET)
    assert len(qs) >= 72
    ids = [q.id for q in qs]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    by_type = Counter(q.type for q in qs)
    assert set(by_type) <= set(TYPES), by_type
    for t in TYPES:
        assert by_type[t] >= 15, by_type
    for q in qs:
        assert q.question.strip() and q.evidence, q.id
        if q.type == "table_note":
            assert len(q.evidence) >= 2, q.id


def test_devset_quotes_align_to_the_filings(shared_data: Path) -> None:
    edgar = shared_data / "edgar"
    if not edgar.is_dir():
        pytest.skip(f"EDGAR filings not present under {shared_data}")
    qs = read_quote_questions(DEVSET)
    missing = sorted({q.doc for q in qs if not (edgar / q.doc).is_file()})
    assert not missing, missing
    built = build_quote_corpus(qs, edgar)
    assert built.alignment["unaligned_ids"] == []
    assert built.alignment["aligned"] == sum(len(q.evidence) for q in qs)
