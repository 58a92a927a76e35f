"""Equity research notes on the fictitious issuers: recommendation, target price, estimates.

The note's actual-year column repeats the figures of the issuer's latest annual report;
the estimates grow from them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from finchunk.datasets.draw import dec
from finchunk.datasets.issuers import Issuer
from finchunk.datasets.records import DocType, DocumentRecord, QuestionType
from finchunk.datasets.spanish import eur, fecha, meur, num, pct, q
from finchunk.datasets.writer import BuiltDoc, Drafts, MarkdownWriter, sup

QUOTA = {
    QuestionType.TEXTO: 3,
    QuestionType.TABLA: 2,
    QuestionType.NOTA_PIE: 1,
    QuestionType.CALCULO: 1,
    QuestionType.NO_RESPONDIBLE: 1,
}
FIRM = "Atalaya Research"
ANALYSTS = ("Clara Segura, CFA", "Diego Almansa", "Irene Valcárcel, CFA", "Pablo Urrutia")
RECOMMENDATIONS = ("Comprar", "Mantener", "Vender")
UNANSWERABLE = (
    "¿Qué recomendación da {firm} sobre los bonos de {co} en su nota de {y}?",
    "¿Cuántos analistas siguen a {co} según la nota de {firm} de {y}?",
    "¿Qué precio objetivo tenía {firm} para {co} a cinco años vista en {y}?",
)
RISKS = (
    "Retrasos en la ejecución del plan de inversiones.",
    "Cambios regulatorios que reduzcan la rentabilidad permitida.",
    "Subidas adicionales de los tipos de interés.",
    "Integración más lenta de lo previsto de las adquisiciones recientes.",
    "Presión competitiva sobre los precios.",
)


@dataclass(frozen=True, slots=True)
class _Estimates:
    years: tuple[str, ...]
    ingresos: tuple[Decimal, ...]
    ebitda: tuple[Decimal, ...]
    neto: tuple[Decimal, ...]  # recurring net profit
    bpa: tuple[Decimal, ...]
    dpa: tuple[Decimal, ...]


@dataclass
class _Ctx:
    issuer: Issuer
    year: int
    rng: random.Random
    doc_id: str
    est: _Estimates
    price: Decimal
    target: Decimal
    recommendation: str
    analyst: str
    when: date
    wacc: Decimal
    growth: Decimal
    at: dict[str, str] = field(default_factory=dict)
    cagr: str = ""
    seg_growth: str = ""
    history: list[tuple[str, str, Decimal, Decimal]] = field(default_factory=list)


def build_research_note(number: int, issuer: Issuer, year: int, rng: random.Random) -> BuiltDoc:
    """Research note ``number`` (1-based) on ``issuer`` after its ``year`` results."""
    c = _context(number, issuer, year, rng)
    title = f"Nota de análisis — {issuer.name}: resultados {year} y valoración"
    w = MarkdownWriter(c.doc_id, title)
    for write in _SECTIONS:
        write(w, c)
    record = DocumentRecord(c.doc_id, title, DocType.NOTA_ANALISIS, w.text(), issuer.name, year)
    d = Drafts(c.doc_id)
    for ask in _QUESTIONS:
        ask(d, c)
    return BuiltDoc(record, w.passages, d.pick(rng, QUOTA), dict(c.at))


def _context(number: int, issuer: Issuer, year: int, rng: random.Random) -> _Ctx:
    f = issuer.figures[year]
    est = _estimates(rng, issuer, year)
    price = q(f.cotizacion * dec(rng, "0.92", "1.08"), 2)
    rec = rng.choice(RECOMMENDATIONS)
    upside = {"Comprar": ("1.15", "1.40"), "Mantener": ("0.95", "1.12"), "Vender": ("0.70", "0.92")}
    target = q(price * dec(rng, *upside[rec]), 2)
    return _Ctx(
        issuer=issuer,
        year=year,
        rng=rng,
        doc_id=f"nota-{number:03d}-{issuer.slug}",
        est=est,
        price=price,
        target=target,
        recommendation=rec,
        analyst=rng.choice(ANALYSTS),
        when=date(year + 1, 3, rng.randint(1, 28)),
        wacc=dec(rng, "6.5", "9.5"),
        growth=dec(rng, "1.0", "2.5"),
    )


def _estimates(rng: random.Random, issuer: Issuer, year: int) -> _Estimates:
    f = issuer.figures[year]
    recurring = f.atribuible + q(f.deterioro * Decimal("0.75"))
    cols = [(f.ingresos, f.ebitda, recurring)]
    for _ in range(3):
        g = dec(rng, "-0.020", "0.090")
        ing, eb, ne = cols[-1]
        cols.append(
            (
                q(ing * (1 + g)),
                q(eb * (1 + g + dec(rng, "0.000", "0.020"))),
                q(ne * (1 + g + dec(rng, "-0.010", "0.030"))),
            )
        )
    payout = f.dpa / f.bpa if f.bpa else Decimal("0.5")
    bpa = tuple(q(ne / f.acciones, 2) for _, _, ne in cols)
    return _Estimates(
        years=(str(year), *(f"{year + k}e" for k in (1, 2, 3))),
        ingresos=tuple(c[0] for c in cols),
        ebitda=tuple(c[1] for c in cols),
        neto=tuple(c[2] for c in cols),
        bpa=bpa,
        dpa=(f.dpa, *(q(b * payout, 2) for b in bpa[1:])),
    )


# --- sections ---------------------------------------------------------------------------


def _header(w: MarkdownWriter, c: _Ctx) -> None:
    w.para(f"{FIRM} · Análisis de compañías · {fecha(c.when)}. Analista: {c.analyst}.")
    c.at["recommendation"] = w.para(
        f"Recomendación: {c.recommendation}. Precio objetivo a doce meses: {eur(c.target)} por "
        f"acción (cotización de referencia: {eur(c.price)})."
    )
    w.heading(2, "Resumen")
    co = c.issuer.name
    e = c.est
    cagr = q(((e.bpa[3] / e.bpa[0]) ** Decimal("0.3333333") - 1) * 100) if e.bpa[0] > 0 else 0
    c.cagr = pct(cagr)
    c.at["summary"] = w.bullets(
        [
            f"Los resultados de {c.year} de {co} han estado "
            f"{c.rng.choice(('en línea con', 'por encima de', 'por debajo de'))} nuestras "
            "estimaciones.",
            f"Estimamos un crecimiento anual compuesto del beneficio por acción del "
            f"{pct(cagr)} hasta {c.year + 3}.",
            "El balance permite financiar el plan de inversiones sin ampliar capital.",
            "La próxima actualización del plan estratégico puede actuar como catalizador.",
        ]
    )
    w.para(
        "Mantenemos una visión constructiva sobre la calidad de los activos del grupo, aunque "
        "el margen de revalorización depende de la ejecución del plan."
    )


def _valuation(w: MarkdownWriter, c: _Ctx) -> None:
    e = c.est
    w.heading(2, "Valoración")
    c.at["dcf"] = w.para(
        f"Valoramos {c.issuer.name} mediante descuento de flujos de caja, con un coste medio "
        f"ponderado del capital (WACC) del {pct(c.wacc)} y una tasa de crecimiento a "
        f"perpetuidad del {pct(c.growth)}."
    )
    c.at["estimates"] = w.table(
        ["Millones de euros", *e.years],
        [
            ["Ingresos", *(num(v) for v in e.ingresos)],
            ["EBITDA", *(num(v) for v in e.ebitda)],
            [f"Beneficio neto recurrente{sup(1)}", *(num(v) for v in e.neto)],
            ["BPA (euros)", *(num(v, 2) for v in e.bpa)],
            ["DPA (euros)", *(num(v, 2) for v in e.dpa)],
        ],
    )
    det = c.issuer.figures[c.year].deterioro
    c.at["fn_recurring"] = w.note(
        f"{sup(1)} Excluye el deterioro de activos de {meur(det)} registrado en {c.year}, "
        "neto de su efecto fiscal. Las cifras de años posteriores son estimaciones de "
        f"{FIRM}."
    )
    per = num(q(c.target / e.bpa[1], 1)) if e.bpa[1] > 0 else "n. s."
    w.para(
        f"Nuestro precio objetivo implica un PER de {per} veces el beneficio estimado para "
        f"{c.year + 1}, en línea con la media histórica del sector."
    )


def _thesis(w: MarkdownWriter, c: _Ctx) -> None:
    seg = c.issuer.sector.segments
    w.heading(2, "Tesis de inversión")
    c.seg_growth = pct(dec(c.rng, "2.0", "12.0"))
    c.at["thesis"] = w.para(
        f"El negocio de {seg[0]} seguirá siendo el motor del grupo: esperamos que sus ingresos "
        f"crezcan a un ritmo anual del {c.seg_growth} hasta {c.year + 3}."
    )
    w.para(
        f"En {seg[1]}, la mejora de márgenes dependerá de la disciplina en precios y de la "
        "contención de costes de personal."
    )
    w.para(
        f"Vemos {seg[2]} como una opción de crecimiento no recogida en el consenso, con "
        "necesidades de inversión moderadas."
    )
    w.heading(2, "Riesgos para nuestra valoración")
    w.bullets([RISKS[i] for i in sorted(c.rng.sample(range(len(RISKS)), 3))])


def _history(w: MarkdownWriter, c: _Ctx) -> None:
    w.heading(2, "Historial de recomendaciones")
    rows = []
    target = c.target
    for k in range(1, 5):
        when = date(c.when.year - (k + 1) // 2, 9 if k % 2 else 3, 15)
        target = q(target * dec(c.rng, "0.85", "1.05"), 2)
        price = q(target * dec(c.rng, "0.75", "1.05"), 2)
        rec = c.rng.choice(RECOMMENDATIONS)
        c.history.append((fecha(when), rec, target, price))
        rows.append([fecha(when), rec, num(target, 2), num(price, 2)])
    c.at["history"] = w.table(
        ["Fecha", "Recomendación", "Precio objetivo (euros)", "Cotización (euros)"],
        rows,
        numeric_from=2,
    )
    w.heading(2, "Información importante")
    w.para(
        f"Este informe ha sido elaborado por {FIRM} con fines exclusivamente informativos y "
        "no constituye una oferta ni una solicitud de compra o venta de valores."
    )
    w.para(
        f"{FIRM} no ha prestado servicios de banca de inversión a {c.issuer.name} en los "
        "últimos doce meses."
    )


_SECTIONS = (_header, _valuation, _thesis, _history)


# --- questions --------------------------------------------------------------------------


def _ask_text(d: Drafts, c: _Ctx) -> None:
    co, y, at = c.issuer.name, c.year, c.at
    t = QuestionType.TEXTO
    d.add(
        t,
        f"¿Qué aconseja hacer {FIRM} con las acciones de {co} tras sus resultados de {y}?",
        c.recommendation,
        [at["recommendation"]],
        [c.recommendation],
    )
    tp = eur(c.target)
    d.add(
        t,
        f"¿A qué precio cree {FIRM} que llegará la acción de {co} tras los resultados de {y}?",
        tp,
        [at["recommendation"]],
        [tp],
    )
    wacc = pct(c.wacc)
    d.add(
        t,
        f"¿Qué tasa de descuento emplea {FIRM} para valorar {co} tras las cuentas de {y}?",
        f"Un WACC del {wacc}",
        [at["dcf"]],
        [wacc],
    )
    g = c.seg_growth
    seg = c.issuer.sector.segments[0]
    d.add(
        t,
        f"¿A qué ritmo prevé {FIRM} que crezcan los ingresos de {seg} de {co} después de {y}?",
        f"Un {g} anual hasta {y + 3}",
        [at["thesis"]],
        [g],
    )
    d.add(
        t,
        f"¿Qué crecimiento anual compuesto del BPA prevé {FIRM} para {co} después de {y}?",
        c.cagr,
        [at["summary"]],
        [c.cagr],
    )


def _ask_table(d: Drafts, c: _Ctx) -> None:
    co, y, at, e = c.issuer.name, c.year, c.at, c.est
    t = QuestionType.TABLA
    v = num(e.ingresos[2])
    d.add(
        t,
        f"¿Qué ventas estima {FIRM} para {co} en {y + 2}?",
        f"{v} millones de euros",
        [at["estimates"]],
        [v],
    )
    v = num(e.bpa[1], 2)
    d.add(
        t,
        f"¿Qué beneficio por acción prevé {FIRM} para {co} en {y + 1}?",
        f"{v} euros",
        [at["estimates"]],
        [v],
    )
    when, _, target, _ = c.history[0]
    v = num(target, 2)
    d.add(
        t,
        f"¿Qué precio objetivo tenía {FIRM} para {co} el {when}?",
        f"{v} euros",
        [at["history"]],
        [v],
    )


def _ask_other(d: Drafts, c: _Ctx) -> None:
    co, y, at = c.issuer.name, c.year, c.at
    det = meur(c.issuer.figures[y].deterioro)
    d.add(
        QuestionType.NOTA_PIE,
        f"¿Qué partida elimina {FIRM} del beneficio de {co} de {y} para calcular el recurrente?",
        f"El deterioro de activos de {det}",
        [at["fn_recurring"]],
        [det],
    )
    upside = pct(q((c.target / c.price - 1) * 100))
    d.add(
        QuestionType.CALCULO,
        f"¿Qué potencial de revalorización ve {FIRM} en {co} tras los resultados de {y}?",
        upside,
        [at["recommendation"]],
        [num(c.target, 2), num(c.price, 2)],
    )
    dy = pct(q(c.est.dpa[1] / c.price * 100))
    d.add(
        QuestionType.CALCULO,
        f"¿Qué rentabilidad por dividendo para {y + 1} implica la "
        f"estimación de {FIRM} para {co} a la cotización de referencia?",
        dy,
        [at["estimates"], at["recommendation"]],
        [num(c.est.dpa[1], 2), num(c.price, 2)],
    )
    for text in UNANSWERABLE:
        d.unanswerable(text.format(firm=FIRM, co=co, y=y))


_QUESTIONS = (_ask_text, _ask_table, _ask_other)
