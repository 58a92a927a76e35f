"""House rules checked on the source tree (by reading it, importing nothing): typer and rich
only in ``finchunk/cli/``, no import cycle among finchunk's modules, no long functions."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "finchunk"
CLI = PACKAGE / "cli"
MAX_FUNCTION_LINES = 60


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return "TYPE_CHECKING" in ast.unparse(test)


def _module_level_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run when the module is imported: top level, inside ``if``/``try`` blocks,
    not under ``if TYPE_CHECKING:`` and not inside functions or classes."""
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and not _is_type_checking(node.test):
            todo.extend(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            todo.extend(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                todo.extend(handler.body)


def _all_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def _imported_names(node: ast.Import | ast.ImportFrom, module: str) -> list[str]:
    """Full names an import statement reaches (``from a import b`` gives ``a`` and ``a.b``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # relative: resolve against the importing module's package
        package = module.split(".")
        if MODULES[module].name != "__init__.py":
            package.pop()
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def test_typer_and_rich_are_imported_only_in_the_cli_package() -> None:
    offenders = []
    for name, path in MODULES.items():
        if path.is_relative_to(CLI):
            continue
        for node in _all_imports(ast.parse(path.read_text(encoding="utf-8"))):
            for imported in _imported_names(node, name):
                if imported.split(".")[0] in ("typer", "rich", "click"):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno} imports {imported}")
    assert not offenders, "\n".join(offenders)


def _finchunk_module(name: str) -> str | None:
    """The finchunk module an imported name is (or lives in), if any."""
    parts = name.split(".")
    while parts and ".".join(parts) not in MODULES:
        parts.pop()
    return ".".join(parts) if parts and parts[0] == "finchunk" else None


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph() -> dict[str, set[str]]:
    """Module → the finchunk modules its import runs. Importing ``a.b.c`` also runs the
    packages ``a`` and ``a.b``, except the importer's own packages (already being run)."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        edges: set[str] = set()
        own = set(_ancestors(name))
        for node in _module_level_imports(ast.parse(path.read_text(encoding="utf-8"))):
            for imported in _imported_names(node, name):
                target = _finchunk_module(imported)
                if target is None:
                    continue
                edges.update(m for m in [*_ancestors(target), target] if m not in own)
        edges.discard(name)
        graph[name] = edges
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_module_level_imports_among_finchunk_modules_form_no_cycle() -> None:
    cycle = _find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " → ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_library_function_is_longer_than_sixty_lines() -> None:
    long = []
    for path in MODULES.values():
        if path.is_relative_to(CLI):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1  # def line to last line
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}: {lines}")
    assert not long, "\n".join(long)


# -- layout: sizes, layers, the Layout tables ----------------------------------------------
MAX_MODULE_LINES = 500
MAX_METHODS = 20
#: Packages held to the size rules (retrieve/ was split to meet them; text/ is new).
SIZED = (PACKAGE / "retrieve", PACKAGE / "text")
#: Modules still over a limit, waiting to be split (must shrink to nothing).
KNOWN_LONG_MODULES: set[str] = set()
KNOWN_BIG_CLASSES: set[str] = set()

#: finchunk's layers, lowest first: a module imports (at module level) only from its own
#: layer or lower ones. A name is a module or package under ``finchunk``; a module belongs to
#: the longest name that prefixes it. docs/layout.md explains them.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "_callable", "extras", "model", "files", "parallel", "collector"),
    ("text",),
    ("parse",),
    ("lesson", "chunk"),
    ("records",),
    ("retrieve", "retrieve.base", "retrieve.kinds"),
    ("retrieve.lexical", "retrieve.neural"),
    ("retrieve.index",),
    ("retrieve.query",),
    ("retrieve.backends",),
    ("facts",),
    ("datasets", "evaluate"),  # eval corpora are datasets; datasets write eval corpora
    ("ask", "view", "adapters", "demo"),
    ("api", "api_index"),
    ("cli",),
)


def layer_of(module: str) -> int | None:
    """The layer of a finchunk module (None for the root package, which every module is in)."""
    parts = module.split(".")[1:]
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        for level, names in enumerate(LAYERS):
            if name in names:
                return level
    return None


def _sized_modules() -> dict[str, Path]:
    return {n: p for n, p in MODULES.items() if any(p.is_relative_to(s) for s in SIZED)}


def test_every_module_has_a_layer() -> None:
    missing = [n for n in MODULES if n != "finchunk" and layer_of(n) is None]
    assert not missing, "add these to LAYERS: " + ", ".join(missing)


def test_no_module_level_import_goes_up_a_layer() -> None:
    upward = []
    for module, targets in import_graph().items():
        here = layer_of(module)
        for target in sorted(targets):
            there = layer_of(target)
            if here is not None and there is not None and there > here:
                upward.append(f"{module} (layer {here}) imports {target} (layer {there})")
    assert not upward, "\n".join(upward)


def test_the_layer_rule_sees_an_upward_import() -> None:
    assert layer_of("finchunk.records") < layer_of("finchunk.retrieve.query.search")
    assert layer_of("finchunk.retrieve.index.store") < layer_of("finchunk.retrieve.query.auto")
    assert layer_of("finchunk.text.analysis") < layer_of("finchunk.chunk.header")


def test_no_module_in_retrieve_or_text_is_over_500_lines() -> None:
    long = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in _sized_modules().items()}
    over = {n: lines for n, lines in long.items() if lines > MAX_MODULE_LINES}
    assert set(over) <= KNOWN_LONG_MODULES, over
    assert not KNOWN_LONG_MODULES - set(over), "split: drop from KNOWN_LONG_MODULES"


def test_no_class_in_retrieve_or_text_has_over_20_methods() -> None:
    big = {}
    for name, path in _sized_modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = [
                    b for b in node.body if isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
                if len(methods) > MAX_METHODS:
                    big[f"{name}.{node.name}"] = len(methods)
    assert set(big) <= KNOWN_BIG_CLASSES, big
    assert not KNOWN_BIG_CLASSES - set(big), "split: drop from KNOWN_BIG_CLASSES"


def _layout_paths(markdown: str) -> list[str]:
    """The paths in the first column of a Layout table: backticked, starting ``src/``,
    ``bench/`` or ``devsets/``."""
    paths = []
    for line in markdown.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            paths += [p for p in first.split("`")[1::2] if "/" in p]
    return paths


def _layout_table(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    start = text.index("\n## Layout") if path.name == "README.md" else 0
    end = text.find("\n## ", start + 1)
    return _layout_paths(text[start : end if end > 0 else len(text)])


ROOT = SRC.parent


def test_every_path_in_the_layout_tables_exists() -> None:
    for doc in (ROOT / "README.md", ROOT / "docs" / "layout.md"):
        paths = _layout_table(doc)
        assert paths, f"{doc.name}: no Layout table"
        missing = [p for p in paths if not (ROOT / p).exists()]
        assert not missing, f"{doc.name} names paths that do not exist: {missing}"


def test_the_layout_tables_name_every_package() -> None:
    packages = sorted(str(p.parent.relative_to(ROOT)) + "/" for p in PACKAGE.rglob("__init__.py"))
    for doc, wanted in (
        (ROOT / "docs" / "layout.md", packages),
        (ROOT / "README.md", packages),
    ):
        named = set(_layout_table(doc))
        unnamed = [p for p in wanted if p not in named and p != "src/finchunk/"]
        assert not unnamed, f"{doc.name}'s Layout table leaves out {unnamed}"
