"""Index builds at scale: peak RSS against the corpus text, unchanged re-index, one-document
update, and opening the index + its first query, each in a fresh process.

A generated corpus (``finchunk.datasets``: 40 % annual reports, 50 % fund documents, 10 %
notes) is written as Markdown files with metadata sidecars, then indexed with the library's
``build_index`` (BM25 only) in a fresh interpreter. Printed: build wall time and peak RSS
(and RSS / corpus characters), the unchanged re-index and the one-document update (the
median of three, each a different file edited) timed inside the process (the call) and as a
whole process, and open + first query.

    python bench/index_scaling.py [--docs 10000] [--work /tmp/idx-bench]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from finchunk.retrieve.index.sources import RACY_NS

BUILD = """
import json, resource, sys, time
def peak_rss():  # VmHWM: ru_maxrss would count the parent's pages this process was forked with
    return int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) * 1024
t0 = time.perf_counter()
from finchunk.retrieve.index.build import IndexConfig, build_index, file_sources
t1 = time.perf_counter()
report = build_index(file_sources([sys.argv[1]]), sys.argv[2], IndexConfig())
t2 = time.perf_counter()
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"import_s": t1 - t0, "call_s": t2 - t1, "rss": peak_rss(),
                  "cpu_s": use.ru_utime + use.ru_stime, "summary": report.summary()}))
"""

OPEN = """
import json, sys, time
t0 = time.perf_counter()
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.query.search import SearchOptions, search
t1 = time.perf_counter()
index = Index.open(sys.argv[1])
hits = index.source.lexical().search(sys.argv[2], 10)
t2 = time.perf_counter()
res = search(index, sys.argv[2], SearchOptions(k=5))
t3 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "open_query_s": t2 - t1, "search_s": t3 - t2}))
"""


def write_corpus(n_docs: int, folder: Path) -> tuple[int, str]:
    """The generated corpus as files; returns its characters and a question."""
    sys.path.insert(0, str(Path(__file__).parent))
    from finchunk.datasets import generate
    from search_speed import large_config

    corpus = generate(large_config(n_docs))
    folder.mkdir(parents=True)
    chars = 0
    for d in corpus.documents:
        (folder / f"{d.id_doc}.md").write_text(d.texto, encoding="utf-8")
        meta = {"type": str(d.tipo), "issuer": d.emisor, "year": d.anio}
        (folder / f"{d.id_doc}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
        chars += len(d.texto)
    return chars, corpus.questions[len(corpus.questions) // 2].pregunta


def run(script: str, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--work", type=Path, help="keep files here (default: a temporary folder)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp())
    shutil.rmtree(work / "docs", ignore_errors=True)
    shutil.rmtree(work / "idx", ignore_errors=True)
    chars, question = write_corpus(args.docs, work / "docs")
    files = sorted((work / "docs").glob("*.md"))
    # Files modified within RACY_NS of a build are hashed again by the next one (git's
    # racy rule); a user's files are older than that, so the corpus is let settle first.
    time.sleep(RACY_NS / 1e9 + 0.5)
    print(f"{len(files):,} documents, {chars / 1e6:.1f} M characters")
    docs, idx = str(work / "docs"), str(work / "idx")
    first = run(BUILD, docs, idx)
    print(
        f"build: {first['call_s']:.1f} s, peak RSS {first['rss'] / 1e6:.0f} MB = "
        f"{first['rss'] / chars:.2f}× the corpus characters ({first['summary']})"
    )
    same = run(BUILD, docs, idx)
    print(
        f"unchanged re-index: call {same['call_s']:.3f} s, process "
        f"{same['call_s'] + same['import_s']:.3f} s, process CPU {same['cpu_s']:.3f} s "
        f"({same['summary']})"
    )
    updates = []
    for n in range(3):  # three edits of different files: a median, not one sample
        target = files[(n + 1) * len(files) // 4]
        target.write_text(target.read_text(encoding="utf-8") + "\n\nNota añadida.\n", "utf-8")
        time.sleep(RACY_NS / 1e9 + 0.5)  # (else its stat is not recorded, and it is hashed again)
        updates.append(run(BUILD, docs, idx))
    calls = sorted(u["call_s"] for u in updates)
    upd = sorted(updates, key=lambda u: u["call_s"])[1]
    print(
        f"one-document update (median of 3): call {upd['call_s']:.3f} s "
        f"({', '.join(f'{c:.3f}' for c in calls)}), process "
        f"{upd['call_s'] + upd['import_s']:.3f} s, process CPU {upd['cpu_s']:.3f} s "
        f"({upd['summary']})"
    )
    opened = run(OPEN, idx, question)
    print(
        f"open + first BM25 query: {opened['open_query_s'] * 1000:.0f} ms "
        f"(import {opened['import_s'] * 1000:.0f} ms); then search() with delivery "
        f"and citations: {opened['search_s'] * 1000:.0f} ms"
    )
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
