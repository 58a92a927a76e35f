"""What delivery choices do to recall: distinct pages, a slot per entity, budget packing.

Each choice against delivering the ranking as it is, on development data, with per-question
wins and losses and a paired-bootstrap 95 % interval (``evaluate.measures.compare``):

* the demo corpus (structure and fixed, header on, BM25): per-entity delivery on the
  questions that name several issuers, Recall@5; budget packing at 1,200 characters;
* FinanceBench (bm25-words; base128 and bytitle; document and corpus scopes): distinct
  pages, PageHit@10.

    python bench/delivery.py --financebench ../shared/data/financebench [--docs fb.pkl]

``--docs`` caches the parsed PDFs (pickle) between runs.
"""

from __future__ import annotations

import argparse
import pickle
import tempfile
from pathlib import Path

from finchunk.chunk import make_chunker
from finchunk.datasets import SampleConfig, generate, write_lesson_files
from finchunk.evaluate.corpus import read_corpus
from finchunk.evaluate.gold import gold_from_corpus
from finchunk.evaluate.harness import EvalSettings, Variant, queries, run_variant
from finchunk.evaluate.measures import Budget, Measure, PageHit, Recall, compare, score
from finchunk.retrieve.kinds import Distinct
from finchunk.retrieve.query.deliver import Delivery


def _line(label: str, m: Measure, a: dict[str, float], b: dict[str, float]) -> str:
    c = compare(a, b, str(m))
    noise = " (within noise)" if c.within_noise else ""
    return (
        f"  {label:42s} {c.mean_a:.3f} → {c.mean_b:.3f}  +{c.wins}/−{c.losses} of "
        f"{c.questions}, 95 % CI [{c.low:+.3f}, {c.high:+.3f}]{noise}"
    )


def demo_rows() -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        files = write_lesson_files(generate(SampleConfig()), Path(tmp))
        corpus = read_corpus(files.documents, files.passages, files.questions)
    gold = gold_from_corpus(corpus)
    rows = ["demo corpus (BM25, header on)"]
    for strategy in ("fixed", "structure"):
        v = Variant(strategy, make_chunker(strategy, header=True))
        plain = run_variant(corpus, v, 50)
        per = run_variant(corpus, v, 50, EvalSettings(delivery=Delivery(per_entity=True)))
        several = [q.id for q in queries(corpus, per_entity=True) if len(q.entities) > 1]
        m = Recall(5)
        a = {q: score(plain.run, gold, [m]).per_query[m][q] for q in several}
        b = {q: score(per.run, gold, [m]).per_query[m][q] for q in several}
        rows.append(_line(f"{strategy}: per entity, {len(several)} questions", m, a, b))
        stop, pack = Recall(Budget(1200)), Recall(Budget(1200, skip=True))
        s = score(plain.run, gold, [stop, pack])
        rows.append(_line(f"{strategy}: budget 1,200 packing vs stop", stop,
                          dict(s.per_query[stop]), dict(s.per_query[pack])))  # fmt: skip
    return rows


def financebench_rows(data: Path, docs_cache: Path | None) -> list[str]:
    from finchunk.datasets.financebench import load_financebench
    from finchunk.evaluate.financebench import (
        BenchConfig,
        FBScope,
        FBStrategy,
        Progress,
        align_gold,
        parse_documents,
        run_benchmark,
    )
    from finchunk.retrieve.query.retriever import parse_retriever

    fb = load_financebench(data)
    if docs_cache and docs_cache.is_file():
        docs = pickle.loads(docs_cache.read_bytes())
    else:
        docs = parse_documents(fb)
        if docs_cache:
            docs_cache.write_bytes(pickle.dumps(docs))
    rows = ["FinanceBench (bm25-words), distinct pages vs as ranked, PageHit@10"]
    runs: dict[str, dict[str, object]] = {}
    for name, delivery in (("ranked", Delivery()), ("page", Delivery(Distinct.PAGE))):
        cfg = BenchConfig(
            strategies=(FBStrategy.BASE128, FBStrategy.BYTITLE),
            scopes=(FBScope.DOCUMENT, FBScope.CORPUS),
            retrievers=(parse_retriever("bm25-words"),),
            ks=(10,),
            delivery=delivery,
        )
        got = runs.setdefault(name, {})
        run_benchmark(fb, cfg, Progress(run=lambda r, got=got: got.__setitem__(r.name, r)), docs)
    gold, _ = align_gold(list(fb.questions), docs)
    m = PageHit(10)
    for key in runs["ranked"]:
        a = score(runs["ranked"][key], gold, [m]).per_query[m]
        b = score(runs["page"][key], gold, [m]).per_query[m]
        rows.append(_line(key, m, dict(a), dict(b)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--financebench", type=Path, help="FinanceBench folder")
    ap.add_argument("--docs", type=Path, help="pickle cache of the parsed FinanceBench PDFs")
    args = ap.parse_args()
    for line in demo_rows():
        print(line)
    if args.financebench:
        for line in financebench_rows(args.financebench, args.docs):
            print(line)


if __name__ == "__main__":
    main()
