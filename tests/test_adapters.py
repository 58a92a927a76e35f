"""Chunks as LangChain documents and LlamaIndex nodes, with the real packages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from finchunk.chunk import Strategy, make_chunker
from finchunk.errors import InputError, MissingExtraError
from finchunk.model import ChunkKind, Document
from finchunk.parse.markdown import parse_markdown
from finchunk.records import ChunkRecord, document_records, read_chunks, write_chunks

ROOT = Path(__file__).resolve().parents[1]
LANGCHAIN = "the langchain extra is not installed: pip install 'finchunk[langchain]'"
LLAMA = "the llama-index extra is not installed: pip install 'finchunk[llama-index]'"

REPORT = """# Repsol informe anual 2024

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

OTHER = """# Acme Corp annual report 2023

## Revenue

Revenue increased 12% to $4.2 billion, driven by cloud subscriptions.
"""


def corpus(header: bool = True) -> tuple[dict[str, Document], list[ChunkRecord]]:
    docs = {
        "repsol": parse_markdown(REPORT, "repsol", metadata={"emisor": "Repsol", "anio": 2024}),
        "acme": parse_markdown(OTHER, "acme"),
    }
    chunker = make_chunker(Strategy.STRUCTURE, header=header)
    recs = [r for d in docs.values() for r in document_records(d, chunker.chunk(d))]
    return docs, recs


def test_the_corpus_has_single_and_multi_span_chunks() -> None:
    _, recs = corpus()
    assert any(len(r.spans) == 1 for r in recs)
    assert any(len(r.spans) > 1 for r in recs)  # the table and its footnote
    assert {r.kind for r in recs} >= {ChunkKind.TABLE, ChunkKind.TEXT}


# --- LangChain ------------------------------------------------------------------------------


@pytest.mark.parametrize("header", [True, False])
def test_langchain_documents_carry_the_indexed_text_and_every_field(header: bool) -> None:
    pytest.importorskip("langchain_core", reason=LANGCHAIN)
    from langchain_core.documents import Document as LCDocument

    from finchunk.adapters.langchain import from_documents, to_document, to_documents

    docs, recs = corpus(header)
    out = to_documents(recs)
    assert all(isinstance(d, LCDocument) for d in out)
    for rec, lc in zip(recs, out, strict=True):
        assert lc.page_content == rec.text and lc.id == rec.id
        body = "\n\n".join(docs[rec.doc_id].text[s:e] for s, e in lc.metadata["spans"])
        assert lc.page_content == (f"{rec.header}\n{body}" if header else body)
        assert lc.metadata["chunk_id"] == rec.id and lc.metadata["doc_id"] == rec.doc_id
        assert lc.metadata["section"] == list(rec.section)
        assert lc.metadata["kind"] == rec.kind.value and lc.metadata["header"] == rec.header
        assert lc.metadata["pages"] == [] and lc.metadata["page"] is None
    assert out[0].metadata["issuer"] == "Repsol" and out[0].metadata["year"] == "2024"
    assert to_document(recs[0]) == out[0]
    assert from_documents(out) == recs


def test_langchain_documents_round_trip_through_a_vector_store() -> None:
    pytest.importorskip("langchain_core", reason=LANGCHAIN)
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore

    from finchunk.adapters.langchain import from_documents, to_documents

    _, recs = corpus()
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    ids = store.add_documents(to_documents(recs))
    assert ids == [r.id for r in recs]
    found = store.similarity_search(
        "crudo", k=len(recs), filter=lambda d: d.metadata.get("year") == "2024"
    )
    by_id = {r.id: r for r in recs}
    assert found and {d.metadata["doc_id"] for d in found} == {"repsol"}
    assert [by_id[d.id] for d in found] == from_documents(found)


def test_langchain_from_a_foreign_document_says_what_is_missing() -> None:
    pytest.importorskip("langchain_core", reason=LANGCHAIN)
    from langchain_core.documents import Document as LCDocument

    from finchunk.adapters.langchain import from_document

    with pytest.raises(InputError, match="not a finchunk chunk .no chunk_id, doc_id, spans"):
        from_document(LCDocument(page_content="x", metadata={"source": "a.txt"}))


def test_document_metadata_named_like_a_chunk_field_is_kept_beside_it() -> None:
    pytest.importorskip("langchain_core", reason=LANGCHAIN)
    from finchunk.adapters.langchain import from_documents, to_documents

    _, recs = corpus()
    shadow = ChunkRecord(recs[0].id, "repsol", recs[0].spans, recs[0].text, metadata={"kind": "x"})
    (doc,) = to_documents([shadow])
    assert doc.metadata["kind"] == "text" and doc.metadata["doc_kind"] == "x"
    assert from_documents([doc]) == [shadow]
    bad = ChunkRecord(recs[0].id, "repsol", recs[0].spans, recs[0].text, metadata={"doc_kind": "x"})
    with pytest.raises(InputError, match="field.s. doc_kind clash"):
        to_documents([bad])


# --- LlamaIndex -----------------------------------------------------------------------------


@pytest.mark.parametrize("header", [True, False])
def test_llama_nodes_offsets_text_and_metadata(header: bool) -> None:
    pytest.importorskip("llama_index.core", reason=LLAMA)
    from llama_index.core.schema import MetadataMode, TextNode

    from finchunk.adapters.llama_index import from_nodes, to_node, to_nodes

    docs, recs = corpus(header)
    nodes = to_nodes(recs)
    assert all(isinstance(n, TextNode) for n in nodes)
    for rec, node in zip(recs, nodes, strict=True):
        doc = docs[rec.doc_id]
        assert node.id_ == rec.id and node.text == rec.text
        assert node.metadata["spans"] == [list(s) for s in rec.spans]
        source = doc.text[node.start_char_idx : node.end_char_idx]
        if len(rec.spans) == 1:
            assert node.text == (f"{rec.header}\n{source}" if header else source)
        else:
            assert node.start_char_idx == min(s for s, _ in rec.spans)
            assert node.end_char_idx == max(e for _, e in rec.spans)
            assert all(doc.text[s:e] in node.text for s, e in rec.spans)
        # What LlamaIndex embeds and shows the LLM is the text finchunk indexed.
        assert node.get_content(MetadataMode.EMBED) == rec.text
        assert node.get_content(MetadataMode.LLM) == rec.text
    assert nodes[0].metadata["issuer"] == "Repsol"
    assert to_node(recs[0]).metadata == nodes[0].metadata
    assert from_nodes(nodes) == recs


def test_llama_nodes_link_to_their_document_and_neighbours() -> None:
    pytest.importorskip("llama_index.core", reason=LLAMA)
    from llama_index.core.schema import NodeRelationship, ObjectType

    from finchunk.adapters.llama_index import to_nodes, to_source_document

    docs, recs = corpus()
    nodes = to_nodes(recs)
    for doc_id in docs:
        mine = [n for n in nodes if n.metadata["doc_id"] == doc_id]
        assert len(mine) == (1 if doc_id == "acme" else 3)  # acme's follows repsol's: no link
        for n in mine:
            assert n.ref_doc_id == doc_id
            assert n.source_node.node_type == ObjectType.DOCUMENT
        assert mine[0].prev_node is None and mine[-1].next_node is None
        for a, b in zip(mine, mine[1:], strict=False):
            assert a.next_node.node_id == b.node_id and b.prev_node.node_id == a.node_id
        assert NodeRelationship.PREVIOUS not in mine[0].relationships
    source = to_source_document(docs["repsol"])
    assert source.id_ == "repsol" and source.text == REPORT
    assert source.metadata == {"issuer": "Repsol", "year": "2024"}
    single = next(n for n in nodes if len(n.metadata["spans"]) == 1)
    assert source.text[single.start_char_idx : single.end_char_idx] in single.text


def test_llama_nodes_round_trip_through_a_vector_index() -> None:
    pytest.importorskip("llama_index.core", reason=LLAMA)
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding

    from finchunk.adapters.llama_index import from_nodes, to_nodes

    _, recs = corpus()
    index = VectorStoreIndex(to_nodes(recs), embed_model=MockEmbedding(embed_dim=8))
    hits = index.as_retriever(similarity_top_k=len(recs)).retrieve("crudo")
    by_id = {r.id: r for r in recs}
    assert sorted(h.node.node_id for h in hits) == sorted(by_id)
    assert from_nodes(hits) == [by_id[h.node.node_id] for h in hits]


def test_nodes_from_a_chunks_file(tmp_path: Path) -> None:
    pytest.importorskip("llama_index.core", reason=LLAMA)
    from finchunk.adapters.llama_index import from_nodes, to_nodes

    _, recs = corpus()
    write_chunks(tmp_path / "chunks.parquet", recs)
    assert from_nodes(to_nodes(read_chunks(tmp_path / "chunks.parquet"))) == recs


# --- without the extras ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("module", "call", "extra", "blocked"),
    [
        ("finchunk.adapters.langchain", "to_documents", "langchain", "langchain_core"),
        ("finchunk.adapters.llama_index", "to_nodes", "llama-index", "llama_index"),
    ],
)
def test_a_missing_framework_is_the_one_line_install_message(
    monkeypatch: pytest.MonkeyPatch, module: str, call: str, extra: str, blocked: str
) -> None:
    import importlib

    for name in [m for m in sys.modules if m.split(".")[0] == blocked]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, blocked, None)  # makes `import blocked...` fail
    fn = getattr(importlib.import_module(module), call)
    _, recs = corpus()
    with pytest.raises(MissingExtraError) as err:
        fn(recs)
    assert str(err.value).endswith(f"pip install 'finchunk[{extra}]'")
    assert "\n" not in str(err.value)


def test_importing_finchunk_and_its_cli_imports_no_framework() -> None:
    code = (
        "import sys, finchunk, finchunk.cli, finchunk.adapters.langchain, "
        "finchunk.adapters.llama_index\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & "
        "{'langchain_core', 'llama_index'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stdout
