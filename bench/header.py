"""Context header: off, the old one ("title > section") and the new one (entity | type |
period > section, :mod:`finchunk.chunk.header`), on the demo, the EDGAR development set and
FinanceBench. Each "old → new" cell is the mean of the old header, then the new; "+W/−L" are
the questions the new header does better / worse on (``evaluate.measures.compare``).

    python bench/header.py [demo] [edgar] [fb] [--fb-docs /tmp/fbdocs.pkl]

``--fb-docs``: FinanceBench documents pickled from ``parse_documents`` (parsed once; the
document information's metadata is put onto them again here, so a pickle made before
``parse_documents`` carried metadata gives the same headers).

Measured at commit "Header period as 'FY 2024'" (BM25 unless named; "hdr chars": mean
header length in characters, old → new; FinanceBench documents parsed by this branch,
page accuracy in %):

Demo (248 questions, corpus scope; recall):

| strategy  | off @3 | old → new @3        | off @5 | old → new @5        | hdr chars |
|-----------|--------|---------------------|--------|---------------------|-----------|
| fixed     | 0.212 | 0.627 → 0.619 (+2/−4) | 0.288 | 0.722 → 0.724 (+1/−0) | 83 → 93 |
| structure | 0.212 | 0.605 → 0.603 (+2/−2) | 0.278 | 0.655 → 0.655 (+0/−0) | 84 → 94 |

EDGAR development set (121 questions, structure; recall@5):

| scope    | off   | old → new           | hdr chars |
|----------|-------|---------------------|-----------|
| document | 0.562 | 0.719 → 0.719 (+0/−0) | 131 → 137 |
| corpus   | 0.430 | 0.558 → 0.574 (+2/−0) | 131 → 137 |

FinanceBench (129 questions; page accuracy; doc: each question's own filing, corpus: one
index over the 74 filings):

| strategy/retriever/scope | off @5 | old → new @5 | off @10 | old → new @10 | hdr chars |
|--------------------------|--------|--------------|---------|---------------|-----------|
| bytitle/bm25/doc         | 35.7 | 31.0 → 32.6 (+2/−0) | 46.5 | 47.3 → 47.3 (+0/−0) | 123 → 131 |
| bytitle/bm25/corpus      | 14.0 | 16.3 → 18.6 (+3/−0) | 17.1 | 17.8 → 20.9 (+4/−0) | 123 → 131 |
| bytitle/bm25-words/doc   | 44.2 | 45.0 → 45.0 (+0/−0) | 56.6 | 55.8 → 57.4 (+2/−0) | 123 → 131 |
| bytitle/bm25-words/corpus | 14.0 | 18.6 → 20.9 (+4/−1) | 18.6 | 22.5 → 24.8 (+4/−1) | 123 → 131 |
| base256/bm25/doc         | 35.7 | 34.9 → 34.9 (+0/−0) | 50.4 | 48.1 → 48.1 (+0/−0) | 121 → 129 |
| base256/bm25/corpus      | 15.5 | 15.5 → 16.3 (+2/−1) | 17.8 | 19.4 → 20.2 (+1/−0) | 121 → 129 |
| base256/bm25-words/doc   | 45.7 | 46.5 → 47.3 (+1/−0) | 62.8 | 57.4 → 57.4 (+0/−0) | 121 → 129 |
| base256/bm25-words/corpus | 12.4 | 17.1 → 19.4 (+4/−1) | 17.8 | 20.2 → 24.8 (+6/−0) | 121 → 129 |
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

from finchunk.chunk import Chunker, Strategy, make_chunker
from finchunk.chunk.header import SECTION_SEPARATOR, context_header
from finchunk.evaluate.measures import Measure, compare, score
from finchunk.model import Chunk, Document

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
Header = Callable[[Document, Sequence[str]], str]


def old_header(doc: Document, section: Sequence[str]) -> str:
    """The header before: ``"{title} > {section path}"``."""
    title = doc.title or doc.id
    return SECTION_SEPARATOR.join([title, *(s for s in section if s and s != title)])


@dataclass(frozen=True)
class Headed:
    """A chunker whose chunks get ``head``'s header (the same spans and sections)."""

    inner: Chunker
    head: Header
    header: bool = True

    @property
    def name(self) -> str:
        return self.inner.name

    def chunk(self, doc: Document) -> list[Chunk]:
        out = []
        for c in self.inner.chunk(doc):
            head = self.head(doc, c.section)
            out.append(Chunk.build(doc, c.spans, section=c.section, header=head, kind=c.kind))
        return out


HEADERS: dict[str, Header | None] = {"off": None, "old": old_header, "new": context_header}


def headed(chunker: Chunker, style: str) -> Chunker:
    head = HEADERS[style]
    return chunker if head is None else Headed(chunker, head)


def header_chars(chunks: Sequence[Chunk]) -> float:
    return fmean(len(c.header) for c in chunks) if chunks else 0.0


def cell(per: dict[str, dict[str, float]], digits: int = 3) -> str:
    c = compare(per["old"], per["new"])
    return f"{c.mean_a:.{digits}f} → {c.mean_b:.{digits}f} (+{c.wins}/−{c.losses})"


# --- demo and EDGAR: finchunk eval's harness --------------------------------------------------


def eval_cells(corpus, strategy: Strategy, scope, measures: Sequence[Measure]):
    """Per header style: per-measure per-question values and the mean header length."""
    from finchunk.evaluate.gold import gold_from_corpus
    from finchunk.evaluate.harness import EvalSettings, Variant, run_variant

    gold = gold_from_corpus(corpus)
    base = make_chunker(strategy, header=False)
    out, chars = {}, {}
    for style in HEADERS:
        v = Variant(strategy.value, headed(base, style))
        vr = run_variant(corpus, v, 10, EvalSettings(scope=scope))
        s = score(vr.run, gold, list(measures))
        out[style] = {m: dict(s.per_query[m]) for m in measures}
        chars[style] = header_chars(vr.chunks)
    return out, chars


def by_measure(out, m):
    return {style: out[style][m] for style in out}


def demo_rows() -> list[str]:
    from finchunk.demo import DemoConfig, load_demo_corpus
    from finchunk.evaluate.harness import Scope
    from finchunk.evaluate.measures import Recall

    corpus = load_demo_corpus(DemoConfig(out=Path("/tmp/hdr-demo")))
    rows = []
    for strategy in (Strategy.FIXED, Strategy.STRUCTURE):
        r3, r5 = Recall(3), Recall(5)
        out, chars = eval_cells(corpus, strategy, Scope.CORPUS, [r3, r5])
        p3, p5 = by_measure(out, r3), by_measure(out, r5)
        rows.append(
            f"| {strategy.value:<9} | {fmean(p3['off'].values()):.3f} | {cell(p3)} "
            f"| {fmean(p5['off'].values()):.3f} | {cell(p5)} "
            f"| {chars['old']:.0f} → {chars['new']:.0f} |"
        )
    return rows


def edgar_rows() -> list[str]:
    from finchunk.evaluate.harness import Scope
    from finchunk.evaluate.measures import Recall
    from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

    qs = read_quote_questions(ROOT / "devsets" / "edgar_dev.jsonl")
    corpus = build_quote_corpus(qs, DATA / "edgar").corpus
    rows = []
    for scope in (Scope.DOCUMENT, Scope.CORPUS):
        r5 = Recall(5)
        out, chars = eval_cells(corpus, Strategy.STRUCTURE, scope, [r5])
        p5 = by_measure(out, r5)
        rows.append(
            f"| {scope.value:<8} | {fmean(p5['off'].values()):.3f} | {cell(p5)} "
            f"| {chars['old']:.0f} → {chars['new']:.0f} |"
        )
    return rows


# --- FinanceBench ------------------------------------------------------------------------------


def fb_docs(fb, path: Path | None) -> dict[str, Document]:
    from dataclasses import replace

    from finchunk.evaluate.financebench_gold import parse_documents, with_metadata

    if path is None or not path.exists():
        docs = parse_documents(fb)
        if path is not None:
            path.write_bytes(pickle.dumps(docs))
        return docs
    docs = pickle.loads(path.read_bytes())
    meta = {d.name: d.metadata for d in fb.corpus()}
    return {n: replace(d, metadata=with_metadata(d.metadata, meta[n])) for n, d in docs.items()}


def fb_rows(pickled: Path | None) -> list[str]:
    from finchunk.datasets.financebench import load_financebench
    from finchunk.evaluate.financebench import (
        FBScope,
        FBStrategy,
        align_gold,
        chunk_all,
        make_strategy,
        scope_queries,
    )
    from finchunk.evaluate.measures import PageHit
    from finchunk.evaluate.runs import rank
    from finchunk.retrieve.query.retriever import parse_retriever
    from finchunk.retrieve.query.texts import InMemoryTexts

    fb = load_financebench(DATA / "financebench")
    docs = fb_docs(fb, pickled)
    questions = list(fb.questions)
    gold, _ = align_gold(questions, docs)
    at5, at10 = PageHit(5), PageHit(10)
    rows = []
    for strategy in (FBStrategy.BYTITLE, FBStrategy.BASE256):
        base = make_strategy(strategy, header=False)
        chunked = {s: chunk_all(docs, headed(base, s)) for s in HEADERS}
        chars = {s: header_chars(c) for s, c in chunked.items()}
        sources = {s: InMemoryTexts([c.text for c in ch]) for s, ch in chunked.items()}
        for name in ("bm25", "bm25-words"):
            for scope in (FBScope.DOCUMENT, FBScope.CORPUS):
                qs = scope_queries(scope, questions, None)
                per: dict[Measure, dict[str, dict[str, float]]] = {at5: {}, at10: {}}
                for s, ch in chunked.items():
                    run = rank(qs, ch, parse_retriever(name), 10, source=sources[s], pad=True)
                    sc = score(run, gold, [at5, at10])
                    for m in (at5, at10):
                        per[m][s] = dict(sc.per_query[m])
                where = "doc" if scope is FBScope.DOCUMENT else scope.value
                label = f"{strategy.value}/{name}/{where}"
                rows.append(
                    f"| {label:<24} | {100 * fmean(per[at5]['off'].values()):.1f} "
                    f"| {pct(per[at5])} | {100 * fmean(per[at10]['off'].values()):.1f} "
                    f"| {pct(per[at10])} | {chars['old']:.0f} → {chars['new']:.0f} |"
                )
                print(rows[-1], flush=True)
    return rows


def pct(per: dict[str, dict[str, float]]) -> str:
    c = compare(per["old"], per["new"])
    return f"{100 * c.mean_a:.1f} → {100 * c.mean_b:.1f} (+{c.wins}/−{c.losses})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("parts", nargs="*", default=["demo", "edgar", "fb"])
    ap.add_argument("--fb-docs", type=Path, default=None, help="pickled FinanceBench documents")
    args = ap.parse_args(argv)
    for part in args.parts:
        if part == "demo":
            print("\n".join(demo_rows()), flush=True)
        elif part == "edgar":
            print("\n".join(edgar_rows()), flush=True)
        elif part == "fb":
            fb_rows(args.fb_docs)
        else:
            print(f"unknown part {part!r}: demo, edgar, fb", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
