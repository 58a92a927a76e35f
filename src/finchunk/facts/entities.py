"""Which entity of the fact store a question or an option names.

An entity is known by what the loaded data says about it, nothing fitted to questions:

* its CIK, and its name as the data gives it ("Apple Inc.", "NVIDIA CORP");
* its common name, the name less its legal form, case and possessive ignored ("Apple",
  "Apple's", "nvidia"; :func:`finchunk.retrieve.query.mentions.issuer_names`);
* its tickers, the ``dei:TradingSymbol`` values of the filings (inline XBRL or XBRL instances)
  loaded for it ("AAPL"; "GOOGL" and "GOOG"). companyfacts JSON carries no ticker: load one
  of the entity's filings to have them;
* initials around an ampersand in its name ("J&J" for "Johnson & Johnson");
* an abbreviation of its name, when nothing else in the text names an entity ("JnJ",
  "TSLA" for "Tesla, Inc.");
* a brand name from :data:`BRAND_NAMES`, a deliberately tiny table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from finchunk.errors import InputError
from finchunk.facts.values import parse_cik
from finchunk.retrieve.query.mentions import ISSUER_KINDS, Issuer, MentionFinder, MentionKind

#: Names people use for a company that none of its filings' data gives: the registrant was
#: renamed, or a holding company took over the listing, while the old name stayed in everyday
#: use. Keyed by CIK, so a name only applies to that very registrant once the store holds it.
#: Deliberately tiny: an entry is justified only by a rename that left the common name behind.
BRAND_NAMES: dict[int, tuple[str, ...]] = {
    1652044: ("Google",),  # Alphabet Inc.: the holding company formed over Google Inc. in 2015
    1326801: ("Facebook",),  # Meta Platforms, Inc.: Facebook, Inc. renamed itself in 2021
}

#: Legal forms that end a registrant's name and that people leave out when they name it.
_LEGAL_FORMS = frozenset(
    [
        "inc",
        "incorporated",
        "corp",
        "corporation",
        "co",
        "company",
        "companies",
        "plc",
        "ltd",
        "limited",
        "llc",
        "lp",
        "nv",
        "ag",
        "sa",
        "se",
        "spa",
        "sab",
        "de",
        "cv",
    ]
)


@dataclass(frozen=True)
class Entity:
    cik: int
    name: str
    tickers: tuple[str, ...] = ()

    @property
    def common_name(self) -> str:
        """The name as people say it: the trailing legal form dropped ("Apple Inc." →
        "Apple", "Tesla, Inc." → "Tesla", "Wells Fargo & Company" → "Wells Fargo")."""
        return common_name(self.name)

    def issuer(self) -> Issuer:
        """How :class:`MentionFinder` looks for the entity."""
        aliases = (self.common_name, *BRAND_NAMES.get(self.cik, ()), *_initials(self.name))
        return Issuer(self.name, self.tickers, tuple(a for a in aliases if a))


def common_name(name: str) -> str:
    words = name.replace(",", " ").split()
    while len(words) > 1 and (
        words[-1].strip(".").casefold() in _LEGAL_FORMS or words[-1] in ("&", "and")
    ):
        words.pop()
    return " ".join(words)


def _initials(name: str) -> tuple[str, ...]:
    """ "J&J" for "Johnson & Johnson", "P&G" for "Procter & Gamble": one word on each side of
    an ampersand (after the legal form is dropped), by their initials."""
    left, amp, right = common_name(name).partition("&")
    a, b = left.split(), right.split()
    if not amp or len(a) != 1 or len(b) != 1 or not a[0][:1].isalpha() or not b[0][:1].isalpha():
        return ()
    return (f"{a[0][0]}&{b[0][0]}",)


def entities(store: Any) -> list[Entity]:
    """Every named entity of a :class:`~finchunk.facts.FactStore`, with its tickers."""
    tickers = store.tickers()
    return [Entity(cik, name, tickers.get(cik, ())) for cik, name in store.entities()]


def named_in(found: list[Entity], text: str) -> list[Entity]:
    """The entities of ``found`` that ``text`` names (by CIK order)."""
    return sorted(mentions_of(found, text), key=lambda e: e.cik)


def mentions_of(found: list[Entity], text: str) -> dict[Entity, tuple[str, ...]]:
    """Each entity of ``found`` that ``text`` names, with the words naming it there ("AAPL",
    "Google's", "JnJ")."""
    by_name = {e.name: e for e in found}
    out: dict[Entity, tuple[str, ...]] = {}
    for m in MentionFinder(e.issuer() for e in found).find(text).found:
        name = m.value if m.kind is MentionKind.ISSUER else m.issuer
        if m.kind in ISSUER_KINDS and name in by_name:
            entity = by_name[name]
            out[entity] = (*out.get(entity, ()), text[m.start : m.end])
    return out


def held(found: list[Entity], shown: int = 10) -> str:
    """The entities of a store by name, for a message: "Apple Inc., NVIDIA CORP"."""
    if not found:
        return "no named entity"
    listed = sorted((e.name for e in found), key=str.casefold)
    more = f" and {len(listed) - shown} more" if len(listed) > shown else ""
    return ", ".join(listed[:shown]) + more


def resolve_cik(store: Any, text: str, option: str = "--cik") -> int:
    """The CIK an option names: a CIK ("320193", "0000320193"), a ticker of a loaded filing
    (any case: "AAPL", "aapl") or the entity's name ("Apple"). InputError saying what the
    store holds when it names none, or several."""
    cik = parse_cik(text)
    if cik is not None:
        return cik
    known = entities(store)
    wanted = text.strip().upper()
    by_ticker = [e for e in known if wanted in (t.upper() for t in e.tickers)]
    found = by_ticker or named_in(known, text)
    if len(found) == 1:
        return found[0].cik
    if found:
        names = ", ".join(f"{e.name} ({e.cik})" for e in found)
        raise InputError(f"{option} {text!r} names several entities ({names}); give the CIK")
    tickers = sorted(t for e in known for t in e.tickers)
    have = f"; tickers known: {', '.join(tickers)}" if tickers else ""
    raise InputError(
        f"{option} {text!r} is neither a CIK nor a ticker or name of the store's entities "
        f"(it holds {held(known)}{have}; tickers come from loaded filings' dei:TradingSymbol)"
    )


def question_entity(store: Any, question: str) -> tuple[Entity | None, tuple[str, ...], str]:
    """The one entity of the store the question names and the words naming it there, or
    (no entity) why not: it names none, or several (``finchunk ask``'s fact route)."""
    known = entities(store)
    found = mentions_of(known, question)
    if len(found) == 1:
        entity, naming = next(iter(found.items()))
        return entity, naming, ""
    if not found:
        why = f"the question names no entity of the fact store (it holds {held(known)})"
        if not any(e.tickers for e in known):
            why += (
                "; it knows no ticker: companyfacts JSON has none, a loaded filing's "
                "dei:TradingSymbol adds them"
            )
    else:
        named = ", ".join(sorted(e.name for e in found))
        why = f"the question names several entities ({named})"
    return None, (), why
