"""BM25 at scale: finchunk next to tantivy and bm25s on the same tokens, in one process.

The corpus is a generated one (``finchunk.datasets``, about 19 chunks per document, structure
chunking), its questions the queries. Every engine gets finchunk's default text pipeline's
tokens: tantivy indexes them whitespace-joined (whitespace tokenizer, frequencies only, and
once more with positions, its default, for the file sizes); bm25s gets the token lists.
Queries go round-robin (one query to each engine in turn), so machine noise hits all alike;
each engine's time includes tokenising the query. ``finchunk`` decodes every query's terms
(cache off); ``finchunk+cache`` is the default, whose decoded-term cache the queries of one
corpus share (templated questions repeat terms: it flatters, and is reported apart).
Printed: p50/p99 per engine and ratios, index file sizes, and opening an index + its first
query (fresh process).

    python bench/bm25_speed.py [--docs 28000] [--cache /tmp/chunks.parquet] [--queries 500]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from finchunk.retrieve.lexical.bm25 import BM25Index, BM25Params

OPEN_SCRIPT = """
import sys, time
t0 = time.perf_counter()
from finchunk.retrieve.lexical.bm25 import BM25Index
t1 = time.perf_counter()
index = BM25Index.load(sys.argv[1])
t2 = time.perf_counter()
index.search(sys.argv[2], 10)
t3 = time.perf_counter()
print(f"{t1 - t0:.4f} {t2 - t1:.4f} {t3 - t2:.4f}")
"""


def corpus(n_docs: int, cache: Path | None) -> tuple[list[str], list[str]]:
    """Chunk texts and questions of a generated corpus of about ``n_docs`` documents."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if cache and cache.is_file():
        texts = pq.read_table(cache).column("text").to_pylist()
        return texts, pq.read_table(f"{cache}.q.parquet").column("q").to_pylist()
    sys.path.insert(0, str(Path(__file__).parent))
    from finchunk.chunk import Strategy, make_chunker
    from search_speed import large_config, large_documents

    docs, questions = large_documents(large_config(n_docs))
    chunker = make_chunker(Strategy.STRUCTURE)
    texts = [c.text for d in docs for c in chunker.chunk(d)]
    if cache:
        pq.write_table(pa.table({"text": texts}), cache)
        pq.write_table(pa.table({"q": questions}), f"{cache}.q.parquet")
    return texts, questions


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def tantivy_index(tokens: list[list[str]], path: Path, option: str):
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("body", stored=False, tokenizer_name="whitespace", index_option=option)
    schema = sb.build()
    path.mkdir(parents=True)
    index = tantivy.Index(schema, path=str(path))
    writer = index.writer(heap_size=500_000_000, num_threads=1)
    for toks in tokens:
        writer.add_document(tantivy.Document(body=" ".join(toks)))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index, schema


def engines(texts: list[str], tokens: list[list[str]], params: BM25Params, tmp: Path):
    """name → (search function, build seconds, index directory or None)."""
    out = {}
    t0 = time.perf_counter()
    ours = BM25Index(texts, params)
    build = time.perf_counter() - t0
    ours.save(tmp / "finchunk")
    cold = BM25Index.load(tmp / "finchunk")  # memory-mapped, as an index is searched
    cold.cache_bytes = 0  # every query decodes its terms
    out["finchunk"] = (lambda q: cold.search(q, 10), build, tmp / "finchunk")
    warm = BM25Index.load(tmp / "finchunk")  # default: decoded terms cached (128 MB)
    out["finchunk+cache"] = (lambda q: warm.search(q, 10), build, None)
    try:
        import tantivy

        t0 = time.perf_counter()
        index, schema = tantivy_index(tokens, tmp / "tantivy", "freq")
        build = time.perf_counter() - t0
        searcher = index.searcher()
        should = tantivy.Occur.Should

        def search_tantivy(q: str):
            terms = params.text.tokens(q)
            query = tantivy.Query.boolean_query(
                [(should, tantivy.Query.term_query(schema, "body", t)) for t in terms]
            )
            return searcher.search(query, 10).hits

        out["tantivy"] = (search_tantivy, build, tmp / "tantivy")
        tantivy_index(tokens, tmp / "tantivy-positions", "position")
    except ImportError:
        print("tantivy not installed: skipped", file=sys.stderr)
    try:
        import bm25s

        t0 = time.perf_counter()
        model = bm25s.BM25(k1=params.k1, b=params.b)
        model.index(tokens, show_progress=False)
        build = time.perf_counter() - t0
        vocab = model.vocab_dict

        def search_bm25s(q: str):
            terms = [t for t in params.text.tokens(q) if t in vocab]
            if terms:
                s = model.get_scores(terms)
                return np.argpartition(-s, 10)[:10]
            return None

        out["bm25s"] = (search_bm25s, build, None)
    except ImportError:
        print("bm25s not installed: skipped", file=sys.stderr)
    return out


def round_robin(funcs: dict, queries: list[str]) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in funcs}
    for q in queries:
        for name, (fn, _, _) in funcs.items():
            t0 = time.perf_counter()
            fn(q)
            times[name].append((time.perf_counter() - t0) * 1000)
    return times


def open_first_query(path: Path, query: str, runs: int = 5) -> tuple[float, float, float]:
    """Medians over fresh processes: import, load, first query (seconds)."""
    rows = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", OPEN_SCRIPT, str(path), query],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append([float(x) for x in out.stdout.split()])
    cols = list(zip(*rows, strict=True))
    return statistics.median(cols[0]), statistics.median(cols[1]), statistics.median(cols[2])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=28_000, help="generated documents")
    ap.add_argument("--cache", type=Path, help="parquet of the chunk texts (written once)")
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--json", type=Path, help="write the figures here too")
    args = ap.parse_args()
    t0 = time.perf_counter()
    texts, questions = corpus(args.docs, args.cache)
    step = max(1, len(questions) // args.queries)
    queries = questions[::step][: args.queries]
    params = BM25Params()
    tokens = [params.text.tokens(t) for t in texts]
    n_post = sum(len(set(t)) for t in tokens)
    print(
        f"{len(texts):,} chunks, {n_post:,} postings, {len(queries)} queries "
        f"(corpus ready in {time.perf_counter() - t0:.0f} s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        funcs = engines(texts, tokens, params, Path(tmp))
        del tokens
        round_robin(funcs, queries[:20])  # warm-up
        times = round_robin(funcs, queries)
        p50 = {n: statistics.median(t) for n, t in times.items()}
        print(f"{'engine':<15} {'build s':>8} {'p50 ms':>8} {'p99 ms':>8} {'p50/finchunk':>13}")
        for name, ts in times.items():
            p99 = float(np.percentile(ts, 99))
            ratio = p50[name] / p50["finchunk"]
            print(f"{name:<15} {funcs[name][1]:8.1f} {p50[name]:8.2f} {p99:8.2f} {ratio:13.2f}")
        sizes = {n: dir_bytes(f[2]) for n, f in funcs.items() if f[2] is not None}
        if (Path(tmp) / "tantivy-positions").is_dir():
            sizes["tantivy+positions"] = dir_bytes(Path(tmp) / "tantivy-positions")
        for name, size in sizes.items():
            ratio = sizes["finchunk"] / size
            print(f"files {name:<18} {size / 1e6:8.1f} MB   finchunk/this {ratio:5.2f}")
        opened = open_first_query(Path(tmp) / "finchunk", queries[0])
        print(
            f"fresh process ({len(texts):,} chunks): import {opened[0] * 1000:.0f} ms, "
            f"open {opened[1] * 1000:.1f} ms, first query {opened[2] * 1000:.1f} ms, "
            f"open + first query {(opened[1] + opened[2]) * 1000:.1f} ms"
        )
    if args.json:
        figures = {"p50_ms": p50, "bytes": sizes, "open_first_query_s": opened[1] + opened[2]}
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
