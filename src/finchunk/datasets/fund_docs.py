"""Prospectus (folleto) and key information document (KID) of a fictitious UCITS ETF."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal

from finchunk.datasets.funds import (
    AUDITOR,
    DEPOSITARY,
    MANAGER,
    UMBRELLA,
    AssetClass,
    Fund,
)
from finchunk.datasets.records import DocType, DocumentRecord, QuestionType
from finchunk.datasets.spanish import MONTHS, fecha, meur, num, pct, q
from finchunk.datasets.writer import BuiltDoc, Drafts, MarkdownWriter, sup

QUOTA = {
    QuestionType.TEXTO: 3,
    QuestionType.TABLA: 3,
    QuestionType.NOTA_PIE: 1,
    QuestionType.TEXTO_Y_NOTA: 1,
    QuestionType.TABLA_Y_NOTA: 1,
    QuestionType.CALCULO: 1,
    QuestionType.NO_RESPONDIBLE: 1,
}

EXCHANGES = ("Bolsa de Madrid", "Xetra", "Euronext Ámsterdam", "Borsa Italiana", "SIX Swiss")
RISKS = {
    AssetClass.EQUITY: (
        "Riesgo de mercado: el valor de las acciones puede bajar de forma significativa.",
        "Riesgo de concentración: la cartera puede concentrarse en pocos sectores o países.",
        "Riesgo de divisa: parte de los activos cotiza en monedas distintas del euro.",
        "Riesgo de réplica: la rentabilidad puede desviarse de la del índice.",
        "Riesgo de contraparte en el préstamo de valores.",
        "Riesgo de liquidez en el mercado secundario de las participaciones.",
    ),
    AssetClass.GOVERNMENT: (
        "Riesgo de tipo de interés: el precio de los bonos baja cuando suben los tipos.",
        "Riesgo de crédito soberano: un Estado emisor puede ver rebajada su calificación.",
        "Riesgo de réplica: la rentabilidad puede desviarse de la del índice.",
        "Riesgo de contraparte en el préstamo de valores.",
        "Riesgo de liquidez en el mercado secundario de las participaciones.",
    ),
    AssetClass.CORPORATE: (
        "Riesgo de tipo de interés: el precio de los bonos baja cuando suben los tipos.",
        "Riesgo de crédito: un emisor puede incumplir el pago de cupones o del principal.",
        "Riesgo de diferencial: el margen exigido a los bonos corporativos puede ampliarse.",
        "Riesgo de réplica: la rentabilidad puede desviarse de la del índice.",
        "Riesgo de liquidez de los bonos en momentos de tensión.",
    ),
}
RISK_WORDS = {
    1: "muy baja",
    2: "baja",
    3: "media baja",
    4: "media",
    5: "media alta",
    6: "alta",
    7: "muy alta",
}
UNANSWERABLE = (
    "¿Cuántos partícipes tenía el {f} a cierre de {y}?",
    "¿Qué calificación ESG otorgó una agencia externa al {f} en {y}?",
    "¿Qué volumen medio diario se negoció del {f} en la Bolsa de Madrid en {y}?",
    "¿Qué rentabilidad obtuvo el {f} durante el primer trimestre de {y}?",
)


@dataclass
class _Ctx:
    fund: Fund
    year: int
    rng: random.Random
    at: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.fund.name


def build_fund_docs(fund: Fund, year: int, rng: random.Random) -> tuple[BuiltDoc, BuiltDoc]:
    """The prospectus (with the fund's picked questions) and the KID of ``fund``."""
    c = _Ctx(fund, year, rng)
    folleto_id, kid_id = fund.doc_ids()
    title = f"Folleto informativo — {fund.name}"
    w = MarkdownWriter(folleto_id, title)
    for write in _PROSPECTUS:
        write(w, c)
    folleto = DocumentRecord(folleto_id, title, DocType.FOLLETO, w.text(), fund.name, year)
    kid_title = f"Documento de datos fundamentales — {fund.name}"
    k = MarkdownWriter(kid_id, kid_title)
    for write in _KID:
        write(k, c)
    kid = DocumentRecord(kid_id, kid_title, DocType.KID, k.text(), fund.name, year)
    drafts = Drafts(folleto_id)
    for ask in _QUESTIONS:
        ask(drafts, c, kid_id)
    picked = drafts.pick(rng, QUOTA)
    return (
        BuiltDoc(folleto, w.passages, picked, dict(c.at)),
        BuiltDoc(kid, k.passages, [], {}),
    )


# --- prospectus -------------------------------------------------------------------------


def _p_general(w: MarkdownWriter, c: _Ctx) -> None:
    f, y = c.fund, c.year
    w.para(
        f"Subfondo de {UMBRELLA}, sociedad de inversión de capital variable con estructura "
        "paraguas y responsabilidad segregada entre subfondos, autorizada por el Banco Central "
        f"de Irlanda. Sociedad gestora: {MANAGER} Folleto actualizado a 31 de diciembre de {y}."
    )
    w.heading(2, "1. Datos generales")
    exchanges = sorted(c.rng.sample(range(len(EXCHANGES)), 3))
    policy = "Distribución semestral" if f.distributes else "Acumulación"
    c.at["data"] = w.bullets(
        [
            f"Código ISIN: {f.isin}.",
            "Moneda base: euro.",
            f"Fecha de lanzamiento: {fecha(f.launch)}.",
            f"Política de dividendos: {policy}.",
            f"Índice de referencia: {f.theme.index}.",
            f"Bolsas de cotización: {', '.join(EXCHANGES[i] for i in exchanges)}.",
            f"Patrimonio a 31 de diciembre de {y}: {meur(f.aum)}.",
        ]
    )
    income = (
        "reparte los dividendos netos cobrados dos veces al año, en junio y diciembre"
        if f.distributes
        else "reinvierte en el propio fondo todos los rendimientos que obtiene"
    )
    w.para(f"La clase de participaciones {f.share_class} {income}.")


def _p_policy(w: MarkdownWriter, c: _Ctx) -> None:
    f, y = c.fund, c.year
    w.heading(2, "2. Objetivo y política de inversión")
    w.para(
        "El objetivo del fondo es replicar, antes de comisiones y gastos, la rentabilidad del "
        f"índice {f.theme.index}, que representa la evolución de {f.theme.universe}."
    )
    c.at["replication"] = w.para(
        f"Para ello aplica una estrategia de {f.replication}, invirtiendo directamente en los "
        "valores que componen el índice en proporciones similares a las de este."
    )
    c.at["lending"] = w.para(
        "El fondo podrá prestar valores de su cartera hasta un máximo del "
        f"{pct(f.lending_max, 0)} de su patrimonio{sup(1)}, a cambio de garantías de elevada "
        "calidad crediticia que se valoran diariamente."
    )
    c.at["fn_lending"] = w.note(
        f"{sup(1)} En {y}, la proporción media de la cartera prestada fue del "
        f"{pct(f.lending_avg)}; los ingresos netos se repartieron en un {f.lending_share} % "
        f"para el fondo y un {100 - f.lending_share} % para el agente de préstamo."
    )
    w.para(
        "El fondo solo utiliza derivados, principalmente futuros sobre el índice, para "
        "gestionar la liquidez y reducir los costes de réplica."
    )


def _p_index(w: MarkdownWriter, c: _Ctx) -> None:
    f = c.fund
    w.heading(2, "3. Índice de referencia")
    c.at["constituents"] = w.para(
        f"El índice {f.theme.index} está compuesto por {num(f.constituents, 0)} valores, "
        "ponderados por capitalización o valor nominal en circulación, y se revisa cada "
        "trimestre."
    )
    label = {
        AssetClass.EQUITY: "Sector",
        AssetClass.GOVERNMENT: "País",
        AssetClass.CORPORATE: "Calificación crediticia",
    }[f.theme.asset]
    c.at["breakdown"] = w.table([label, "Peso (%)"], [[lab, num(v, 2)] for lab, v in f.breakdown])
    w.para(
        "El proveedor del índice es Cenit Índices, S.L., entidad independiente de la gestora, "
        "que publica la metodología completa en su sitio web."
    )


def _p_portfolio(w: MarkdownWriter, c: _Ctx) -> None:
    f, y = c.fund, c.year
    w.heading(2, "4. Cartera")
    w.para(f"A 31 de diciembre de {y}, las principales posiciones de la cartera eran estas:")
    rows = [[n, country, sector, num(wt, 2)] for n, country, sector, wt in f.holdings]
    if f.rest:
        rows.append(["Resto de posiciones", "", "", num(f.rest, 2)])
    rows.append([f"Liquidez y derivados{sup(2)}", "", "", num(f.liquidity, 2)])
    c.at["holdings"] = w.table(["Valor", "País", "Sector", "Peso (%)"], rows, numeric_from=3)
    c.at["fn_futures"] = w.note(
        f"{sup(2)} Incluye futuros sobre el índice con una exposición nocional del "
        f"{pct(f.futures)} del patrimonio, utilizados para gestionar suscripciones y reembolsos."
    )


def _p_returns(w: MarkdownWriter, c: _Ctx) -> None:
    f, y = c.fund, c.year
    w.heading(2, "5. Rentabilidad histórica")
    w.para(
        "La tabla recoge la rentabilidad anual del fondo y de su índice de referencia. Las "
        "rentabilidades pasadas no son un indicador fiable de resultados futuros."
    )
    rows = [[str(yr), num(r, 2), num(ix, 2)] for yr, r, ix in f.returns]
    rows[-1][1] += sup(3)
    c.at["returns"] = w.table(["Año", "Fondo (%)", "Índice (%)"], rows)
    c.at["fn_returns"] = w.note(
        f"{sup(3)} Incluye {num(f.lending_return, 2)} puntos porcentuales procedentes de los "
        f"ingresos por préstamo de valores obtenidos en {y}."
    )


def _p_costs_risks(w: MarkdownWriter, c: _Ctx) -> None:
    f = c.fund
    w.heading(2, "6. Comisiones y gastos")
    c.at["max_fee"] = w.para(
        f"La comisión de gestión máxima es del {pct(f.max_fee, 2)} anual sobre el patrimonio "
        "y se devenga diariamente. La gestora no cobra comisiones de suscripción ni de "
        "reembolso en el mercado secundario, aunque los intermediarios pueden aplicar las suyas."
    )
    w.para(
        "Los gastos corrientes efectivamente soportados se detallan en el documento de datos "
        "fundamentales del fondo."
    )
    w.heading(2, "7. Riesgos")
    w.para("Antes de invertir, lea con atención la descripción de los siguientes riesgos:")
    risks = RISKS[f.theme.asset]
    w.bullets([risks[i] for i in sorted(c.rng.sample(range(len(risks)), 4))])
    w.para("El fondo no ofrece garantía de capital ni de rentabilidad.")


def _p_other(w: MarkdownWriter, c: _Ctx) -> None:
    w.heading(2, "8. Fiscalidad")
    w.para(
        "Los inversores residentes en España tributan por las ganancias obtenidas en la venta "
        "de las participaciones y, en su caso, por los dividendos recibidos."
    )
    w.para(
        "Las participaciones de fondos cotizados registrados en el extranjero no pueden "
        "acogerse al régimen de traspasos sin tributación."
    )
    w.heading(2, "9. Información adicional")
    c.at["depositary"] = w.para(
        f"El valor liquidativo se calcula cada día hábil. El depositario es {DEPOSITARY} y el "
        f"auditor, {AUDITOR}"
    )
    w.para(
        "El folleto, los informes periódicos y la composición diaria de la cartera están "
        "disponibles gratuitamente en el sitio web de la gestora."
    )


_PROSPECTUS = (_p_general, _p_policy, _p_index, _p_portfolio, _p_returns, _p_costs_risks, _p_other)


# --- KID --------------------------------------------------------------------------------


def _k_product(w: MarkdownWriter, c: _Ctx) -> None:
    f, y = c.fund, c.year
    w.para(
        "Finalidad: este documento le proporciona información fundamental sobre este producto "
        "de inversión. No se trata de material de promoción comercial."
    )
    w.heading(2, "Producto")
    w.bullets(
        [
            f"Nombre: {f.name}.",
            f"ISIN: {f.isin}.",
            f"Productor: {MANAGER}",
            "Autoridad competente: Banco Central de Irlanda.",
            f"Fecha de elaboración: 31 de diciembre de {y}.",
        ]
    )
    w.heading(2, "¿Qué es este producto?")
    w.para(f"Tipo: participaciones de un subfondo de {UMBRELLA}, un OICVM cotizado.")
    w.para(
        f"Objetivos: replicar la evolución del índice {f.theme.index} con una estrategia de "
        f"{f.replication}."
    )
    c.at["kid_horizon"] = w.para(
        "Inversor minorista al que va dirigido: inversores con conocimientos básicos que "
        f"puedan soportar pérdidas y tengan un horizonte de al menos {f.holding_years} años."
    )


def _k_risk(w: MarkdownWriter, c: _Ctx) -> None:
    f = c.fund
    w.heading(2, "¿Qué riesgos corro y qué podría obtener?")
    c.at["sri"] = w.para(
        f"Hemos clasificado este producto en la clase de riesgo {f.sri} en una escala de 1 a "
        f"7, que es una clase de riesgo {RISK_WORDS[f.sri]}. El indicador presupone que usted "
        f"mantendrá el producto durante {f.holding_years} años."
    )
    rows = []
    for s in f.scenarios:
        label = f"{s.label}{sup(1)}" if s.label == "Desfavorable" else s.label
        rows.append(
            [
                f"{label}: lo que podría recibir tras deducir los costes",
                f"{num(s.amount_1y, 0)} EUR",
                f"{num(s.amount_nyears, 0)} EUR",
            ]
        )
        rows.append(
            [f"{s.label}: rendimiento medio cada año", pct(s.return_1y), pct(s.return_nyears)]
        )
    c.at["scenarios"] = w.table(
        ["Escenarios (inversión de 10.000 EUR)", "1 año", f"{f.holding_years} años"], rows
    )
    start, end = f.unfavourable_window
    c.at["fn_scenario"] = w.note(
        f"{sup(1)} Este tipo de escenario se produjo para una inversión entre "
        f"{MONTHS[start.month - 1]} de {start.year} y {MONTHS[end.month - 1]} de {end.year}."
    )
    w.heading(2, "¿Qué pasa si Meridiano Gestión no puede pagar?")
    w.para(
        "Los activos del fondo están custodiados por el depositario y separados de los de la "
        "gestora, por lo que una insolvencia de esta no afectaría a su inversión."
    )


def _costs(f: Fund) -> tuple[Decimal, Decimal, Decimal, Decimal]:
    """Total costs in euros after 1 and N years on 10,000 EUR, and the yield before/after."""
    annual = f.ogc + f.transaction_costs
    moderate = f.scenarios[2].return_nyears
    one = q(Decimal(100) * annual, 0)
    years = f.holding_years
    many = q(Decimal(100) * annual * years * (1 + moderate / 100 * (years - 1) / 2), 0)
    return one, many, moderate + annual, moderate


def _k_costs(w: MarkdownWriter, c: _Ctx) -> None:
    f = c.fund
    w.heading(2, "¿Cuáles son los costes?")
    w.para(
        "La persona que le venda este producto o le asesore al respecto puede cobrarle otros "
        "costes. Hemos supuesto una inversión de 10.000 EUR y el escenario moderado."
    )
    one, many, before, after = _costs(f)
    annual = pct(f.ogc + f.transaction_costs, 2)
    c.at["cost_time"] = w.table(
        [
            "Inversión de 10.000 EUR",
            "Salida después de 1 año",
            f"Salida después de {f.holding_years} años",
        ],
        [
            ["Costes totales", f"{num(one, 0)} EUR", f"{num(many, 0)} EUR"],
            [f"Incidencia anual de los costes{sup(2)}", annual, annual],
        ],
    )
    c.at["fn_yield"] = w.note(
        f"{sup(2)} Si sale al final del período de mantenimiento recomendado, se prevé que su "
        f"rentabilidad media anual sea del {pct(before, 2)} antes de deducir los costes y del "
        f"{pct(after, 2)} después de deducirlos."
    )
    c.at["cost_parts"] = w.table(
        ["Composición de los costes", "Descripción", "Importe anual"],
        [
            ["Costes de entrada", "No cobramos comisión de entrada.", "0 EUR"],
            ["Costes de salida", "No cobramos comisión de salida.", "0 EUR"],
            [
                f"Gastos corrientes{sup(3)}",
                f"{pct(f.ogc, 2)} del valor de su inversión al año.",
                f"{num(f.ogc * 100, 0)} EUR",
            ],
            [
                "Costes de operación",
                f"{pct(f.transaction_costs, 2)} del valor de su inversión al año.",
                f"{num(f.transaction_costs * 100, 0)} EUR",
            ],
            ["Comisiones de rendimiento", "No se aplican.", "0 EUR"],
        ],
        numeric_from=2,
    )
    c.at["fn_fees"] = w.note(
        f"{sup(3)} Se basan en los gastos del ejercicio cerrado a 31 de diciembre de "
        f"{c.year} e incluyen una comisión de gestión del {pct(f.management_fee, 2)} y gastos "
        f"de depositaría y administración del {pct(f.depositary_fee, 2)}."
    )


def _k_other(w: MarkdownWriter, c: _Ctx) -> None:
    f = c.fund
    w.heading(2, "¿Cuánto tiempo debo mantener la inversión y puedo retirar el dinero?")
    w.para(
        f"Período de mantenimiento recomendado: {f.holding_years} años. Puede vender sus "
        "participaciones en bolsa cualquier día hábil sin penalización por parte del fondo."
    )
    w.heading(2, "¿Cómo puedo reclamar?")
    w.para(
        "Puede presentar su reclamación por escrito al servicio de atención al cliente de la "
        "gestora, que responderá en un plazo máximo de dos meses."
    )
    w.heading(2, "Otros datos de interés")
    w.para(
        "El folleto, los informes anuales y semestrales y la rentabilidad histórica de los "
        "últimos años están disponibles gratuitamente en español en el sitio web de la gestora."
    )


_KID = (_k_product, _k_risk, _k_costs, _k_other)


# --- questions --------------------------------------------------------------------------


def _ask_text(d: Drafts, c: _Ctx, kid: str) -> None:
    f, n, y, at = c.fund, c.name, c.year, c.at
    t = QuestionType.TEXTO
    d.add(
        t,
        f"¿Cómo replica su índice el {n} según el folleto de {y}?",
        f.replication,
        [at["replication"]],
        [f.replication],
    )
    lend = pct(f.lending_max, 0)
    d.add(
        t,
        f"¿Qué parte de su patrimonio puede ceder en préstamo el {n}, según el folleto de {y}?",
        f"Hasta el {lend}",
        [at["lending"]],
        [lend],
    )
    sri = f"clase de riesgo {f.sri}"
    d.add(
        t,
        f"¿Qué indicador de riesgo tiene asignado el {n} en su documento de datos "
        f"fundamentales de {y}?",
        f"La {sri} (escala de 1 a 7)",
        [at["sri"]],
        [sri],
        docs=[kid],
    )
    cons = num(f.constituents, 0)
    d.add(
        t,
        f"¿Cuántos componentes tiene el índice que sigue el {n} según el folleto de {y}?",
        f"{cons} valores",
        [at["constituents"]],
        [cons],
    )
    aum = num(f.aum)
    d.add(
        t,
        f"¿Cuánto patrimonio gestionaba el {n} al cierre de {y}?",
        f"{aum} millones de euros",
        [at["data"]],
        [aum],
    )
    launch = fecha(f.launch)
    d.add(t, f"¿Cuándo se lanzó el {n}, según su folleto de {y}?", launch, [at["data"]], [launch])


def _ask_table(d: Drafts, c: _Ctx, kid: str) -> None:
    f, n, y, at = c.fund, c.name, c.year, c.at
    t = QuestionType.TABLA
    top, _, _, weight = f.holdings[0]
    d.add(
        t,
        f"¿Qué peso tenía {top} en la cartera del {n} a final de {y}?",
        f"{num(weight, 2)} %",
        [at["holdings"]],
        [num(weight, 2)],
    )
    label, share = f.breakdown[0]
    what = {
        AssetClass.EQUITY: f"al sector {label}",
        AssetClass.GOVERNMENT: f"a deuda de {label}",
        AssetClass.CORPORATE: f"a bonos con calificación {label}",
    }[f.theme.asset]
    d.add(
        t,
        f"¿Qué porcentaje del índice del {n} corresponde {what}, según el folleto de {y}?",
        f"{num(share, 2)} %",
        [at["breakdown"]],
        [num(share, 2)],
    )
    yr, ret, _ = f.returns[-2]
    d.add(t, f"¿Cuánto rentó el {n} en {yr}?", f"{num(ret, 2)} %", [at["returns"]], [num(ret, 2)])
    fav = f.scenarios[3]
    amount = f"{num(fav.amount_1y, 0)} EUR"
    d.add(
        t,
        f"En el escenario favorable del KID de {y}, ¿cuánto recuperaría al cabo de un año "
        f"quien invierta 10.000 euros en el {n}?",
        amount,
        [at["scenarios"]],
        [amount],
        docs=[kid],
    )
    ogc = pct(f.ogc, 2)
    d.add(
        t,
        f"¿Qué gastos corrientes anuales soporta el {n} según su KID de {y}?",
        ogc,
        [at["cost_parts"]],
        [ogc],
        docs=[kid],
    )


def _ask_notes(d: Drafts, c: _Ctx, kid: str) -> None:
    f, n, y, at = c.fund, c.name, c.year, c.at
    t = QuestionType.NOTA_PIE
    avg = pct(f.lending_avg)
    d.add(
        t,
        f"¿Qué porcentaje medio de la cartera del {n} estuvo prestado en {y}?",
        avg,
        [at["fn_lending"]],
        [avg],
    )
    fut = pct(f.futures)
    d.add(
        t,
        f"¿Qué exposición a futuros tenía el {n} al cierre de {y}?",
        f"Una exposición nocional del {fut} del patrimonio",
        [at["fn_futures"]],
        [fut],
    )
    start, end = f.unfavourable_window
    d.add(
        t,
        f"¿En qué período se basa el escenario desfavorable del KID de {y} del {n}?",
        f"De {MONTHS[start.month - 1]} de {start.year} a {MONTHS[end.month - 1]} de {end.year}",
        [at["fn_scenario"]],
        [str(start.year), str(end.year)],
        docs=[kid],
    )


def _ask_combined(d: Drafts, c: _Ctx, kid: str) -> None:
    f, n, y, at = c.fund, c.name, c.year, c.at
    lend, avg = pct(f.lending_max, 0), pct(f.lending_avg)
    d.add(
        QuestionType.TEXTO_Y_NOTA,
        f"¿Cuánto puede prestar como máximo el {n} y cuánto prestó de media en {y}?",
        f"Hasta el {lend}; de media, el {avg}",
        [at["lending"], at["fn_lending"]],
        [lend, avg],
    )
    max_fee, fee = pct(f.max_fee, 2), pct(f.management_fee, 2)
    d.add(
        QuestionType.TEXTO_Y_NOTA,
        f"¿Qué comisión de gestión máxima permite el folleto del {n} y cuál se aplicó en {y}?",
        f"Máxima del {max_fee}; aplicada del {fee}",
        [at["max_fee"], at["fn_fees"]],
        [max_fee, fee],
        docs=[d.doc_id, kid],
    )
    t = QuestionType.TABLA_Y_NOTA
    ret, pts = num(f.returns[-1][1], 2), num(f.lending_return, 2)
    d.add(
        t,
        f"¿Qué rentabilidad logró el {n} en {y} y cuánto aportó el préstamo de valores?",
        f"{ret} %, de los que {pts} puntos proceden del préstamo de valores",
        [at["returns"], at["fn_returns"]],
        [ret, pts],
    )
    ogc, fee = pct(f.ogc, 2), pct(f.management_fee, 2)
    d.add(
        t,
        f"¿Qué gastos corrientes tiene el {n} según el KID de {y} y qué comisión de "
        "gestión incluyen?",
        f"{ogc}, que incluyen una comisión de gestión del {fee}",
        [at["cost_parts"], at["fn_fees"]],
        [ogc, fee],
        docs=[kid],
    )
    liq, fut = num(f.liquidity, 2), pct(f.futures)
    d.add(
        t,
        f"¿Cuánto pesaban la liquidez y los derivados en el {n} a cierre de {y} y qué "
        "exposición a futuros incluían?",
        f"{liq} %, con una exposición nocional del {fut}",
        [at["holdings"], at["fn_futures"]],
        [liq, fut],
    )


def _ask_calculation(d: Drafts, c: _Ctx, kid: str) -> None:
    f, n, y, at = c.fund, c.name, c.year, c.at
    t = QuestionType.CALCULO
    yr, ret, ix = f.returns[-2]
    gap = num(ret - ix, 2)
    d.add(
        t,
        f"¿Por cuántos puntos se desvió el {n} de su índice en {yr}?",
        f"{gap} puntos porcentuales",
        [at["returns"]],
        [num(ret, 2), num(ix, 2)],
    )
    top3 = f.holdings[:3]
    total = num(sum((h[3] for h in top3), Decimal(0)), 2)
    d.add(
        t,
        f"¿Cuánto suman las tres mayores posiciones del {n} a cierre de {y}?",
        f"{total} % de la cartera",
        [at["holdings"]],
        [num(h[3], 2) for h in top3],
    )
    cost = num(f.ogc * 250, 2)
    d.add(
        t,
        f"¿Cuánto pagaría en un año en gastos corrientes quien tenga 25.000 euros en el "
        f"{n}, según el KID de {y}?",
        f"{cost} euros",
        [at["cost_parts"]],
        [pct(f.ogc, 2)],
        docs=[kid],
    )


def _ask_unanswerable(d: Drafts, c: _Ctx, kid: str) -> None:
    for text in UNANSWERABLE:
        d.unanswerable(text.format(f=c.name, y=c.year))


_QUESTIONS = (_ask_text, _ask_table, _ask_notes, _ask_combined, _ask_calculation, _ask_unanswerable)
