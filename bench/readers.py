"""Readers during updates: how many reads fail while builds publish over a local index.

Two reader processes open the index, search it and read its chunks and a document's text,
over and over, keeping their last five opened indexes and reading each again before closing
it (a long-lived reader); meanwhile this process rebuilds the index ``--builds`` times
(six documents, the chunk size changed every build, so each publish replaces every
segment). Prints each reader's reads and failures, the failures by kind, and how many
generation and segment folders were left (the ones a reader still held at the last publish).

    python bench/readers.py [--builds 40] [--readers 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time
from collections import Counter
from pathlib import Path

from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.config import IndexConfig
from finchunk.retrieve.index.store import Index


def _build(docs: Path, root: Path, step: int) -> None:
    for d in range(6):
        text = f"# D{d}\n\nrevenue grew {step} percent in document {d}\n\ncosts fell\n"
        (docs / f"d{d}.md").write_text(text, encoding="utf-8")
    config = IndexConfig(size=300 + (step % 3) * 100)
    build_index(file_sources(sorted(docs.glob("*.md"))), root, config)


def _read_once(root: Path, held: list[Index]) -> None:
    index = Index.open(root)
    index.retriever("bm25").search("revenue grew", 3)
    if not index.chunks.column("text").to_pylist():
        raise AssertionError("no chunks")
    index.document_text(index.manifest.documents[0].id)
    held.append(index)
    if len(held) > 5:
        old = held.pop(0)
        old.retriever("bm25").search("costs", 2)  # opened five reads ago: still readable
        _ = old.chunks
        getattr(old, "close", lambda: None)()  # (an Index had no close before snapshots)


def _reader(root: Path, stop: float, out: multiprocessing.Queue) -> None:
    reads, failures, held = 0, Counter[str](), []
    while time.monotonic() < stop:
        try:
            _read_once(root, held)
            reads += 1
        except Exception as exc:  # noqa: BLE001 - counted by kind: what this bench measures
            failures[type(exc).__name__] += 1
    out.put((reads, failures))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builds", type=int, default=40)
    ap.add_argument("--readers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        docs, root = Path(tmp) / "docs", Path(tmp) / "idx"
        docs.mkdir()
        _build(docs, root, 0)
        ctx = multiprocessing.get_context("spawn")
        out: multiprocessing.Queue = ctx.Queue()
        t0 = time.monotonic()
        for step in range(1, 4):  # calibrate: how long a build takes here
            _build(docs, root, step)
        per_build = (time.monotonic() - t0) / 3
        deadline = time.monotonic() + per_build * args.builds + 1.0
        procs = [
            ctx.Process(target=_reader, args=(root, deadline, out)) for _ in range(args.readers)
        ]
        for p in procs:
            p.start()
        time.sleep(1.0)  # the readers have started reading
        for step in range(args.builds):
            _build(docs, root, 4 + step)
        results = [out.get() for _ in procs]
        for p in procs:
            p.join()
        left = sorted(p.name for p in root.iterdir() if p.is_dir())
    total = Counter[str]()
    for i, (reads, failures) in enumerate(results):
        print(f"reader {i}: {reads} reads, {sum(failures.values())} failed")
        total.update(failures)
    print(f"{args.builds} builds published; failures by kind: {dict(total) or 'none'}")
    print(f"folders left after the last publish: {len(left)} ({', '.join(left)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
