"""What a build is asked to do and what it reports: :class:`IndexConfig` (chunking, BM25,
the embedding model), the manifest it starts from, progress, what to do with a file that
cannot be read (:class:`OnError`, :func:`load_or_skip`) and :class:`BuildReport`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import finchunk
from finchunk.chunk import Strategy
from finchunk.errors import FinchunkError, InputError
from finchunk.model import Document
from finchunk.retrieve.index.manifest import (
    FORMAT,
    Manifest,
)
from finchunk.retrieve.index.sources import (  # the sources' names stay importable from here
    META_SUFFIX as META_SUFFIX,
)
from finchunk.retrieve.index.sources import (
    Source,
)
from finchunk.retrieve.index.sources import (
    document_sources as document_sources,
)
from finchunk.retrieve.index.sources import (
    file_sources as file_sources,
)
from finchunk.retrieve.lexical.bm25 import BM25Params

if TYPE_CHECKING:  # the dense stack is imported by builds that embed, when they do
    from finchunk.retrieve.neural.dense import Embedder
    from finchunk.retrieve.neural.splade import Splade


@dataclass(frozen=True, slots=True)
class IndexConfig:
    """How chunks are made and embedded (part of the manifest; a change rebuilds all), and
    BM25's parameters and text pipeline (stored in the manifest; search uses them; the BM25
    index is rebuilt from the chunk texts on every build)."""

    strategy: Strategy = Strategy.STRUCTURE
    size: int | None = None
    overlap: int | None = None
    header: bool = True
    model: str | None = None  # embedder name; None: no dense vectors
    bm25: BM25Params = BM25Params()
    splade: str | None = None  # SPLADE model whose impacts are stored; None: none

    def chunking(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy.value,
            "size": self.size,
            "overlap": self.overlap,
            "header": self.header,
        }


class Progress(Protocol):
    def stage(self, name: str, total: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...


class NoProgress:
    def stage(self, name: str, total: int) -> None:
        return None

    def advance(self, n: int = 1) -> None:
        return None


def _manifest_for(config: IndexConfig, dim: int | None) -> Manifest:
    return Manifest(
        format=FORMAT,
        finchunk_version=finchunk.__version__,
        chunking=config.chunking(),
        bm25=asdict(config.bm25),
        dense={"model": config.model, "dim": dim} if config.model else None,
        splade=_splade_header(config.splade),
    )


def _splade_header(model: str | None) -> dict[str, Any] | None:
    if model is None:
        return None
    from finchunk.retrieve.neural.splade_impacts import IMPACT_SCALE

    return {"model": model, "scale": IMPACT_SCALE}


class OnError(StrEnum):
    """What a document that cannot be read does to a run: stop it, or be skipped (and named)."""

    FAIL = "fail"
    SKIP = "skip"


def default_on_error(inputs: Sequence[str | Path]) -> OnError:
    """What a run does with a file it cannot read when not told: skip it (and name it) when
    an input is a folder, fail when every input is a file named one by one."""
    return OnError.SKIP if any(Path(p).is_dir() for p in inputs) else OnError.FAIL


def load_or_skip(
    src: Source,
    on_error: OnError,
    skipped: list[tuple[str, str]],
    warnings: list[tuple[str, str]] | None = None,
) -> Document | None:
    """The source's document; with ``SKIP``, None (and ``(source, reason)`` added to
    ``skipped``) when it cannot be read. A document read with a warning (bytes replaced)
    adds ``(source, warning)`` to ``warnings``."""
    try:
        doc = src.loader()
    except FinchunkError as exc:
        if on_error is OnError.FAIL:
            raise
        skipped.append((src.source, str(exc)))
        return None
    if warnings is not None and doc.metadata.get("warning"):  # a line each (a PDF's pages)
        warnings += [(src.source, w) for w in str(doc.metadata["warning"]).split("\n") if w]
    return doc


@dataclass
class BuildReport:
    path: Path | str  # a directory, or a database URL (password hidden)
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (source, reason)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (source, warning)
    chunks: int = 0
    rebuilt: str | None = None  # why every document was processed again, if so

    def summary(self) -> str:
        parts = [
            f"{len(self.added)} added",
            f"{len(self.updated)} updated",
            f"{len(self.unchanged)} unchanged",
            f"{len(self.removed)} removed",
            f"{self.chunks} chunks",
        ]
        if self.skipped:
            parts.insert(4, f"{len(self.skipped)} skipped")
        why = f" (full rebuild: {self.rebuilt})" if self.rebuilt else ""
        return ", ".join(parts) + why


def resolve_embedder(
    config: IndexConfig, embedder: Embedder | None
) -> tuple[IndexConfig, Embedder | None]:
    """The embedder the configuration names (or the one given, whose name it then takes)."""
    if config.model and embedder is None:
        from finchunk.retrieve.neural.dense import make_embedder

        embedder = make_embedder(config.model)
    if embedder is not None and config.model != embedder.name:
        config = replace(config, model=embedder.name)
    return config, embedder


def resolve_splade(config: IndexConfig) -> Splade | None:
    """The SPLADE model whose impacts the build stores (None: it stores none); the
    configuration names the installed one (:func:`splade_config`)."""
    if config.splade is None:
        return None
    from finchunk.retrieve.neural.splade import load_splade

    splade = load_splade()
    if splade.name != config.splade:
        raise InputError(f"SPLADE model {config.splade} is asked for, {splade.name} installed")
    return splade


def splade_config(config: IndexConfig, store: bool | None) -> IndexConfig:
    """``config`` storing SPLADE impacts when ``store`` says (None: when the splade extra
    is installed); ``store`` True without the extra is the extra's own error."""
    from finchunk.errors import MissingExtraError
    from finchunk.retrieve.neural.splade import load_splade

    if store is False:
        return replace(config, splade=None)
    try:
        name = load_splade().name
    except MissingExtraError:
        if store:
            raise
        return replace(config, splade=None)
    return replace(config, splade=name)
