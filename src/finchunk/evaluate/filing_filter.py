"""Which filings does a question name? Company and fiscal year, from the question text alone.

General rules, no per-question knowledge:

* companies: every document's company name is matched as a run of words of the question
  (case, punctuation and possessives ignored: "Coca Cola's" matches "Coca-Cola"), also with
  generic suffixes removed ("AES Corporation" → "AES") and with its words glued together
  ("BestBuy", "JP Morgan" ↔ "JPMorgan"), and by a leading acronym ("MGM" for "MGM
  Resorts"); the company prefix of a document name
  ("AMERICANWATERWORKS_2020_10K") is one more alias;
* years: four-digit years (1990–2039), and fiscal-year forms "FY2022", "FY 22", "fiscal 2019";
* the filter keeps the filings of the companies named, restricted to the years named when one
  of them is a filing year; no company named → every company; no year named → every year.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[a-z0-9]+")
_YEAR = re.compile(r"\b(?:fy|fiscal(?:\s+year)?)\s*'?(\d{4}|\d{2})\b|\b((?:19[89]|20[0-3])\d)\b")
_GENERIC = frozenset(
    {
        "corporation",
        "corp",
        "inc",
        "incorporated",
        "company",
        "co",
        "plc",
        "group",
        "holdings",
        "ltd",
        "the",
    }
)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'").replace("'s ", " "))


def fiscal_years(question: str) -> set[int]:
    """Years a question names, as four-digit integers."""
    out: set[int] = set()
    for m in _YEAR.finditer(question.lower()):
        y = m.group(1) or m.group(2)
        n = int(y)
        out.add(n if n >= 100 else 2000 + n)
    return out


@dataclass(frozen=True, slots=True)
class Filing:
    name: str
    company: str
    period: int | None


def aliases(company: str, doc_name: str) -> set[tuple[str, ...]]:
    """Word sequences that name a company."""
    full = tuple(words(company))
    core = tuple(w for w in full if w not in _GENERIC)
    prefix = doc_name.rsplit("_", 2)[0] if doc_name.count("_") >= 2 else doc_name.split("_")[0]
    out = {
        full,
        core,
        ("".join(full),),
        tuple(words(prefix.replace("_", " "))),
        ("".join(words(prefix)),),
    }
    first = company.split()[0] if company.split() else ""
    if len(first) >= 2 and first.isupper():  # an acronym leading the name: "MGM Resorts"
        out.add(tuple(words(first)))
    return {a for a in out if a and len("".join(a)) >= 2}


class FilingMatcher:
    """Match questions to the filings they name."""

    def __init__(self, filings: Iterable[Filing]) -> None:
        self.filings = sorted(filings, key=lambda f: f.name)
        self._aliases: dict[str, set[tuple[str, ...]]] = {}
        for f in self.filings:
            self._aliases.setdefault(f.company, set()).update(aliases(f.company, f.name))

    def companies(self, question: str) -> set[str]:
        toks = words(question)
        grams = _ngrams(toks, 4)
        glued = {"".join(g) for g in grams}
        found = set()
        for company, names in self._aliases.items():
            if any(a in grams or (len(a) == 1 and a[0] in glued) for a in names):
                found.add(company)
        return found

    def match(self, question: str) -> list[str]:
        """Names of the filings the question names (all filings when it names nothing)."""
        companies = self.companies(question)
        pool = [f for f in self.filings if not companies or f.company in companies]
        years = fiscal_years(question)
        by_year = [f for f in pool if f.period in years]
        return [f.name for f in (by_year or pool)]


def _ngrams(toks: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(toks[i : i + k]) for k in range(1, n + 1) for i in range(len(toks) - k + 1)}
