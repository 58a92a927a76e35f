"""Smoke test of a core install (``pip install .``, no extras), run by ``.ci/run``.

Run it with the core virtual environment's Python: ``.ci-core-venv/bin/python
.ci/smoke_core.py``. It drives the installed ``finchunk`` console script from a scratch
folder (so nothing is imported from ``src/``) and exits non-zero, saying what failed, when:

* an optional package (an extra) is importable: the check would prove nothing;
* ``finchunk --help`` or ``python -m finchunk.cli --help`` fails, or the installed package
  lacks its pre-rendered help pages (``finchunk/cli/help.json``);
* ``finchunk chunk`` on a Markdown file writes no chunks;
* ``finchunk index`` + ``finchunk search --json`` on ``tests/data`` finds nothing;
* ``finchunk generate`` (a tiny corpus) + ``finchunk eval --json`` gives no recall;
* the Python API (``finchunk.Index.build`` + ``search``, ``finchunk.chunk``) on
  ``tests/data`` finds nothing;
* ``finchunk chunk`` on a ``.htm`` / ``.pdf`` / ``.docx`` / ``.xlsx`` does not exit 2 with
  exactly one line naming the file and ``pip install 'finchunk[html]'`` / ``[pdf]`` /
  ``[office]``.

Not collected by pytest (it lives outside ``tests/``).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from finchunk.extras import EXTRA_MODULES

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
FINCHUNK = Path(sys.executable).parent / "finchunk"
OPTIONAL = EXTRA_MODULES  # finchunk is installed: the one list of what extras bring


class SmokeFailure(Exception):
    pass


def run(args: list[str], cwd: Path, expect: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != expect:
        raise SmokeFailure(
            f"{' '.join(args)}: exit {done.returncode}, expected {expect}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    return done


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SmokeFailure(what)


def check_no_extras() -> None:
    present = [m for m in OPTIONAL if importlib.util.find_spec(m) is not None]
    check(not present, f"not a core install: {', '.join(present)} importable")


def check_help(tmp: Path) -> None:
    out = run([str(FINCHUNK), "--help"], tmp).stdout
    for command in ("chunk", "eval", "index", "search", "generate", "facts", "bench"):
        check(command in out, f"finchunk --help does not list {command}")
    run([sys.executable, "-m", "finchunk.cli", "--help"], tmp)
    from finchunk.cli.helppages import HELP_FILE, cached_page

    check(HELP_FILE.is_file(), f"the installed package lacks {HELP_FILE.name}")
    check(cached_page(["index", "--help"]) is not None, "no stored page for index --help")


def check_chunk(tmp: Path) -> None:
    out = tmp / "chunks.jsonl"
    run([str(FINCHUNK), "chunk", str(DATA / "informe_ejemplo.md"), "-o", str(out)], tmp)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    check(len(rows) > 1, f"finchunk chunk wrote {len(rows)} chunk(s)")
    check(all(r["spans"] and r["text"] for r in rows), "a chunk without spans or text")


def check_index_and_search(tmp: Path) -> None:
    index = tmp / "index"
    run([str(FINCHUNK), "index", str(DATA), "-o", str(index)], tmp)
    query = "la sociedad arrienda terrenos y oficinas"
    found = run([str(FINCHUNK), "search", str(index), query, "--json", "-k", "2"], tmp)
    hits = json.loads(found.stdout)["results"]
    check(bool(hits), f"finchunk search found nothing for {query!r}")
    check("arrienda terrenos" in hits[0]["text"], f"the first hit for {query!r} is not Note 1")
    check(hits[0]["spans"] and hits[0]["doc_id"] == "informe_ejemplo", "a hit without citation")


def check_eval(tmp: Path) -> None:
    corpus = tmp / "corpus"
    sizes = ["--issuers", "1", "--years", "1", "--funds", "1", "--notes", "1"]
    run([str(FINCHUNK), "generate", "-o", str(corpus), *sizes], tmp)
    report = tmp / "eval.json"
    tables = [f"--docs={corpus / 'documents.parquet'}", f"--passages={corpus / 'passages.parquet'}"]
    args = ["eval", *tables, f"--questions={corpus / 'questions.csv'}", "--k", "1-5"]
    run([str(FINCHUNK), *args, "--strategies", "fixed,structure", "--json", str(report)], tmp)
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    check(bool(results), "finchunk eval reported no results")
    check(max(r["recall"] for r in results) > 0, "finchunk eval: recall 0 everywhere")


API_CHECK = """
import sys, finchunk
with finchunk.Index.build(sys.argv[1], sys.argv[2]) as index:
    hits = index.search("la sociedad arrienda terrenos y oficinas", k=2)
print(len(finchunk.chunk(sys.argv[1])), hits[0].doc_id, "arrienda terrenos" in hits[0].text)
"""


def check_python_api(tmp: Path) -> None:
    done = run([sys.executable, "-c", API_CHECK, str(DATA), str(tmp / "api-index")], tmp)
    words = done.stdout.split()
    check(len(words) == 3 and int(words[0]) > 1, f"finchunk.chunk: {done.stdout!r}")
    check(words[1:] == ["informe_ejemplo", "True"], f"Index.search: {done.stdout!r}")


def check_missing_extra(tmp: Path, name: str, body: str, extra: str) -> None:
    (tmp / name).write_text(body, encoding="utf-8")
    done = run([str(FINCHUNK), "chunk", name, "-o", "out.jsonl"], tmp, expect=2)
    lines = done.stderr.strip().splitlines()
    check(len(lines) == 1, f"{name}: expected one error line, got:\n{done.stderr}")
    check(lines[0].startswith(f"error: {name}: "), f"{name}: the error does not name the file")
    install = f"pip install 'finchunk[{extra}]'"
    check(install in lines[0], f"{name}: the error does not say {install}: {lines[0]}")


def main() -> int:
    checks = [
        ("no extras installed", lambda tmp: check_no_extras()),
        ("--help", check_help),
        ("chunk Markdown", check_chunk),
        ("index + search Markdown", check_index_and_search),
        ("generate + eval", check_eval),
        ("the Python API", check_python_api),
        (".htm needs [html]", lambda tmp: check_missing_extra(tmp, "f.htm", "<p>x</p>", "html")),
        (".pdf needs [pdf]", lambda tmp: check_missing_extra(tmp, "r.pdf", "%PDF-1.4\n", "pdf")),
        (".docx needs [office]", lambda tmp: check_missing_extra(tmp, "m.docx", "PK", "office")),
        (".xlsx needs [office]", lambda tmp: check_missing_extra(tmp, "m.xlsx", "PK", "office")),
    ]
    with tempfile.TemporaryDirectory() as scratch:
        for label, fn in checks:
            try:
                fn(Path(scratch))
            except SmokeFailure as exc:
                print(f"core smoke FAILED at {label}: {exc}", file=sys.stderr)
                return 1
            print(f"core smoke ok: {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
