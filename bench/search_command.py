"""``finchunk search`` as a command, default (``auto``) against ``--retriever bm25``: p50 wall
time of a cold process per question, on an index of the 10 smallest FinanceBench PDFs.

The index is built once into ``--cache`` (``finchunk index``, as the README installs it: with
the splade extra it stores SPLADE impacts, so ``auto``'s rerank of BM25's top 100 encodes
only the question). Then for each of ``--questions`` FinanceBench questions about those
PDFs, ``--rounds`` times, both commands run as fresh processes, interleaved (the order
alternates, so a busy spell costs both alike). Prints each p50, the ratio (target: at most
1.3), and how often ``auto``'s top ``-k`` over the stored impacts equals the exact rerank's
(SPLADE weights unquantised, encoded at question time: the rerank as it was before impacts
were stored), with the recall figures measured for this change (``RECORDED``)::

    PYTHONPATH=src python bench/search_command.py --data ../shared/data/financebench \\
        [--cache ~/.cache/finchunk-bench] [--questions 8] [--rounds 3] [--baseline DIR]

``--baseline DIR`` (a ``src`` folder of another version, e.g. ``git archive HEAD~3 src | tar
-x -C /tmp/base``) runs that version's two commands too, interleaved with these four to a
question, on the same index: before and after in one run. The commands run as an installed
package does, from compiled bytecode (kept under ``--cache``, even where
``PYTHONDONTWRITEBYTECODE`` is set): compiling finchunk's sources in every process would add
the same ~0.3 s to both commands and flatter the ratio.

Needs ``pip install 'finchunk[splade]'`` for ``auto`` to rerank at all.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

PDFS = 10
#: What quantising did to ``auto``'s ranking, measured for this change with
#: ``bench/splade_impacts.py`` (the rerank from the same encoding, exact weights against
#: the stored impacts'): the recall of ``auto`` is today's wherever its top k is.
RECORDED = (
    "EDGAR dev, first 24 questions, each over its filing: top 5 and top 10 equal to the exact "
    "rerank's for 24/24 (sets and order; uint8 impacts: 1/24 top-5 set changed)",
    "full recall runs (finchunk eval ... --retriever auto, finchunk bench financebench) were "
    "not rerun for this change: too slow on the shared 2-core machine",
)


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "finchunk.cli", *args]


def _build(pdfs: list[Path], index: Path) -> None:
    if (index / "CURRENT").is_file():
        print(f"index: {index} (built before)")
        return
    t = time.perf_counter()
    subprocess.run(_command("index", *map(str, pdfs), "-o", str(index)), check=True)
    print(f"index: {index} built in {time.perf_counter() - t:.0f} s")


def _questions(data: Path, names: set[str], n: int) -> list[str]:
    out = []
    with (data / "financebench_open_source.jsonl").open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["doc_name"] in names:
                out.append(row["question"])
    return out[:n]


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(index: Path, question: str, retriever: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one cold ``finchunk search``: the CPU time
    stands when other work shares the machine."""
    t, c = time.perf_counter(), _cpu()
    subprocess.run(
        _command("search", str(index), question, "--retriever", retriever),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    return time.perf_counter() - t, _cpu() - c


def _report(label: str, times: dict[str, list[float]], cpu: dict[str, list[float]]) -> None:
    auto, bm25 = statistics.median(times["auto"]), statistics.median(times["bm25"])
    print(f"  {label}finchunk search (auto)             p50 {auto:.2f} s")
    print(f"  {label}finchunk search --retriever bm25   p50 {bm25:.2f} s")
    verdict = "ok" if auto <= 1.3 * bm25 else "over the 1.3x target"
    print(f"  {label}ratio                              {auto / bm25:.2f}x ({verdict})")
    a, b = statistics.median(cpu["auto"]), statistics.median(cpu["bm25"])
    print(f"  {label}CPU seconds p50: auto {a:.2f}, bm25 {b:.2f}, ratio {a / b:.2f}x")


def _agreement(index_path: Path, questions: list[str], k: int) -> tuple[int, int]:
    """Questions whose top ``k`` over the stored impacts equals the exact rerank's."""
    from finchunk.retrieve.index.store import Index
    from finchunk.retrieve.neural.rerank import Reranked
    from finchunk.retrieve.neural.splade import load_splade
    from finchunk.retrieve.query.auto import AUTO_PRIOR, AUTO_PRIOR_SPLADE

    splade = load_splade()

    class Exact:  # the rerank before impacts: unquantised weights on the question's pieces
        def __init__(self, index: Index) -> None:
            self.index = index

        def score(self, query: str, positions: np.ndarray) -> np.ndarray:
            terms, q = splade.query(query)
            if not positions.size or not terms.size:
                return np.zeros(positions.size, dtype=np.float32)
            texts = self.index.texts_at(positions)
            return (splade.weights(texts, terms) @ q).astype(np.float32)

    same = 0
    with Index.open(index_path) as index:
        stored = index.retriever(AUTO_PRIOR_SPLADE, prior=AUTO_PRIOR)
        first = index.retriever(AUTO_PRIOR_SPLADE.first, prior=AUTO_PRIOR)
        exact = Reranked(first, Exact(index), AUTO_PRIOR_SPLADE.depth, AUTO_PRIOR_SPLADE.fuse)
        for q in questions:
            a = stored.search(q, k).positions.tolist()
            b = exact.search(q, k).positions.tolist()
            same += a == b
    return same, len(questions)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="the shared FinanceBench folder")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "finchunk-bench")
    ap.add_argument("--questions", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="another version's src folder, run beside")
    args = ap.parse_args()
    # the 10 smallest PDFs (3 MB, 10-Qs, 8-Ks, earnings releases and a 10-K): a build
    # that encodes every chunk with SPLADE stays minutes on a laptop; a search's cost is
    # BM25's top 100 and one rerank whatever the index's size
    pdfs = sorted((args.data / "pdfs").glob("*.pdf"), key=lambda p: (p.stat().st_size, p.name))
    pdfs = pdfs[:PDFS]
    index = args.cache / "search_command_index"
    args.cache.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parents[1] / "src"))
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(args.cache / "pycache")
    _build(pdfs, index)
    questions = _questions(args.data, {p.stem for p in pdfs}, args.questions)
    versions = {"": dict(os.environ)}
    if args.baseline:
        versions["baseline: "] = dict(os.environ, PYTHONPATH=str(args.baseline.resolve()))
    runs = [(v, name) for v in versions for name in ("auto", "bm25")]
    for v, name in runs:  # compile each version's bytecode once, untimed
        _timed(index, questions[0], name, versions[v])
    times = {run: [] for run in runs}
    cpu = {run: [] for run in runs}
    for r in range(args.rounds):
        for i, q in enumerate(questions):
            shift = (r * len(questions) + i) % len(runs)  # each command in each place
            for run in runs[shift:] + runs[:shift]:
                wall, used = _timed(index, q, run[1], versions[run[0]])
                times[run].append(wall)
                cpu[run].append(used)
    print(f"{len(questions)} questions × {args.rounds} rounds, a cold process each")
    for v in versions:
        _report(
            v,
            {name: times[(v, name)] for name in ("auto", "bm25")},
            {name: cpu[(v, name)] for name in ("auto", "bm25")},
        )
    same, n = _agreement(index, questions, args.k)
    print(f"  top {args.k} over stored impacts = exact question-time rerank: {same}/{n}")
    for line in RECORDED:
        print(f"  {line}")


if __name__ == "__main__":
    main()
