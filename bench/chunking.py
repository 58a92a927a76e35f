# ruff: noqa: E501  (the measurement tables in the docstring are wide)
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

Results (2 cores, BM25 as on the branch point; another engineer changes the tokenizer and
another the header, so absolute figures will move).

Choices, each from the tables below:

* table context (lead-in + caption in the table chunk): on. Demo at 800: R@3 0.605 → 0.629
  (+7/−1), R@5 0.655 → 0.688 (+8/−0), R@1200c 0.589 → 0.585 (+2/−3). EDGAR at 800: R@3
  0.579 → 0.620 (+8/−3), R@5 0.719 → 0.723 (+1/−0), R@2400c 0.570 (+2/−2). FinanceBench at
  800: R@5 0.178 → 0.205 (+4/−0), page@5 0.326 → 0.318 (+0/−1).
* size per source kind (the largest that does not lose at an equal budget): Markdown 800,
  SEC 800 (1,600 wins at k = 3, +9/−4, but loses at k = 5, +3/−5, and at 2,400 chars,
  0.570 → 0.504, +1/−10), PDF 1,600 (FinanceBench, *tuned on a benchmark*: ties 800 at
  2,400 chars, +2/−2; R@5 0.205 → 0.236, +7/−2; page@5 0.318 → 0.341, +5/−2).
* split_tables: off by default. Demo +7/−1 at R@3, but EDGAR R@5 0.723 → 0.703 (+1/−4),
  table row@5 0.429 → 0.393; FinanceBench at 1,600 a tie (+1/−1 at R@5).
* index representation: the chunk text. naive loses everywhere (demo R@5 0.688 → 0.464,
  +15/−71; EDGAR 0.723 → 0.479, +1/−31; FinanceBench page@5 0.341 → 0.295, +9/−15).

Targets: demo, header on: structure (800, table context) beats fixed at k = 3 (0.629 vs
0.627: a tie in all but name) and at 1,200 chars (0.585 vs 0.492). EDGAR recall@5 of the
default is 0.723 (target 0.90 not reached; the misses rank the gold table row's chunk 6–35
for vocabulary reasons: "capex" vs "payments for acquisition of property", which is the
tokenizer's and the header's work, not chunking's).

Markdown: the demo corpus (corpus scope; sizes above 1,200 change nothing, its sections are
short)::

    variant | vs | chunks | mean chars | R@3 | R@5 | R@1200c | row@5 | calculo@5 | comparacion@5 | nota_pie@5 | tabla@5 | tabla_y_nota@5 | texto@5 | texto_y_nota@5
    fixed 500 | - | 318 | 566 | 0.627 | 0.722 | 0.492 | 0.516 | 0.729 | 0.618 | 0.781 | 0.607 | 0.762 | 0.764 | 0.857
    structure 800 before | - | 418 | 400 | 0.605 | 0.655 | 0.589 | 0.655 | 0.479 | 0.706 | 0.688 | 0.557 | 0.810 | 0.639 | 0.952
    structure 800 | structure 800 before | 392 | 422 | 0.629 +7/-1 | 0.688 +8/-0 | 0.585 +2/-3 | 0.688 +8/-0 | 0.521 | 0.706 | 0.719 | 0.607 | 0.810 | 0.681 | 0.952
    structure 1200 before | - | 381 | 432 | 0.601 | 0.663 | 0.560 | 0.663 | 0.479 | 0.735 | 0.688 | 0.590 | 0.833 | 0.625 | 0.952
    structure 1200 | structure 1200 before | 355 | 458 | 0.619 +8/-4 | 0.690 +7/-0 | 0.552 +0/-2 | 0.690 +7/-0 | 0.646 | 0.735 | 0.719 | 0.607 | 0.833 | 0.625 | 0.976
    structure 1600 before | - | 381 | 432 | 0.601 | 0.663 | 0.560 | 0.663 | 0.479 | 0.735 | 0.688 | 0.590 | 0.833 | 0.625 | 0.952
    structure 1600 | structure 1600 before | 355 | 458 | 0.619 +8/-4 | 0.690 +7/-0 | 0.552 +0/-2 | 0.690 +7/-0 | 0.646 | 0.735 | 0.719 | 0.607 | 0.833 | 0.625 | 0.976
    structure 2400 before | - | 381 | 432 | 0.601 | 0.663 | 0.560 | 0.663 | 0.479 | 0.735 | 0.688 | 0.590 | 0.833 | 0.625 | 0.952
    structure 2400 | structure 2400 before | 355 | 458 | 0.619 +8/-4 | 0.690 +7/-0 | 0.552 +0/-2 | 0.690 +7/-0 | 0.646 | 0.735 | 0.719 | 0.607 | 0.833 | 0.625 | 0.976

    sizes against structure 800 (table context on):
    variant | vs | chunks | mean chars | R@3 | R@5 | R@1200c | row@5 | calculo@5 | comparacion@5 | nota_pie@5 | tabla@5 | tabla_y_nota@5 | texto@5 | texto_y_nota@5
    structure 800 | - | 392 | 422 | 0.629 | 0.688 | 0.585 | 0.688 | 0.521 | 0.706 | 0.719 | 0.607 | 0.810 | 0.681 | 0.952
    structure 1200 | structure 800 | 355 | 458 | 0.619 +3/-6 | 0.690 +7/-5 | 0.552 +2/-12 | 0.690 +7/-5 | 0.646 | 0.735 | 0.719 | 0.607 | 0.833 | 0.625 | 0.976
    structure 1600 | structure 800 | 355 | 458 | 0.619 +3/-6 | 0.690 +7/-5 | 0.552 +2/-12 | 0.690 +7/-5 | 0.646 | 0.735 | 0.719 | 0.607 | 0.833 | 0.625 | 0.976
    structure 2400 | structure 800 | 355 | 458 | 0.619 +3/-6 | 0.690 +7/-5 | 0.552 +2/-12 | 0.690 +7/-5 | 0.646 | 0.735 | 0.719 | 0.607 | 0.833 | 0.625 | 0.976

    variant | vs | chunks | mean chars | R@3 | R@5 | R@1200c | row@5 | calculo@5 | comparacion@5 | nota_pie@5 | tabla@5 | tabla_y_nota@5 | texto@5 | texto_y_nota@5
    structure 800 | - | 392 | 422 | 0.629 | 0.688 | 0.585 | 0.688 | 0.521 | 0.706 | 0.719 | 0.607 | 0.810 | 0.681 | 0.952
    structure 800 split | structure 800 | 407 | 415 | 0.647 +7/-1 | 0.708 +7/-0 | 0.597 +5/-1 | 0.692 +5/-2 | 0.521 | 0.735 | 0.750 | 0.639 | 0.857 | 0.681 | 0.976
    structure 800 naive | structure 800 | 392 | 422 | 0.411 +8/-64 | 0.464 +15/-71 | 0.460 +21/-56 | 0.464 +15/-71 | 0.396 | 0.353 | 0.312 | 0.361 | 0.286 | 0.681 | 0.595
    structure 800 split naive | structure 800 | 407 | 415 | 0.411 +8/-64 | 0.460 +15/-72 | 0.460 +21/-56 | 0.440 +12/-74 | 0.396 | 0.353 | 0.312 | 0.344 | 0.286 | 0.681 | 0.595

SEC filings: the EDGAR dev set (document scope)::

    variant | vs | chunks | mean chars | R@3 | R@5 | R@2400c | row@5 | note@5 | table@5 | table_note@5 | text@5
    fixed 500 | - | 7484 | 632 | 0.570 | 0.653 | 0.570 | 0.583 | 0.875 | 0.429 | 0.565 | 0.741
    structure 800 before | - | 6375 | 649 | 0.579 | 0.719 | 0.570 | 0.719 | 0.938 | 0.429 | 0.783 | 0.778
    structure 800 | structure 800 before | 5994 | 682 | 0.620 +8/-3 | 0.723 +1/-0 | 0.570 +2/-2 | 0.723 +1/-0 | 0.938 | 0.429 | 0.804 | 0.778
    structure 1200 before | - | 4861 | 811 | 0.616 | 0.698 | 0.525 | 0.698 | 0.906 | 0.429 | 0.783 | 0.741
    structure 1200 | structure 1200 before | 4511 | 863 | 0.645 +4/-0 | 0.715 +2/-0 | 0.529 +2/-1 | 0.715 +2/-0 | 0.906 | 0.464 | 0.783 | 0.759
    structure 1600 before | - | 4131 | 932 | 0.632 | 0.719 | 0.504 | 0.719 | 0.906 | 0.536 | 0.804 | 0.722
    structure 1600 | structure 1600 before | 3798 | 1002 | 0.665 +4/-0 | 0.711 +0/-1 | 0.504 +1/-1 | 0.711 +0/-1 | 0.906 | 0.500 | 0.804 | 0.722
    structure 2400 before | - | 3517 | 1074 | 0.665 | 0.752 | 0.479 | 0.752 | 0.906 | 0.536 | 0.804 | 0.796
    structure 2400 | structure 2400 before | 3189 | 1169 | 0.665 +4/-4 | 0.744 +1/-2 | 0.430 +0/-6 | 0.744 +1/-2 | 0.906 | 0.536 | 0.804 | 0.778

    sizes against structure 800 (table context on):
    variant | vs | chunks | mean chars | R@3 | R@5 | R@2400c | row@5 | note@5 | table@5 | table_note@5 | text@5
    structure 800 | - | 5994 | 682 | 0.620 | 0.723 | 0.570 | 0.723 | 0.938 | 0.429 | 0.804 | 0.778
    structure 1200 | structure 800 | 4511 | 863 | 0.645 +7/-5 | 0.715 +1/-3 | 0.529 +2/-8 | 0.715 +1/-3 | 0.906 | 0.464 | 0.783 | 0.759
    structure 1600 | structure 800 | 3798 | 1002 | 0.665 +9/-4 | 0.711 +3/-5 | 0.504 +1/-10 | 0.711 +3/-5 | 0.906 | 0.500 | 0.804 | 0.722
    structure 2400 | structure 800 | 3189 | 1169 | 0.665 +11/-6 | 0.744 +6/-4 | 0.430 +1/-19 | 0.744 +6/-4 | 0.906 | 0.536 | 0.804 | 0.778

    variant | vs | chunks | mean chars | R@3 | R@5 | R@2400c | row@5 | note@5 | table@5 | table_note@5 | text@5
    structure 800 | - | 5994 | 682 | 0.620 | 0.723 | 0.570 | 0.723 | 0.938 | 0.429 | 0.804 | 0.778
    structure 800 split | structure 800 | 6558 | 652 | 0.607 +1/-3 | 0.703 +1/-4 | 0.587 +3/-1 | 0.703 +1/-4 | 0.938 | 0.393 | 0.739 | 0.778
    structure 800 naive | structure 800 | 5994 | 682 | 0.438 +4/-26 | 0.479 +1/-31 | 0.471 +7/-19 | 0.479 +1/-31 | 0.750 | 0.214 | 0.130 | 0.685
    structure 800 split naive | structure 800 | 6558 | 652 | 0.434 +4/-27 | 0.492 +1/-30 | 0.475 +7/-19 | 0.492 +1/-30 | 0.750 | 0.214 | 0.152 | 0.704

PDF: FinanceBench (document scope; a benchmark, labelled; option rows at 1,600)::

    variant | vs | chunks | mean chars | R@3 | R@5 | R@2400c | row@5 | page@3 | page@5
    fixed 500 | - | 74606 | 622 | 0.074 | 0.128 | 0.074 | 0.077 | 0.256 | 0.357
    structure 800 before | - | 65053 | 628 | 0.132 | 0.178 | 0.108 | 0.070 | 0.271 | 0.326
    structure 800 | structure 800 before | 62291 | 650 | 0.151 +3/-0 | 0.205 +4/-0 | 0.128 +3/-0 | 0.070 +0/-0 | 0.271 +1/-1 | 0.318 +0/-1
    structure 1200 before | - | 49153 | 792 | 0.147 | 0.209 | 0.116 | 0.070 | 0.256 | 0.326
    structure 1200 | structure 1200 before | 46552 | 829 | 0.167 +3/-0 | 0.221 +4/-2 | 0.128 +2/-0 | 0.062 +0/-1 | 0.256 +0/-0 | 0.310 +0/-2
    structure 1600 before | - | 41164 | 922 | 0.186 | 0.225 | 0.124 | 0.077 | 0.264 | 0.349
    structure 1600 | structure 1600 before | 38662 | 974 | 0.190 +2/-1 | 0.236 +4/-2 | 0.128 +2/-1 | 0.077 +0/-0 | 0.248 +0/-2 | 0.341 +1/-2
    structure 2400 before | - | 33749 | 1099 | 0.202 | 0.248 | 0.112 | 0.093 | 0.271 | 0.349
    structure 2400 | structure 2400 before | 31276 | 1176 | 0.213 +2/-0 | 0.275 +5/-1 | 0.124 +2/-0 | 0.105 +2/-0 | 0.264 +0/-1 | 0.364 +3/-1

    sizes against structure 800 (table context on):
    variant | vs | chunks | mean chars | R@3 | R@5 | R@2400c | row@5 | page@3 | page@5
    structure 800 | - | 62291 | 650 | 0.151 | 0.205 | 0.128 | 0.070 | 0.271 | 0.318
    structure 1200 | structure 800 | 46552 | 829 | 0.167 +4/-2 | 0.221 +3/-1 | 0.128 +2/-2 | 0.062 +0/-1 | 0.256 +1/-3 | 0.310 +1/-2
    structure 1600 | structure 800 | 38662 | 974 | 0.190 +6/-1 | 0.236 +7/-2 | 0.128 +2/-2 | 0.077 +1/-0 | 0.248 +1/-4 | 0.341 +5/-2
    structure 2400 | structure 800 | 31276 | 1176 | 0.213 +9/-0 | 0.275 +13/-2 | 0.124 +4/-4 | 0.105 +5/-0 | 0.264 +3/-4 | 0.364 +9/-3

    variant | vs | chunks | mean chars | R@3 | R@5 | R@2400c | row@5 | page@3 | page@5
    structure 1600 | - | 38662 | 974 | 0.190 | 0.236 | 0.128 | 0.077 | 0.248 | 0.341
    structure 1600 split | structure 1600 | 38997 | 968 | 0.194 +1/-0 | 0.236 +1/-1 | 0.136 +1/-0 | 0.070 +0/-1 | 0.256 +1/-0 | 0.341 +1/-1
    structure 1600 naive | structure 1600 | 38662 | 974 | 0.112 +1/-11 | 0.155 +6/-16 | 0.155 +10/-5 | 0.046 +1/-5 | 0.202 +5/-11 | 0.295 +9/-15
    structure 1600 split naive | structure 1600 | 38997 | 968 | 0.112 +1/-11 | 0.155 +6/-16 | 0.155 +10/-5 | 0.039 +0/-5 | 0.202 +5/-11 | 0.295 +9/-15
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
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
    p.add_argument("--at", type=int, default=800, help="size of the option rows (0: none)")
    a = p.parse_args(argv)
    setup = {"demo": lambda: demo_setup(a.demo), "edgar": edgar_setup, "fb": fb_setup}[a.what]()
    sizes = [int(x) for x in a.sizes.split(",") if x]
    rows = size_rows(setup, sizes)
    print(table(rows))
    first = f"structure {sizes[0]}"
    after = [
        replace(r, vs=first if r.label != first else "") for r in rows if "before" not in r.label
    ]
    print(f"\nsizes against {first} (table context on):")
    print(table(after[1:]))
    if a.at:
        print()
        print(table(option_rows(setup, a.at)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
