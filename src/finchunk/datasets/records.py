"""Records of a lesson-schema corpus: documents, canonical passages and questions.

Column names are the lesson's (Spanish) ones, exactly as they are written to
``documents.parquet``, ``passages.parquet`` and ``questions.csv``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from finchunk.errors import InputError


class DocType(StrEnum):
    INFORME_ANUAL = "informe_anual"
    FOLLETO = "folleto"
    KID = "kid"
    NOTA_ANALISIS = "nota_analisis"


class PassageType(StrEnum):
    TITULO = "titulo"
    TEXTO = "texto"
    TABLA = "tabla"
    NOTA = "nota"
    LISTA = "lista"


class QuestionType(StrEnum):
    TEXTO = "texto"
    TABLA = "tabla"
    NOTA_PIE = "nota_pie"
    TEXTO_Y_NOTA = "texto_y_nota"
    TABLA_Y_NOTA = "tabla_y_nota"
    CALCULO = "calculo"
    COMPARACION = "comparacion"
    NO_RESPONDIBLE = "no_respondible"


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    id_doc: str
    titulo: str
    tipo: DocType
    texto: str
    emisor: str
    anio: int
    idioma: str = "es"


@dataclass(frozen=True, slots=True)
class PassageRecord:
    """A canonical passage: ``texto[inicio:fin]`` of its document, one whole block."""

    id_pasaje: str
    id_doc: str
    seccion: str
    tipo: PassageType
    inicio: int
    fin: int


@dataclass(frozen=True, slots=True)
class QuestionRecord:
    """A question with its gold passages and gold answer.

    ``evidencia`` (kept in memory only, not written) lists the strings as printed in the
    documents that the answer rests on: each one occurs in some gold passage, and each
    gold passage holds at least one of them.
    """

    id_pregunta: str
    pregunta: str
    respuesta_oro: str
    pasajes_oro: tuple[str, ...]
    tipo_pregunta: QuestionType
    respondible: bool
    id_doc: tuple[str, ...]
    evidencia: tuple[str, ...] = field(default=(), compare=False)


#: The most documents one generated corpus may hold: it is built in memory before it is
#: written (2,030 documents took 334 MB peak), so 100k is ~12 GB, and 200M documents
#: would grow until the machine ran out with nothing written.
MAX_DOCUMENTS = 100_000


@dataclass(frozen=True, slots=True)
class SampleConfig:
    """Size and seed of a generated corpus.

    ``issuers`` x ``years`` annual reports, a prospectus and a KID per fund, ``notes``
    research notes (each on an issuer, cycling over them). ``last_year`` is the latest
    reporting year; the reports cover ``last_year - years + 1`` to ``last_year``.
    """

    issuers: int = 4
    years: int = 2
    funds: int = 5
    notes: int = 3
    seed: int = 0
    last_year: int = 2023

    def __post_init__(self) -> None:
        for name in ("issuers", "years", "funds", "notes"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise InputError(f"sample corpus: {name} must be an integer >= 0, got {value!r}")
        if self.issuers and not self.years:
            raise InputError("sample corpus: years must be >= 1 when there are issuers")
        if self.notes and not self.issuers:
            raise InputError("sample corpus: research notes need at least one issuer")
        if not 1950 <= self.last_year <= 2200:
            raise InputError(f"sample corpus: last_year out of range: {self.last_year}")
        if self.documents > MAX_DOCUMENTS:
            raise InputError(
                f"sample corpus: {self.documents:,} documents asked for, at most "
                f"{MAX_DOCUMENTS:,}: a corpus is built in memory (about 0.12 MB a document); "
                "for more, generate several with different --seed"
            )

    @property
    def documents(self) -> int:
        """How many documents this configuration generates."""
        return self.issuers * self.years + 2 * self.funds + self.notes


@dataclass(frozen=True, slots=True)
class SampleCorpus:
    documents: list[DocumentRecord]
    passages: list[PassageRecord]
    questions: list[QuestionRecord]
    _by_id: dict[str, DocumentRecord] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {d.id_doc: d for d in self.documents})

    def document(self, id_doc: str) -> DocumentRecord:
        return self._by_id[id_doc]

    def passage_text(self, passage: PassageRecord) -> str:
        return self._by_id[passage.id_doc].texto[passage.inicio : passage.fin]

    def stats(self) -> dict[str, object]:
        """Counts: documents by type, passages by type, questions by type."""
        return {
            "documents": len(self.documents),
            "documents_by_type": dict(Counter(str(d.tipo) for d in self.documents)),
            "passages": len(self.passages),
            "passages_by_type": dict(Counter(str(p.tipo) for p in self.passages)),
            "questions": len(self.questions),
            "questions_by_type": dict(Counter(str(q.tipo_pregunta) for q in self.questions)),
            "answerable": sum(q.respondible for q in self.questions),
        }
