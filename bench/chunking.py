"""Structure chunking that keeps a table's meaning: the measurements behind its defaults.

    python bench/chunking.py demo    # Markdown: the demo corpus (`finchunk demo --out DIR`)
    python bench/chunking.py edgar   # SEC HTML/SGML: devsets/edgar_dev.jsonl, document scope
    python bench/chunking.py fb      # PDF: FinanceBench, document scope (a benchmark: labelled)

Every figure: BM25, context header on. ``R@k``: recall of gold passages (half covered) in the
top k; ``R@Nc``: recall within a budget of N characters (chunks in rank order while they
fit: k alone flatters big chunks); ``row@k``: the gold passage wholly in the top k (for a
table question, "is the answer's row there"); ``page@k`` (FinanceBench): a gold page hit.
``+w/-l``: questions better / worse than the row named in ``vs`` (``evaluate.measures.
compare``). Parsed corpora are cached in /tmp/finchunk-bench-chunking (FinanceBench: the
``parse_documents`` pickle at /tmp/fbdocs.pkl when present).

RESULTS
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from finchunk.chunk import Chunker, Structure, make_chunker
from finchunk.evaluate.corpus import Corpus, read_corpus
from finchunk.evaluate.gold import GoldSet, gold_from_corpus
from finchunk.evaluate.harness import chunk_corpus, queries
from finchunk.evaluate.measures import Budget, Chars, PageHit, Recall, compare, score
from finchunk.evaluate.represent import naive_text
from finchunk.evaluate.runs import Query, rank
from finchunk.evaluate.scope import Scope
from finchunk.model import Chunk

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
CACHE = Path("/tmp/finchunk-bench-chunking")
FB_PICKLE = Path("/tmp/fbdocs.pkl")


@dataclass(frozen=True)
class Setup:
    """A dev set: its chunks come from ``chunk``, its questions are ``queries``."""

    name: str
    docs: Any  # Corpus or {name: Document}
    queries: list[Query]
    gold: GoldSet
    ks: tuple[int, ...]
    budgets: tuple[int, ...]
    pages: bool = False

    def chunk(self, chunker: Chunker) -> list[Chunk]:
        if isinstance(self.docs, Corpus):
            return chunk_corpus(self.docs, chunker)
        return [c for n in sorted(self.docs) for c in chunker.chunk(self.docs[n])]


@dataclass(frozen=True)
class Row:
    label: str
    vs: str
    means: dict[str, float]
    per_query: dict[str, dict[str, float]]
    chunks: int
    mean_chars: float


def demo_setup(out: Path) -> Setup:
    if not (out / "documents.parquet").exists():
        raise SystemExit(f"no demo corpus in {out}: run `finchunk demo --out {out}` first")
    c = read_corpus(out / "documents.parquet", out / "passages.parquet", out / "questions.csv")
    return Setup("demo", c, queries(c, Scope.CORPUS), gold_from_corpus(c), (3, 5), (1200,))


def _cached(name: str, build: Any) -> Any:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / name
    if path.exists():
        return pickle.loads(path.read_bytes())
    value = build()
    path.write_bytes(pickle.dumps(value))
    return value


def edgar_setup() -> Setup:
    """The EDGAR dev set, parsed once and pickled (delete the cache after parser changes)."""
    from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

    def build() -> Corpus:
        qs = read_quote_questions(ROOT / "devsets" / "edgar_dev.jsonl")
        return build_quote_corpus(qs, SHARED / "edgar").corpus

    c = _cached("edgar.pkl", build)
    return Setup("edgar", c, queries(c, Scope.DOCUMENT), gold_from_corpus(c), (3, 5), (2400,))


def fb_setup() -> Setup:
    from finchunk.datasets.financebench import load_financebench
    from finchunk.evaluate.financebench import FBScope, align_gold, parse_documents, scope_queries

    fb = load_financebench(SHARED / "financebench")
    if FB_PICKLE.exists():
        docs = pickle.loads(FB_PICKLE.read_bytes())
    else:
        docs = _cached("fb.pkl", lambda: parse_documents(fb))
    questions = list(fb.questions)
    gold, _ = align_gold(questions, docs)
    qs = scope_queries(FBScope.DOCUMENT, questions, None)
    return Setup("fb", docs, qs, gold, (3, 5), (2400,), pages=True)


def measures(s: Setup) -> dict[str, Any]:
    out: dict[str, Any] = {f"R@{k}": Recall(k) for k in s.ks}
    out.update({f"R@{b}c": Recall(Budget(b)) for b in s.budgets})
    out.update({f"row@{k}": Recall(k, 1.0) for k in s.ks[-1:]})
    if s.pages:
        out.update({f"page@{k}": PageHit(k) for k in s.ks})
    out[f"chars@{max(s.ks)}"] = Chars(max(s.ks))
    return out


def measure(s: Setup, label: str, vs: str, chunker: Chunker, represent: str = "text") -> Row:
    chunks = s.chunk(chunker)
    texts = [naive_text(c) if represent == "naive" else c.text for c in chunks]
    run = rank(s.queries, chunks, "bm25", max(s.ks), texts=texts, name=label, pad=True)
    ms = measures(s)
    sc = score(run, s.gold, list(ms.values()))
    means = {n: round(sc.mean(m), 4) for n, m in ms.items()}
    top = f"R@{max(s.ks)}"
    for t in s.gold.types if not s.pages else ():
        ids = [g.id for g in s.gold if g.type == t]
        means[f"{t}@{max(s.ks)}"] = round(sc.mean(ms[top], ids), 3)
    per = {n: dict(sc.per_query[m]) for n, m in ms.items()}
    n = len(chunks)
    row = Row(label, vs, means, per, n, round(sum(len(c.text) for c in chunks) / max(n, 1), 1))
    print(f"  {label}: {means}", file=sys.stderr, flush=True)
    return row


def table(rows: Sequence[Row]) -> str:
    by_label = {r.label: r for r in rows}
    keys = [k for k in rows[0].means if not k.startswith("chars")]
    lines = [" | ".join(["variant", "vs", "chunks", "mean chars", *keys])]
    for r in rows:
        base = by_label.get(r.vs)
        cells = [r.label, r.vs or "-", str(r.chunks), f"{r.mean_chars:.0f}"]
        for k in keys:
            cell = f"{r.means[k]:.3f}"
            if base is not None and k in r.per_query:
                c = compare(base.per_query[k], r.per_query[k])
                cell += f" +{c.wins}/-{c.losses}"
            cells.append(cell)
        lines.append(" | ".join(cells))
    return "\n".join(lines)


def structure(size: int | None, **options: Any) -> Structure:
    return Structure(size=size, header=True, **options)


def size_rows(s: Setup, sizes: Sequence[int]) -> list[Row]:
    """Fixed windows, then each size before (no table context) and after."""
    rows = [measure(s, "fixed 500", "", make_chunker("fixed", header=True))]
    for n in sizes:
        rows.append(measure(s, f"structure {n} before", "", structure(n, table_context=False)))
        rows.append(measure(s, f"structure {n}", f"structure {n} before", structure(n)))
    return rows


def option_rows(s: Setup, n: int) -> list[Row]:
    """At size ``n``: long tables as row groups, and the naive index representation."""
    base = f"structure {n}"
    return [
        measure(s, base, "", structure(n)),
        measure(s, f"{base} split", base, structure(n, split_tables=True)),
        measure(s, f"{base} naive", base, structure(n), represent="naive"),
        measure(s, f"{base} split naive", base, structure(n, split_tables=True), "naive"),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("what", choices=["demo", "edgar", "fb"])
    p.add_argument("--demo", type=Path, default=Path("/tmp/chk-demo"))
    p.add_argument("--sizes", default="800,1200,1600,2400")
    p.add_argument("--at", type=int, default=800, help="size of the option rows")
    a = p.parse_args(argv)
    setup = {"demo": lambda: demo_setup(a.demo), "edgar": edgar_setup, "fb": fb_setup}[a.what]()
    sizes = [int(x) for x in a.sizes.split(",") if x]
    print(table(size_rows(setup, sizes)))
    print()
    print(table(option_rows(setup, a.at)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
