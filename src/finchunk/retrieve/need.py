"""The information need apart from the instructions to the answering model.

A question sent to a RAG system often carries instructions for the model that answers it:
how to answer ("Answer in one sentence.", "Responde en una frase."), what to do when the
data is missing ("If the figure is not disclosed, reply 'unknown'."), the unit or format
("(in EUR thousands)", ", rounded to one decimal"), where the answer comes from ("according
to the annual report"). Their words are no part of what to search for, and they match cover
pages, tables of contents and unrelated tables.

:func:`information_need` separates the two by structure, not by phrases read off a
benchmark:

* sentences: the question (interrogative: a question mark, an opening ``¿``, an
  interrogative or auxiliary first word) is kept; a sentence addressed to the answerer (its
  first word an imperative of a verb of answering, giving, using or formatting, possibly
  after a conditional clause ``If …,`` / ``Si …,``) is set aside when a question or an
  earlier request is there (alone, a request such as "List the segments of 3M" is the
  need), and so is one whose subject is the answerer ("You are an analyst."); other
  sentences (context) are kept;
* clauses of a kept sentence: a comma clause in the imperative (", answer briefly"), a
  source clause that names a document only generically ("according to the annual report",
  "based on the filing"; one naming a year, a name, a section or a kind of document says
  where to look and is kept: "según el informe de 2022") and a unit or format clause or
  parenthetical ("(in USD)", ", in millions", "(redondeado a dos decimales)": every word
  a unit, currency, scale or format word) are set aside;
* hints that say where to look are kept: a financial statement or section named in what
  was set aside ("cash flow statement", "balance sheet", "notes", "estado de flujos de
  efectivo") is added back to the need.

English and Spanish. A question with nothing to set aside is returned unchanged. The
patterns here run in linear time (``tests/test_regex_audit.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A sentence ends at . ? ! (with closing quotes or brackets) before a space or the end, or
#: at a line break.
_SENTENCE_END = re.compile(r"[.?!](?=[\"'”’)\]]{0,3}(?:\s|$))|\n")
_WORD = re.compile(r"[\w%$€£¥&'’-]+")
_PAREN = re.compile(r"\(([^()]*)\)")


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_INTERROGATIVE = _set(
    """what which who whom whose when where why how is are was were do does did has have
    had can could will would should shall may might qué que cuál cual cuáles cuales cuánto
    cuanto cuánta cuanta cuántos cuantos cuántas cuantas cómo como quién quien quiénes
    dónde donde cuándo cuando es son fue fueron hay tiene tienen"""
)
#: Imperatives of verbs addressed to whoever answers: answering, giving, using, formatting.
_IMPERATIVE = _set(
    """answer respond reply return give provide state say write use rely base express
    round format keep limit include cite quote output show present explain list tell
    mention specify ensure avoid do don't dont be make put begin start end only please
    responde responda contesta conteste devuelve devuelva da dame dé deme proporciona
    proporcione indica indique usa use utiliza utilice básate basate apóyate apoyate
    redondea redondee expresa exprese escribe escriba incluye incluya cita limita limítate
    limitate muestra muestre di dime diga explica explique enumera enumere menciona
    mencione asegúrate asegurate evita evite no sé sea mantén manten mantenga presenta
    presente especifica especifique empieza comienza termina pon ponga"""
)
#: A sentence whose subject is the answerer ("You are an analyst.", "Eres un analista.").
_SECOND_PERSON = _set("you you're tú tu usted ustedes eres sois act actúa actua")
_CONDITIONAL = _set("if unless when whenever in case si cuando salvo en caso")
_POLITE = _set("please kindly por favor")
#: Where an answer comes from: a clause opening with one of these names a source.
_SOURCE = (
    "according to",
    "based on",
    "as per",
    "as reported in",
    "as shown in",
    "as stated in",
    "relying on",
    "using",
    "from the",
    "per the",
    "según",
    "segun",
    "de acuerdo con",
    "con base en",
    "basándote en",
    "basandote en",
    "a partir de",
    "conforme a",
)
_SOURCE_WORDS = frozenset(w for phrase in _SOURCE for w in phrase.split())
#: Words of units, currencies, scales and answer formats (a clause made only of these and
#: of function words is about how to answer, not what).
_FORMAT = _set(
    """usd eur gbp jpy chf cad $ € £ ¥ % dollars dollar euros euro dólares dolares pounds
    yen cents millions million mn mm bn billions billion thousands thousand k millones
    millón millon miles mil percent percentage percentages porcentaje porcentajes basis
    points puntos decimal decimals decimales places digits dígitos cifras significant
    round rounded rounding redondeado redondeada redondea expressed expresado expresada
    format formato formatted units unidades unit unidad terms words palabras word palabra
    sentence sentences frase frases oración oraciones short brief breve corta concise
    number números numero número figure figures cifra only solo sólo one two three four
    five una uno dos tres cuatro cinco yes no sí si nominal"""
)
#: Documents named only generically ("the annual report", "the company's filing"): a source
#: clause naming nothing more (no year, name or section) says nothing of where to look.
_GENERIC_SOURCE = _set(
    """annual report reports filing filings document documents company company's firm
    firm's 10-k 10-q form provided given context text data informe informes anual anuales
    documento documentos compañía empresa sociedad contexto texto proporcionado datos"""
)
_FUNCTION = _set(
    """in en as como the a an of de del la el los las to a and y or o with con without sin
    your tu su its their in"""
)
#: What names a financial statement or a section of a filing (kept as a hint).
_SECTION_HEADS = _set(
    """statement statements sheet notes note footnote footnotes md&a discussion factors
    segment segments schedule estado estados balance cuenta memoria notas nota informe"""
)
_SECTION_MODIFIERS = _set(
    """cash flow flows income operations balance comprehensive equity shareholders
    stockholders' shareholders' stockholders financial consolidated changes of management's
    managements risk segment de resultados flujos efectivo situación situacion patrimonio
    neto gestión gestion cambios pérdidas perdidas ganancias financiera general"""
)


@dataclass(frozen=True, slots=True)
class InformationNeed:
    """``question`` as given; ``text``: what to search for; ``set_aside``: the
    instructions taken out, in order; ``hints``: sections they named, kept in ``text``."""

    question: str
    text: str
    set_aside: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()

    def note(self) -> str:
        """A note for a search result: what was set aside and what was kept of it."""
        out = "instructions set aside: " + "; ".join(repr(s) for s in self.set_aside)
        if self.hints:
            out += " (kept where to look: " + ", ".join(self.hints) + ")"
        return out


def information_need(question: str) -> InformationNeed:
    """``question`` apart from its instructions to the answerer (see the module)."""
    sentences = _sentences(question)
    kinds = [_kind(question[s:e]) for s, e in sentences]
    asks = "question" in kinds
    cut: list[tuple[int, int]] = []
    request_seen = False
    for (s, e), kind in zip(sentences, kinds, strict=True):
        if kind == "directive" and (asks or request_seen):
            cut.append((s, e))
            continue
        request_seen = request_seen or kind == "directive"
        cut += _clauses(question, s, e)
    if not cut:
        return InformationNeed(question, question)
    cut = _merge(cut)
    aside = tuple(_squash(question[s:e]) for s, e in cut)
    kept, last = [], 0
    for s, e in cut:
        kept.append(question[last:s])
        last = e
    kept.append(question[last:])
    hints = tuple(dict.fromkeys(h for part in aside for h in section_hints(part)))
    text = _squash(" ".join(kept))
    text = re.sub(r"\s+([,.?!;:])", r"\1", text)
    if hints:
        text = f"{text} {' '.join(hints)}".strip()
    if not _WORD.search(text):  # nothing but instructions: search them as they are
        return InformationNeed(question, question)
    return InformationNeed(question, text, aside, hints)


def _sentences(text: str) -> list[tuple[int, int]]:
    """The spans of ``text``'s sentences (whitespace around them excluded)."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append((start, m.end()))
        start = m.end()
    out.append((start, len(text)))
    trimmed = []
    for s, e in out:
        part = text[s:e]
        if part.strip():
            s += len(part) - len(part.lstrip())
            e -= len(part) - len(part.rstrip())
            trimmed.append((s, e))
    return trimmed


def _words(text: str) -> list[str]:
    return [w.lower().strip("'’") for w in _WORD.findall(text)]


def _kind(sentence: str) -> str:
    """``question``, ``directive`` (addressed to the answerer) or ``context``."""
    words = _words(sentence)
    if "?" in sentence or sentence.lstrip().startswith("¿") or not words:
        return "question" if words else "context"
    if words[0] in _INTERROGATIVE and words[0] not in _IMPERATIVE:
        return "question"
    return "directive" if _imperative(sentence) else "context"


def _imperative(clause: str) -> bool:
    """Whether ``clause`` is addressed to the answerer: its first word (after a polite
    word, or a conditional clause ending at a comma) an imperative of :data:`_IMPERATIVE`."""
    words = _words(clause)
    while words and words[0] in _POLITE:
        words = words[1:]
    if words and words[0] == "favor":
        words = words[1:]
    if words and words[0] in _CONDITIONAL and "," in clause:
        return _imperative(clause.split(",", 1)[1])
    return bool(words) and (words[0] in _IMPERATIVE or words[0] in _SECOND_PERSON)


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans within the kept sentence ``text[start:end]`` to set aside: parentheticals and
    comma clauses about units or format, comma clauses in the imperative, source clauses."""
    cut = []
    sentence = text[start:end]
    for m in _PAREN.finditer(sentence):
        if m.start() and sentence[m.start() - 1].isalnum():  # "401(k)": a word, not an aside
            continue
        inner = m.group(1)
        at = _source(inner)
        if _format_only(inner) or (at is not None and not _names_where(inner[at:])):
            cut.append((start + m.start(), start + m.end()))
    bounds = [0] + [i for i, ch in enumerate(sentence) if ch in ",;"] + [len(sentence)]
    for a, b in zip(bounds, bounds[1:], strict=False):
        skip = a + (a > 0)  # past the comma
        tail = sentence[skip:b].rstrip(" .?!")
        at = _source(tail)
        opens = at is not None and not tail[:at].strip()
        if at is not None and _names_where(tail[at:]):
            at, opens = None, False  # "según el informe de 2022": a hint, kept
        if a > 0 and (opens or _imperative(tail) or _format_only(tail)):
            cut.append((start + a, start + skip + len(tail)))  # ", answer briefly"
        elif a == 0 and opens and b < len(sentence):  # "According to X, what …"
            cut.append((start + at, start + b + 1))  # type: ignore[operator]
        elif at is not None and not opens:  # "… according to X" to the clause's end
            cut.append((start + skip + at - 1, start + skip + len(tail)))
    return cut


def _names_where(source: str) -> bool:
    """Whether a source clause names where to look (a year, a name, a section, a kind of
    document), beyond a generic "the annual report"."""
    words = _words(source)[1:]  # past "according" / "según" …
    rest = [w for w in words if w not in _FUNCTION and w not in _GENERIC_SOURCE]
    return any(
        w not in ("to", "on", "per", "shown", "reported", "stated", "con", "en") for w in rest
    )


def _format_only(clause: str) -> bool:
    """Whether every word of ``clause`` is a unit, currency, scale, format or function
    word, one at least of the first kinds."""
    words = _words(clause)
    if not words or not any(w in _FORMAT for w in words):
        return False
    return all(w in _FORMAT or w in _FUNCTION or w.isdigit() for w in words)


def _source(clause: str) -> int | None:
    """Where a source phrase ("according to", "según" …) opens in ``clause``: at its
    start (any of them) or, for the unambiguous ones, after its start; None: none."""
    low = clause.lower()
    stripped = low.lstrip()
    lead = len(low) - len(stripped)
    for phrase in _SOURCE:
        if stripped.startswith(phrase + " "):
            return lead
    for phrase in _SOURCE[:6] + _SOURCE[10:13]:
        at = low.find(" " + phrase + " ")
        if at >= 0:
            return at + 1
    return None


def section_hints(text: str) -> list[str]:
    """The financial statements and sections ``text`` names ("cash flow statement",
    "balance sheet", "notes to the financial statements", "estado de flujos de efectivo"):
    a section head word with the modifiers next to it."""
    words = [w for w in _WORD.findall(text)]
    low = [w.lower() for w in words]
    out = []
    for i, w in enumerate(low):
        if w not in _SECTION_HEADS:
            continue
        a = i
        while a > 0 and low[a - 1] in _SECTION_MODIFIERS and i - a < 4:
            a -= 1
        b = i + 1
        while b < len(low) and (low[b] in _SECTION_MODIFIERS or low[b] in ("to", "the")):
            b += 1
            if b - i > 5:
                break
        while b > i + 1 and low[b - 1] in ("of", "de", "to", "the"):
            b -= 1
        phrase = words[a:b]
        if len(phrase) > 1 or w in ("md&a", "notes", "notas", "footnotes", "memoria"):
            out.append(" ".join(phrase))
    return out


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _squash(text: str) -> str:
    return " ".join(text.split())
