"""finchunk's Python API: the calls behind ``finchunk chunk``, ``index``, ``search``, ``ask``
and ``eval``, with the CLI's defaults (a test compares them with the commands' options).

Each function here parses its arguments and calls the one function the command calls; none
holds a second version of it. Every name is re-exported by :mod:`finchunk` (imported on
first use, so ``import finchunk`` stays light); see ``help(finchunk)`` for the map.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from finchunk.api_index import Index, PathLike, on_error_mode, warn_skipped
from finchunk.errors import InputError

if TYPE_CHECKING:
    from finchunk.ask import AskAnswer
    from finchunk.chunk import Chunker, Strategy
    from finchunk.model import Document
    from finchunk.records import ChunkRecord
    from finchunk.retrieve.index.config import OnError

__all__ = ["Index", "ask", "chunk", "evaluate", "load"]

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
    mode = on_error_mode(on_error, paths)
    skipped: list[tuple[str, str]] = []
    warned: list[tuple[str, str]] = []
    out: list[ChunkRecord] = []
    for src in sources:
        doc = load_or_skip(src, mode, skipped, warned)
        if doc is not None:
            out += document_records(doc, chunker.chunk(doc))
    warn_skipped(warned, skipped)
    return out


# --- ask and evaluate --------------------------------------------------------------------------


def ask(
    question: str,
    *,
    facts: PathLike | None = None,
    index: Index | PathLike | None = None,
    as_of: date | str | None = None,
    k: int = 5,
    retriever: str = "auto",
    budget: int | None = None,
    budget_tokens: int | None = None,
    evidence: bool = False,
) -> AskAnswer:
    """Answer a question as ``finchunk ask`` does: a figure from the fact store (``facts``,
    the SQLite file ``finchunk facts load`` writes), anything else (or a figure the store
    lacks) with the index's cited chunks (``index``: an :class:`Index` or its folder;
    searched with filters from the names in the question). ``as_of``: the point in time
    (a date or ``"YYYY-MM-DD"``): only what was filed by then. ``budget``, ``budget_tokens``
    and ``evidence``: a text answer delivered as :meth:`Index.search` delivers it (with
    ``evidence``, ``answer.evidence`` holds the cited text within the budget).

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
        budget=budget,
        budget_tokens=budget_tokens,
        evidence=evidence,
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
    from finchunk.evaluate import options
    from finchunk.evaluate.harness import evaluate as run_eval
    from finchunk.evaluate.scope import Scope
    from finchunk.retrieve.kinds import Distinct

    mode = header if isinstance(header, str) else ("on" if header else "off")
    try:
        header_mode, where = options.HeaderMode(mode.strip().lower()), Scope(scope.strip().lower())
    except ValueError as exc:
        raise InputError(f"evaluate: {exc}") from None
    given = [Path(p) if p else None for p in (docs, passages, questions, files)]
    corpus, alignment = options.eval_corpus(*given)  # type: ignore[arg-type]
    ks = options.parse_ks(str(k) if isinstance(k, int) else _listed(k))
    variants = options.eval_variants(_listed(strategies), header_mode, _listed(retriever))
    settings = options.eval_settings(threshold, where, False, True, Distinct.NONE, False, None)
    report = run_eval(corpus, variants, ks, settings)
    if alignment is not None:
        report["alignment"] = alignment
    return report


def _listed(value: str | Sequence[Any]) -> str:
    """A comma list as the CLI takes it, from one or a sequence."""
    return value if isinstance(value, str) else ",".join(map(str, value))
