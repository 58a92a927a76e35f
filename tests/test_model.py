"""The model's fast paths give exactly what the plain dataclass constructors give."""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import FrozenInstanceError, fields

import pytest

from finchunk.model import (
    Chunk,
    ChunkKind,
    Document,
    Element,
    ElementKind,
    chunk_id,
    new_element,
)


def _reference_id(doc_id: str, spans: list[tuple[int, int]], header: str) -> str:
    """The digest the chunk ids have always been (ids must never change)."""
    key = "|".join([doc_id, *[f"{s}:{e}" for s, e in spans], header])
    return f"{doc_id}#{hashlib.blake2b(key.encode('utf-8'), digest_size=8).hexdigest()}"


@pytest.mark.parametrize(
    "spans", [[], [(0, 5)], [(3, 9), (0, 2)], [(1, 2), (4, 8), (10, 12)], [(0, 10**9)]]
)
@pytest.mark.parametrize("header", ["", "Acme > Notes", "ü|:#"])
def test_chunk_id_digest_unchanged(spans: list[tuple[int, int]], header: str) -> None:
    assert chunk_id("doc|7", spans, header) == _reference_id("doc|7", spans, header)


def test_new_element_equals_dataclass_constructor() -> None:
    args = (ElementKind.NOTE, 3, 9, 2, ("A", "B"), ("1",), "2", 4)
    fast, plain = new_element(*args), Element(*args)
    assert fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    assert [getattr(fast, f.name) for f in fields(Element)] == list(args)
    assert new_element(*args[:7]) == Element(*args[:7])  # page defaults to None
    assert pickle.loads(pickle.dumps(fast)) == plain
    with pytest.raises(FrozenInstanceError):
        fast.start = 0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("pages", "spans", "want_pages"),
    [
        ((), [(0, 4)], ()),
        ((), [(8, 12), (1, 3)], ()),
        (((0, 6), (6, 20)), [(0, 4)], (1,)),
        (((0, 6), (6, 20)), [(8, 12), (1, 3)], (2, 1)),
        (((0, 6), (6, 20)), [(4, 9)], (1, 2)),
    ],
)
def test_build_equals_dataclass_constructor(
    pages: tuple[tuple[int, int], ...],
    spans: list[tuple[int, int]],
    want_pages: tuple[int, ...],
) -> None:
    doc = Document("d", "Alpha beta\n\ngamma delta", pages=pages)
    built = Chunk.build(doc, spans, section=("S",), header="H", kind=ChunkKind.MIXED)
    plain = Chunk(
        id=_reference_id("d", spans, "H"),
        doc_id="d",
        spans=tuple(spans),
        body="\n\n".join(doc.text[s:e] for s, e in spans),
        header="H",
        section=("S",),
        pages=want_pages,
        kind=ChunkKind.MIXED,
    )
    assert built == plain and repr(built) == repr(plain) and hash(built) == hash(plain)
    assert pickle.loads(pickle.dumps(built)) == plain
    with pytest.raises(FrozenInstanceError):
        built.body = ""  # type: ignore[misc]
