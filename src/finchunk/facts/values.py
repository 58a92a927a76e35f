"""Text <-> typed value conversions shared by the parsers, the store and the CLI."""

from __future__ import annotations

import re
from datetime import date
from decimal import Context, Decimal, InvalidOperation

from finchunk.errors import InputError

_ISO_CURRENCY = re.compile(r"^[A-Z]{3}$")


#: The largest power of ten a fact value, an iXBRL ``scale`` or a ``decimals`` attribute may
#: name, and the most digits a value may have: far past any reported figure (10^100), small
#: enough that exact Decimal arithmetic and canonical text stay cheap.
MAX_EXPONENT = 100
MAX_DIGITS = 100


def decimal_text(value: Decimal) -> str:
    """Canonical text of a decimal: no exponent, no trailing zeros ("36537000000", "1.5").

    Exact for any number of digits (``normalize()`` under the default context would round
    to 28 significant digits)."""
    if value == 0:
        return "0"
    exact = Context(prec=len(value.as_tuple().digits) + 1, Emax=10**9, Emin=-(10**9))
    return format(value.normalize(exact), "f")


def value_problem(value: Decimal) -> str | None:
    """Why ``value`` cannot be a fact's value (not finite, too many digits, too large or too
    small a power of ten), or None when it can."""
    if not value.is_finite():
        return f"value {value} is not a finite number"
    digits = len(value.as_tuple().digits)
    if digits > MAX_DIGITS:
        return f"value has {digits} digits (at most {MAX_DIGITS})"
    if value and not -MAX_EXPONENT <= value.adjusted() <= MAX_EXPONENT:
        return f"value {value:.3E} is out of range (10^±{MAX_EXPONENT})"
    return None


def bounded_int(text: str, what: str) -> int:
    """``int`` of a signed integer attribute (an iXBRL ``scale``, a ``decimals``) within
    ±:data:`MAX_EXPONENT`; ValueError saying what is wrong otherwise (never Python's
    int-string limit on a 5,000-digit string)."""
    core = text.strip()
    digits = core[1:] if core[:1] in "+-" else core
    if not digits.isascii() or not digits.isdigit():
        raise ValueError(f"{what} {core[:40]!r} is not an integer")
    if len(digits) > 4 or abs(int(core)) > MAX_EXPONENT:
        raise ValueError(f"{what} {core[:40]!r} is out of range (±{MAX_EXPONENT})")
    return int(core)


def scaled(value: Decimal, scale: int) -> Decimal:
    """``value`` × 10^``scale``, exactly (``scaleb`` rounds to the context's precision)."""
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        return value
    return Decimal((sign, digits, exponent + scale))


def parse_decimal(text: str) -> Decimal | None:
    """``Decimal`` of an xs:decimal-like string, or None when it is not a finite number."""
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def parse_date(text: str) -> date | None:
    """``date`` of an ISO ``YYYY-MM-DD`` string (XBRL allows a trailing zone or time), or None."""
    core = text.strip()[:10]
    try:
        return date.fromisoformat(core)
    except ValueError:
        return None


def option_date(text: str | None, option: str) -> date | None:
    """A date given on the command line or to the API as text; InputError when malformed."""
    if text is None:
        return None
    day = parse_date(text)
    if day is None or len(text.strip()) != 10:
        raise InputError(f"{option}: expected a date as YYYY-MM-DD, got {text!r}")
    return day


_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}
_MILLION = Decimal(1_000_000)
_CENT = Decimal("0.01")


def _grouped(value: Decimal, places: int | None = None) -> str:
    """Thousands-separated text of ``value``: rounded half-even to at most ``places`` decimals
    (trailing zeros dropped), or exact when ``places`` is None."""
    if places is not None:
        value = value.quantize(Decimal(1).scaleb(-places))
    text = decimal_text(abs(value))
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0") if places is not None else frac
    sign = "-" if value < 0 and (int(whole) or frac) else ""
    return f"{sign}{int(whole):,}" + (f".{frac}" if frac else "")


def _cents(value: Decimal) -> str:
    """To the cent when that is exact ("6.08", "6.10", "46.21"), else every decimal ("0.125")."""
    cents = value.quantize(_CENT)
    return format(cents, "f") if cents == value else decimal_text(value)


def display_value(value: Decimal, unit: str | None) -> str:
    """How a person reads a figure; the exact value stays in ``decimal_text``.

    - currency amounts of a million or more are in millions, as statements present them,
      with thousands separators and at most two decimals: ``$391,035 million``,
      ``€1,234.5 million``, ``CHF 12 million``; smaller amounts in full: ``$512,300``.
      One scale for every size, so the figures of one answer compare at a glance;
    - per-share amounts to the cent: ``6.08 USD/share``, ``6.10 USD/share``;
    - percentages (unit ``%``) to the hundredth: ``46.21 %``;
    - share counts in millions like money: ``15,116.79 million shares``;
    - anything else exact with separators and its unit: ``0.21 pure``.
    """
    if unit is None:
        return _grouped(value)
    if is_currency(unit):
        return _money(value, unit)
    if unit == "%":
        return f"{_cents(value)} %"
    num, slash, den = unit.partition("/")
    if slash and den == "shares":
        return f"{_cents(value)} {num}/share"
    if unit == "shares":
        if abs(value) >= _MILLION:
            return f"{_grouped(value / _MILLION, 2)} million shares"
        return f"{_grouped(value)} shares"
    return f"{_grouped(value)} {unit}"


def _money(value: Decimal, currency: str) -> str:
    sign = "-" if value < 0 else ""
    size = abs(value)
    amount = f"{_grouped(size / _MILLION, 2)} million" if size >= _MILLION else _grouped(size)
    symbol = _SYMBOLS.get(currency)
    return f"{sign}{symbol}{amount}" if symbol else f"{sign}{currency} {amount}"


def is_currency(unit: str) -> bool:
    """True for a plain ISO 4217 currency unit such as "USD" (not "USD/shares")."""
    return bool(_ISO_CURRENCY.match(unit))


def parse_cik(text: str | int) -> int | None:
    """CIK as an int from "0000320193", "320193" or 320193; None when not a CIK."""
    if isinstance(text, int):
        return text if text > 0 else None
    core = text.strip()
    # isdecimal, not isdigit: isdigit also accepts "²" and "₂", which int() refuses.
    return int(core) if core.isdecimal() and int(core) > 0 else None
