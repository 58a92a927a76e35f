"""Seeded draws on decimal grids (no floats reach a printed figure)."""

from __future__ import annotations

import random
from decimal import Decimal
from functools import lru_cache


def dec(rng: random.Random, lo: str, hi: str) -> Decimal:
    """A uniform draw on the grid of the finer of ``lo`` and ``hi``: ``dec(r, "0.12", "0.35")``."""
    a, b, places = _grid(lo, hi)
    return Decimal(rng.randint(a, b)).scaleb(-places)


@lru_cache(maxsize=512)
def _grid(lo: str, hi: str) -> tuple[int, int, int]:
    """``("0.12", "0.35")`` -> ``(12, 35, 2)``: integer bounds on the finer grid."""
    a, b = Decimal(lo), Decimal(hi)
    places = max(-a.as_tuple().exponent, -b.as_tuple().exponent, 0)
    scale = 10**places
    return int(a * scale), int(b * scale), places


def split(rng: random.Random, total: Decimal, parts: int, places: int = 1) -> list[Decimal]:
    """``total`` split into ``parts`` positive shares that add up exactly to it."""
    weights = [rng.randint(10, 40) for _ in range(parts)]
    whole = sum(weights)
    quantum = Decimal(1).scaleb(-places)
    out = [(total * w / whole).quantize(quantum) for w in weights[:-1]]
    out.append(total - sum(out, Decimal(0)))
    return out


def seeded(seed: int, *key: object) -> random.Random:
    """An independent generator for one entity: stable whatever else the corpus holds."""
    return random.Random("/".join(str(k) for k in (seed, *key)))
