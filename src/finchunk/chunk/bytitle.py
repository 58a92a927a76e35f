"""Element chunking by title, as in the paper (arXiv:2402.05131), after unstructured's by_title.

* a new chunk starts at each heading (consecutive headings stay together) and each table;
* a table stays whole, in a chunk of its own;
* elements merge with the following ones until ``size`` would be exceeded;
* no element is ever split, so an element longer than ``size`` is a chunk on its own.

Headings are part of the chunks they open.
"""

from __future__ import annotations

from dataclasses import dataclass

from finchunk.chunk.pack import Run
from finchunk.collector import collector_paused
from finchunk.errors import InputError
from finchunk.model import Chunk, Document, ElementKind


@dataclass(frozen=True, slots=True)
class ByTitle:
    size: int = 2048
    header: bool = False

    def __post_init__(self) -> None:
        if self.size < 1:
            raise InputError(f"bytitle: size must be positive, got {self.size}")

    @property
    def name(self) -> str:
        return "bytitle"

    @collector_paused
    def chunk(self, doc: Document) -> list[Chunk]:
        out: list[Chunk] = []
        run = Run(doc, self.header)
        only_headings = False
        for i, e in enumerate(doc.elements):
            if e.kind is ElementKind.FURNITURE:
                continue
            if e.kind is ElementKind.TABLE:
                run.flush(out)
                run.add(i, e)
                run.flush(out)
                only_headings = False
                continue
            if e.kind is ElementKind.HEADING:
                if not only_headings or run.size + run.cost(i, e) > self.size:
                    run.flush(out)
                run.add(i, e)
                run.section = e.section
                only_headings = True
                continue
            if not run.empty() and not only_headings and run.size + run.cost(i, e) > self.size:
                run.flush(out)
            run.add(i, e)
            only_headings = False
        run.flush(out)
        return out
