"""Chunking invariants over generated documents, for every strategy, header on and off."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from finchunk.chunk import ByTitle, Fixed, Recursive, RecursiveOverlap, Structure, Tokens
from finchunk.chunk.tokens import Tokenizer
from finchunk.model import Chunk, Document, ElementKind, merge_spans
from finchunk.parse.markdown import parse_markdown

from .mdgen import markdown_doc

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _chunkers(size: int, header: bool):
    return [
        Fixed(size=size, overlap=size // 10, header=header),
        Recursive(size=size, header=header),
        Structure(size=size, header=header),
        Structure(size=size, header=header, index_notes_alone=True),
        Structure(size=size, header=header, split_tables=True),
        Structure(size=size, header=header, table_context=False),
        ByTitle(size=size, header=header),
    ]


def _window_variants(size: int, header: bool):
    """Token windows and recursive-with-overlap: sizes in other units, or exceeded by the
    overlap on purpose; every other invariant holds."""
    return [
        Tokens(
            size=max(size // 4, 1), overlap=size // 40, header=header, tokenizer=Tokenizer.CHARS
        ),
        RecursiveOverlap(size=size, overlap=size // 10, header=header),
    ]


def _source_len(c: Chunk) -> int:
    return sum(e - s for s, e in c.spans)


def _check_spans_and_body(doc: Document, chunks: list[Chunk]) -> None:
    for c in chunks:
        assert c.doc_id == doc.id
        assert c.spans
        for s, e in c.spans:
            assert 0 <= s < e <= len(doc.text)
        assert c.body == "\n\n".join(doc.text[s:e] for s, e in c.spans)
        assert c.text == (c.header + "\n" + c.body if c.header else c.body)
        assert (
            c.body.strip() == c.body
            or any(doc.text[s:e] != doc.text[s:e].strip() for s, e in c.spans) is False
        )


def _check_nothing_lost(doc: Document, chunks: list[Chunk]) -> None:
    covered = merge_spans(s for c in chunks for s in c.spans)
    skipped = merge_spans(
        e.span for e in doc.elements if e.kind in (ElementKind.HEADING, ElementKind.FURNITURE)
    )
    mask = bytearray(len(doc.text))
    for s, e in covered + skipped:
        mask[s:e] = b"\x01" * (e - s)
    lost = [
        i for i, ch in enumerate(doc.text) if not mask[i] and not ch.isspace() and ch != "\ufeff"
    ]
    assert not lost, f"lost characters at {lost[:5]}: {doc.text[lost[0] : lost[0] + 20]!r}"


def _non_heading_elements_in(doc: Document, c: Chunk) -> int:
    return sum(
        1
        for e in doc.elements
        if e.kind is not ElementKind.HEADING
        and any(s <= e.start and e.end <= t for s, t in c.spans)
    )


def _check_sizes(doc: Document, chunker, chunks: list[Chunk]) -> None:
    for c in chunks:
        n = _source_len(c)
        if n <= chunker.size:
            continue
        if isinstance(chunker, Structure):
            assert c.kind == "table", f"{c.kind} chunk of {n} > {chunker.size}"
        elif isinstance(chunker, ByTitle):
            # An element larger than size stands alone (with the headings that open it).
            assert c.kind == "table" or _non_heading_elements_in(doc, c) == 1
        else:
            raise AssertionError(f"{chunker.name}: chunk of {n} > {chunker.size}")


@SETTINGS
@given(text=markdown_doc(), size=st.sampled_from([60, 200, 500, 1200]), header=st.booleans())
def test_chunk_invariants(text: str, size: int, header: bool) -> None:
    doc = parse_markdown(text, "doc-1", title="Informe de prueba")
    for e in doc.elements:
        assert 0 <= e.start < e.end <= len(text)
        assert doc.text[e.start : e.end].strip() == doc.text[e.start : e.end]
    for chunker in _chunkers(size, header):
        chunks = chunker.chunk(doc)
        _check_spans_and_body(doc, chunks)
        _check_nothing_lost(doc, chunks)
        _check_sizes(doc, chunker, chunks)
        if header:
            assert all(c.header.startswith("Informe de prueba") for c in chunks)
        again = chunker.chunk(parse_markdown(text, "doc-1", title="Informe de prueba"))
        assert [c.id for c in again] == [c.id for c in chunks]
        assert len({c.id for c in chunks}) == len(chunks)
    for chunker in _window_variants(size, header):
        chunks = chunker.chunk(doc)
        _check_spans_and_body(doc, chunks)
        _check_nothing_lost(doc, chunks)


@SETTINGS
@given(text=markdown_doc())
def test_elements_are_ordered_and_disjoint(text: str) -> None:
    doc = parse_markdown(text, "d")
    for a, b in zip(doc.elements, doc.elements[1:], strict=False):
        assert a.end <= b.start
    defined = {e.mark for e in doc.elements if e.mark}
    for e in doc.elements:
        assert set(e.cites) <= defined
