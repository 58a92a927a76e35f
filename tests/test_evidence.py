"""Evidence delivery: units finer than chunks, delivered within a budget with their context."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchunk.chunk import make_chunker
from finchunk.errors import InputError
from finchunk.model import merge_spans
from finchunk.parse.markdown import parse_markdown
from finchunk.retrieve.query.evidence import EvidenceSettings, deliver_evidence
from finchunk.retrieve.query.evidence_units import Hit, UnitCache, UnitIndex, element_units

REPORT = """# Annual report 2023 — Acme Corp

## Results

Revenue grew strongly in 2023 thanks to new contracts in the utilities segment.

The board proposes a dividend of 1.20 per share, paid in May.

| EUR million | 2023 | 2022 |
| --- | ---: | ---: |
| Revenue | 5,363 | 4,980 |
| EBITDA | 1,210 | 1,105 |
| Net income (1) | 612 | 540 |
| Free cash flow | 370 | 410 |

(1) Attributable to shareholders of the parent.

## Employees

Acme employed 19,779 people at year end, most of them in Spain.

## Risks

Interest rate risk is hedged with swaps covering 80 % of the gross debt.
"""


def _docs() -> dict:
    doc = parse_markdown(REPORT, "acme-2023", title="Acme 2023", metadata={"issuer": "Acme"})
    return {doc.id: doc}


def _hits(docs: dict) -> list[Hit]:
    doc = docs["acme-2023"]
    chunks = make_chunker("structure").chunk(doc)
    return [Hit(c.doc_id, c.spans, float(len(chunks) - i)) for i, c in enumerate(chunks)]


def test_delivers_the_table_with_its_header_once_per_section() -> None:
    docs = _docs()
    ev = deliver_evidence("What was Acme's revenue in 2023?", [_hits(docs)], docs, 600)
    text = ev.text()
    assert "| Revenue | 5,363 | 4,980 |" in text
    assert len(text) <= 600
    # one header line per (document, section) block, never repeated
    headers = [ev.header(d, s) for (d, s), _ in ev.blocks()]
    assert len(headers) == len(set(headers))
    for h in headers:
        assert text.count(h) == 1


def test_nothing_delivered_twice() -> None:
    docs = _docs()
    ev = deliver_evidence("revenue dividend employees risk", [_hits(docs)], docs, 5000)
    spans = [s for p in ev.pieces for s in p.all_spans]
    assert sum(e - s for s, e in spans) == sum(e - s for s, e in merge_spans(spans))


def test_long_table_rows_carry_the_header_rows_once() -> None:
    docs = _docs()
    doc = docs["acme-2023"]
    table = next(i for i, e in enumerate(doc.elements) if e.kind.value == "table")
    units = element_units(doc, table, unit_max=60, table_max=60)
    assert len(units) > 1
    assert all(doc.text[u.context[-1][0] : u.context[-1][1]].startswith("| EUR") for u in units)
    ev = deliver_evidence(
        "revenue EBITDA net income free cash flow",
        [_hits(docs)],
        docs,
        2000,
        settings=EvidenceSettings(unit_max=60, table_max=60),
    )
    assert ev.text().count("| EUR million | 2023 | 2022 |") == 1


@settings(max_examples=60, deadline=None)
@given(
    budget=st.integers(1, 1500),
    cite=st.booleans(),
    question=st.sampled_from(
        ["revenue 2023", "dividend per share", "employees", "interest rate swaps", "nothing here"]
    ),
)
def test_never_exceeds_the_budget(budget: int, cite: bool, question: str) -> None:
    docs = _docs()
    ev = deliver_evidence(question, [_hits(docs)], docs, budget, cite=cite)
    assert len(ev.text()) <= budget
    if not ev.pieces or ev.truncated:
        assert "too small" in ev.note  # said, never silent


def test_a_budget_too_small_delivers_the_best_units_start_and_says_so() -> None:
    docs = _docs()
    doc = docs["acme-2023"]
    hits = sorted(
        _hits(docs), key=lambda h: "19,779" not in doc.text[h.spans[0][0] : h.spans[-1][1]]
    )
    ev = deliver_evidence("How many people did Acme employ?", [hits], docs, 60)
    assert ev.truncated and "too small" in ev.note
    assert len(ev.text()) <= 60
    (piece,) = ev.pieces
    (start, end), whole = piece.spans[0], {e.start: e for e in doc.elements}
    assert start in whole and end < whole[start].end  # the start of a unit, cut


def test_groups_take_turns() -> None:
    """One ranking per entity: each gets a slot before any gets a second."""
    docs = _docs()
    hits = _hits(docs)
    doc = docs["acme-2023"]
    employees = [h for h in hits if "19,779" in doc.text[h.spans[0][0] : h.spans[-1][1]]]
    others = [h for h in hits if h not in employees]
    ev = deliver_evidence("revenue", [others, employees], docs, 400)
    assert any("19,779" in p.text(doc) for p in ev.pieces)


def test_json_holds_the_same_pieces_with_citations() -> None:
    docs = _docs()
    ev = deliver_evidence("revenue", [_hits(docs)], docs, 800, cite=True)
    data = json.loads(json.dumps(ev.to_json()))
    texts = [p["text"] for b in data["blocks"] for p in b["pieces"]]
    assert texts and all(t in ev.text() for t in texts)
    assert "[acme-2023 @" in ev.text()


def test_unit_index_scores_every_unit() -> None:
    docs = _docs()
    cache = UnitCache(docs)
    index = UnitIndex(cache)
    only = EvidenceSettings(weight=0.0)  # the units' own scores alone
    ev = deliver_evidence(
        "Acme employees", [_hits(docs)], docs, 300, settings=only, cache=cache, index=index
    )
    assert any("19,779" in p.text(docs["acme-2023"]) for p in ev.pieces)


def test_bad_budget_is_an_input_error() -> None:
    docs = _docs()
    with pytest.raises(InputError, match="--budget"):
        deliver_evidence("x", [_hits(docs)], docs, 0)


def test_eval_scores_evidence_at_every_budget(tmp_path) -> None:
    from finchunk.chunk import Structure
    from finchunk.evaluate.corpus import read_corpus
    from finchunk.evaluate.harness import EvalSettings, Variant, evaluate
    from tests.test_eval import write_corpus

    corpus = read_corpus(*write_corpus(tmp_path))
    report = evaluate(
        corpus, [Variant("structure", Structure())], [1], EvalSettings(budgets=(300, 900))
    )
    rows = [r for r in report["budgets"] if r["packing"] == "evidence"]
    assert [r["budget"] for r in rows] == [300, 900]
    for r in rows:
        assert r["chars"] <= r["budget"]
        assert set(r["by_type"]) == {q.type for q in corpus.answerable}


def test_search_evidence_cli(tmp_path) -> None:
    from typer.testing import CliRunner

    from finchunk.cli import app

    runner = CliRunner()
    built = runner.invoke(app, ["index", "tests/data/informe_ejemplo.md", "--out", str(tmp_path)])
    assert built.exit_code == 0, built.output
    args = ["search", str(tmp_path), "plantilla media", "--evidence"]
    out = runner.invoke(app, [*args, "--budget", "300"])
    assert out.exit_code == 0, out.output
    assert "9.870 personas" in out.stdout and "[informe_ejemplo @" in out.stdout
    data = json.loads(runner.invoke(app, [*args, "--budget-tokens", "80", "--json"]).stdout)
    ev = data["evidence"]
    assert ev["unit"] == "tokens" and ev["blocks"][0]["pieces"][0]["citation"]
    assert ev["size"] <= 80 and "9.870 personas" in ev["text"]
    bad = runner.invoke(app, ["search", str(tmp_path), "x", "--budget-tokens", "80"])
    assert bad.exit_code != 0 and "--budget-tokens" in bad.output


def test_token_budgets_belong_to_evidence_delivery() -> None:
    from finchunk.retrieve.query.deliver import EVIDENCE_BUDGET, Delivery

    with pytest.raises(InputError, match="--budget-tokens"):
        Delivery(budget=100, tokens=True)
    with pytest.raises(InputError, match="--budget-tokens"):
        Delivery(budget=0, evidence=True, tokens=True)
    assert Delivery(evidence=True).evidence_budget == EVIDENCE_BUDGET
    assert not Delivery(evidence=True).plain


def test_token_budget_is_never_exceeded() -> None:
    from finchunk.retrieve.query.evidence_units import cl100k_tokens

    docs = _docs()
    for budget in (5, 17, 40, 75, 120, 300):
        ev = deliver_evidence("revenue employees", [_hits(docs)], docs, budget, tokens=True)
        assert ev.unit == "tokens" and ev.pieces  # the best unit's start at the least
        assert cl100k_tokens(ev.text()) <= budget
    assert not deliver_evidence("revenue", [_hits(docs)], docs, 5, tokens=True).headers


class _KeywordEmbedder:
    """A fake embedder: a text's vector says whether it holds "employ" (a model's view of
    "staff" and "people employed" as one meaning), so the cosine ranks units BM25 cannot."""

    name = "keyword"
    dim = 2
    calls = 0

    def _vector(self, text: str) -> list[float]:
        import numpy as np

        on = "employ" in text.lower() or "staff" in text.lower()
        return np.array([1.0, 0.0] if on else [0.0, 1.0], dtype=np.float32)

    def embed_queries(self, texts):
        import numpy as np

        return np.stack([self._vector(t) for t in texts])

    def embed_passages(self, texts):
        import numpy as np

        type(self).calls += len(texts)
        return np.stack([self._vector(t) for t in texts])


def test_dense_share_ranks_units_by_the_embedder_and_embeds_each_once() -> None:
    docs = _docs()
    cache = UnitCache(docs)
    index = UnitIndex(cache, embedder=_KeywordEmbedder())
    only = EvidenceSettings(weight=0.0, dense=1.0)  # the cosine alone
    first = deliver_evidence(
        "staff", [_hits(docs)], docs, 160, settings=only, cache=cache, index=index
    )
    assert "19,779" in first.text()
    calls = _KeywordEmbedder.calls
    deliver_evidence("staff", [_hits(docs)], docs, 160, settings=only, cache=cache, index=index)
    assert _KeywordEmbedder.calls == calls  # vectors kept by text
    # without an embedder the dense share is ignored: BM25 alone, which "staff" misses
    plain = deliver_evidence("staff", [_hits(docs)], docs, 160, settings=only, cache=cache)
    assert "19,779" not in plain.text()


def test_adjacent_units_follow_the_delivered_one() -> None:
    docs = _docs()
    hits = _hits(docs)

    def delivered(adjacent: float) -> str:
        # one row a unit, scored by BM25 alone: only the net income row matches
        s = EvidenceSettings(unit_max=60, table_max=60, weight=0.0, adjacent=adjacent)
        ev = deliver_evidence("net income", [hits], docs, 180, settings=s)
        assert len(ev.text()) <= 180
        return ev.text()

    assert "| Net income (1) | 612 | 540 |" in delivered(1.0)
    assert "| EBITDA | 1,210 | 1,105 |" in delivered(1.0)  # the row before it
    assert "| EBITDA |" not in delivered(0.0)  # a zero-score unit in document order instead


@pytest.mark.parametrize(
    "field", [{"weight": 1.5}, {"splade": -0.1}, {"dense": 2.0}, {"splade": 0.6, "dense": 0.6}]
)
def test_bad_settings_are_input_errors(field) -> None:
    with pytest.raises(InputError, match="evidence"):
        EvidenceSettings(**field)
