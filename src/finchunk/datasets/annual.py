"""Annual report of a fictitious issuer: one shared template for every issuer and year.

The template is shared on purpose: a key-figures row read without its company and year
is ambiguous across the corpus, which is what context headers and metadata filters fix.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from finchunk.datasets.issuers import Issuer, YearFigures
from finchunk.datasets.records import DocType, DocumentRecord, QuestionType
from finchunk.datasets.spanish import eur, fecha, meur, num, pct, q
from finchunk.datasets.writer import BuiltDoc, Drafts, MarkdownWriter, sup

QUOTA = {
    QuestionType.TEXTO: 6,
    QuestionType.TABLA: 5,
    QuestionType.NOTA_PIE: 3,
    QuestionType.TEXTO_Y_NOTA: 2,
    QuestionType.TABLA_Y_NOTA: 2,
    QuestionType.CALCULO: 2,
    QuestionType.NO_RESPONDIBLE: 1,
}

SECTIONS = (
    "1. Carta del presidente",
    "2. El grupo en síntesis",
    "3. Cifras clave",
    "4. Evolución de los negocios",
    "5. Situación financiera",
    "6. Sostenibilidad",
    "7. Gestión de riesgos",
    "8. Notas a los estados financieros",
    "9. Gobierno corporativo",
    "10. Perspectivas",
)

FIRST_NAMES = ("Ana", "Javier", "Lucía", "Ignacio", "Marta", "Fernando", "Elena", "Ramón")
SURNAMES = (
    "Arrieta",
    "Beltrán",
    "Castaño",
    "Domínguez",
    "Echevarría",
    "Ferrándiz",
    "Garrido",
    "Huertas",
    "Iturbe",
    "Lozano",
    "Montoya",
    "Navarro",
    "Olmedo",
    "Peralta",
)
AUDITORS = (
    "Castellana Auditores, S.L.P.",
    "Almagro & Asociados Auditores, S.L.",
    "Mediterránea de Auditoría, S.L.P.",
)
TARGETS = (
    "Lusitania",
    "Cantábrica",
    "Meseta",
    "Levante",
    "Duero",
    "Alborán",
    "Moncayo",
    "Tajo",
    "Gredos",
    "Ebro",
)
RISKS = (
    "Riesgo regulatorio: cambios en la normativa sectorial o fiscal que afecten a la "
    "rentabilidad de las inversiones.",
    "Riesgo de tipo de interés: aumento del coste de la deuda a tipo variable y de la "
    "refinanciación.",
    "Riesgo de tipo de cambio: variación del valor en euros de los flujos generados fuera "
    "de la zona euro.",
    "Riesgo de ciberseguridad: ataques a los sistemas de información y a la continuidad "
    "de las operaciones.",
    "Riesgo climático: fenómenos meteorológicos extremos y transición hacia una economía "
    "baja en carbono.",
    "Riesgo de crédito: impago de clientes y contrapartes financieras.",
    "Riesgo de suministro: interrupciones en la cadena de aprovisionamiento y volatilidad "
    "de los precios de las materias primas.",
)
UNANSWERABLE = (
    "¿Cuánto cobró en total el consejero delegado de {co} en {y}?",
    "¿Cuántas patentes registró {co} a lo largo de {y}?",
    "¿Qué cuota de mercado tenía {co} en Portugal en {y}?",
    "¿Cuánto gastó {co} en publicidad durante {y}?",
    "¿Cuántos accionistas asistieron a la junta general de {co} celebrada en {y}?",
)


@dataclass
class _Ctx:
    issuer: Issuer
    year: int
    f: YearFigures
    prev: YearFigures
    rng: random.Random
    doc_id: str
    at: dict[str, str] = field(default_factory=dict)  # anchor -> passage id
    target: str = ""  # the company acquired in the year

    @property
    def co(self) -> str:
        return self.issuer.name


def build_annual(issuer: Issuer, year: int, rng: random.Random) -> BuiltDoc:
    """Write the annual report of ``issuer`` for ``year`` and its candidate questions."""
    f, prev = issuer.figures[year], issuer.figures[year - 1]
    c = _Ctx(issuer, year, f, prev, rng, issuer.doc_id(year))
    title = f"Informe anual {year} — {issuer.legal_name}"
    w = MarkdownWriter(c.doc_id, title)
    for write in _SECTION_WRITERS:
        write(w, c)
    record = DocumentRecord(c.doc_id, title, DocType.INFORME_ANUAL, w.text(), issuer.name, year)
    drafts = Drafts(c.doc_id)
    for ask in _QUESTION_WRITERS:
        ask(drafts, c)
    return BuiltDoc(record, w.passages, drafts.pick(rng, QUOTA), c.at)


# --- sections ---------------------------------------------------------------------------


def _opening(w: MarkdownWriter, c: _Ctx) -> None:
    i, y = c.issuer, c.year
    formulated = date(y + 1, 2, c.rng.randint(18, 28))
    w.para(
        f"{i.legal_name} y sociedades dependientes. Informe de gestión consolidado del "
        f"ejercicio cerrado a 31 de diciembre de {y}, formulado por el Consejo de "
        f"Administración el {fecha(formulated)}."
    )
    w.heading(2, "Índice")
    w.numbered([s.split(". ", 1)[1] for s in SECTIONS])


def _letter(w: MarkdownWriter, c: _Ctx) -> None:
    f, y = c.f, c.year
    w.heading(2, SECTIONS[0])
    mood = c.rng.choice(("exigente", "de transformación", "de crecimiento", "muy positivo"))
    w.para(
        f"Estimados accionistas: {y} ha sido un ejercicio {mood} para {c.co}. En un entorno "
        "marcado por la moderación de la inflación y unos tipos de interés todavía elevados, "
        "el grupo ha sabido mantener la disciplina financiera y avanzar en su plan estratégico."
    )
    growth = q((f.ebitda_ajustado / c.prev.ebitda_ajustado - 1) * 100)
    verb = "creció" if growth >= 0 else "se redujo"
    c.at["letter_growth"] = w.para(
        f"El EBITDA ajustado{sup(2)} {verb} un {pct(abs(growth))} respecto a {y - 1}, "
        "gracias a la contribución de los nuevos activos y a las medidas de eficiencia, "
        "que compensaron el aumento de los costes de personal."
    )
    c.at["letter_plan"] = w.para(
        f"Nuestro plan estratégico prevé inversiones de {num(f.plan_inversion, 0)} millones "
        f"de euros hasta {y + 3}, centradas en crecimiento orgánico, digitalización y "
        "descarbonización, sin renunciar a una retribución al accionista atractiva y sostenible."
    )
    name = f"{c.rng.choice(FIRST_NAMES)} {c.rng.choice(SURNAMES)} {c.rng.choice(SURNAMES)}"
    w.para(
        "Quiero agradecer a todo el equipo humano su compromiso y a ustedes, su confianza. "
        f"{name}, presidente del Consejo de Administración."
    )


def _group(w: MarkdownWriter, c: _Ctx) -> None:
    i, f = c.issuer, c.f
    w.heading(2, SECTIONS[1])
    c.at["group"] = w.para(
        f"{c.co} es un grupo español dedicado a {i.sector.activity}, con sede en {i.city} y "
        f"presencia en {f.paises} países. Al cierre de {c.year} la plantilla estaba formada "
        f"por {num(f.plantilla, 0)} personas."
    )
    c.at["hq"] = w.para(
        f"La sede corporativa ocupa {num(f.superficie, 0)} m² en {i.city} y reúne los "
        "servicios centrales, el centro de control de operaciones y el laboratorio de "
        "innovación del grupo."
    )
    w.para(f"Los hechos más relevantes de {c.year} fueron los siguientes:")
    target = f"{c.rng.choice(TARGETS)} {i.sector.segments[c.rng.randint(0, 2)]}, S.L."
    c.target = target
    c.at["milestones"] = w.bullets(
        [
            f"Adquisición del 100 % de {target}, que refuerza la presencia del grupo en su "
            "mercado principal.",
            "Firma de un préstamo sindicado sostenible con once entidades financieras.",
            f"Lanzamiento de un plan de eficiencia con ahorros anuales previstos de "
            f"{num(q(f.ebitda * Decimal('0.03')), 1)} millones de euros.",
            "Renovación de las certificaciones ISO 14001 e ISO 45001 en todos los centros.",
        ]
    )


def _key_figures(w: MarkdownWriter, c: _Ctx) -> None:
    f, p, y = c.f, c.prev, c.year
    w.heading(2, SECTIONS[2])
    w.para(
        f"Las principales magnitudes del ejercicio {y}, comparadas con las del ejercicio "
        "anterior, se resumen a continuación."
    )
    rows = [
        ("Importe neto de la cifra de negocios", "ingresos"),
        ("EBITDA", "ebitda"),
        (f"EBITDA ajustado{sup(2)}", "ebitda_ajustado"),
        ("Resultado de explotación (EBIT)", "ebit"),
        ("Resultado financiero", "resultado_financiero"),
        ("Resultado antes de impuestos", "bai"),
        ("Impuesto sobre beneficios", "impuesto"),
        ("Resultado neto atribuido a la sociedad dominante", "atribuible"),
        ("Inversiones", "inversiones"),
        ("Flujo de caja libre", "flujo_caja_libre"),
        (f"Deuda financiera neta{sup(1)}", "deuda_neta"),
        ("Patrimonio neto", "patrimonio"),
    ]
    c.at["key_table"] = w.table(
        ["Millones de euros", str(y), str(y - 1)],
        [[label, num(getattr(f, a)), num(getattr(p, a))] for label, a in rows],
    )
    c.at["fn1"] = w.note(
        f"{sup(1)} Incluye los pasivos por arrendamiento registrados conforme a la NIIF 16 "
        "(véase la Nota 1)."
    )
    c.at["fn2"] = w.note(
        f"{sup(2)} El EBITDA ajustado excluye el deterioro de activos no corrientes "
        f"({meur(f.deterioro)}) y los costes de reestructuración ({meur(f.reestructuracion)})."
    )
    c.at["tax"] = w.para(
        f"La tasa impositiva efectiva se situó en el {pct(f.tasa_efectiva)}, frente al "
        f"{pct(p.tasa_efectiva)} del ejercicio anterior, por la distinta aportación de las "
        "jurisdicciones en las que opera el grupo."
    )
    c.at["share_table"] = w.table(
        ["Datos por acción", str(y), str(y - 1)],
        [
            ["Beneficio por acción (euros)", num(f.bpa, 2), num(p.bpa, 2)],
            [f"Dividendo por acción (euros){sup(3)}", num(f.dpa, 2), num(p.dpa, 2)],
            ["Cotización al cierre (euros)", num(f.cotizacion, 2), num(p.cotizacion, 2)],
            ["Número medio de acciones (millones)", num(f.acciones), num(p.acciones)],
        ],
    )
    c.at["fn3"] = w.note(
        f"{sup(3)} Dividendo propuesto a la Junta General de Accionistas; incluye el "
        f"dividendo a cuenta de {eur(f.dividendo_cuenta)} por acción abonado en enero de {y + 1}."
    )


def _segments(w: MarkdownWriter, c: _Ctx) -> None:
    f, s = c.f, c.issuer.sector
    w.heading(2, SECTIONS[3])
    w.para(
        f"{c.co} organiza su actividad en tres segmentos: {s.segments[0]}, {s.segments[1]} y "
        f"{s.segments[2]}. La tabla siguiente resume su contribución en {c.year}."
    )
    c.at["seg_table"] = w.table(
        ["Millones de euros", "Ingresos", "EBITDA"],
        [[s.segments[k], num(f.seg_ingresos[k]), num(f.seg_ebitda[k])] for k in range(3)],
    )
    for k in range(3):
        w.heading(3, f"4.{k + 1}. {s.segments[k]}")
        share = q(f.seg_ingresos[k] / f.ingresos * 100)
        c.at[f"seg_share{k}"] = w.para(
            f"El segmento aportó el {pct(share)} de los ingresos del grupo. "
            + c.rng.choice(
                (
                    "La evolución refleja la mayor actividad y la revisión de precios.",
                    "La actividad se benefició de la incorporación de nuevos clientes.",
                    "El crecimiento se apoyó en las inversiones de ejercicios anteriores.",
                )
            )
        )
        c.at[f"seg_kpi{k}"] = w.para(s.kpis[k].sentence.format(v=num(f.kpis[k], 0)))
    w.para(
        "Las cifras de los segmentos se presentan antes de eliminaciones entre segmentos y "
        "de los gastos de estructura corporativa."
    )


def _financing(w: MarkdownWriter, c: _Ctx) -> None:
    f, i, y = c.f, c.issuer, c.year
    w.heading(2, SECTIONS[4])
    c.at["liquidity"] = w.para(
        f"El grupo cerró {y} con una liquidez disponible de {meur(f.liquidez)}, entre caja y "
        "líneas de crédito no dispuestas, suficiente para atender los vencimientos de los "
        "próximos veinticuatro meses."
    )
    c.at["leases"] = w.para(
        f"Los pasivos por arrendamiento ascendían a {meur(f.arrendamientos)} al cierre del "
        f"ejercicio y corresponden principalmente a {i.sector.leased} (véase la Nota 1)."
    )
    c.at["cost_of_debt"] = w.para(
        f"El coste medio de la deuda bruta fue del {pct(f.coste_deuda, 2)} y su vida media, "
        f"de {num(f.vida_media)} años; el {pct(f.tipo_fijo, 0)} de la deuda está referenciado "
        "a tipo fijo o cubierto con derivados."
    )
    labels = [str(y + k) for k in range(1, 5)] + [f"{y + 5} y siguientes"]
    rows = [[lab, num(v)] for lab, v in zip(labels, f.vencimientos, strict=True)]
    rows.append([f"Total deuda bruta{sup(4)}", num(f.deuda_bruta)])
    c.at["maturities"] = w.table(["Vencimientos (millones de euros)", "Importe"], rows)
    c.at["fn4"] = w.note(
        f"{sup(4)} Incluye {meur(f.bonos_verdes)} de bonos verdes emitidos en junio de {y} "
        f"con vencimiento en {y + 7}."
    )
    outlook = c.rng.choice(("estable", "positiva"))
    c.at["rating"] = w.para(
        f"{i.agency} mantuvo la calificación crediticia a largo plazo del grupo en {i.rating} "
        f"con perspectiva {outlook}."
    )


def _sustainability(w: MarkdownWriter, c: _Ctx) -> None:
    f, p, y = c.f, c.prev, c.year
    w.heading(2, SECTIONS[5])
    w.para(
        f"{c.co} mantiene su compromiso de alcanzar las cero emisiones netas en "
        f"{c.issuer.base_year + 25} y vincula parte de la retribución variable de la alta "
        "dirección a objetivos climáticos."
    )
    c.at["emissions"] = w.para(
        f"En {y} las emisiones de alcances 1 y 2 se redujeron un "
        f"{pct(f.reduccion_emisiones)}{sup(5)}, y el {pct(f.renovable)} de la electricidad "
        "consumida procedió de fuentes renovables."
    )
    c.at["fn5"] = w.note(
        f"{sup(5)} Variación respecto a {c.issuer.base_year}, año base de los objetivos de "
        "reducción validados por la iniciativa Science Based Targets."
    )
    labels = ("Alcance 1", "Alcance 2", "Alcance 3")
    rows = [[lab, num(f.emisiones[k]), num(p.emisiones[k])] for k, lab in enumerate(labels)]
    c.at["emissions_table"] = w.table(
        ["Miles de toneladas de CO₂ equivalente", str(y), str(y - 1)], rows
    )
    c.at["social"] = w.bullets(
        [
            f"Horas de formación por empleado: {f.horas_formacion}.",
            f"Mujeres en puestos directivos: {pct(f.mujeres_directivas)}.",
            f"Compras a proveedores locales: {pct(c.rng.randint(55, 90), 0)} del total.",
        ]
    )


def _risks(w: MarkdownWriter, c: _Ctx) -> None:
    f = c.f
    w.heading(2, SECTIONS[6])
    w.para(
        "El Consejo de Administración aprueba cada año el mapa de riesgos del grupo. Los "
        f"principales riesgos identificados en {c.year} son los siguientes:"
    )
    picked = sorted(c.rng.sample(range(len(RISKS)), 5))
    w.numbered([RISKS[k] for k in picked])
    c.at["fx"] = w.para(
        f"El {pct(f.cobertura_divisa, 0)} de los flujos en divisa previstos para {c.year + 1} "
        "está cubierto con contratos a plazo y permutas financieras (véase la Nota 3)."
    )


def _notes(w: MarkdownWriter, c: _Ctx) -> None:
    f, y = c.f, c.year
    w.heading(2, SECTIONS[7])
    w.para(
        "Las notas siguientes forman parte de las cuentas anuales consolidadas y amplían la "
        "información de este informe."
    )
    c.at["nota1"] = w.note(
        f"Nota 1. Arrendamientos. El grupo reconoce un activo por derecho de uso y un pasivo "
        "por cada contrato de arrendamiento, conforme a la NIIF 16. El tipo de descuento medio "
        f"ponderado aplicado fue del {pct(f.tipo_arrendamiento)} y el plazo medio remanente de "
        f"los contratos es de {num(f.plazo_arrendamiento)} años."
    )
    c.at["nota2"] = w.note(
        "Nota 2. Deterioro del valor de los activos. Las pruebas de deterioro de las unidades "
        f"generadoras de efectivo se realizaron con una tasa de descuento antes de impuestos "
        f"del {pct(f.tasa_deterioro)} y una tasa de crecimiento a perpetuidad del "
        f"{pct(f.crecimiento_perpetuo)}."
    )
    c.at["nota3"] = w.note(
        "Nota 3. Instrumentos financieros derivados. El valor nocional de los derivados de "
        f"cobertura de tipo de cambio y de interés vivos al cierre era de "
        f"{meur(f.nocional_derivados)}; todos ellos cumplen los requisitos de la contabilidad "
        "de coberturas."
    )
    c.at["nota4"] = w.note(
        f"Nota 4. Provisiones. Las provisiones no corrientes suman {meur(f.provisiones)}, de "
        f"los que {meur(f.litigios)} cubren litigios y reclamaciones en curso."
    )
    c.at["nota5"] = w.note(
        "Nota 5. Impuesto sobre beneficios. El grupo tributa en régimen de consolidación "
        f"fiscal y tiene bases imponibles negativas pendientes de compensar por "
        f"{meur(f.bases_negativas)}."
    )
    w.note(
        "Nota 6. Partes vinculadas. Las operaciones con partes vinculadas se realizaron en "
        "condiciones de mercado y no son significativas."
    )
    c.at["nota7"] = w.note(
        f"Nota 7. Hechos posteriores al cierre. En febrero de {y + 1} el grupo acordó la "
        f"venta de activos no estratégicos por {meur(q(f.ingresos * Decimal('0.011')))}, "
        "pendiente de autorizaciones regulatorias."
    )


def _governance(w: MarkdownWriter, c: _Ctx) -> None:
    f = c.f
    w.heading(2, SECTIONS[8])
    c.at["board"] = w.para(
        f"El Consejo de Administración está formado por {f.consejeros} miembros, de los que "
        f"{f.independientes} son independientes y {f.consejeras} son mujeres. Durante "
        f"{c.year} se reunió en {f.reuniones} ocasiones."
    )
    w.bullets(
        [
            f"Comisión de Auditoría y Control: {c.rng.randint(6, 12)} reuniones.",
            f"Comisión de Nombramientos y Retribuciones: {c.rng.randint(4, 9)} reuniones.",
            f"Comisión de Sostenibilidad: {c.rng.randint(3, 6)} reuniones.",
        ]
    )
    c.at["auditor"] = w.para(
        f"El auditor de las cuentas anuales consolidadas es {c.rng.choice(AUDITORS)}, "
        f"nombrado por la Junta General en {c.year - c.rng.randint(1, 4)}."
    )


def _outlook(w: MarkdownWriter, c: _Ctx) -> None:
    f, y = c.f, c.year
    w.heading(2, SECTIONS[9])
    c.at["outlook"] = w.para(
        f"Para {y + 1}, {c.co} prevé un crecimiento del EBITDA de un dígito medio e "
        f"inversiones de en torno a {num(f.inversion_prevista, 0)} millones de euros."
    )
    w.para(
        "El grupo mantendrá su política de retribución al accionista y su compromiso con una "
        "calificación crediticia de grado de inversión."
    )


_SECTION_WRITERS = (
    _opening,
    _letter,
    _group,
    _key_figures,
    _segments,
    _financing,
    _sustainability,
    _risks,
    _notes,
    _governance,
    _outlook,
)


# --- questions --------------------------------------------------------------------------


def _ask_text(d: Drafts, c: _Ctx) -> None:
    """Questions answered by one sentence of the report, in a fixed order (the order
    numbers the questions)."""
    _ask_business(d, c)
    _ask_financing(d, c)
    _ask_people(d, c)
    _ask_plans_and_tax(d, c)


def _ask_business(d: Drafts, c: _Ctx) -> None:
    """The group: staff, markets, head office, the acquisition, a segment, a KPI."""
    f, co, y, at, r = c.f, c.co, c.year, c.at, c.rng
    t = QuestionType.TEXTO
    n = num(f.plantilla, 0)
    d.add(
        t,
        r.choice(
            (
                f"¿Cuántos empleados tenía {co} al terminar {y}?",
                f"¿Con cuántos trabajadores cerró {co} el año {y}?",
            )
        ),
        f"{n} personas",
        [at["group"]],
        [n],
    )
    d.add(
        t,
        f"¿En cuántos mercados estaba presente {co} en {y}?",
        f"En {f.paises} países",
        [at["group"]],
        [f"{f.paises} países"],
    )
    m2 = f"{num(f.superficie, 0)} m²"
    d.add(
        t,
        f"¿Qué tamaño tiene el edificio central de {co} según su informe de {y}?",
        m2,
        [at["hq"]],
        [m2],
    )
    d.add(t, f"¿Qué empresa compró {co} durante {y}?", c.target, [at["milestones"]], [c.target])
    share = pct(q(f.seg_ingresos[0] / f.ingresos * 100))
    seg = c.issuer.sector.segments[0]
    d.add(
        t,
        f"¿Qué parte de la facturación de {co} vino del negocio de {seg} en {y}?",
        share,
        [at["seg_share0"]],
        [share],
    )
    kpi = c.issuer.sector.kpis[1]
    v = num(f.kpis[1], 0)
    d.add(t, kpi.question.format(co=co, y=y), v, [at["seg_kpi1"]], [v])


def _ask_financing(d: Drafts, c: _Ctx) -> None:
    """Liquidity, the cost of debt and the credit rating."""
    f, co, y, at = c.f, c.co, c.year, c.at
    t = QuestionType.TEXTO
    liq = num(f.liquidez)
    d.add(
        t,
        f"¿Cuánto dinero tenía disponible {co} entre caja y créditos al acabar {y}?",
        f"{liq} millones de euros",
        [at["liquidity"]],
        [liq],
    )
    cd = pct(f.coste_deuda, 2)
    d.add(t, f"¿A qué coste medio se financió {co} en {y}?", cd, [at["cost_of_debt"]], [cd])
    d.add(
        t,
        f"¿Qué nota de solvencia otorgó {c.issuer.agency} a {co} en {y}?",
        c.issuer.rating,
        [at["rating"]],
        [c.issuer.rating],
    )


def _ask_people(d: Drafts, c: _Ctx) -> None:
    """Training hours and the board's independent members."""
    f, co, y, at = c.f, c.co, c.year, c.at
    t = QuestionType.TEXTO
    h = f"{f.horas_formacion}"
    d.add(
        t,
        f"¿Cuántas horas de formación recibió de media cada empleado de {co} en {y}?",
        f"{h} horas",
        [at["social"]],
        [h],
    )
    ind = f"{f.independientes} son independientes"
    d.add(
        t,
        f"¿Cuántos consejeros independientes tenía {co} en {y}?",
        f"{ind}, de un consejo de {f.consejeros} miembros",
        [at["board"]],
        [ind],
    )


def _ask_plans_and_tax(d: Drafts, c: _Ctx) -> None:
    """Next year's capex, the effective tax rate and the strategic plan."""
    f, co, y, at = c.f, c.co, c.year, c.at
    t = QuestionType.TEXTO
    capex = num(f.inversion_prevista, 0)
    d.add(
        t,
        f"¿Cuánto piensa invertir {co} en {y + 1} según el informe de {y}?",
        f"En torno a {capex} millones de euros",
        [at["outlook"]],
        [capex],
    )
    te = pct(f.tasa_efectiva)
    d.add(
        t,
        f"¿Qué tipo efectivo del impuesto de sociedades soportó {co} en {y}?",
        te,
        [at["tax"]],
        [te],
    )
    plan = num(f.plan_inversion, 0)
    d.add(
        t,
        f"¿Cuánto invertirá {co} en su plan estratégico, según la carta de {y}?",
        f"{plan} millones de euros hasta {y + 3}",
        [at["letter_plan"]],
        [plan],
    )


def _ask_table(d: Drafts, c: _Ctx) -> None:
    f, co, y, at, r = c.f, c.co, c.year, c.at, c.rng
    t = QuestionType.TABLA
    key = at["key_table"]
    for text, value in (
        (
            r.choice(
                (f"¿Cuánto facturó {co} en {y}?", f"¿Qué cifra de negocios alcanzó {co} en {y}?")
            ),
            f.ingresos,
        ),
        (
            f"¿Qué resultado neto ganó {co} en {y} para los accionistas de la dominante?",
            f.atribuible,
        ),
        (f"¿Cuánto dinero destinó {co} a inversiones en {y}?", f.inversiones),
        (f"¿Qué caja libre generó {co} en {y}?", f.flujo_caja_libre),
        (f"¿A cuánto ascendían los fondos propios de {co} al cierre de {y}?", f.patrimonio),
        (f"¿Qué resultado financiero registró {co} en {y}?", f.resultado_financiero),
    ):
        d.add(t, text, f"{num(value)} millones de euros", [key], [num(value)])
    bpa = num(f.bpa, 2)
    d.add(
        t,
        f"¿Cuál fue el beneficio por título de {co} en {y}?",
        f"{bpa} euros",
        [at["share_table"]],
        [bpa],
    )
    seg = c.issuer.sector.segments[1]
    e = num(f.seg_ebitda[1])
    d.add(
        t,
        f"¿Qué EBITDA generó la división de {seg} de {co} en {y}?",
        f"{e} millones de euros",
        [at["seg_table"]],
        [e],
    )
    m = num(f.vencimientos[1])
    d.add(
        t,
        f"¿Qué importe de deuda de {co} vence en {y + 2}, según el informe de {y}?",
        f"{m} millones de euros",
        [at["maturities"]],
        [m],
    )
    s3 = num(f.emisiones[2])
    d.add(
        t,
        f"¿Cuántas emisiones de alcance 3, las de su cadena de valor, declaró {co} en {y}?",
        f"{s3} miles de toneladas de CO₂ equivalente",
        [at["emissions_table"]],
        [s3],
    )


def _ask_notes(d: Drafts, c: _Ctx) -> None:
    f, co, y, at = c.f, c.co, c.year, c.at
    t = QuestionType.NOTA_PIE
    for text, answer, anchor in (
        (
            f"¿Qué gastos de reestructuración deja fuera {co} de su EBITDA ajustado de {y}?",
            meur(f.reestructuracion),
            "fn2",
        ),
        (f"¿En qué año vencen los bonos verdes que {co} emitió en {y}?", str(y + 7), "fn4"),
        (
            f"¿Respecto a qué año mide {co} la reducción de emisiones publicada en {y}?",
            str(c.issuer.base_year),
            "fn5",
        ),
        (
            f"¿Qué tasa de descuento usó {co} en los test de deterioro de {y}?",
            pct(f.tasa_deterioro),
            "nota2",
        ),
        (
            f"¿Cuánto tiene provisionado {co} para pleitos al cierre de {y}?",
            meur(f.litigios),
            "nota4",
        ),
        (
            f"¿Qué créditos fiscales por pérdidas tenía pendientes {co} al cierre de {y}?",
            meur(f.bases_negativas),
            "nota5",
        ),
        (
            f"¿A qué tipo medio descuenta {co} sus contratos de alquiler en {y}?",
            pct(f.tipo_arrendamiento),
            "nota1",
        ),
    ):
        d.add(t, text, answer, [at[anchor]], [answer])


def _ask_text_and_note(d: Drafts, c: _Ctx) -> None:
    f, co, y, at = c.f, c.co, c.year, c.at
    t = QuestionType.TEXTO_Y_NOTA
    growth = pct(abs(q((f.ebitda_ajustado / c.prev.ebitda_ajustado - 1) * 100)))
    rest = meur(f.reestructuracion)
    d.add(
        t,
        f"Según la carta del presidente de {co}, ¿cuánto varió el EBITDA ajustado en {y} "
        "y qué costes de reestructuración excluye?",
        f"{growth}; excluye {rest}",
        [at["letter_growth"], at["fn2"]],
        [growth, rest],
    )
    arr, rate = meur(f.arrendamientos), pct(f.tipo_arrendamiento)
    d.add(
        t,
        f"¿Cuánto debía {co} por alquileres al cierre de {y} y a qué tipo medio se descontaron?",
        f"{arr}, descontados al {rate}",
        [at["leases"], at["nota1"]],
        [arr, rate],
    )
    red = pct(f.reduccion_emisiones)
    base = str(c.issuer.base_year)
    d.add(
        t,
        f"¿Cuánto recortó {co} sus emisiones directas y de energía en {y} y frente a qué año?",
        f"{red} respecto a {base}",
        [at["emissions"], at["fn5"]],
        [red, base],
    )
    cov, notional = pct(f.cobertura_divisa, 0), meur(f.nocional_derivados)
    d.add(
        t,
        f"¿Qué parte de sus flujos en divisa de {y + 1} tenía cubiertos {co} y con qué "
        f"nocional de derivados cerró {y}?",
        f"El {cov}; nocional de {notional}",
        [at["fx"], at["nota3"]],
        [cov, notional],
    )


def _ask_table_and_note(d: Drafts, c: _Ctx) -> None:
    f, co, y, at = c.f, c.co, c.year, c.at
    t = QuestionType.TABLA_Y_NOTA
    debt = num(f.deuda_neta)
    d.add(
        t,
        f"¿Cuál era el endeudamiento neto de {co} al final de {y} y qué pasivos incluye?",
        f"{debt} millones de euros, incluidos los pasivos por arrendamiento (NIIF 16)",
        [at["key_table"], at["fn1"]],
        [debt, "NIIF 16"],
    )
    dpa, cuenta = num(f.dpa, 2), num(f.dividendo_cuenta, 2)
    d.add(
        t,
        f"¿Qué dividendo por acción corresponde a {co} por {y} y cuánto se pagó a cuenta?",
        f"{dpa} euros, de los que {cuenta} euros se pagaron a cuenta",
        [at["share_table"], at["fn3"]],
        [dpa, cuenta],
    )
    gross, green = num(f.deuda_bruta), num(f.bonos_verdes)
    d.add(
        t,
        f"¿Cuánta deuda bruta tenía {co} al cierre de {y} y cuánto eran bonos verdes?",
        f"{gross} millones de euros, de los que {green} millones son bonos verdes",
        [at["maturities"], at["fn4"]],
        [gross, green],
    )
    adj, imp = num(f.ebitda_ajustado), num(f.deterioro)
    d.add(
        t,
        f"¿Qué EBITDA ajustado obtuvo {co} en {y} y qué deterioro se excluyó de él?",
        f"{adj} millones de euros; excluye un deterioro de {imp} millones de euros",
        [at["key_table"], at["fn2"]],
        [adj, imp],
    )


def _ask_calculation(d: Drafts, c: _Ctx) -> None:
    f, p, co, y, at = c.f, c.prev, c.co, c.year, c.at
    t = QuestionType.CALCULO
    key = at["key_table"]
    margin = pct(q(f.ebitda / f.ingresos * 100))
    d.add(
        t,
        f"¿Qué margen EBITDA sobre la cifra de negocios obtuvo {co} en {y}?",
        margin,
        [key],
        [num(f.ebitda), num(f.ingresos)],
    )
    var = pct(q((f.atribuible / p.atribuible - 1) * 100))
    d.add(
        t,
        f"¿En qué porcentaje cambió el resultado neto atribuido de {co} entre {y - 1} y {y}?",
        var,
        [key],
        [num(f.atribuible), num(p.atribuible)],
    )
    lev = num(q(f.deuda_neta / f.ebitda, 2), 2)
    d.add(
        t,
        f"¿Cuántas veces el EBITDA suponía la deuda financiera neta de {co} al cierre de {y}?",
        f"{lev} veces",
        [key],
        [num(f.deuda_neta), num(f.ebitda)],
    )
    payout = pct(q(f.dpa / f.bpa * 100))
    d.add(
        t,
        f"¿Qué porcentaje del beneficio por acción de {y} reparte {co} como dividendo?",
        payout,
        [at["share_table"]],
        [num(f.dpa, 2), num(f.bpa, 2)],
    )
    growth = pct(q((f.ingresos / p.ingresos - 1) * 100))
    d.add(
        t,
        f"¿Cuánto varió la cifra de negocios de {co} en {y} respecto al año anterior?",
        growth,
        [key],
        [num(f.ingresos), num(p.ingresos)],
    )


def _ask_unanswerable(d: Drafts, c: _Ctx) -> None:
    for text in UNANSWERABLE:
        d.unanswerable(text.format(co=c.co, y=c.year))


_QUESTION_WRITERS = (
    _ask_text,
    _ask_table,
    _ask_notes,
    _ask_text_and_note,
    _ask_table_and_note,
    _ask_calculation,
    _ask_unanswerable,
)
