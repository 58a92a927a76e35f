"""Spanish formatting of figures, percentages and dates (decimal comma, thousands dot)."""

from __future__ import annotations

import unicodedata
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

MONTHS = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)

_QUANTA = {n: Decimal(1).scaleb(-n) for n in range(6)}
_SWAP_SEPARATORS = str.maketrans({",": ".", ".": ","})


def q(value: Decimal | int, places: int = 1) -> Decimal:
    """Round half up to ``places`` decimals."""
    if not isinstance(value, Decimal):
        value = Decimal(value)
    return value.quantize(_QUANTA[places], rounding=ROUND_HALF_UP)


def num(value: Decimal | int, places: int = 1) -> str:
    """``Decimal("13668.9")`` -> ``"13.668,9"``; integers with ``places=0`` -> ``"12.450"``."""
    return f"{q(value, places):,.{places}f}".translate(_SWAP_SEPARATORS)


def pct(value: Decimal | int, places: int = 1) -> str:
    """A percentage as printed in Spanish reports: ``"4,2 %"``."""
    return f"{num(value, places)} %"


def meur(value: Decimal, places: int = 1) -> str:
    """An amount in millions of euros, in words: ``"13.668,9 millones de euros"``."""
    return f"{num(value, places)} millones de euros"


def eur(value: Decimal, places: int = 2) -> str:
    return f"{num(value, places)} euros"


def fecha(d: date) -> str:
    """``date(2024, 2, 15)`` -> ``"15 de febrero de 2024"``."""
    return f"{d.day} de {MONTHS[d.month - 1]} de {d.year}"


def slug(text: str) -> str:
    """ASCII, lowercase, words joined by hyphens: ``"Aurora Energía"`` -> ``"aurora-energia"``."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    out = []
    dash = False
    for ch in plain.lower():
        if ch.isalnum():
            out.append(ch)
            dash = False
        elif not dash and out:
            out.append("-")
            dash = True
    return "".join(out).strip("-")
