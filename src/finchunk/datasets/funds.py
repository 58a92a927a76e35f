"""Fictitious UCITS ETFs of one manager, and the figures their prospectus and KID print."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import StrEnum

from finchunk.datasets.draw import dec, seeded, split
from finchunk.datasets.spanish import q, slug

MANAGER = "Meridiano Gestión, SGIIC, S.A."
UMBRELLA = "Meridiano ETF plc"
BRAND = "Meridiano"
DEPOSITARY = "Banco Depositario Atlántico Europe, S.A., sucursal en Irlanda"
AUDITOR = "Almagro & Asociados Auditores, S.L."


class AssetClass(StrEnum):
    EQUITY = "equity"
    GOVERNMENT = "government"
    CORPORATE = "corporate"


@dataclass(frozen=True, slots=True)
class Theme:
    name: str
    asset: AssetClass
    universe: str
    index: str
    countries: tuple[str, ...]


EUROPE = (
    "Francia",
    "Alemania",
    "Reino Unido",
    "Suiza",
    "Países Bajos",
    "España",
    "Italia",
    "Suecia",
)
THEMES: tuple[Theme, ...] = (
    Theme(
        "Renta Variable Europa",
        AssetClass.EQUITY,
        "acciones europeas de gran y mediana capitalización",
        "Cenit Europe 600",
        EUROPE,
    ),
    Theme(
        "Renta Variable EE. UU.",
        AssetClass.EQUITY,
        "acciones estadounidenses de gran capitalización",
        "Cenit USA 500",
        ("Estados Unidos",),
    ),
    Theme(
        "Bonos Gobierno Eurozona 1-3",
        AssetClass.GOVERNMENT,
        "bonos soberanos de la zona euro con vencimiento entre uno y tres años",
        "Cenit Eurozone Government 1-3Y",
        ("Alemania", "Francia", "Italia", "España", "Países Bajos", "Bélgica", "Austria"),
    ),
    Theme(
        "Renta Variable Mercados Emergentes",
        AssetClass.EQUITY,
        "acciones de mercados emergentes",
        "Cenit Emerging Markets",
        ("China", "India", "Taiwán", "Corea del Sur", "Brasil", "México", "Sudáfrica"),
    ),
    Theme(
        "Bonos Corporativos EUR",
        AssetClass.CORPORATE,
        "bonos corporativos en euros con calificación de grado de inversión",
        "Cenit EUR Corporate",
        EUROPE,
    ),
    Theme(
        "Renta Variable España",
        AssetClass.EQUITY,
        "acciones españolas",
        "Cenit Spain 35",
        ("España",),
    ),
    Theme(
        "Renta Variable Japón",
        AssetClass.EQUITY,
        "acciones japonesas",
        "Cenit Japan 225",
        ("Japón",),
    ),
    Theme(
        "Dividendo Europa",
        AssetClass.EQUITY,
        "acciones europeas con elevada rentabilidad por dividendo",
        "Cenit Europe High Dividend",
        EUROPE,
    ),
    Theme(
        "Renta Variable Mundial ESG",
        AssetClass.EQUITY,
        "acciones de países desarrollados con las mejores prácticas ambientales, sociales y "
        "de buen gobierno",
        "Cenit World ESG Leaders",
        ("Estados Unidos", "Japón", "Reino Unido", "Francia", "Canadá", "Suiza"),
    ),
    Theme(
        "Bonos Verdes EUR",
        AssetClass.CORPORATE,
        "bonos verdes denominados en euros",
        "Cenit EUR Green Bond",
        EUROPE,
    ),
)

SECTORS = (
    "Financiero",
    "Tecnología",
    "Salud",
    "Industria",
    "Consumo discrecional",
    "Consumo básico",
    "Energía",
    "Materiales",
    "Servicios públicos",
    "Telecomunicaciones",
    "Inmobiliario",
)
RATING_BUCKETS = ("AAA", "AA", "A", "BBB")
STEMS = (
    "Altair",
    "Brisca",
    "Caliza",
    "Dolmen",
    "Egeria",
    "Faro",
    "Girasol",
    "Halcón",
    "Isla",
    "Jabega",
    "Karst",
    "Lince",
    "Mirlo",
    "Nogal",
    "Ónix",
    "Pinar",
    "Quercus",
    "Roble",
    "Sauce",
    "Tejo",
    "Ulmo",
    "Valle",
    "Yunque",
    "Zafiro",
    "Acanto",
    "Berilo",
    "Cobalto",
    "Dunas",
    "Enebro",
    "Fresno",
)
SUFFIXES = (
    "Bank",
    "Pharma",
    "Motors",
    "Foods",
    "Energy",
    "Systems",
    "Retail",
    "Chemicals",
    "Insurance",
    "Telecom",
    "Logistics",
    "Materials",
)
CLASSES = ("Acc", "Dist")


@dataclass(frozen=True, slots=True)
class Scenario:
    label: str
    amount_1y: int
    return_1y: Decimal
    amount_nyears: int
    return_nyears: Decimal  # average per year


@dataclass(frozen=True, slots=True)
class Fund:
    index: int
    name: str  # "Meridiano Renta Variable Europa UCITS ETF (Acc)"
    slug: str
    theme: Theme
    share_class: str
    isin: str
    launch: date
    aum: Decimal  # millions of euros
    constituents: int
    ogc: Decimal  # %, two decimals
    management_fee: Decimal
    depositary_fee: Decimal
    max_fee: Decimal
    transaction_costs: Decimal
    sri: int
    holding_years: int
    lending_max: int  # %
    lending_avg: Decimal  # %
    lending_share: int  # % of lending income kept by the fund
    futures: Decimal  # % notional exposure
    breakdown: tuple[tuple[str, Decimal], ...]
    holdings: tuple[tuple[str, str, str, Decimal], ...]  # name, country, sector, weight %
    liquidity: Decimal  # %
    rest: Decimal  # % of the remaining positions (0 when all are listed)
    returns: tuple[tuple[int, Decimal, Decimal], ...]  # year, fund %, index %
    lending_return: Decimal  # percentage points of the last year's return
    scenarios: tuple[Scenario, ...]
    unfavourable_window: tuple[date, date]

    @property
    def replication(self) -> str:
        if self.theme.asset is AssetClass.EQUITY and self.constituents <= 600:
            return "replicación física completa"
        return "replicación física mediante muestreo optimizado"

    @property
    def distributes(self) -> bool:
        return self.share_class == "Dist"

    def doc_ids(self) -> tuple[str, str]:
        return f"folleto-{self.slug}", f"kid-{self.slug}"


def fund_name(index: int) -> tuple[str, Theme, str]:
    theme = THEMES[index % len(THEMES)]
    share_class = CLASSES[(index // len(THEMES)) % len(CLASSES)]
    series = index // (len(THEMES) * len(CLASSES))
    middle = f"{theme.name} Serie {series + 1}" if series else theme.name
    return f"{BRAND} {middle} UCITS ETF ({share_class})", theme, share_class


def isin(rng: random.Random) -> str:
    body = f"IE00{rng.randint(0, 10**7 - 1):07d}"
    digits = "".join(str(int(ch, 36)) for ch in body)
    total = 0
    for pos, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if pos % 2 == 0 else 1)
        total += d // 10 + d % 10
    return body + str((10 - total % 10) % 10)


def make_fund(seed: int, index: int, year: int) -> Fund:
    rng = seeded(seed, "fund", index)
    name, theme, share_class = fund_name(index)
    ogc_bp = rng.randint(5, 40)
    dep_bp = rng.randint(1, min(4, ogc_bp - 2))
    mgmt_bp = ogc_bp - dep_bp
    equity = theme.asset is AssetClass.EQUITY
    constituents = rng.randint(30, 1500) if equity else rng.randint(80, 900)
    lending_max = rng.choice((20, 30, 40, 50))
    liquidity = dec(rng, "0.10", "1.50")
    holdings, rest = _holdings(rng, theme, constituents, liquidity, year)
    ogc = Decimal(ogc_bp).scaleb(-2)
    tc = Decimal(rng.randint(1, 12)).scaleb(-2)
    years = 5 if equity else (2 if theme.asset is AssetClass.GOVERNMENT else 3)
    start = rng.randint(year - 11, year - years - 1)
    return Fund(
        index=index,
        name=name,
        slug=slug(name.replace(f"{BRAND} ", "").replace(" UCITS ETF", "")),
        theme=theme,
        share_class=share_class,
        isin=isin(rng),
        launch=date(rng.randint(year - 13, year - 5), rng.randint(1, 12), rng.randint(1, 28)),
        aum=dec(rng, "150.0", "9000.0"),
        constituents=constituents,
        ogc=ogc,
        management_fee=Decimal(mgmt_bp).scaleb(-2),
        depositary_fee=Decimal(dep_bp).scaleb(-2),
        max_fee=Decimal(mgmt_bp + rng.randint(5, 20)).scaleb(-2),
        transaction_costs=tc,
        sri=_sri(rng, theme),
        holding_years=years,
        lending_max=lending_max,
        lending_avg=dec(rng, "2.0", str(lending_max * 6 // 10)),
        lending_share=rng.choice((70, 75, 80, 85, 90)),
        futures=dec(rng, "0.3", "2.5"),
        breakdown=_breakdown(rng, theme),
        holdings=holdings,
        liquidity=liquidity,
        rest=rest,
        returns=_returns(rng, theme, ogc, year),
        lending_return=dec(rng, "0.01", "0.15"),
        scenarios=_scenarios(rng, theme, years),
        unfavourable_window=(date(start, rng.randint(1, 12), 1), date(start + years, 6, 1)),
    )


def _sri(rng: random.Random, theme: Theme) -> int:
    if theme.asset is AssetClass.GOVERNMENT:
        return 2
    if theme.asset is AssetClass.CORPORATE:
        return 3
    return 5 if len(theme.countries) == 1 or "Emergentes" in theme.name else 4


def _breakdown(rng: random.Random, theme: Theme) -> tuple[tuple[str, Decimal], ...]:
    if theme.asset is AssetClass.GOVERNMENT:
        labels = theme.countries
    elif theme.asset is AssetClass.CORPORATE:
        labels = RATING_BUCKETS
    else:
        labels = tuple(sorted(rng.sample(SECTORS, rng.randint(8, 11)), key=SECTORS.index))
    weights = sorted(split(rng, Decimal("100.00"), len(labels), places=2), reverse=True)
    return tuple(zip(labels, weights, strict=True))


def _holding_names(
    rng: random.Random, theme: Theme, n: int, year: int
) -> list[tuple[str, str, str]]:
    if theme.asset is AssetClass.GOVERNMENT:
        keys = [(c, y, m) for c in theme.countries for y in (1, 2, 3) for m in (2, 4, 7, 10)]
        picked = rng.sample(keys, min(n, len(keys)))
        return [
            (f"Bono {c} {_coupon(rng)} % 15/{m:02d}/{year + y}", c, "Deuda pública")
            for c, y, m in picked
        ]
    combos = rng.sample(range(len(STEMS) * len(SUFFIXES)), n)
    out = []
    for k in combos:
        company = f"{STEMS[k // len(SUFFIXES)]} {SUFFIXES[k % len(SUFFIXES)]}"
        country = rng.choice(theme.countries)
        if theme.asset is AssetClass.CORPORATE:
            out.append(
                (
                    f"{company} {_coupon(rng)} % {rng.randint(2025, 2034)}",
                    country,
                    rng.choice(RATING_BUCKETS),
                )
            )
        else:
            out.append((company, country, rng.choice(SECTORS)))
    return out


def _coupon(rng: random.Random) -> str:
    return f"{rng.randint(0, 5)},{rng.choice(('000', '125', '250', '375', '500', '750'))}"


def _holdings(
    rng: random.Random, theme: Theme, constituents: int, liquidity: Decimal, year: int
) -> tuple[tuple[tuple[str, str, str, Decimal], ...], Decimal]:
    """Top positions by weight (descending); all of them when the index is small."""
    names = _holding_names(rng, theme, min(constituents, 35), year)
    everything = len(names) >= constituents
    invested = Decimal(100) - liquidity
    target = invested if everything else q(invested * dec(rng, "0.30", "0.70"), 2)
    raw = [Decimal(1)]
    for _ in names[1:]:
        raw.append(raw[-1] * dec(rng, "0.86", "0.99"))
    whole = sum(raw, Decimal(0))
    weights = [q(target * r / whole, 2) for r in raw]
    if everything:
        weights[-1] += target - sum(weights, Decimal(0))
    rest = Decimal(0) if everything else invested - sum(weights, Decimal(0))
    rows = tuple((n, c, s, w) for (n, c, s), w in zip(names, weights, strict=True))
    return rows, rest


def _returns(
    rng: random.Random, theme: Theme, ogc: Decimal, year: int
) -> tuple[tuple[int, Decimal, Decimal], ...]:
    lo, hi = ("-15.00", "28.00") if theme.asset is AssetClass.EQUITY else ("-6.00", "7.00")
    out = []
    for y in range(year - 4, year + 1):
        index_return = dec(rng, lo, hi)
        out.append((y, index_return - ogc + dec(rng, "-0.08", "0.08"), index_return))
    return tuple(out)


_SCENARIO_RANGES = {
    AssetClass.EQUITY: (
        ("-70", "-40", "-25", "-10"),
        ("-25", "-8", "-5", "2"),
        ("3", "9", "4", "8"),
        ("20", "45", "9", "15"),
    ),
    AssetClass.GOVERNMENT: (
        ("-12", "-6", "-5", "-2"),
        ("-5", "-1", "-2", "0"),
        ("0", "3", "1", "3"),
        ("3", "7", "2", "4"),
    ),
    AssetClass.CORPORATE: (
        ("-20", "-10", "-8", "-3"),
        ("-9", "-2", "-3", "0"),
        ("1", "4", "1", "4"),
        ("5", "12", "3", "6"),
    ),
}
SCENARIO_LABELS = ("Tensión", "Desfavorable", "Moderado", "Favorable")


def _scenarios(rng: random.Random, theme: Theme, years: int) -> tuple[Scenario, ...]:
    out = []
    for label, (a, b, c, d) in zip(SCENARIO_LABELS, _SCENARIO_RANGES[theme.asset], strict=True):
        r1 = q(dec(rng, a + ".0", b + ".0"))
        rn = q(dec(rng, c + ".0", d + ".0"))
        amount1 = int(q(Decimal(10_000) * (1 + r1 / 100), 0))
        amountn = int(q(Decimal(10_000) * (1 + rn / 100) ** years, 0))
        out.append(Scenario(label, amount1, r1, amountn, rn))
    return tuple(out)
