"""The pre-rendered ``--help`` pages equal what typer renders now, and ``finchunk --help``
answers from them without importing typer or rich."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from finchunk.cli.helppages import (
    HELP_FILE,
    cached_page,
    render_page,
    render_pages,
    renderer_versions,
)


def _words(page: str | None) -> list[str]:
    """A page's words, without the panels' box drawing (another rich wraps differently)."""
    return sorted(re.sub(r"[\u2500-\u257f]", " ", page or "").split())


def test_the_stored_pages_are_what_the_app_renders() -> None:
    stored = json.loads(HELP_FILE.read_text(encoding="utf-8"))
    pages, rendered = stored["pages"], render_pages()
    same = (
        (lambda a, b: a == b)
        if stored["rendered_with"] == renderer_versions()
        else (lambda a, b: _words(a) == _words(b))
    )
    stale = sorted(
        k for k in rendered.keys() | pages.keys() if not same(rendered.get(k), pages.get(k))
    )
    assert not stale, (
        f"--help pages out of date for {stale}: run `python -m finchunk.cli.helppages`"
    )


def test_only_a_plain_help_request_is_answered_from_the_pages(tmp_path: Path) -> None:
    stored = json.loads(HELP_FILE.read_text(encoding="utf-8"))["pages"][""]
    assert cached_page(["--help"], width=80) == stored
    page = cached_page(["facts", "load", "--help"], width=80)
    assert page.lstrip().startswith("Usage: finchunk facts")
    for argv in ([], ["index"], ["index", "-o", "x", "--help"], ["nosuch", "--help"]):
        assert cached_page(argv, width=80) is None, argv
    assert cached_page(["--help"], tmp_path / "missing.json", width=80) is None
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    assert cached_page(["--help"], tmp_path / "bad.json", width=80) is None


_HELP = (
    "import sys; sys.argv = ['finchunk', *sys.argv[1:], '--help']\n"
    "from finchunk.cli import main; main()\n"
    "print(sorted(m for m in ('typer', 'rich', 'click') if m in sys.modules))"
)


def _help(names: list[str], columns: int, cache: Path) -> tuple[str, list[str]]:
    """``finchunk NAMES --help`` at ``columns`` (a fresh process): the page, and which of
    typer, rich and click it imported."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {
        **os.environ,
        "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "COLUMNS": str(columns),
        "FINCHUNK_CACHE_DIR": str(cache),
    }
    done = subprocess.run(
        [sys.executable, "-c", _HELP, *names], capture_output=True, text=True, env=env, check=True
    )
    page, _, imported = done.stdout.rstrip("\n").rpartition("\n")
    return page + "\n", json.loads(imported.replace("'", '"'))


def test_help_imports_neither_typer_nor_rich(tmp_path: Path) -> None:
    page, imported = _help(["index"], 80, tmp_path)
    assert "Usage: finchunk index" in page
    assert imported == []


def test_help_uses_the_terminal_width_and_keeps_the_page_for_the_next_time(
    tmp_path: Path,
) -> None:
    first, imported = _help(["search"], 132, tmp_path)
    assert imported  # rendered at 132 columns by the app...
    assert first.rstrip("\n") + "\n\n" == render_page(["search"], 132)
    widths = {len(line) for line in first.splitlines() if line.strip()}
    assert max(widths) == 132
    assert "bm25/dense@100+0.5;" in first  # a long word whole on a wide terminal
    again, imported = _help(["search"], 132, tmp_path)
    assert (again, imported) == (first, [])  # ...then read from the cache
    at_80, _ = _help(["search"], 80, tmp_path)
    assert max(len(line) for line in at_80.splitlines()) == 80


def test_no_word_of_a_help_page_is_cut_and_brackets_are_text() -> None:
    pages = json.loads(HELP_FILE.read_text(encoding="utf-8"))["pages"]
    cut = {name: line for name, page in pages.items() for line in page.splitlines() if "…" in line}
    assert not cut
    assert "finchunk[postgres]" in pages["index"]  # not read as rich markup
