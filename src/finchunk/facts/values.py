"""Text <-> typed value conversions shared by the parsers, the store and the CLI."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

from finchunk.errors import InputError

_ISO_CURRENCY = re.compile(r"^[A-Z]{3}$")


def decimal_text(value: Decimal) -> str:
    """Canonical text of a decimal: no exponent, no trailing zeros ("36537000000", "1.5")."""
    if value == 0:
        return "0"
    text = format(value.normalize(), "f")
    return text


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


def is_currency(unit: str) -> bool:
    """True for a plain ISO 4217 currency unit such as "USD" (not "USD/shares")."""
    return bool(_ISO_CURRENCY.match(unit))


def parse_cik(text: str | int) -> int | None:
    """CIK as an int from "0000320193", "320193" or 320193; None when not a CIK."""
    if isinstance(text, int):
        return text if text > 0 else None
    core = text.strip()
    return int(core) if core.isdigit() and int(core) > 0 else None
