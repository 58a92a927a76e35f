"""Which filings does a question name? Company and fiscal year, from the question text alone.

General rules, no per-question knowledge:

* companies: every document's company name is matched as a run of words of the question
  (case, punctuation and possessives ignored: "Coca Cola's" matches "Coca-Cola"), also with
  generic suffixes removed ("AES Corporation" → "AES") and with its words glued together
  ("BestBuy", "JP Morgan" ↔ "JPMorgan"), and by a leading acronym ("MGM" for "MGM
  Resorts"); the company prefix of a document name
  ("AMERICANWATERWORKS_2020_10K") is one more alias;
* years: four-digit years (1990–2039), and fiscal-year forms "FY2022", "FY 22", "fiscal 2019";
* abbreviations, only when no name matched: a word of three to six letters with two or more
  capitals ("JPM", "AMEX", "JnJ") names a company whose glued name starts with the same
  letter and holds its letters in order;
* the filter keeps the filings of the companies named, restricted to the latest year named
  (a report for year N also shows N - 1 and N - 2, so "FY2021 vs FY2022" is answered by
  the FY2022 filing), else to any year named that is a filing year; no company named →
  every company; no year named → every year.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[a-z0-9]+")
_YEAR = re.compile(
    r"\b(?:fy|fiscal(?:\s+year)?)\s*'?(\d{4}|\d{2})(?=\b|q\d)|\b((?:19[89]|20[0-3])\d)(?=\b|q\d)",
    re.IGNORECASE,
)
_ABBREVIATION = re.compile(r"\b[A-Za-z]{3,6}\b")
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
    for m in _YEAR.finditer(question):
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
        if not found:
            found = self._abbreviated(question)
        return found

    def _abbreviated(self, question: str) -> set[str]:
        """Companies named by an abbreviation only ("JPM", "AMEX", "JnJ")."""
        return {c for abbr in self._abbreviations(question) for c in self._abbreviations_of(abbr)}

    @staticmethod
    def _abbreviations(question: str) -> list[str]:
        return [a for a in _ABBREVIATION.findall(question) if sum(c.isupper() for c in a) >= 2]

    def _abbreviations_of(self, abbr: str) -> set[str]:
        found = set()
        for company, names in self._aliases.items():
            glued = max(("".join(a) for a in names), key=len)
            if _abbreviates(abbr.lower(), glued):
                found.add(company)
        return found

    def residual_query(self, question: str) -> str:
        """The question less what the filter consumed: the company names and years it found.

        Searching the filtered filings for the company name would favour the passages that
        happen to repeat it (narrative text) over those that do not (statement tables).
        """
        companies = self.companies(question)
        terms = {w for c in companies for a in self._aliases[c] for w in a}
        terms.update(
            a.lower()
            for a in self._abbreviations(question)
            if self._abbreviations_of(a) & companies
        )
        text = _YEAR.sub(" ", question)
        if not terms:
            return text
        pattern = r"\b(?:" + "|".join(re.escape(t) for t in sorted(terms)) + r")\b(?:['’]s)?"
        return re.sub(pattern, " ", text, flags=re.IGNORECASE)

    def match(self, question: str) -> list[str]:
        """Names of the filings the question names (all filings when it names nothing)."""
        companies = self.companies(question)
        pool = [f for f in self.filings if not companies or f.company in companies]
        years = fiscal_years(question)
        latest = [f for f in pool if years and f.period == max(years)]
        by_year = latest or [f for f in pool if f.period in years]
        return [f.name for f in (by_year or pool)]


def _abbreviates(abbr: str, name: str) -> bool:
    """``abbr`` starts like ``name`` and its letters appear in ``name`` in order."""
    if not name.startswith(abbr[0]):
        return False
    pos = 0
    for ch in abbr:
        pos = name.find(ch, pos) + 1
        if pos == 0:
            return False
    return True


def _ngrams(toks: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(toks[i : i + k]) for k in range(1, n + 1) for i in range(len(toks) - k + 1)}
