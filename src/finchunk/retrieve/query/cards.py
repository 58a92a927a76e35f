"""Document cards: one short text per document that says which document it is.

In template-like corpora (a company's filings over several years, the funds of one manager)
a chunk's words rarely say which document it is in, and a one-line header is outvoted by
the question's other words. A card gathers what does say it: the title, the issuer's name
with the other names :mod:`finchunk.retrieve.query.mentions` knows it by ("AES Corporation" →
"AES"; "MGM Resorts" → "MGM"), the ticker, the document type (as written and glued: "10-K",
"10K"), the fiscal year in the forms questions write it ("2018", "FY2018", "FY18") and the
fiscal period, and optionally the document's first characters. :func:`card_text` makes one
from a title and metadata in any spelling (:func:`~finchunk.text.metadata.
canonical_metadata`), so every source of documents gets one: FinanceBench's document
information, the lesson's metadata columns, HTML/SGML/PDF metadata, an index's manifest.

:class:`DocumentMap` is what a :class:`~finchunk.retrieve.query.texts.TextSource` knows about
documents: the document of each text (``groups``), the cards, their metadata; it scores a
question against the cards (:meth:`DocumentMap.scores`) for the document priors of
:mod:`finchunk.retrieve.query.priors`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from finchunk.model import Document
from finchunk.retrieve.query.mentions import Issuer, issuer_names
from finchunk.text.metadata import canonical_metadata

if TYPE_CHECKING:  # a build makes cards (card_text) without the retriever stack
    from finchunk.retrieve.lexical.analyzers import Analyzer
    from finchunk.retrieve.lexical.bm25 import BM25Params
    from finchunk.retrieve.lexical.lexical import LexicalIndex
    from finchunk.retrieve.query.filters import MetadataIndex

#: Fiscal periods that add nothing to a card (a 10-K's period is the fiscal year).
_WHOLE_YEAR = frozenset({"fy", "annual", "year", ""})


def card_text(title: str, metadata: Mapping[str, Any], lead: str = "") -> str:
    """A document's card: title, issuer and its other names, ticker, document type, fiscal
    year and period (from ``metadata`` in any spelling), then ``lead``; one item a line,
    each once."""
    meta = canonical_metadata(metadata)
    parts = [title]
    issuer, ticker = meta.get("issuer"), meta.get("ticker")
    if issuer:
        parts += [issuer, *_names(issuer, ticker or "")]
    if ticker:
        parts.append(ticker)
    doc_type = meta.get("doc_type")
    if doc_type:
        parts += [doc_type, "".join(ch for ch in doc_type if ch.isalnum())]
    year = meta.get("year")
    if year and year.isdigit() and len(year) == 4:
        parts += [year, f"FY{year}", f"FY{year[2:]}"]
    period = str(metadata.get("fiscal_period") or "").strip()
    if period.lower() not in _WHOLE_YEAR:
        parts.append(period)
    parts.append(lead.strip())
    return "\n".join(dict.fromkeys(p.strip() for p in parts if p and p.strip()))


@lru_cache(maxsize=4096)
def _names(issuer: str, ticker: str) -> tuple[str, ...]:
    """:func:`issuer_names` of an issuer (the documents of one issuer share it)."""
    return issuer_names(Issuer(issuer, (ticker,) if ticker else ()))


def document_card(doc: Document, lead_chars: int = 0) -> str:
    """:func:`card_text` of a parsed document (its first ``lead_chars`` characters as the
    lead)."""
    return card_text(doc.title or doc.id, doc.metadata, doc.text[:lead_chars])


def _key(analyzer: Analyzer, params: BM25Params) -> tuple[str, BM25Params]:
    """What a card index is kept under: its analyzer's name and the parameters asked for."""
    return (analyzer.name.value, params)


class DocumentMap:
    """Which document each text belongs to, and one card (and metadata) per document.

    ``groups[i]`` is the position of text ``i``'s document in ``cards``. Card indexes are
    built once per analyzer and parameters; a subset of the texts shares them.
    """

    def __init__(
        self,
        groups: Sequence[int] | np.ndarray,
        cards: Sequence[str],
        metadata: Sequence[Mapping[str, Any]] | None = None,
        meta_index: MetadataIndex | None = None,
        lexical: Mapping[tuple[Analyzer, BM25Params], LexicalIndex] | None = None,
        canonical: bool = False,
    ) -> None:
        """``meta_index``: the documents' metadata index when the caller has one (an
        index's), else built from ``metadata`` when a question is first matched;
        ``lexical``: BM25 indexes of the cards already made, by the (analyzer, parameters)
        :meth:`lexical` is asked for (an index's stored card postings); ``canonical``: the
        metadata is canonical already (an index's), not canonicalised again."""
        self.groups = np.asarray(groups, dtype=np.int64)
        self.cards = tuple(cards)
        metas = list(metadata) if metadata is not None else [{}] * len(self.cards)
        if len(metas) != len(self.cards):
            raise ValueError(f"{len(metas)} metadata records for {len(self.cards)} cards")
        if self.groups.size and not 0 <= self.groups.min() <= self.groups.max() < len(metas):
            raise ValueError("groups name a document position outside the cards")
        self.metadata = tuple(metas) if canonical else tuple(map(canonical_metadata, metas))
        self._lexical = {_key(a, p): index for (a, p), index in (lexical or {}).items()}
        for index in self._lexical.values():
            if index.size != len(self.cards):
                raise ValueError(f"a card index of {index.size} for {len(self.cards)} cards")
        if meta_index is not None:
            if meta_index.size != len(self.cards):
                raise ValueError(
                    f"a metadata index of {meta_index.size} for {len(self.cards)} cards"
                )
            self.__dict__["meta_index"] = meta_index  # the cached property, given

    @classmethod
    def of(
        cls,
        doc_ids: Sequence[str],
        documents: Sequence[Document] | Mapping[str, Document] = (),
        lead_chars: int = 0,
    ) -> DocumentMap:
        """The map of texts whose documents are ``doc_ids`` (one per text): documents in
        first-seen order, each with the card of its :class:`Document` when given (else its
        id as the card)."""
        given = documents.values() if isinstance(documents, Mapping) else documents
        by_id = {d.id: d for d in given}
        order = list(dict.fromkeys(doc_ids))
        pos = {d: i for i, d in enumerate(order)}
        cards = [document_card(by_id[d], lead_chars) if d in by_id else d for d in order]
        metas = [by_id[d].metadata if d in by_id else {} for d in order]
        return cls([pos[d] for d in doc_ids], cards, metas)

    @property
    def size(self) -> int:
        return len(self.cards)

    def subset(self, positions: np.ndarray) -> DocumentMap:
        """The map of the texts at ``positions`` (same documents, cards and card indexes)."""
        sub = DocumentMap.__new__(DocumentMap)
        sub.__dict__.update(self.__dict__)  # cards, metadata, their indexes: shared
        sub.groups = self.groups[positions]
        return sub

    def lexical(self, analyzer: Analyzer, params: BM25Params) -> LexicalIndex:
        """BM25 over the cards (built once per analyzer and parameters)."""
        key = _key(analyzer, params)
        if key not in self._lexical:
            from finchunk.retrieve.lexical.lexical import LexicalIndex

            self._lexical[key] = LexicalIndex.build(self.cards, params, analyzer)
        return self._lexical[key]

    @cached_property
    def meta_index(self) -> MetadataIndex:
        from finchunk.retrieve.query.filters import MetadataIndex

        return MetadataIndex(self.metadata)

    def named(self, question: str) -> np.ndarray:
        """Per document, whether its issuer is one the question names (by name, alias,
        abbreviation or ticker: :mod:`finchunk.retrieve.query.mentions`)."""
        issuers = self.meta_index.mentions(question).issuers
        if not issuers:
            return np.zeros(self.size, dtype=bool)
        from finchunk.retrieve.query.filters import Filter

        return self.meta_index.mask([Filter("issuer", i) for i in issuers])

    def scores(
        self, question: str, analyzer: Analyzer, params: BM25Params, named: float = 1.0
    ) -> np.ndarray:
        """Per document, how well the question matches its card, in [0, 1]: card BM25
        scaled by its best, plus ``named`` for an issuer the question names, over 1 + named."""
        bm25 = self.lexical(analyzer, params).scores(question).astype(np.float64)
        top = float(bm25.max()) if bm25.size else 0.0
        scaled = bm25 / top if top > 0 else bm25
        return (scaled + named * self.named(question)) / (1.0 + named)
