"""Instructions do not cost recall: bare questions against the same questions carrying
instructions for the answering model, with the query plan's separation of the information
need (``retrieve/need.py``) on and off.

Each question of the EDGAR dev set (each filing scored as an index of its own, as ``finchunk
eval --scope document`` does) and of the Spanish demo corpus (one shared index) is asked
bare and with each template below appended (or, for the kinds that sit inside a question,
put before its final question mark). The templates were written for this bench, in English
and Spanish; none is taken from a benchmark. Printed: recall@5 of the bare questions, of the
instructed ones searched as asked (separation off) and as the plan searches them
(separation on), the drop in questions per hundred, and the questions lost (bare found more
of their gold than instructed).

    PYTHONPATH=src python bench/instructions.py --edgar ../shared/data/edgar [--demo] \\
        [--retriever bm25]

Acceptance (issue 37): with separation on, the drop is at most one question per hundred.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from finchunk.chunk import make_chunker
from finchunk.datasets import SampleConfig, generate, write_lesson_files
from finchunk.evaluate.corpus import Corpus, read_corpus
from finchunk.evaluate.gold import GoldSet, gold_from_corpus
from finchunk.evaluate.harness import chunk_corpus, queries
from finchunk.evaluate.measures import Recall, score
from finchunk.evaluate.quotes import build_quote_corpus, read_quote_questions
from finchunk.evaluate.runs import Run, rank
from finchunk.evaluate.scope import Scope
from finchunk.retrieve.cards import DocumentMap
from finchunk.retrieve.retriever import InMemoryTexts

ROOT = Path(__file__).resolve().parents[1]
K = 5

#: (kind, where it goes, text): ``end`` appended after the question, ``inside`` before its
#: final question mark (or at its end when it has none).
TEMPLATES: tuple[tuple[str, str, str], ...] = (
    ("length (en)", "end", "Keep your reply to two sentences at most."),
    ("missing data (en)", "end", "If the document does not say, reply that it is not disclosed."),
    ("unit (en)", "inside", "(in millions of dollars)"),
    ("source (en)", "inside", ", according to the company's annual filing"),
    ("output format (en)", "end", "Return the answer as JSON with the keys value and unit."),
    ("citation (en)", "end", "Please cite the page you used and do not speculate."),
    ("where to look (en)", "end", "Base your answer on the notes to the financial statements."),
    ("role (en)", "end", "You are a financial analyst. Answer for an investor."),
    ("length (es)", "end", "Responde en una sola frase, sin rodeos."),
    ("missing data (es)", "end", "Si el dato no aparece en el documento, indica 'no disponible'."),
    ("unit (es)", "inside", "(en miles de euros, redondeado a dos decimales)"),
    ("source (es)", "inside", " según el informe anual"),
    ("format (es)", "end", "Devuelve solo la cifra, sin explicaciones."),
)


def instructed(question: str, where: str, text: str) -> str:
    if where == "end":
        return f"{question.rstrip()} {text}"
    q = question.rstrip()
    head, mark = (q[:-1].rstrip(), "?") if q.endswith("?") else (q, "")
    glue = "" if text.startswith((",", " ")) else " "
    return f"{head}{glue}{text}{mark}"


def edgar_corpus(edgar: Path) -> Corpus:
    questions = read_quote_questions(ROOT / "devsets" / "edgar_dev.jsonl")
    return build_quote_corpus(questions, edgar).corpus


def demo_corpus() -> Corpus:
    with tempfile.TemporaryDirectory() as tmp:
        files = write_lesson_files(generate(SampleConfig()), Path(tmp))
        return read_corpus(files.documents, files.passages, files.questions)


def _recalls(run: Run, gold: GoldSet, prefix: str, ids: Sequence[str]) -> dict[str, float]:
    """Recall@K per question of the run's questions ``PREFIX|id``."""
    own = Run(prefix, {q: run.get(f"{prefix}|{q}") for q in ids})
    s = score(own, gold, [Recall(K)])
    return dict(s.per_query[Recall(K)])


def measure(label: str, corpus: Corpus, scope: Scope, retriever: str) -> list[str]:
    gold = gold_from_corpus(corpus)
    chunks = chunk_corpus(corpus, make_chunker("structure", header=True))
    texts = [c.text for c in chunks]
    source = InMemoryTexts(texts, DocumentMap.of([c.doc_id for c in chunks], corpus.documents))
    base = queries(corpus, scope)
    ids = [q.id for q in base]
    asked = [replace(q, id=f"bare|{q.id}") for q in base]
    for n, (_, where, text) in enumerate(TEMPLATES):
        asked += [replace(q, id=f"{n}|{q.id}", text=instructed(q.text, where, text)) for q in base]
    runs = {
        on: rank(asked, chunks, retriever, K, texts=texts, source=source, instructions=not on)
        for on in (False, True)
    }
    bare = _recalls(runs[True], gold, "bare", ids)
    bare_off = _recalls(runs[False], gold, "bare", ids)
    mean = sum(bare.values()) / len(ids)
    out = [
        f"{label}: {len(ids)} questions, {scope.value} scope, {retriever}, recall@{K}",
        f"  bare: {mean:.3f} (separation on), {sum(bare_off.values()) / len(ids):.3f} (off)",
        f"  {'template':22s} {'off':>6s} {'on':>6s}  {'drop/100 off':>12s} {'on':>6s}"
        f"  {'lost off':>8s} {'on':>4s}",
    ]
    drops = {False: [], True: []}
    for n, (kind, _, _) in enumerate(TEMPLATES):
        cells, lost = [], []
        for on in (False, True):
            got = _recalls(runs[on], gold, str(n), ids)
            ref = bare if on else bare_off
            r = sum(got.values()) / len(ids)
            drops[on].append(100 * (sum(ref.values()) / len(ids) - r))
            cells.append(r)
            lost.append(sum(got[q] < ref[q] - 1e-9 for q in ids))
        out.append(
            f"  {kind:22s} {cells[0]:6.3f} {cells[1]:6.3f}  {drops[False][-1]:12.2f} "
            f"{drops[True][-1]:6.2f}  {lost[0]:8d} {lost[1]:4d}"
        )
    for on in (False, True):
        worst = max(drops[on])
        avg = sum(drops[on]) / len(drops[on])
        state = "on " if on else "off"
        verdict = ("ok" if worst <= 1.0 else "over 1 per 100") if on else ""
        out.append(
            f"  separation {state}: mean drop {avg:.2f}/100, worst {worst:.2f}/100 {verdict}"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edgar", type=Path, help="the shared EDGAR folder")
    ap.add_argument("--demo", action="store_true", help="also the Spanish demo corpus")
    ap.add_argument("--retriever", default="bm25")
    args = ap.parse_args()
    if args.edgar:
        for line in measure("EDGAR dev set", edgar_corpus(args.edgar), Scope.DOCUMENT,
                            args.retriever):  # fmt: skip
            print(line, flush=True)
    if args.demo:
        for line in measure("demo corpus", demo_corpus(), Scope.CORPUS, args.retriever):
            print(line, flush=True)


if __name__ == "__main__":
    main()
