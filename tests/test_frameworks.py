"""finchunk inside LangChain and LlamaIndex, through the frameworks' own calls: retrievers
over a finchunk index (``invoke`` / ``retrieve``), a text splitter, a loader, a node parser
and a reader on finchunk's parsers and chunkers; flat metadata in a real vector store
(chromadb, in memory) and back to spans. Each framework's tests skip without its extra."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from finchunk.adapters import RECORD_KEYS, metadata_spans, record_metadata
from finchunk.adapters.pipeline import text_document
from finchunk.chunk import make_chunker
from finchunk.errors import InputError, MissingExtraError
from finchunk.parse import load
from finchunk.records import ChunkRecord, document_records
from finchunk.retrieve.index.build import build_index
from finchunk.retrieve.index.sources import file_sources
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.neural.dense import HashingEmbedder
from finchunk.retrieve.query.search import SearchOptions, search

ROOT = Path(__file__).resolve().parents[1]
LANGCHAIN = "the langchain extra is not installed: pip install 'finchunk[langchain]'"
LLAMA = "the llama-index extra is not installed: pip install 'finchunk[llama-index]'"
CHROMA = "chromadb is not installed (a dev extra): pip install chromadb"
SCALAR = (str, int, float, bool)

REPSOL = """# Repsol informe anual 2024

## Cifras clave

| Concepto | 2024 | 2023 |
|---|---|---|
| Ingresos¹ | 13.668,9 | 12.450,0 |

¹ Ingresos netos de impuestos especiales.

## Riesgos

El grupo está expuesto al precio del crudo y a la volatilidad de los tipos de cambio.

## Perspectivas

La compañía prevé mantener la inversión en renovables durante 2025.
"""

ACME = """# Acme Corp annual report 2023

## Revenue

Revenue increased 12% to $4.2 billion, driven by cloud subscriptions.

## Risks

Crude oil prices affect our logistics costs.
"""

FILES = {
    "repsol": (REPSOL, {"issuer": "Repsol", "year": 2024}),
    "acme": (ACME, {"issuer": "Acme Corp", "year": 2023}),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two Markdown reports with their sidecar metadata."""
    root = tmp_path_factory.mktemp("reports")
    for name, (text, meta) in FILES.items():
        (root / f"{name}.md").write_text(text, encoding="utf-8")
        (root / f"{name}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def index_dir(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("index") / "index"
    build_index(file_sources([corpus]), out)
    return out


@pytest.fixture(scope="module")
def index(index_dir: Path) -> Iterator[Index]:
    with Index.open(index_dir) as opened:
        yield opened


def assert_flat(metadata: dict[str, Any]) -> None:
    """What Chroma (and every vector store) takes: scalar values, no None."""
    bad = {k: v for k, v in metadata.items() if not isinstance(v, SCALAR)}
    assert not bad, bad


def expected_hits(index: Index, query: str, **options: Any) -> list[Any]:
    """The hits ``finchunk search`` gives (the code path the retrievers must run)."""
    return search(index, query, SearchOptions(**options)).hits


# --- flat metadata, framework-free ----------------------------------------------------------


def test_flat_metadata_is_scalar_with_the_same_keys_and_reads_back(corpus: Path) -> None:
    from finchunk.adapters import metadata_record

    docs = [load(corpus / f"{n}.md") for n in FILES]
    recs = [r for d in docs for r in document_records(d, make_chunker("structure").chunk(d))]
    flats = [record_metadata(r, flat=True) for r in recs]
    for rec, flat in zip(recs, flats, strict=True):
        assert_flat(flat)
        assert set(flat) >= set(RECORD_KEYS)
        assert json.loads(flat["spans"]) == [list(s) for s in rec.spans]
        assert json.loads(flat["section"]) == list(rec.section)
        assert flat["page"] == 0 and json.loads(flat["pages"]) == []
        assert metadata_spans(flat) == list(rec.spans) == metadata_spans(record_metadata(rec))
        assert metadata_record(rec.text, flat, "test") == rec
    assert len({tuple(sorted(f)) for f in flats}) == 1  # one schema for every chunk


def test_flat_metadata_that_is_not_json_says_so() -> None:
    from finchunk.adapters import metadata_record

    with pytest.raises(InputError, match="'spans' is neither a list nor a JSON list"):
        metadata_record("x", {"chunk_id": "a#1", "doc_id": "a", "spans": "0:5"}, "row 3")


def test_text_documents_keep_their_metadata_but_the_id_and_search_fields() -> None:
    meta = {"page": 3, "source": "x.pdf", "Doc_ID": "z", "score": 0.5, "start_index": 4}
    doc = text_document("# T\n\nbody", "d", meta)
    assert doc.text == "# T\n\nbody" and doc.metadata == {"page": 3, "source": "x.pdf"}


def test_document_fields_named_like_the_chunks_own_are_doc_prefixed_and_read_back() -> None:
    from finchunk.adapters import metadata_record

    rec = ChunkRecord("d#1", "d", ((0, 4),), "body", metadata={"pages": "3", "kind": "10-K"})
    for flat in (False, True):
        meta = record_metadata(rec, flat)
        assert meta["doc_pages"] == "3" and meta["doc_kind"] == "10-K" and meta["kind"] == "text"
        assert metadata_record("body", meta, "test") == rec
    bad = ChunkRecord("d#1", "d", ((0, 4),), "body", metadata={"doc_kind": "x"})
    with pytest.raises(InputError, match="field.s. doc_kind clash"):
        record_metadata(bad)


# --- LangChain ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lc() -> Any:
    pytest.importorskip("langchain_core", reason=LANGCHAIN)
    pytest.importorskip("langchain_text_splitters", reason=LANGCHAIN)
    import finchunk.adapters.langchain as module

    return module


def test_langchain_retriever_invoke_is_finchunk_search(lc: Any, index_dir: Path, index: Index):
    from langchain_core.documents import Document as LCDocument
    from langchain_core.retrievers import BaseRetriever

    retriever = lc.FinchunkRetriever(index=index_dir, k=3)
    assert isinstance(retriever, BaseRetriever)
    try:
        query = "precio del crudo"
        found = retriever.invoke(query)
        hits = expected_hits(index, query, k=3)
        assert found and all(isinstance(d, LCDocument) for d in found)
        assert [d.id for d in found] == [h.chunk_id for h in hits]
        for doc, hit in zip(found, hits, strict=True):
            assert_flat(doc.metadata)
            assert doc.page_content == hit.text
            assert doc.metadata["rank"] == hit.rank and doc.metadata["score"] == hit.score
            assert doc.metadata["title"] == hit.title
            text = index.document_text(hit.doc_id)
            cited = [text[s:e] for s, e in metadata_spans(doc.metadata)]
            assert cited == json.loads(doc.metadata["citations"]) == list(hit.citations)
            assert all(c in doc.page_content for c in cited)
        assert lc.from_documents(found) == [h.record for h in hits]
        assert retriever.search(query).retriever == search(index, query).retriever  # auto
    finally:
        retriever.close()


def test_langchain_retriever_filters_budget_and_an_opened_index(lc: Any, index: Index) -> None:
    query = "crude oil prices"
    ours = lc.FinchunkRetriever(index=index, k=5, filters={"issuer": "Acme Corp"})
    found = ours.invoke(query)
    assert found and {d.metadata["doc_id"] for d in found} == {"acme"}
    assert {d.metadata["issuer"] for d in found} == {"Acme Corp"}
    listed = lc.FinchunkRetriever(index=index, k=5, filters=["year=2024"], retriever="bm25")
    assert {d.metadata["doc_id"] for d in listed.invoke(query)} == {"repsol"}
    budget = 200
    small = lc.FinchunkRetriever(index=index, k=5, budget=budget).invoke(query)
    assert small and sum(len(d.page_content) for d in small) <= budget
    nested = lc.FinchunkRetriever(index=index, k=2, flat=False).invoke(query)
    assert isinstance(nested[0].metadata["spans"], list)
    assert isinstance(nested[0].metadata["citations"], list)
    assert index.size > 0  # the index the caller opened stays open


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"k": 0}, "k must be a whole number of at least 1"),
        ({"retriever": "bm26"}, "bm26"),
        ({"filters": ["issuer"]}, "expected FIELD=VALUE"),
        ({"budget": 0}, "budget must be a positive number"),
        ({"distinct": "chapter"}, "distinct 'chapter': choose from none, page, document"),
    ],
)
def test_langchain_retriever_bad_options_are_one_line_errors(
    lc: Any, index: Index, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        lc.FinchunkRetriever(index=index, **options)


def test_langchain_retriever_without_an_index_names_the_path(lc: Any, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such index directory"):
        lc.FinchunkRetriever(index=tmp_path / "nowhere")
    with pytest.raises(InputError, match="expected an index directory or an opened Index"):
        lc.FinchunkRetriever(index=42)


def test_an_object_holding_an_index_as_store_is_searched(lc: Any, index: Index) -> None:
    from types import SimpleNamespace

    wrapper = SimpleNamespace(store=index)  # as the top-level finchunk.Index holds one
    found = lc.FinchunkRetriever(index=wrapper, k=2).invoke("revenue")
    assert [d.id for d in found] == [h.chunk_id for h in expected_hits(index, "revenue", k=2)]


@pytest.mark.parametrize("header", [True, False])
def test_langchain_splitter_spans_index_the_page_content(lc: Any, header: bool) -> None:
    from langchain_core.documents import Document as LCDocument
    from langchain_text_splitters import TextSplitter

    splitter = lc.FinchunkSplitter(header=header, add_start_index=True)
    assert isinstance(splitter, TextSplitter)
    meta = {"source": "reports/repsol.md", "page": 7, "emisor": "Repsol"}
    source = LCDocument(page_content=REPSOL, metadata=meta)
    chunks = splitter.split_documents([source])
    assert len(chunks) > 1
    for c in chunks:
        assert_flat(c.metadata)
        spans = metadata_spans(c.metadata)
        body = "\n\n".join(REPSOL[s:e] for s, e in spans)
        assert c.page_content == (f"{c.metadata['header']}\n{body}" if header else body)
        assert c.metadata["doc_id"] == "reports/repsol.md" == c.metadata["source"]
        assert c.metadata["issuer"] == "Repsol" and c.metadata["page"] == 0  # the chunk's own
        assert c.metadata["doc_page"] == "7"  # the input's
        assert c.metadata["start_index"] == spans[0][0]
    assert any(len(metadata_spans(c.metadata)) > 1 for c in chunks)  # a table and its note
    # the same chunks as finchunk's chunker on the same text, and back to records
    doc = text_document(REPSOL, "reports/repsol.md", meta)
    expected = document_records(doc, make_chunker("structure", header=header).chunk(doc))
    assert lc.from_documents(chunks) == expected
    plain = splitter.create_documents([REPSOL])
    assert splitter.split_text(REPSOL) == [c.page_content for c in plain]
    assert splitter.create_documents([REPSOL], [meta]) == chunks
    # transform_documents is how LangChain pipelines call a splitter
    assert list(splitter.transform_documents([source])) == chunks


def test_langchain_splitter_ids_are_deterministic_and_the_strategy_is_chosen(lc: Any) -> None:
    from langchain_core.documents import Document as LCDocument

    texts = [LCDocument(page_content=ACME), LCDocument(page_content=ACME)]
    a, b = (lc.FinchunkSplitter().split_documents([t]) for t in texts)
    assert [d.id for d in a] == [d.id for d in b] and a[0].metadata["doc_id"].startswith("text-")
    fixed = lc.FinchunkSplitter("fixed", size=40, overlap=0, header=False)
    pieces = fixed.split_documents([LCDocument(page_content=ACME, id="acme")])
    assert all(len(p.page_content) <= 40 for p in pieces) and len(pieces) > 3
    assert all(p.metadata["doc_id"] == "acme" for p in pieces)
    assert lc.FinchunkSplitter().split_documents([LCDocument(page_content="  \n")]) == []
    with pytest.raises(InputError, match="unknown strategy 'semantic'"):
        lc.FinchunkSplitter("semantic")


def test_langchain_loader_is_finchunk_chunk(lc: Any, corpus: Path) -> None:
    from langchain_core.document_loaders import BaseLoader

    loader = lc.FinchunkLoader(corpus)
    assert isinstance(loader, BaseLoader)
    docs = loader.load()
    chunker = make_chunker("structure")
    loaded = [s.loader() for s in file_sources([corpus])]
    expected = [r for d in loaded for r in document_records(d, chunker.chunk(d))]
    assert lc.from_documents(docs) == expected
    for d in docs:
        assert_flat(d.metadata)
        text = FILES[d.metadata["doc_id"]][0]
        assert all(text[s:e] in d.page_content for s, e in metadata_spans(d.metadata))
    assert {d.metadata["year"] for d in docs} == {"2023", "2024"}  # the sidecar metadata
    bad = corpus.parent / "bad"
    bad.mkdir(exist_ok=True)
    (bad / "x.pptx").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="no supported documents found"):
        lc.FinchunkLoader(bad).load()


def test_pdf_chunks_carry_their_pages_flat(lc: Any, tmp_path: Path) -> None:
    pytest.importorskip("pypdfium2", reason="the pdf extra: pip install 'finchunk[pdf]'")
    pytest.importorskip("fpdf", reason="fpdf2 (a dev extra) writes the test PDF")
    from .pdf_fixtures import write_report

    pdf = write_report(tmp_path / "acme.pdf")
    doc = load(pdf)
    docs = lc.FinchunkLoader(pdf).load()
    assert {d.metadata["page"] for d in docs} == {1, 2, 3}
    for d in docs:
        assert_flat(d.metadata)
        assert d.metadata["doc_pages"] == "3"  # the PDF's page count (document metadata)
        pages = json.loads(d.metadata["pages"])
        assert pages[0] == d.metadata["page"] and all(isinstance(p, int) for p in pages)
        assert all(doc.text[s:e] in d.page_content for s, e in metadata_spans(d.metadata))
        assert {doc.page_at(s) for s, _ in metadata_spans(d.metadata)} <= set(pages)
    assert [r.pages for r in lc.from_documents(docs)] == [
        c.pages for c in make_chunker("structure").chunk(doc)
    ]


# --- LlamaIndex -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def li() -> Any:
    pytest.importorskip("llama_index.core", reason=LLAMA)
    import finchunk.adapters.llama_index as module

    return module


def test_llama_retriever_retrieve_is_finchunk_search(li: Any, index_dir: Path, index: Index):
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore

    retriever = li.FinchunkRetriever(index_dir, k=3, filters={"year": ["2023", "2024"]})
    assert isinstance(retriever, BaseRetriever)
    try:
        query = "cloud subscriptions revenue"
        found = retriever.retrieve(query)
        hits = expected_hits(index, query, k=3, filters=retriever.options.filters)
        assert found and all(isinstance(n, NodeWithScore) for n in found)
        assert [n.node.node_id for n in found] == [h.chunk_id for h in hits]
        assert [n.score for n in found] == [h.score for h in hits]
        for n, hit in zip(found, hits, strict=True):
            assert_flat(n.node.metadata)
            assert n.node.ref_doc_id == hit.doc_id and n.node.text == hit.text
            text = index.document_text(hit.doc_id)
            spans = metadata_spans(n.node.metadata)
            assert [text[s:e] for s, e in spans] == list(hit.citations)
            assert n.node.start_char_idx == spans[0][0]
        assert li.from_nodes(found) == [h.record for h in hits]
    finally:
        retriever.close()


def test_llama_retriever_delivers_as_search_does(li: Any, index: Index) -> None:
    found = li.FinchunkRetriever(index, k=2, distinct="document").retrieve("revenue crude oil")
    assert len({n.node.metadata["doc_id"] for n in found}) == len(found) == 2
    small = li.FinchunkRetriever(index, k=5, budget=200, retriever="bm25").retrieve("crude oil")
    assert small and sum(len(n.node.text) for n in small) <= 200


@pytest.mark.parametrize("header", [True, False])
def test_llama_node_parser_offsets_index_the_document(li: Any, header: bool) -> None:
    from llama_index.core import Document as LIDocument
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.schema import MetadataMode

    parser = li.FinchunkNodeParser(header=header)
    assert isinstance(parser, NodeParser)
    source = LIDocument(id_="repsol", text=REPSOL, metadata={"emisor": "Repsol", "tags": "a"})
    nodes = parser.get_nodes_from_documents([source])
    assert nodes == IngestionPipeline(transformations=[parser]).run(documents=[source])
    assert len(nodes) > 1
    for node in nodes:
        assert_flat(node.metadata)
        assert node.ref_doc_id == "repsol" and node.metadata["issuer"] == "Repsol"
        spans = metadata_spans(node.metadata)
        body = "\n\n".join(REPSOL[s:e] for s, e in spans)
        assert node.text == (f"{node.metadata['header']}\n{body}" if header else body)
        assert (node.start_char_idx, node.end_char_idx) == (spans[0][0], spans[-1][1])
        assert node.get_content(MetadataMode.EMBED) == node.text
    doc = text_document(REPSOL, "repsol", source.metadata)
    expected = document_records(doc, make_chunker("structure", header=header).chunk(doc))
    assert li.from_nodes(nodes) == expected
    assert nodes[0].next_node.node_id == nodes[1].node_id


def test_llama_reader_documents_nodes_and_directory_reader(li: Any, corpus: Path) -> None:
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.readers.base import BaseReader

    reader = li.FinchunkReader()
    assert isinstance(reader, BaseReader)
    docs = reader.load_data(corpus)
    assert sorted(d.id_ for d in docs) == ["acme", "repsol"]
    for d in docs:
        assert d.text == FILES[d.id_][0] and d.metadata["issuer"] == FILES[d.id_][1]["issuer"]
        assert_flat(d.metadata)
    nodes = reader.load_nodes(corpus)
    chunker = make_chunker("structure")
    loaded = [s.loader() for s in file_sources([corpus])]
    expected = [r for d in loaded for r in document_records(d, chunker.chunk(d))]
    assert li.from_nodes(nodes) == expected
    # Markdown: the node parser on the reader's documents makes the same chunks
    parsed = li.FinchunkNodeParser().get_nodes_from_documents(docs)
    assert sorted(n.node_id for n in parsed) == sorted(n.node_id for n in nodes)
    # as SimpleDirectoryReader's file extractor: its file metadata joins the document's
    read = SimpleDirectoryReader(
        input_files=[corpus / "acme.md"], file_extractor={".md": reader}
    ).load_data()
    assert [d.id_ for d in read] == ["acme"] and read[0].metadata["file_name"] == "acme.md"


# --- a real vector store: chromadb, in memory -----------------------------------------------


@pytest.fixture(scope="module")
def chroma() -> Any:
    chromadb = pytest.importorskip("chromadb", reason=CHROMA)
    from chromadb.config import Settings

    # no telemetry; an in-memory store
    return chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))


def _hashing_function() -> Any:
    """finchunk's deterministic hashing embedder as a Chroma embedding function (no model,
    no download)."""
    from chromadb.api.types import EmbeddingFunction

    class Hashing(EmbeddingFunction):  # type: ignore[type-arg]
        def __init__(self) -> None:
            self.embedder = HashingEmbedder(dim=128)

        def __call__(self, input: list[str]) -> list[np.ndarray]:  # noqa: A002 (Chroma's name)
            return list(self.embedder.embed_passages(list(input)))

        @staticmethod
        def name() -> str:
            return "finchunk-hashing-test"

        def get_config(self) -> dict[str, Any]:
            return {"dim": 128}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> Hashing:
            return Hashing()

    return Hashing()


def test_chroma_stores_splitter_output_and_gives_back_spans(lc: Any, chroma: Any) -> None:
    from langchain_core.documents import Document as LCDocument

    collection = chroma.create_collection("splitter", embedding_function=_hashing_function())
    sources = {n: LCDocument(page_content=t, id=n, metadata=m) for n, (t, m) in FILES.items()}
    chunks = lc.FinchunkSplitter().split_documents(sources.values())
    collection.add(
        ids=[c.id for c in chunks],
        documents=[c.page_content for c in chunks],
        metadatas=[c.metadata for c in chunks],
    )
    assert collection.count() == len(chunks)
    got = collection.query(query_texts=["precio del crudo volatilidad"], n_results=3)
    ids, texts, metas = got["ids"][0], got["documents"][0], got["metadatas"][0]
    assert ids[0] == next(c.id for c in chunks if "crudo" in c.page_content)
    rows = zip(ids, texts, metas, strict=True)
    back = [LCDocument(page_content=t, metadata=m, id=i) for i, t, m in rows]
    by_id = {c.id: c for c in chunks}
    assert lc.from_documents(back) == lc.from_documents([by_id[i] for i in ids])
    for doc in back:  # the spans index the source text: citations from the store's rows
        text = sources[doc.metadata["doc_id"]].page_content
        assert all(text[s:e] in doc.page_content for s, e in metadata_spans(doc.metadata))
    # the flat fields filter in the store: scalars only
    acme = collection.get(where={"$and": [{"doc_id": "acme"}, {"kind": "text"}]})
    assert acme["ids"] and all(m["issuer"] == "Acme Corp" for m in acme["metadatas"])
    # what the flattening avoids: nested spans and a None page are refused
    nested = record_metadata(lc.from_documents(chunks[:1])[0])
    with pytest.raises((ValueError, TypeError)):
        collection.add(ids=["nested"], documents=["x"], metadatas=[nested])


def test_chroma_holds_llama_nodes_and_finchunk_search_hits(li: Any, chroma: Any, index) -> None:
    collection = chroma.create_collection("nodes", embedding_function=_hashing_function())
    nodes = li.FinchunkRetriever(index, k=index.size).retrieve("revenue crude")
    collection.add(
        ids=[n.node.node_id for n in nodes],
        documents=[n.node.text for n in nodes],
        metadatas=[n.node.metadata for n in nodes],
    )
    row = collection.get(ids=[nodes[0].node.node_id])
    record = li.from_nodes(nodes[:1])[0]
    meta = row["metadatas"][0]
    assert meta["score"] == pytest.approx(nodes[0].score)
    assert metadata_spans(meta) == list(record.spans)
    text = index.document_text(record.doc_id)
    assert [text[s:e] for s, e in record.spans] == json.loads(meta["citations"])


# --- without the extras ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "name", "extra", "blocked"),
    [
        ("finchunk.adapters.langchain", "FinchunkRetriever", "langchain", "langchain_core"),
        (
            "finchunk.adapters.langchain",
            "FinchunkSplitter",
            "langchain",
            "langchain_text_splitters",
        ),
        ("finchunk.adapters.langchain", "FinchunkLoader", "langchain", "langchain_core"),
        ("finchunk.adapters.llama_index", "FinchunkRetriever", "llama-index", "llama_index"),
        ("finchunk.adapters.llama_index", "FinchunkNodeParser", "llama-index", "llama_index"),
        ("finchunk.adapters.llama_index", "FinchunkReader", "llama-index", "llama_index"),
    ],
)
def test_a_missing_framework_class_is_the_one_line_install_message(
    monkeypatch: pytest.MonkeyPatch, module: str, name: str, extra: str, blocked: str
) -> None:
    import importlib

    for loaded in [m for m in sys.modules if m.split(".")[0] == blocked]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, blocked, None)
    mod = importlib.import_module(module)
    monkeypatch.delitem(mod.__dict__, name, raising=False)  # made before: make it again
    with pytest.raises(MissingExtraError) as err:
        getattr(mod, name)
    assert str(err.value).endswith(f"pip install 'finchunk[{extra}]'")
    assert "\n" not in str(err.value)
    with pytest.raises(AttributeError):
        mod.NoSuchThing  # noqa: B018


def test_the_frameworks_doc_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/frameworks.md's python blocks, in order, from a scratch copy of the repo root."""
    pytest.importorskip("langchain_core", reason=LANGCHAIN)
    pytest.importorskip("langchain_text_splitters", reason=LANGCHAIN)
    pytest.importorskip("llama_index.core", reason=LLAMA)
    pytest.importorskip("chromadb", reason=CHROMA)
    text = (ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "data").symlink_to(ROOT / "tests" / "data")
    monkeypatch.chdir(tmp_path)
    for n, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/frameworks.md block {n}", "exec"), {"__name__": "__main__"})
