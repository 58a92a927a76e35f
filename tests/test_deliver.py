"""Delivery: distinct pages and documents, a slot per entity, budget packing — in runs and
in search alike."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from finchunk.errors import InputError
from finchunk.evaluate.runs import Query, rank
from finchunk.model import Chunk, Document
from finchunk.parse.markdown import parse_markdown
from finchunk.retrieve.base import Hits
from finchunk.retrieve.index.build import build_index, document_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.kinds import Distinct
from finchunk.retrieve.query.deliver import ChunkFacts, Delivery, deliver, interleave
from finchunk.retrieve.query.search import SearchOptions, search

RANKING = Hits(np.array([0, 1, 2, 3, 4]), np.array([5, 4, 3, 2, 1], dtype=np.float32))
# chunks 0 and 1 on page 3 of doc 0; chunk 2 on page 4 of doc 0; 3, 4 in doc 1 without pages
FACTS = ChunkFacts(
    np.array([0, 0, 0, 1, 1]), np.array([3, 3, 4, -1, -1]), np.array([500, 300, 900, 200, 100])
)


def test_distinct_pages_keep_the_best_chunk_of_each_page() -> None:
    got = deliver(RANKING, 5, Delivery(Distinct.PAGE), FACTS)
    assert got.positions.tolist() == [0, 2, 3, 4]  # pageless chunks are never merged
    got = deliver(RANKING, 5, Delivery(Distinct.DOCUMENT), FACTS)
    assert got.positions.tolist() == [0, 3]


def test_budget_packs_what_fits_and_k_still_caps() -> None:
    got = deliver(RANKING, 5, Delivery(budget=1000), FACTS)
    assert got.positions.tolist() == [0, 1, 3]  # 900 skipped, 200 fits, then 100 would not
    assert deliver(RANKING, 2, Delivery(budget=10_000), FACTS).positions.tolist() == [0, 1]
    with pytest.raises(InputError, match="budget"):
        Delivery(budget=0)


def test_interleave_takes_each_entitys_best_in_turn() -> None:
    a = Hits(np.array([7, 8, 9]), np.array([3, 2, 1], dtype=np.float32))
    b = Hits(np.array([1, 8]), np.array([9, 8], dtype=np.float32))
    assert interleave([a, b]).positions.tolist() == [7, 1, 8, 9]


def _corpus() -> list[Document]:
    def doc(i: str, issuer: str, text: str) -> Document:
        return parse_markdown(text, i, title=issuer, metadata={"issuer": issuer})

    return [
        doc("alfa", "Alfa Energía", "ingresos, ingresos.\n\ningresos y más ingresos.\n"),
        doc(
            "beta",
            "Beta Banco",
            "los ingresos del banco, en un año de tipos altos y de mucha competencia.\n",
        ),
    ]


def test_per_entity_gives_each_named_issuer_a_slot_in_runs_and_search(tmp_path: Path) -> None:
    docs = _corpus()
    chunks = [Chunk.build(d, [e.span]) for d in docs for e in d.elements]
    q = Query("q", "ingresos de Alfa y Beta", entities=(("alfa",), ("beta",)))
    plain = rank([q], chunks, "bm25", 2).get("q")
    per = rank([q], chunks, "bm25", 2, delivery=Delivery(per_entity=True)).get("q")
    assert {h.doc_id for h in per} == {"alfa", "beta"}
    assert [h.doc_id for h in plain] == ["alfa", "alfa"]
    build_index(document_sources(docs), tmp_path / "idx", IndexConfig())
    index = Index.open(tmp_path / "idx")
    opts = SearchOptions(k=2, delivery=Delivery(per_entity=True))
    res = search(index, "ingresos de Alfa Energía y Beta Banco", opts)
    assert {h.doc_id for h in res.hits} == {"alfa", "beta"}
    assert any(n.startswith("per-entity") for n in res.notes)


def test_search_says_why_fewer_than_k(tmp_path: Path) -> None:
    build_index(document_sources(_corpus()), tmp_path / "idx", IndexConfig())
    res = search(Index.open(tmp_path / "idx"), "banco", SearchOptions(k=3))
    assert len(res.hits) == 1 and any("1 of k=3" in n for n in res.notes)
