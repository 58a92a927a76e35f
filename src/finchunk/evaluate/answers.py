"""Answer-bearing recall: whether delivered text states a gold answer, its numbers matched
after normalising scale, sign and format ("5,363", "$5.4 billion", "(370)")."""

from __future__ import annotations

import re

#: A number as written in reports: sign or parentheses, currency, digits with thousands
#: separators (``,`` ``.`` thin space) and a decimal part, a percent sign.
_NUMBER = re.compile(r"\(?-?[$€£]?\s?\d[\d,.\u202f\u00a0 ]*\d|\(?-?[$€£]?\s?\d")
_SCALES = {
    "thousand": 1e3, "thousands": 1e3, "mil": 1e3, "k": 1e3,
    "million": 1e6, "millions": 1e6, "millones": 1e6, "millón": 1e6, "mn": 1e6, "m": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9,
}  # fmt: skip
_SCALE_WORD = re.compile(r"\s*([A-Za-zñó]+)")


def _readings(digits: str) -> set[tuple[float, int]]:
    """The values a digit string may mean, each with its decimals: ``5,363`` is 5363 (or
    5.363 where a comma is the decimal mark), ``23,3`` 23.3, ``19.779`` 19779 or 19.779."""
    d = digits.replace("\u202f", "").replace("\u00a0", "").replace(" ", "")
    out: set[tuple[float, int]] = set()
    for thousands, decimal in ((",", "."), (".", ",")):
        body = d
        head, sep, tail = body.rpartition(decimal)
        if sep and thousands not in tail:
            whole, frac = head.replace(thousands, ""), tail
        else:
            whole, frac = body.replace(thousands, ""), ""
        groups = (head if sep else body).split(thousands)
        if len(groups) > 1 and any(len(g) != 3 for g in groups[1:]):
            continue  # not thousands groups
        if whole.isdigit() and (not frac or frac.isdigit()):
            out.add((float(f"{whole}.{frac}" if frac else whole), len(frac)))
    return out


def numbers(text: str) -> list[tuple[set[tuple[float, int]], float]]:
    """The numbers of ``text``: per number, its readings (value, decimals; sign dropped:
    ``(370)`` and ``-370`` are 370) and the scale a word after it names (1 without)."""
    out = []
    for m in _NUMBER.finditer(text):
        digits = re.sub(r"^[(\-$€£\s]+", "", m.group())
        readings = _readings(digits)
        if not readings:
            continue
        word = _SCALE_WORD.match(text, m.end())
        scale = _SCALES.get(word.group(1).lower(), 1.0) if word else 1.0
        out.append((readings, scale))
    return out


_SCALE_STEPS = (1.0, 1e3, 1e6, 1e9, 1e-3, 1e-6, 1e-9)


def _matches(value: float, decimals: int, candidates: set[float]) -> bool:
    """Whether ``value`` (shown with ``decimals``) is one of ``candidates`` rounded the
    same way, in any scale (a text in millions, an answer in billions)."""
    for c in candidates:
        for step in _SCALE_STEPS:
            if round(c * step, decimals) == round(value, decimals) and value != 0:
                return True
            if value == 0 and c == 0:
                return True
    return False


def answer_found(answer: str, text: str) -> bool:
    """Whether ``text`` states ``answer``: every number of the answer appears in the text
    after normalising scale, sign and format (``5,363`` ; ``$5.4 billion`` against 5,363
    million ; ``(370)``); an answer without numbers is found when its words are (case and
    spacing ignored). An empty answer is never found."""
    wanted = numbers(answer)
    if not wanted:
        norm = " ".join(answer.lower().split())
        return bool(norm) and norm in " ".join(text.lower().split())
    have: set[float] = set()
    for readings, scale in numbers(text):
        have.update(v * scale for v, _ in readings)
        have.update(v for v, _ in readings)
    for readings, scale in wanted:
        if not any(_matches(v * scale, d, have) or _matches(v, d, have) for v, d in readings):
            return False
    return True
