"""The raw blocks HTML and SEC plain text are read into, before any SEC convention:
paragraphs with style facts (:class:`Para`), tables of cells (:class:`RawTable`,
:class:`Cell`) and link targets (:class:`Anchor`). Produced by :mod:`.html_walk` (from a DOM)
and :mod:`.sec_sgml` (from ``<PRE>`` and SGML plain text); read by the HTML parser."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Para:
    """One paragraph: normalised text and what the reader sees of its style."""

    text: str
    bold: float = 0.0
    page: int = 1
    lead_mark: str | None = None
    marks: tuple[str, ...] = ()
    list_item: bool = False
    htag: int = 0
    linked: float = 0.0
    #: (offset in ``text``, page) where a later page begins inside this paragraph.
    page_breaks: tuple[tuple[int, int], ...] = ()


@dataclass(slots=True)
class Cell:
    paras: list[Para]
    colspan: int = 1
    href: str | None = None

    @property
    def linked(self) -> bool:
        return self.href is not None

    @property
    def text(self) -> str:
        return " ".join(p.text for p in self.paras)


@dataclass(slots=True)
class RawTable:
    rows: list[list[Cell]]
    page: int = 1


@dataclass(slots=True)
class Anchor:
    """An element some internal link points to (``id`` or ``<a name>``)."""

    id: str
    page: int = 1


Block = Para | RawTable | Anchor
