"""Inline XBRL number transforms (``format`` on ix:nonFraction) from the XBRL transformation
registries and the SEC's own registry. Unknown transforms are refused, never guessed."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

_SPACES = re.compile(r"[\s\u00a0\u202f]+")
_DOT_DECIMAL = re.compile(r"^\d{1,3}(?:[, ]?\d{3})*(?:\.\d*)?$|^\d+(?:\.\d*)?$|^\.\d+$")
_COMMA_DECIMAL = re.compile(r"^\d{1,3}(?:[. ]?\d{3})*(?:,\d*)?$|^\d+(?:,\d*)?$")

_WORD_UNITS = {
    "zero": 0,
    "no": 0,
    "none": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_WORD_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 10**9}


class TransformError(ValueError):
    """The text does not fit the transform."""


def num_dot_decimal(text: str) -> Decimal:
    core = _SPACES.sub(" ", text.strip()).strip()
    if not _DOT_DECIMAL.match(core):
        raise TransformError(f"{text!r} is not a number with '.' decimals")
    return Decimal(core.replace(",", "").replace(" ", "") or "0")


def num_comma_decimal(text: str) -> Decimal:
    core = _SPACES.sub(" ", text.strip()).strip()
    if not _COMMA_DECIMAL.match(core):
        raise TransformError(f"{text!r} is not a number with ',' decimals")
    return Decimal(core.replace(".", "").replace(" ", "").replace(",", "."))


def fixed_zero(_text: str) -> Decimal:
    return Decimal(0)


def num_words_en(text: str) -> Decimal:
    """English number words ("no", "none", "two", "forty-five", "one hundred and six")."""
    words = [w for w in re.split(r"[\s\-]+", text.strip().lower()) if w and w != "and"]
    if not words:
        raise TransformError(f"{text!r} has no number words")
    total = current = 0
    for word in words:
        if word in _WORD_UNITS:
            current += _WORD_UNITS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _WORD_SCALES:
            total += max(current, 1) * _WORD_SCALES[word]
            current = 0
        else:
            raise TransformError(f"{text!r}: {word!r} is not an English number word")
    return Decimal(total + current)


def plain_decimal(text: str) -> Decimal:
    """No ``format``: the content must itself be an xs:decimal."""
    core = text.strip()
    if not re.match(r"^[+-]?(\d+(\.\d*)?|\.\d+)$", core):
        raise TransformError(f"{text!r} is not a decimal (no format given)")
    return Decimal(core)


_BY_NAME: dict[str, Callable[[str], Decimal]] = {
    "num-dot-decimal": num_dot_decimal,
    "numdotdecimal": num_dot_decimal,
    "numcommadot": num_dot_decimal,
    "num-comma-decimal": num_comma_decimal,
    "numcommadecimal": num_comma_decimal,
    "numdotcomma": num_comma_decimal,
    "fixed-zero": fixed_zero,
    "zerodash": fixed_zero,
    "numwordsen": num_words_en,
    "num-word-en": num_words_en,
}


def transform_for(format_qname: str | None) -> Callable[[str], Decimal] | None:
    """The function for a ``format`` QName (prefix ignored: the registries do not clash on these
    names), ``plain_decimal`` when there is no format, None when the transform is unknown."""
    if not format_qname:
        return plain_decimal
    return _BY_NAME.get(format_qname.rpartition(":")[2].lower())
