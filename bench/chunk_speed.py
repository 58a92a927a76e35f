"""Parse + chunk speed (MB/s) on Markdown with real structure, beside Chonkie's
RecursiveChunker and LangChain's RecursiveCharacterTextSplitter in the same process.

Inputs (``bench/md_inputs.py``), each parsed as one document:

* ``fb``: the first ten FinanceBench 10-K PDFs, rendered as Markdown from finchunk's PDF
  elements (headings, pipe tables, footnotes), about 4.9 MB;
* ``edgar``: the ten EDGAR 10-K HTML filings, rendered the same way from the HTML parser's
  elements, about 2.7 MB;
* ``pages``: the old input, each PDF page one block under '## Page n' (it flatters the
  block scanner: few, long blocks).

Every contender runs once per round, the rounds ``--runs`` times, and the median of each is
reported, so a loaded machine slows all of them alike; times are the process's CPU time
(``time.process_time``: all contenders are single-threaded), which other work on the
machine disturbs less than the wall clock. The ratio is finchunk's structure
chunking, parsing included, over the fastest peer. The doubling check parses the ``fb``
document and the same text twice over (one document of twice the length): parse time must
at most double (ratio <= 2.2).

    python bench/chunk_speed.py [--data ../shared/data] [--inputs fb,edgar,pages] [--runs 7]

Measured on a shared 2-core machine with another job at nice 10 on both cores (branch
chunk-speed against main, five bench runs of ``--runs 5`` each, main and branch in turn;
medians of the runs, MB/s; the ratio is each run's own, against its own peers):

| input | main: parse / chunk / incl. parsing, peer | chunk-speed                               |
|-------|-------------------------------------------|-------------------------------------------|
| fb    | 30.1 / 27.7 / 14.1, LangChain 54.4: 0.26x | 33.0 / 41.5 / 17.1, LangChain 61.3: 0.28x |
| edgar | 31.1 / 31.6 / 13.8, Chonkie 19.8: 0.69x   | 41.8 / 38.5 / 21.1, Chonkie 20.1: 0.99x   |

The edgar ratio ranged 0.57-0.71 on main and 0.79-1.17 on the branch (the peers' own
MB/s move by +-25% between runs on this machine); doubling ratio 2.31 -> 1.96. In one
process, CPU medians of 10 interleaved rounds (fb): Structure(800) chunking 0.16 -> 0.11
s, parse + chunk 0.30 -> 0.25 s. The step before (branch md-speed) took parsing from 10.1
to 40.4 MB/s on fb, on a less loaded machine. The fb goal (>= LangChain) is not reached:
LangChain's splitter cuts plain strings at C speed, while finchunk builds an element per
block (0.75 us with the slots set directly) and a chunk with a blake2b id per chunk
(about 5 us: the digest 1.2 us); the parser's line scan (split, line offsets, the prose
regex) is most of the rest. The cyclic GC costs 1-2% of parse + chunk here, too little
to pause it in a library.

A later session (see bench/README.md, issue 16): the scanner classifies lines with array
operations (no split into line strings), finds citation candidates in the same array, and
the parser and chunkers run with the cyclic collector paused (``finchunk.collector``): in
this script's own process, where the peers' modules and a parsed document keep 80k
objects tracked, the collector's full passes had cost a third of parse + chunk (329 ms
against 217 with them frozen), so "1-2 %" above was true only of a bare process. Four
runs of ``--runs 5`` (two before, two after): fb 0.22-0.27x -> 0.39-0.44x LangChain,
edgar 0.87-0.98x -> 1.08-1.19x Chonkie. Later, the scan reads the text a window of 512k
characters at a time: doubling 2.02, 2.02 -> 1.96, 1.93; fb 0.37-0.40x, edgar 1.06-1.08x
(bench/README.md: why fb stays below LangChain).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.parse.markdown import parse_markdown
from md_inputs import SHARED, edgar_10k, financebench_10k, pages_markdown

SIZE = 800  # characters: Structure's limit and the peers' chunk size


def build(name: str, data: Path, mb: float) -> str | None:
    pdfs = data / "financebench" / "pdfs"
    if name == "fb" and pdfs.is_dir():
        return "\n\n".join(md for _, md in financebench_10k(pdfs))
    if name == "edgar" and (data / "edgar").is_dir():
        return "\n\n".join(md for _, md in edgar_10k(data / "edgar"))
    if name == "pages" and pdfs.is_dir():
        return pages_markdown(pdfs, mb)
    return None


def peers() -> dict[str, Callable[[str], object]]:
    found: dict[str, Callable[[str], object]] = {}
    try:
        from chonkie import RecursiveChunker

        chonkie = RecursiveChunker(chunk_size=SIZE)
        found[f"Chonkie RecursiveChunker({SIZE})"] = chonkie.chunk
    except ImportError:
        print("chonkie not installed: peer skipped", file=sys.stderr)
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        plain = RecursiveCharacterTextSplitter(chunk_size=SIZE, chunk_overlap=0)
        found[f"LangChain RecursiveCharacterTextSplitter({SIZE})"] = plain.split_text
        # With offsets, as finchunk always gives them (LangChain finds them with str.find).
        located = RecursiveCharacterTextSplitter(
            chunk_size=SIZE, chunk_overlap=0, add_start_index=True
        )
        found["  the same, with start_index"] = lambda t: located.create_documents([t])
    except ImportError:
        print("langchain-text-splitters not installed: peer skipped", file=sys.stderr)
    return found


def medians(contenders: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median CPU seconds of each contender, run round-robin ``runs`` times."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, fn in contenders.items():
            t0 = time.process_time()
            fn()
            times[name].append(time.process_time() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def contenders(text: str) -> dict[str, Callable[[], object]]:
    doc = parse_markdown(text, "bench")
    rows: dict[str, Callable[[], object]] = {
        "parse (Markdown → elements)": lambda: parse_markdown(text, "b"),
    }
    for chunker in (Fixed(500, 50), Recursive(500), Structure(SIZE), ByTitle(2048)):
        rows[f"{chunker.name} (chunk only)"] = lambda c=chunker: c.chunk(doc)
    rows[f"structure({SIZE}) incl. parsing"] = lambda: Structure(SIZE).chunk(
        parse_markdown(text, "b")
    )
    rows["bytitle incl. parsing"] = lambda: ByTitle(2048).chunk(parse_markdown(text, "b"))
    for name, split in peers().items():
        rows[name] = lambda s=split: s(text)
    return rows


def report(name: str, text: str, runs: int) -> None:
    nbytes = len(text.encode("utf-8"))
    kinds = Counter(e.kind.value for e in parse_markdown(text, "bench").elements)
    print(f"\n[{name}] {nbytes / 1e6:.2f} MB, {len(text):,} characters, elements {dict(kinds)}")
    secs = medians(contenders(text), runs)
    width = max(map(len, secs))
    for row, s in secs.items():
        print(f"  {row:<{width}}  {nbytes / 1e6 / s:7.1f} MB/s")
    ours = secs[f"structure({SIZE}) incl. parsing"]
    peer = {k: v for k, v in secs.items() if k.startswith(("Chonkie", "LangChain"))}
    if peer:
        best = min(peer, key=peer.__getitem__)
        print(
            f"  finchunk structure incl. parsing / fastest peer ({best}): {peer[best] / ours:.2f}x"
        )


def doubling(text: str, runs: int) -> None:
    twice = text + "\n\n" + text
    secs = medians(
        {"L": lambda: parse_markdown(text, "b"), "2L": lambda: parse_markdown(twice, "b")}, runs
    )
    print(
        f"\ndoubling: parse {len(text):,} chars {secs['L']:.3f} s, {len(twice):,} chars "
        f"{secs['2L']:.3f} s: ratio {secs['2L'] / secs['L']:.2f} (target <= 2.2)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--inputs", default="fb,edgar,pages")
    ap.add_argument("--mb", type=float, default=5.0, help="size of the 'pages' input")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    built = {n: build(n, args.data, args.mb) for n in args.inputs.split(",")}
    texts = {n: t for n, t in built.items() if t}
    if not texts:
        print(f"no inputs under {args.data}: pass --data DIR (shared data)", file=sys.stderr)
        return 2
    for name, text in texts.items():
        report(name, text, args.runs)
    doubling(next(iter(texts.values())), args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
