"""Fictitious listed issuers and the yearly figures their annual reports print.

Every figure is drawn once per issuer and year; the annual reports, the research notes
and the gold answers all read them from here, so the documents agree with each other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from finchunk.datasets.draw import dec, seeded, split
from finchunk.datasets.spanish import q, slug


@dataclass(frozen=True, slots=True)
class Kpi:
    """An operating figure of a segment: the sentence that prints it and how to ask for it."""

    sentence: str  # "{v}" is the printed value
    question: str  # "{co}" and "{y}" are the company and the year
    lo: int
    hi: int


@dataclass(frozen=True, slots=True)
class Sector:
    word: str
    activity: str
    segments: tuple[str, str, str]
    kpis: tuple[Kpi, Kpi, Kpi]
    leased: str


SECTORS: tuple[Sector, ...] = (
    Sector(
        "Energía",
        "la generación, distribución y comercialización de electricidad y gas",
        ("Redes", "Generación renovable", "Clientes"),
        (
            Kpi(
                "La red gestionada alcanzó {v} kilómetros de líneas.",
                "¿Cuántos kilómetros de líneas eléctricas gestionaba {co} en {y}?",
                40_000,
                260_000,
            ),
            Kpi(
                "La potencia renovable instalada se elevó a {v} MW.",
                "¿Qué capacidad renovable tenía instalada {co} al acabar {y}?",
                2_000,
                30_000,
            ),
            Kpi(
                "La cartera comercial sumó {v} puntos de suministro.",
                "¿A cuántos puntos de suministro daba servicio {co} en {y}?",
                900_000,
                9_000_000,
            ),
        ),
        "terrenos de parques eólicos y solares, oficinas y vehículos",
    ),
    Sector(
        "Telecom",
        "la prestación de servicios de telecomunicaciones fijas y móviles",
        ("Telefonía móvil", "Banda ancha fija", "Servicios digitales"),
        (
            Kpi(
                "El número de líneas móviles activas llegó a {v}.",
                "¿Cuántas líneas de móvil tenía activas {co} en {y}?",
                3_000_000,
                40_000_000,
            ),
            Kpi(
                "La red de fibra pasó por delante de {v} hogares.",
                "¿A cuántos hogares llegaba el despliegue de fibra de {co} en {y}?",
                2_000_000,
                30_000_000,
            ),
            Kpi(
                "La plataforma de televisión contaba con {v} abonados.",
                "¿Cuántos clientes de televisión de pago tenía {co} en {y}?",
                200_000,
                6_000_000,
            ),
        ),
        "emplazamientos de antenas, locales comerciales y centros de datos",
    ),
    Sector(
        "Infraestructuras",
        "la promoción, construcción y gestión de autopistas y aeropuertos",
        ("Autopistas", "Aeropuertos", "Construcción"),
        (
            Kpi(
                "La intensidad media diaria de tráfico fue de {v} vehículos.",
                "¿Qué tráfico medio diario registraron las autopistas de {co} en {y}?",
                8_000,
                60_000,
            ),
            Kpi(
                "Los aeropuertos de la cartera atendieron a {v} pasajeros.",
                "¿Cuántos viajeros pasaron por los aeropuertos de {co} en {y}?",
                5_000_000,
                90_000_000,
            ),
            Kpi(
                "La cartera de obra pendiente de ejecutar ascendía a {v} millones de euros.",
                "¿Qué volumen de obra tenía contratada y sin ejecutar {co} al cierre de {y}?",
                3_000,
                20_000,
            ),
        ),
        "maquinaria de obra, oficinas y concesiones de terrenos aeroportuarios",
    ),
    Sector(
        "Distribución",
        "la distribución minorista de alimentación y productos de gran consumo",
        ("Supermercados", "Comercio electrónico", "Logística"),
        (
            Kpi(
                "La red comercial terminó el año con {v} tiendas.",
                "¿Cuántos supermercados tenía abiertos {co} al final de {y}?",
                400,
                4_000,
            ),
            Kpi(
                "Se entregaron {v} pedidos a domicilio.",
                "¿Cuántos pedidos online repartió {co} durante {y}?",
                2_000_000,
                40_000_000,
            ),
            Kpi(
                "Los almacenes logísticos movieron {v} palés.",
                "¿Cuántos palés gestionó la logística de {co} en {y}?",
                5_000_000,
                60_000_000,
            ),
        ),
        "locales comerciales, almacenes y flota de transporte",
    ),
    Sector(
        "Industrial",
        "la fabricación de componentes de automoción y bienes de equipo",
        ("Componentes de automoción", "Maquinaria", "Servicios industriales"),
        (
            Kpi(
                "Las plantas produjeron {v} unidades de componentes.",
                "¿Cuántos componentes fabricó {co} en {y}?",
                10_000_000,
                200_000_000,
            ),
            Kpi(
                "La cartera de pedidos de maquinaria alcanzó {v} millones de euros.",
                "¿Qué pedidos de maquinaria tenía pendientes {co} a final de {y}?",
                500,
                9_000,
            ),
            Kpi(
                "La base instalada bajo contrato de mantenimiento llegó a {v} equipos.",
                "¿Cuántas máquinas mantenía por contrato {co} en {y}?",
                5_000,
                80_000,
            ),
        ),
        "naves industriales, carretillas y equipos informáticos",
    ),
    Sector(
        "Hoteles",
        "la explotación y gestión de hoteles urbanos y vacacionales",
        ("Hoteles urbanos", "Hoteles vacacionales", "Gestión de activos"),
        (
            Kpi(
                "La ocupación media de los hoteles urbanos fue del {v} %.",
                "¿Qué nivel de ocupación tuvieron los hoteles de ciudad de {co} en {y}?",
                55,
                88,
            ),
            Kpi(
                "Los hoteles vacacionales registraron {v} pernoctaciones.",
                "¿Cuántas noches de hotel vendió {co} en destinos de vacaciones en {y}?",
                1_000_000,
                12_000_000,
            ),
            Kpi(
                "La cartera gestionada para terceros sumaba {v} habitaciones.",
                "¿Cuántas habitaciones de terceros gestionaba {co} en {y}?",
                5_000,
                60_000,
            ),
        ),
        "edificios hoteleros, mobiliario y oficinas",
    ),
    Sector(
        "Farma",
        "la investigación, fabricación y venta de medicamentos",
        ("Medicamentos de prescripción", "Genéricos", "Diagnóstico"),
        (
            Kpi(
                "El gasto en investigación y desarrollo del segmento fue de {v} millones de euros.",
                "¿Cuánto destinó {co} a I+D en medicamentos de prescripción en {y}?",
                150,
                2_500,
            ),
            Kpi(
                "Se comercializaron {v} referencias de medicamentos genéricos.",
                "¿Cuántos genéricos distintos vendía {co} en {y}?",
                200,
                1_800,
            ),
            Kpi(
                "Los laboratorios procesaron {v} millones de pruebas.",
                "¿Cuántas pruebas diagnósticas analizó {co} en {y}?",
                10,
                300,
            ),
        ),
        "laboratorios, plantas de producción y vehículos comerciales",
    ),
    Sector(
        "Alimentación",
        "la elaboración y comercialización de alimentos y bebidas",
        ("Lácteos", "Bebidas", "Platos preparados"),
        (
            Kpi(
                "Se recogieron {v} millones de litros de leche.",
                "¿Qué volumen de leche compró {co} a ganaderos en {y}?",
                300,
                4_000,
            ),
            Kpi(
                "Las plantas embotellaron {v} millones de litros.",
                "¿Cuántos litros de bebida envasó {co} en {y}?",
                200,
                5_000,
            ),
            Kpi(
                "El segmento vendió {v} toneladas de platos preparados.",
                "¿Cuántas toneladas de comida preparada comercializó {co} en {y}?",
                20_000,
                400_000,
            ),
        ),
        "fábricas, centros de distribución y flota de reparto",
    ),
)

ROOTS = (
    "Aurora",
    "Boreal",
    "Cierzo",
    "Dársena",
    "Estela",
    "Fragua",
    "Galerna",
    "Hélice",
    "Ibérica",
    "Jara",
    "Lucero",
    "Marea",
    "Nácar",
    "Orbe",
    "Pórtico",
    "Quilla",
    "Rambla",
    "Solana",
    "Tramontana",
    "Umbral",
    "Vega",
    "Zénit",
    "Albor",
    "Brezo",
)
VARIANTS = ("", " Global", " Holding", " Grupo", " Internacional", " Atlántica")
CITIES = (
    "Madrid",
    "Barcelona",
    "Bilbao",
    "Valencia",
    "Sevilla",
    "Zaragoza",
    "Málaga",
    "A Coruña",
    "Valladolid",
    "Oviedo",
    "Pamplona",
    "Santander",
    "Alicante",
    "Vigo",
)
RATINGS = ("A-", "BBB+", "BBB", "BBB-")
AGENCIES = ("S&P Global Ratings", "Fitch Ratings")


@dataclass(frozen=True, slots=True)
class YearFigures:
    """One issuer's figures for one year (money in millions of euros unless named)."""

    year: int
    ingresos: Decimal
    ebitda: Decimal
    deterioro: Decimal
    reestructuracion: Decimal
    ebitda_ajustado: Decimal
    ebit: Decimal
    resultado_financiero: Decimal
    bai: Decimal
    impuesto: Decimal
    atribuible: Decimal
    inversiones: Decimal
    flujo_caja_libre: Decimal
    deuda_neta: Decimal
    arrendamientos: Decimal
    patrimonio: Decimal
    acciones: Decimal  # millions of shares
    bpa: Decimal  # euros
    dpa: Decimal
    dividendo_cuenta: Decimal
    cotizacion: Decimal
    plantilla: int
    paises: int
    superficie: int  # m²
    seg_ingresos: tuple[Decimal, Decimal, Decimal]
    seg_ebitda: tuple[Decimal, Decimal, Decimal]
    kpis: tuple[int, int, int]
    emisiones: tuple[Decimal, Decimal, Decimal]  # thousand t CO2e, scopes 1-3
    reduccion_emisiones: Decimal  # %
    renovable: Decimal  # %
    liquidez: Decimal
    coste_deuda: Decimal  # %
    vida_media: Decimal  # years
    tipo_fijo: Decimal  # %
    vencimientos: tuple[Decimal, ...]  # five buckets of gross debt
    bonos_verdes: Decimal
    tasa_deterioro: Decimal  # %
    crecimiento_perpetuo: Decimal  # %
    tipo_arrendamiento: Decimal  # %
    plazo_arrendamiento: Decimal  # years
    nocional_derivados: Decimal
    cobertura_divisa: Decimal  # %
    provisiones: Decimal
    litigios: Decimal
    bases_negativas: Decimal
    tasa_efectiva: Decimal  # %
    horas_formacion: int
    mujeres_directivas: Decimal  # %
    consejeros: int
    independientes: int
    consejeras: int
    reuniones: int
    inversion_prevista: Decimal
    plan_inversion: Decimal

    @property
    def deuda_bruta(self) -> Decimal:
        return sum(self.vencimientos, Decimal(0))


@dataclass(frozen=True, slots=True)
class Issuer:
    index: int
    name: str  # "Aurora Energía"
    legal_name: str  # "Aurora Energía, S.A."
    slug: str
    sector: Sector
    city: str
    agency: str
    rating: str
    base_year: int  # the science-based-targets base year
    figures: dict[int, YearFigures]

    def doc_id(self, year: int) -> str:
        return f"ia-{self.slug}-{year}"


def issuer_name(index: int) -> tuple[str, Sector]:
    """A unique name for every index; the first ones each get a different sector."""
    n_roots, n_sectors = len(ROOTS), len(SECTORS)
    root = ROOTS[index % n_roots]
    block = index // n_roots
    sector = SECTORS[(index + block) % n_sectors]  # bijective: gcd(25, 8) = 1
    variant = index // (n_roots * n_sectors)
    suffix = VARIANTS[variant % len(VARIANTS)]
    if variant >= len(VARIANTS):
        suffix += f" {variant // len(VARIANTS) + 1}"
    return f"{root} {sector.word}{suffix}", sector


def make_issuer(seed: int, index: int, first_year: int, last_year: int) -> Issuer:
    """An issuer with figures for ``first_year - 1`` (prior-year columns) to ``last_year``."""
    rng = seeded(seed, "issuer", index)
    name, sector = issuer_name(index)
    profile = _Profile.draw(rng)
    figures: dict[int, YearFigures] = {}
    revenue = dec(rng, "2000.0", "40000.0")
    for year in range(first_year - 1, last_year + 1):
        revenue = q(revenue * (1 + dec(rng, "-0.040", "0.110")))
        figures[year] = _year(rng, profile, sector, year, revenue)
    return Issuer(
        index=index,
        name=name,
        legal_name=f"{name}, S.A.",
        slug=slug(name),
        sector=sector,
        city=rng.choice(CITIES),
        agency=rng.choice(AGENCIES),
        rating=rng.choice(RATINGS),
        base_year=rng.randint(first_year - 8, first_year - 3),
        figures=figures,
    )


@dataclass(frozen=True, slots=True)
class _Profile:
    """What stays the same across an issuer's years."""

    margin: Decimal
    shares: Decimal
    productivity: Decimal  # revenue per employee, millions
    payout: Decimal
    seg_rev: tuple[int, int, int]
    seg_ebitda: tuple[int, int, int]
    kpis: tuple[int, int, int]
    paises: int
    superficie: int
    consejeros: int
    emisiones: tuple[Decimal, Decimal, Decimal]

    @classmethod
    def draw(cls, rng: random.Random) -> _Profile:
        return cls(
            margin=dec(rng, "0.120", "0.350"),
            shares=dec(rng, "300.0", "3000.0"),
            productivity=dec(rng, "0.150", "0.600"),
            payout=dec(rng, "0.40", "0.70"),
            seg_rev=(rng.randint(30, 60), rng.randint(15, 40), rng.randint(10, 30)),
            seg_ebitda=(rng.randint(30, 60), rng.randint(15, 40), rng.randint(5, 25)),
            kpis=(rng.randint(0, 10**6), rng.randint(0, 10**6), rng.randint(0, 10**6)),
            paises=rng.randint(3, 40),
            superficie=rng.randint(12_000, 95_000),
            consejeros=rng.randint(10, 15),
            emisiones=(
                dec(rng, "50.0", "4000.0"),
                dec(rng, "10.0", "900.0"),
                dec(rng, "500.0", "25000.0"),
            ),
        )


def _shares(total: Decimal, weights: tuple[int, int, int]) -> tuple[Decimal, Decimal, Decimal]:
    whole = sum(weights)
    a = q(total * weights[0] / whole)
    b = q(total * weights[1] / whole)
    return (a, b, total - a - b)


def _kpi(sector: Sector, i: int, base: int, rng: random.Random) -> int:
    k = sector.kpis[i]
    span = k.hi - k.lo
    return k.lo + (base + rng.randint(0, span // 20 + 1)) % (span + 1)


def _year(
    rng: random.Random, p: _Profile, sector: Sector, year: int, ingresos: Decimal
) -> YearFigures:
    """One year's figures. The draws from ``rng`` happen in a fixed order (the income
    statement, then each helper below in turn): the same seed gives the same figures."""
    ebitda = q(ingresos * (p.margin + dec(rng, "-0.010", "0.010")))
    deterioro = q(ebitda * dec(rng, "0.010", "0.060"))
    reestructuracion = q(ebitda * dec(rng, "0.004", "0.020"))
    ebit = ebitda - q(ebitda * dec(rng, "0.30", "0.55"))
    deuda_neta = q(ebitda * dec(rng, "1.00", "3.50"))
    resultado_financiero = -q(deuda_neta * dec(rng, "0.025", "0.050"))
    bai = ebit + resultado_financiero
    tasa = dec(rng, "22.0", "27.0")
    impuesto = -q(bai * tasa / 100)
    neto = bai + impuesto
    atribuible = neto - q(neto * dec(rng, "0.00", "0.08"))
    inversiones = q(ingresos * dec(rng, "0.050", "0.180"))
    caja = q(deuda_neta * dec(rng, "0.15", "0.40"))
    fields: dict[str, Any] = {
        "year": year,
        "ingresos": ingresos,
        "ebitda": ebitda,
        "deterioro": deterioro,
        "reestructuracion": reestructuracion,
        "ebitda_ajustado": ebitda + deterioro + reestructuracion,
        "ebit": ebit,
        "resultado_financiero": resultado_financiero,
        "bai": bai,
        "impuesto": impuesto,
        "atribuible": atribuible,
        "inversiones": inversiones,
        "flujo_caja_libre": ebitda - inversiones + impuesto + resultado_financiero,
        "deuda_neta": deuda_neta,
    }
    fields |= _balance_and_share(rng, p, ingresos, deuda_neta, atribuible)
    fields |= _operations(rng, p, sector, ingresos, ebitda)
    fields |= _financing(rng, ingresos, deuda_neta, caja)
    fields |= _accounting_notes(rng, ingresos, tasa)
    fields |= _people_and_plans(rng, p, inversiones)
    return YearFigures(**fields)


def _balance_and_share(
    rng: random.Random, p: _Profile, ingresos: Decimal, deuda_neta: Decimal, atribuible: Decimal
) -> dict[str, Any]:
    bpa = q(atribuible / p.shares, 2)
    dpa = q(bpa * p.payout, 2)
    return {
        "arrendamientos": q(deuda_neta * dec(rng, "0.08", "0.25")),
        "patrimonio": q(ingresos * dec(rng, "0.30", "0.80")),
        "acciones": p.shares,
        "bpa": bpa,
        "dpa": dpa,
        "dividendo_cuenta": q(dpa * dec(rng, "0.30", "0.50"), 2),
        "cotizacion": q(bpa * dec(rng, "9.0", "18.0"), 2),
    }


def _operations(
    rng: random.Random, p: _Profile, sector: Sector, ingresos: Decimal, ebitda: Decimal
) -> dict[str, Any]:
    return {
        "plantilla": int(ingresos / p.productivity) + rng.randint(-200, 200),
        "paises": p.paises + rng.randint(0, 2),
        "superficie": p.superficie,
        "seg_ingresos": _shares(ingresos, p.seg_rev),
        "seg_ebitda": _shares(ebitda, p.seg_ebitda),
        "kpis": (
            _kpi(sector, 0, p.kpis[0], rng),
            _kpi(sector, 1, p.kpis[1], rng),
            _kpi(sector, 2, p.kpis[2], rng),
        ),
        "emisiones": tuple(q(e * dec(rng, "0.85", "1.05")) for e in p.emisiones),
        "reduccion_emisiones": dec(rng, "2.0", "18.0"),
        "renovable": dec(rng, "35.0", "99.0"),
    }


def _financing(
    rng: random.Random, ingresos: Decimal, deuda_neta: Decimal, caja: Decimal
) -> dict[str, Any]:
    return {
        "liquidez": q(caja + ingresos * dec(rng, "0.05", "0.15")),
        "coste_deuda": dec(rng, "1.80", "4.90"),
        "vida_media": dec(rng, "3.5", "8.5"),
        "tipo_fijo": dec(rng, "55", "95"),
        "vencimientos": tuple(split(rng, deuda_neta + caja, 5)),
        "bonos_verdes": Decimal(rng.randint(6, 30) * 50),
    }


def _accounting_notes(rng: random.Random, ingresos: Decimal, tasa: Decimal) -> dict[str, Any]:
    return {
        "tasa_deterioro": dec(rng, "6.0", "10.5"),
        "crecimiento_perpetuo": dec(rng, "1.0", "2.5"),
        "tipo_arrendamiento": dec(rng, "2.5", "5.5"),
        "plazo_arrendamiento": dec(rng, "4.0", "14.0"),
        "nocional_derivados": q(ingresos * dec(rng, "0.05", "0.25")),
        "cobertura_divisa": dec(rng, "50", "90"),
        "provisiones": q(ingresos * dec(rng, "0.010", "0.040")),
        "litigios": q(ingresos * dec(rng, "0.002", "0.008")),
        "bases_negativas": q(ingresos * dec(rng, "0.005", "0.030")),
        "tasa_efectiva": tasa,
    }


def _people_and_plans(rng: random.Random, p: _Profile, inversiones: Decimal) -> dict[str, Any]:
    return {
        "horas_formacion": rng.randint(12, 60),
        "mujeres_directivas": dec(rng, "18.0", "45.0"),
        "consejeros": p.consejeros,
        "independientes": rng.randint(p.consejeros // 2, p.consejeros - 2),
        "consejeras": rng.randint(3, p.consejeros // 2),
        "reuniones": rng.randint(9, 16),
        "inversion_prevista": Decimal(int(inversiones * dec(rng, "1.00", "1.25")) // 10 * 10),
        "plan_inversion": Decimal(int(inversiones * dec(rng, "3.5", "4.5")) // 100 * 100),
    }
