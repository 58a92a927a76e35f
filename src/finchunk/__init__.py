"""finchunk: the retrieval half of financial RAG, measured.

Every chunk is a document id plus character spans into the document's text:
``doc.text[start:end]`` is always the source of a span.

The API (each call runs what the CLI command runs, with its defaults)::

    finchunk.load(path_or_text)            -> Document          (parse a file or Markdown text)
    finchunk.chunk(source, strategy="structure", size=None, header=True)
                                            -> list[ChunkRecord] (finchunk chunk)
    finchunk.Index.build(paths, out)       -> Index             (finchunk index, then open)
    finchunk.Index.open(path)              -> Index             (a folder or postgresql://)
    index.search(question, k=5, budget=None, retriever="auto", filters=None,
                 distinct=None, per_entity=False)
                                            -> SearchResult      (finchunk search: its hits)
    index.close(), with ..., len(index)
    finchunk.ask(question, facts=None, index=None, as_of=None)
                                            -> AskAnswer         (finchunk ask)
    finchunk.evaluate(questions, files)    -> dict              (finchunk eval --json)

>>> import tempfile
>>> doc = finchunk.load("tests/data/informe_ejemplo.md")
>>> chunks = finchunk.chunk(doc)
>>> with finchunk.Index.build("tests/data", tempfile.mkdtemp() + "/idx") as index:
...     hits = index.search("¿Cuál fue la plantilla media?", k=3)
>>> hit = hits[0]
>>> hit.doc_id, hit.spans == hit.record.spans, hit.citations[0] in doc.text
('informe_ejemplo', True, True)

Conventions:

* Offsets: a span ``(start, end)`` indexes ``Document.text`` (Python ``str`` indices);
  ``hit.citations[i] == doc.text[start:end]`` of ``hit.spans[i]``.
* Pages are 1-based physical pages: a PDF's, or an HTML filing's counted by its page breaks;
  Markdown has none. FinanceBench's evidence pages are 0-based: ``hit.zero_based_pages``.
* Document ids: a file's name without its suffix; under a folder, its relative path without
  the suffix (``reports/2024/acme``), in ``chunk``, ``Index.build`` and ``evaluate`` alike.
* Metadata: chunk records and filters use canonical names, ``issuer``, ``ticker``,
  ``year``, ``doc_type``, ``language`` (``fiscal_year``, ``emisor``, ``company`` ... are read
  as those); a ``NAME.meta.json`` beside a file adds its metadata.
* The context header (issuer | form | period > section) is on by default, as in the CLI; the
  chunker classes (``finchunk.chunk.Structure()`` ...) default to no header.
* Errors: :class:`finchunk.errors.FinchunkError` (ParseError naming the file, InputError,
  MissingExtraError naming the ``pip install 'finchunk[...]'`` to run).
* ``finchunk.chunk``, ``finchunk.ask`` and ``finchunk.evaluate`` are also the modules of
  those names (chunkers, the ask logic, the harness); calling them calls the API function.

Where next: ``docs/python.md`` (this API, worked through), ``finchunk --help`` (the CLI),
:mod:`finchunk.retrieve.query.search` (SearchOptions, Hit), :mod:`finchunk.records` (the chunk
record's fields), :mod:`finchunk.adapters` (LangChain, LlamaIndex).
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["Index", "ask", "chunk", "evaluate", "load"]

TYPE_CHECKING = False  # (not typing's: importing typing would double the import's cost)
if TYPE_CHECKING:
    from typing import Any

    from finchunk.api import Index, ask, chunk, evaluate, load

#: Names whose module is the API call too (:mod:`finchunk._callable`): importing the module
#: is what binds the name here, callable.
_MODULES = {"chunk": "finchunk.chunk", "ask": "finchunk.ask", "evaluate": "finchunk.evaluate"}


def __getattr__(name: str) -> Any:
    """The API, imported on first use: ``import finchunk`` imports nothing else."""
    from importlib import import_module

    if name in _MODULES:
        return import_module(_MODULES[name])
    if name in ("Index", "load"):
        value = getattr(import_module("finchunk.api"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'finchunk' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
