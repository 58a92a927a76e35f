"""What a question names: issuers, fiscal years and quarters, document types — and where.

One detector for every reader of questions (the ``--auto-filter`` of search and evaluation,
FinanceBench's filtered scope, ``finchunk ask``). General rules, no per-question knowledge:

* issuers, matched on words (case, accents, punctuation and possessives ignored: "Coca Cola's"
  names "Coca-Cola"): the full name, the name less its legal forms and generic business words
  ("AES Corporation" → "AES", "Banco Santander, S.A." → "Santander"), the words glued or split
  ("BestBuy", "JP Morgan" ↔ "JPMorgan"), an acronym leading the name ("MGM" for "MGM
  Resorts"), the caller's aliases (a document-name prefix such as "AMERICANWATERWORKS"), and a
  word only that issuer has, of four letters or more, written with a capital initial ("Aurora"
  names "Aurora Energía"; "corto plazo" does not name "Fondo Corto Plazo", "Corto Plazo"
  does);
* tickers, written in capitals (``AAPL``, not ``aapl``);
* abbreviations, only when nothing else named an issuer: a word of three to six letters with
  two or more capitals ("JPM", "AMEX", "JnJ") names an issuer whose glued name starts with the
  same letter and holds its letters in order;
* fiscal years: "2024", "FY2022", "FY 22", "fiscal 2019", "fiscal year 2019", "ejercicio
  2023", "año 2023", and the year of "3Q24" or "Q3'24";
* quarters: "Q3", "3Q", "T1", "1T", "third quarter", "3rd quarter", "primer trimestre",
  "1er trimestre";
* document types: the caller's values (as the documents' metadata spells them: "10-K",
  "kid", "informe_anual"), by their words glued or split, or by a synonym in the other
  language ("annual report" for "informe_anual", "prospectus" for "folleto").

:meth:`MentionFinder.find` returns :class:`Mentions`, an immutable record of every mention
with its character span in the question; :meth:`Mentions.residual` removes spans, so a
filtered search can look for what the filter left of the question. Which years count is a
:class:`YearPolicy`. Every regex here is linear in the question; results are sorted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from finchunk.text.analysis import normalize


class YearPolicy(StrEnum):
    """Which of the years a question names it is about."""

    ANY = "any"  # every year named
    LATEST = "latest"  # the latest year named (a report for year N also shows N-1 and N-2)
    FIRST = "first"  # the first named with a fiscal marker (FY, fiscal, ejercicio), else first
    #: For choosing filings: the latest year named and the year before it (a filing for year
    #: N-1 is published in N and forecasts N: "guidance for 2024" is in the 2023 report).
    LATEST_AND_PRIOR = "latest-and-prior"
    #: For choosing filings: the latest year named and the year after it (the next report
    #: restates year N as its comparative).
    LATEST_AND_NEXT = "latest-and-next"


class MentionKind(StrEnum):
    ISSUER = "issuer"  # value: the issuer's name
    TICKER = "ticker"  # value: the ticker; ``Mention.issuer``: its issuer where known
    FISCAL_YEAR = "fiscal_year"  # a year with a marker ("FY2022", "ejercicio 2023", "3Q24")
    YEAR = "year"  # a bare year ("2024")
    QUARTER = "quarter"  # value: "1" to "4"
    DOC_TYPE = "doc_type"  # value: the document type as the finder was given it


YEAR_KINDS = frozenset({MentionKind.FISCAL_YEAR, MentionKind.YEAR})
ISSUER_KINDS = frozenset({MentionKind.ISSUER, MentionKind.TICKER})


@dataclass(frozen=True, slots=True)
class Mention:
    kind: MentionKind
    value: str
    start: int  # character span in the question
    end: int
    issuer: str | None = None  # the issuer a ticker stands for


@dataclass(frozen=True, slots=True)
class Issuer:
    """An issuer to look for: its name, its tickers, and other names for it."""

    name: str
    tickers: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # a former name, a document-name prefix ("BEST_BUY")


@dataclass(frozen=True, slots=True)
class Mentions:
    """What one question names, every mention with its span, and the year policy asked for."""

    question: str
    found: tuple[Mention, ...]  # by position in the question
    policy: YearPolicy = YearPolicy.ANY

    def values(self, kind: MentionKind) -> tuple[str, ...]:
        """The distinct values of one kind of mention, sorted."""
        return tuple(sorted({m.value for m in self.found if m.kind is kind}))

    @property
    def issuers(self) -> tuple[str, ...]:
        """Every issuer named, by name, alias, abbreviation or ticker."""
        named = {m.value if m.kind is MentionKind.ISSUER else m.issuer for m in self.found}
        return tuple(sorted(n for n in named if n is not None))

    @property
    def named_years(self) -> tuple[int, ...]:
        """Every year named, ascending."""
        return tuple(sorted({int(m.value) for m in self.found if m.kind in YEAR_KINDS}))

    @property
    def years(self) -> tuple[int, ...]:
        """The years named that count under :attr:`policy`."""
        named = self.named_years
        if not named or self.policy is YearPolicy.ANY:
            return named
        if self.policy is YearPolicy.LATEST:
            return (named[-1],)
        if self.policy is YearPolicy.LATEST_AND_PRIOR:
            return (named[-1] - 1, named[-1])
        if self.policy is YearPolicy.LATEST_AND_NEXT:
            return (named[-1], named[-1] + 1)
        marked = [m for m in self.found if m.kind is MentionKind.FISCAL_YEAR]
        bare = [m for m in self.found if m.kind is MentionKind.YEAR]
        return (int((marked or bare)[0].value),)

    @property
    def quarter(self) -> int | None:
        """The first quarter named."""
        q = [m for m in self.found if m.kind is MentionKind.QUARTER]
        return int(q[0].value) if q else None

    def residual(self, kinds: Iterable[MentionKind] = tuple(MentionKind)) -> str:
        """The question less the spans of the mentions of ``kinds``, spaces collapsed."""
        wanted = frozenset(kinds)
        spans = sorted((m.start, m.end) for m in self.found if m.kind in wanted)
        pieces, pos = [], 0
        for start, end in spans:
            if start > pos:
                pieces.append(self.question[pos:start])
            pos = max(pos, end)
        pieces.append(self.question[pos:])
        return " ".join(" ".join(pieces).split())


# --- words -------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[^\W_]+")
_APOSTROPHES = frozenset("'’")


@dataclass(frozen=True, slots=True)
class _Token:
    text: str  # normalised: lowercase, accents stripped
    word: str  # as written
    start: int  # span, a possessive "'s" included
    end: int

    @property
    def capital(self) -> bool:
        return self.word[0].isupper()


def _tokens(text: str) -> list[_Token]:
    """Words with their spans; a possessive "'s" joins the word before it."""
    out: list[_Token] = []
    for m in _TOKEN.finditer(text):
        s, word = m.start(), m.group()
        possessive = word in ("s", "S") and s >= 2 and text[s - 1] in _APOSTROPHES
        if possessive and out and out[-1].end == s - 1:
            out[-1] = replace(out[-1], end=m.end())
            continue
        out.append(_Token(normalize(word), word, s, m.end()))
    return out


def _words(text: str) -> tuple[str, ...]:
    """The normalised texts of :func:`_tokens` (no token records: an index of 10k
    documents' issuers calls this for every name and alias)."""
    if not _APOSTROPHES.intersection(text):  # no possessive to join: one findall
        if text.isascii():  # lowercasing ASCII moves no word boundary
            return tuple(_TOKEN.findall(text.lower()))
        return tuple(map(normalize, _TOKEN.findall(text)))
    out: list[str] = []
    end = -2
    for m in _TOKEN.finditer(text):
        s = m.start()
        word = m.group()
        if word in ("s", "S") and s >= 2 and text[s - 1] in _APOSTROPHES and end == s - 1:
            end = m.end()  # a possessive "'s": part of the word before
            continue
        out.append(normalize(word))
        end = m.end()
    return tuple(out)


#: Legal forms and generic words that never identify an issuer on their own.
_GENERIC_WORDS = """
    s a sa sab sl nv ag se spa plc inc incorporated corp corporation co company companies ltd
    llc lp group grupo holding holdings the de del la las los el y and of fi fim fondo fund
    sicav sgiic banco bank internacional international global capital asset assets management
    financial finance energy energia inversiones investment investments
"""
_GENERIC = frozenset(_GENERIC_WORDS.split())

#: Document types by another name, in the other language: each group's phrases are one type.
_DOC_TYPE_SYNONYMS = (
    ("informe anual", "annual report"),
    ("folleto", "prospectus"),
    ("kid", "key information document", "documento de datos fundamentales"),
)


class _Phrases:
    """Phrases (word sequences) that stand for values, found in a question's words glued or
    split: "BestBuy", "Best Buy" and "best-buy" are all "bestbuy". A span of several words
    glued must be four letters or more unless it is the phrase's own split ("AT&T")."""

    def __init__(self) -> None:
        self._table: dict[str, set[str]] = {}
        self._splits: set[tuple[str, ...]] = set()
        self._longest = 0

    def add(self, words: Sequence[str], value: str) -> None:
        glued = "".join(words)
        if len(glued) < 2:
            return
        self._table.setdefault(glued, set()).add(value)
        self._splits.add(tuple(words))
        self._longest = max(self._longest, len(glued))

    def find(self, tokens: Sequence[_Token]) -> list[tuple[str, int, int]]:
        """(value, start, end) of every phrase in the tokens, by position."""
        out = []
        for i in range(len(tokens)):
            glued = ""
            for j in range(i, len(tokens)):
                glued += tokens[j].text
                if len(glued) > self._longest:
                    break
                values = self._table.get(glued)
                if values and (i == j or len(glued) >= 4 or self._split(tokens[i : j + 1])):
                    out += [(v, tokens[i].start, tokens[j].end) for v in sorted(values)]
        return out

    def _split(self, tokens: Sequence[_Token]) -> bool:
        return tuple(t.text for t in tokens) in self._splits


# --- years and quarters ------------------------------------------------------------------------

_MARKER = r"(?:fy|fiscal(?:\s+year)?|ejercicio(?:\s+fiscal)?|a[ñn]o(?:\s+fiscal)?|year)"
_FISCAL_YEAR = re.compile(
    rf"\b{_MARKER}\s*['’]?((?:19|20)\d{{2}})(?!\d)"
    r"|\b(?:fy|fiscal(?:\s+year)?)\s*['’]?(\d{2})(?=\b|q\d)",
    re.IGNORECASE,
)
_BARE_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_ORDINALS = {
    "first": "1", "second": "2", "third": "3", "fourth": "4",
    "primer": "1", "primero": "1", "segundo": "2", "tercer": "3", "tercero": "3", "cuarto": "4",
}  # fmt: skip
_QUARTER = re.compile(
    r"(?<![^\W\d_])[qt]([1-4])(?:['’](\d{4}|\d{2}))?(?![^\W_])"  # Q3, T1, 2024Q3, Q3'24
    r"|(?<![^\W_])([1-4])[qt](\d{4}|\d{2})?(?![^\W_])"  # 3Q, 1T, 3Q24, 1T2024
    r"|\b([1-4])(?:st|nd|rd|th|\.?er|\.?[oº])?\s+(?:fiscal\s+)?(?:quarter|trimestre)\b"
    rf"|\b({'|'.join(_ORDINALS)})\s+(?:fiscal\s+)?(?:quarter|trimestre)\b",
    re.IGNORECASE,
)


def _period_mentions(question: str) -> list[Mention]:
    """Quarters and years; a year's digits are one mention (the marked one where marked)."""
    found = _quarter_mentions(question)
    marked = {m.start for m in found if m.kind is MentionKind.FISCAL_YEAR}  # where digits start
    for m in _FISCAL_YEAR.finditer(question):
        g = 1 if m.group(1) else 2
        found.append(Mention(MentionKind.FISCAL_YEAR, _four(m.group(g)), m.start(), m.end()))
        marked.add(m.start(g))
    for m in _BARE_YEAR.finditer(question):
        if m.start(1) not in marked:
            found.append(Mention(MentionKind.YEAR, m.group(1), m.start(), m.end()))
    return found


def _quarter_mentions(question: str) -> list[Mention]:
    found = []
    for m in _QUARTER.finditer(question):
        # re.I also matches "ſecond" (long s) or "fİrst", whose lower case is no key
        q = m.group(1) or m.group(3) or m.group(5) or _ORDINALS.get(m.group(6).casefold())
        if q is None:
            continue
        found.append(Mention(MentionKind.QUARTER, q, m.start(), m.end()))
        g = 2 if m.group(2) else 4
        if m.group(g):  # "3Q24": the year the quarter belongs to
            found.append(Mention(MentionKind.FISCAL_YEAR, _four(m.group(g)), m.start(g), m.end()))
    return found


def _four(year: str) -> str:
    return year if len(year) == 4 else f"20{year}"


def periods(question: str, policy: YearPolicy = YearPolicy.ANY) -> Mentions:
    """Years and quarters alone (no issuers or document types to look for)."""
    return MentionFinder().find(question, policy)


# --- the finder --------------------------------------------------------------------------------

_CAPS_TOKEN = re.compile(r"(?<![\w.])[A-Z][A-Z0-9.\-]*(?<![.\-])")
#: A word that may abbreviate a name: three to six letters, two or more of them capitals.
_ABBREVIATION = re.compile(r"(?=(?:[a-z]*[A-Z]){2})[A-Za-z]{3,6}")


@dataclass
class _Issuers:
    """Issuers merged by name: every alias, the tickers, the glued name abbreviations hold."""

    phrases: _Phrases = field(default_factory=_Phrases)
    unique: dict[str, str] = field(default_factory=dict)  # a word only one issuer has
    tickers: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    glued: dict[str, str] = field(default_factory=dict)  # issuer -> longest glued alias
    words: dict[str, frozenset[str]] = field(default_factory=dict)  # issuer -> its name's words


def _aliases(issuer: Issuer) -> set[tuple[str, ...]]:
    """Word sequences that name an issuer."""
    full = _words(issuer.name)
    out = {full, tuple(w for w in full if w not in _GENERIC)}
    out.update(_words(a) for a in issuer.aliases)
    first = issuer.name.split()[0] if issuer.name.split() else ""
    if len(first) >= 2 and first.isupper():  # an acronym leading the name: "MGM Resorts"
        out.add(_words(first))
    return {a for a in out if a}


def issuer_names(issuer: Issuer) -> tuple[str, ...]:
    """The names the finder knows an issuer by, as text, sorted: the full name, the name
    less legal forms and generic words, a leading acronym, the caller's aliases."""
    return tuple(sorted(" ".join(a) for a in _aliases(issuer)))


def _index_issuers(issuers: Iterable[Issuer], bare_tickers: Iterable[str]) -> _Issuers:
    merged: dict[str, list[Issuer]] = {}
    for i in issuers:
        merged.setdefault(i.name, []).append(i)
    out = _Issuers()
    owners: dict[str, set[str]] = {}
    for name in sorted(merged):
        aliases = set().union(*(_aliases(i) for i in merged[name]))
        for a in sorted(aliases):
            out.phrases.add(a, name)
        out.glued[name] = max(("".join(a) for a in aliases), key=lambda g: (len(g), g))
        out.words[name] = frozenset(_words(name))
        for w in out.words[name]:
            if w not in _GENERIC:
                owners.setdefault(w, set()).add(name)
        for t in sorted({t for i in merged[name] for t in i.tickers}):
            out.tickers.setdefault(t.upper(), []).append((t, name))
    for t in sorted(set(bare_tickers)):
        if t.upper() not in out.tickers:
            out.tickers[t.upper()] = [(t, None)]
    out.unique = {w: next(iter(o)) for w, o in owners.items() if len(o) == 1 and len(w) >= 4}
    return out


class MentionFinder:
    """Finds what questions name among the issuers and document types it was given (years and
    quarters need nothing given). Built once; each question then costs a pass over its words."""

    def __init__(
        self,
        issuers: Iterable[Issuer] = (),
        *,
        doc_types: Iterable[str] = (),
        tickers: Iterable[str] = (),
    ) -> None:
        self._issuers = _index_issuers(issuers, tickers)
        self._doc_types = _Phrases()
        for t in sorted(set(doc_types)):
            words = _words(t)
            self._doc_types.add(words, t)
            for group in _DOC_TYPE_SYNONYMS:
                if " ".join(words) in group:
                    for phrase in group:
                        self._doc_types.add(phrase.split(), t)

    def find(self, question: str, policy: YearPolicy = YearPolicy.ANY) -> Mentions:
        tokens = _tokens(question)
        found = _period_mentions(question)
        types = self._doc_types.find(tokens)
        found += [Mention(MentionKind.DOC_TYPE, v, s, e) for v, s, e in types]
        named = self._named(question, tokens)
        found += named + self._abbreviations(tokens, named, found)
        found.sort(key=lambda m: (m.start, m.end, m.kind, m.value))
        return Mentions(question, tuple(dict.fromkeys(found)), policy)

    def _named(self, question: str, tokens: Sequence[_Token]) -> list[Mention]:
        """Issuers named by a name or alias, by a word only they have, or by a ticker."""
        ix = self._issuers
        out = [Mention(MentionKind.ISSUER, v, s, e) for v, s, e in ix.phrases.find(tokens)]
        for i, t in enumerate(tokens):
            issuer = ix.unique.get(t.text) if t.capital else None
            if issuer and not _in_other_name(question, tokens, i, ix.words[issuer]):
                out.append(Mention(MentionKind.ISSUER, issuer, t.start, t.end))
        for m in _CAPS_TOKEN.finditer(question):
            for ticker, issuer in ix.tickers.get(m.group(), ()):
                out.append(Mention(MentionKind.TICKER, ticker, m.start(), m.end(), issuer))
        return out

    def _abbreviations(
        self, tokens: Sequence[_Token], named: Sequence[Mention], found: Sequence[Mention]
    ) -> list[Mention]:
        """Issuers an abbreviation stands for: any, when nothing else named an issuer; else
        only those already named (so that the abbreviation's span counts as theirs)."""
        already = {m.value if m.kind is MentionKind.ISSUER else m.issuer for m in named}
        candidates = sorted(already - {None}) if named else sorted(self._issuers.glued)
        taken = {(m.start, m.end) for m in found}
        out = []
        for t in tokens:
            if not _ABBREVIATION.fullmatch(t.word) or (t.start, t.end) in taken:
                continue
            for issuer in candidates:
                if _abbreviates(t.word.lower(), self._issuers.glued[issuer]):
                    out.append(Mention(MentionKind.ISSUER, issuer, t.start, t.end))
        return out


def _in_other_name(question: str, tokens: Sequence[_Token], i: int, own: frozenset[str]) -> bool:
    """Whether ``tokens[i]`` stands in a run of capitalised words not all the issuer's
    ("Consumer Health" is a segment, not CVS Health); a sentence's first word does not count,
    nor does a word across punctuation."""
    for j in (i - 1, i + 1):
        if not 0 <= j < len(tokens):
            continue
        t, a, b = tokens[j], min(i, j), max(i, j)
        if not t.capital or t.text in own or t.text in _GENERIC:
            continue
        if question[tokens[a].end : tokens[b].start].strip():
            continue
        if j < i and (j == 0 or _SENTENCE_END.search(question[tokens[j - 1].end : t.start])):
            continue
        return True
    return False


_SENTENCE_END = re.compile(r"[.?!¿¡:;]")


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
