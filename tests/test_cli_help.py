"""The pre-rendered ``--help`` pages equal what typer renders now, and ``finchunk --help``
answers from them without importing typer or rich."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from finchunk.cli.helppages import HELP_FILE, cached_page, render_pages, renderer_versions


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
    assert cached_page(["--help"]) == json.loads(HELP_FILE.read_text(encoding="utf-8"))["pages"][""]
    assert cached_page(["facts", "load", "--help"]).lstrip().startswith("Usage: finchunk facts")
    for argv in ([], ["index"], ["index", "-o", "x", "--help"], ["nosuch", "--help"]):
        assert cached_page(argv) is None, argv
    assert cached_page(["--help"], tmp_path / "missing.json") is None
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    assert cached_page(["--help"], tmp_path / "bad.json") is None


def test_help_imports_neither_typer_nor_rich() -> None:
    code = (
        "import sys; sys.argv = ['finchunk', 'index', '--help']\n"
        "from finchunk.cli import main; main()\n"
        "print(sorted(m for m in ('typer', 'rich', 'click') if m in sys.modules))"
    )
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert "Usage: finchunk index" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"
