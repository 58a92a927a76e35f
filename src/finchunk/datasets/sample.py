"""Generate the sample corpus: annual reports, ETF prospectuses and KIDs, research notes.

``generate(SampleConfig())`` gives the lesson-sized corpus (21 documents, 920
passages, 264 questions at seed 0); larger configurations scale linearly. Every entity (issuer,
fund, document) draws from its own generator seeded by ``(seed, kind, index)``, so a
document does not change when the corpus around it grows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from finchunk.datasets.annual import QUOTA as ANNUAL_QUOTA
from finchunk.datasets.annual import build_annual
from finchunk.datasets.draw import seeded
from finchunk.datasets.fund_docs import QUOTA as FUND_QUOTA
from finchunk.datasets.fund_docs import build_fund_docs
from finchunk.datasets.funds import Fund, make_fund
from finchunk.datasets.issuers import Issuer, make_issuer
from finchunk.datasets.records import QuestionRecord, QuestionType, SampleConfig, SampleCorpus
from finchunk.datasets.research import QUOTA as NOTE_QUOTA
from finchunk.datasets.research import build_research_note
from finchunk.datasets.spanish import num, pct
from finchunk.datasets.writer import BuiltDoc, Draft

#: ``on_document(done, total)`` is called after each document is written.
Progress = Callable[[int, int], None]


def generate(
    config: SampleConfig | None = None, on_document: Progress | None = None
) -> SampleCorpus:
    """The corpus for ``config`` (default: the lesson's size, seed 0)."""
    config = config or SampleConfig()
    tick = _Ticker(config.documents, on_document)
    first = config.last_year - config.years + 1
    issuers = [make_issuer(config.seed, i, first, config.last_year) for i in range(config.issuers)]
    annual: dict[tuple[int, int], BuiltDoc] = {}
    built: list[BuiltDoc] = []
    for issuer in issuers:
        for year in range(first, config.last_year + 1):
            doc = build_annual(issuer, year, seeded(config.seed, "annual", issuer.index, year))
            annual[issuer.index, year] = doc
            built.append(tick(doc))
    funds = [make_fund(config.seed, k, config.last_year) for k in range(config.funds)]
    fund_docs: list[BuiltDoc] = []
    for fund in funds:
        rng = seeded(config.seed, "fund-docs", fund.index)
        for doc in build_fund_docs(fund, config.last_year, rng):
            built.append(tick(doc))
        fund_docs.append(built[-2])
    for n in range(config.notes):
        issuer = issuers[n % len(issuers)]
        rng = seeded(config.seed, "note", n)
        built.append(tick(build_research_note(n + 1, issuer, config.last_year, rng)))
    comparisons = [
        *_issuer_comparisons(issuers, annual, first, config.last_year),
        *_fund_comparisons(funds, fund_docs, config.last_year),
    ]
    return _assemble(built, comparisons)


def expected_question_counts(config: SampleConfig) -> dict[QuestionType, int]:
    """How many questions of each type ``generate(config)`` produces."""
    counts = dict.fromkeys(QuestionType, 0)
    reports = config.issuers * config.years
    for quota, n in (
        (ANNUAL_QUOTA, reports),
        (FUND_QUOTA, config.funds),
        (NOTE_QUOTA, config.notes),
    ):
        for tipo, k in quota.items():
            counts[tipo] += k * n
    counts[QuestionType.COMPARACION] = (
        len(_pairs(config.issuers)) * config.years
        + config.issuers * (config.years - 1 if config.years else 0)
        + len(_pairs(config.funds))
    )
    return counts


class _Ticker:
    __slots__ = ("done", "total", "callback")

    def __init__(self, total: int, callback: Progress | None) -> None:
        self.done, self.total, self.callback = 0, total, callback

    def __call__(self, doc: BuiltDoc) -> BuiltDoc:
        self.done += 1
        if self.callback is not None:
            self.callback(self.done, self.total)
        return doc


def _pairs(n: int) -> list[tuple[int, int]]:
    """Each item with the next one, cyclically; one pair for two items, none for fewer."""
    if n < 2:
        return []
    if n == 2:
        return [(0, 1)]
    return [(i, (i + 1) % n) for i in range(n)]


def _issuer_comparisons(
    issuers: list[Issuer], annual: dict[tuple[int, int], BuiltDoc], first: int, last: int
) -> Iterator[Draft]:
    t = QuestionType.COMPARACION
    for year in range(first, last + 1):
        for i, j in _pairs(len(issuers)):
            a, b = issuers[i], issuers[j]
            va, vb = a.figures[year].atribuible, b.figures[year].atribuible
            win, lose, vw, vl = (a, b, va, vb) if va >= vb else (b, a, vb, va)
            yield Draft(
                t,
                f"¿Qué compañía tuvo un mayor resultado neto atribuido en {year}, "
                f"{a.name} o {b.name}?",
                f"{win.name}: {num(vw)} millones de euros, frente a {num(vl)} millones de "
                f"{lose.name}",
                (annual[i, year].anchors["key_table"], annual[j, year].anchors["key_table"]),
                (num(va), num(vb)),
                (a.doc_id(year), b.doc_id(year)),
            )
    for issuer in issuers:
        for year in range(first + 1, last + 1):
            n0, n1 = issuer.figures[year - 1].plantilla, issuer.figures[year].plantilla
            verdict = "Aumentó" if n1 > n0 else "No aumentó"
            yield Draft(
                t,
                f"¿Aumentó la plantilla de {issuer.name} entre {year - 1} y {year}?",
                f"{verdict}: pasó de {num(n0, 0)} a {num(n1, 0)} personas",
                (
                    annual[issuer.index, year - 1].anchors["group"],
                    annual[issuer.index, year].anchors["group"],
                ),
                (num(n0, 0), num(n1, 0)),
                (issuer.doc_id(year - 1), issuer.doc_id(year)),
            )


def _fund_comparisons(funds: list[Fund], docs: list[BuiltDoc], year: int) -> Iterator[Draft]:
    for i, j in _pairs(len(funds)):
        a, b = funds[i], funds[j]
        pa, pb = pct(a.ogc, 2), pct(b.ogc, 2)
        if a.ogc == b.ogc:
            answer = f"Ninguno: ambos tienen unos gastos corrientes del {pa}"
        else:
            cheap, dear, pc, pd = (a, b, pa, pb) if a.ogc < b.ogc else (b, a, pb, pa)
            answer = f"El {cheap.name} ({pc}, frente al {pd} del {dear.name})"
        yield Draft(
            QuestionType.COMPARACION,
            f"Según sus KID de {year}, ¿qué ETF resulta más barato de mantener por gastos "
            f"corrientes, el {a.name} o el {b.name}?",
            answer,
            (docs[i].anchors["cost_parts"], docs[j].anchors["cost_parts"]),
            (pa, pb),
            (a.doc_ids()[1], b.doc_ids()[1]),
        )


def _assemble(built: list[BuiltDoc], comparisons: list[Draft]) -> SampleCorpus:
    documents = [b.record for b in built]
    passages = [p for b in built for p in b.passages]
    drafts = [d for b in built for d in b.drafts]
    drafts.extend(comparisons)
    questions = [_question(k, d) for k, d in enumerate(drafts, 1)]
    return SampleCorpus(documents, passages, questions)


def _question(number: int, d: Draft) -> QuestionRecord:
    return QuestionRecord(
        id_pregunta=f"q{number:06d}",
        pregunta=d.pregunta,
        respuesta_oro=d.respuesta,
        pasajes_oro=d.gold,
        tipo_pregunta=d.tipo,
        respondible=d.tipo is not QuestionType.NO_RESPONDIBLE,
        id_doc=d.docs,
        evidencia=d.evidencia,
    )
