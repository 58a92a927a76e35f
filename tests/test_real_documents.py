"""The chunking invariants on real documents of every parser: SEC iXBRL HTML, an SGML
submission, an English 10-K PDF and a Spanish CNMV fund report PDF."""

from __future__ import annotations

from pathlib import Path

import pytest

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.model import ElementKind, merge_spans
from finchunk.parse import load

DOCUMENTS = [
    "edgar/AAPL/aapl-10-k-2024-11-01.html",
    "edgar/AAPL/0000912057-00-023442.txt",
    "financebench/pdfs/3M_2018_10K.pdf",
    "es/COBAS_INTERNACIONAL_FI/cobas_internacional_fi_informe_trimestral_2020T1.pdf",
]


@pytest.mark.parametrize("relative", DOCUMENTS)
def test_nothing_lost_and_bodies_exact(shared_data: Path, relative: str) -> None:
    pytest.importorskip("selectolax")
    pytest.importorskip("pypdfium2")
    doc = load(shared_data / relative)
    skipped = merge_spans(
        e.span for e in doc.elements if e.kind in (ElementKind.HEADING, ElementKind.FURNITURE)
    )
    for chunker in (Fixed(), Recursive(), Structure(header=True), ByTitle()):
        chunks = chunker.chunk(doc)
        assert chunks
        mask = bytearray(len(doc.text))
        for s, e in merge_spans([sp for c in chunks for sp in c.spans]) + skipped:
            mask[s:e] = b"\x01" * (e - s)
        lost = [i for i, ch in enumerate(doc.text) if not mask[i] and not ch.isspace()]
        assert not lost, (chunker.name, doc.text[lost[0] : lost[0] + 40])
        for c in chunks:
            assert c.body == "\n\n".join(doc.text[s:e] for s, e in c.spans)
            if doc.pages:
                assert c.pages, "every chunk of a paged document knows its pages"
