"""The package `tachikoma/` never imports Flask or the dashboard: faces stay thin.

Read statically with `ast` (nothing is imported), so a lazy import inside a
function, or one by `importlib.import_module("flask")`, is caught as well as
one at the top of a module. The Flask application, its routes and glue live in
the package `tachikoma_dashboard/`, and `app.py` (a checkout's entry for
`flask --app app run`) only imports its factory; they import `tachikoma`,
never the other way round.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tachikoma"

#: Top-level modules the package must not import.
FORBIDDEN = {"flask", "flask_wtf", "htmx_flask", "werkzeug", "app", "tachikoma_dashboard"}

#: The one known exception: `tachikoma serve` starts the dashboard, so the CLI's
#: serve command (not the module) imports the dashboard's factory when it runs.
ALLOWED = {("cli/serving.py", "cmd_serve", "tachikoma_dashboard")}

#: The dashboard's package: the only one that imports Flask.
DASHBOARD = PACKAGE.parent / "tachikoma_dashboard"
#: The modules that import Flask and its extensions.
FLASK = {"flask", "flask_wtf", "htmx_flask", "werkzeug"}


def _imports(tree: ast.AST):
    """(function the import is in or "<module>", module name, line) for every import in `tree`."""
    def walk(node: ast.AST, where: str):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else where
            if isinstance(child, ast.Import):
                yield from ((where, alias.name, child.lineno) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                yield where, child.module, child.lineno
            elif (isinstance(child, ast.Call) and child.args and isinstance(child.args[0], ast.Constant)
                  and isinstance(child.args[0].value, str)
                  and getattr(child.func, "attr", getattr(child.func, "id", "")) in ("import_module", "__import__")):
                yield where, child.args[0].value, child.lineno
            yield from walk(child, inner)

    yield from walk(tree, "<module>")


def forbidden_imports(package: Path) -> tuple[list[str], set[tuple[str, str, str]]]:
    """The imports of FORBIDDEN modules under `package` ("file:line imports x") and the ALLOWED ones seen."""
    found, allowed_seen = [], set()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        for where, module, line in _imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            top = module.split(".")[0]
            if top not in FORBIDDEN:
                continue
            if (rel, where, top) in ALLOWED:
                allowed_seen.add((rel, where, top))
            else:
                found.append(f"tachikoma/{rel}:{line} imports {module} (in {where})")
    return found, allowed_seen


def test_the_package_imports_no_flask_and_no_dashboard():
    found, _ = forbidden_imports(PACKAGE)
    assert found == []


def test_the_dashboard_package_does_not_import_the_checkouts_entry():
    """app.py (not installed) imports tachikoma_dashboard, so the package cannot import it back."""
    assert sorted(DASHBOARD.rglob("*.py"))
    assert [(path.name, module) for path in sorted(DASHBOARD.rglob("*.py"))
            for _, module, _ in _imports(ast.parse(path.read_text(encoding="utf-8")))
            if module.split(".")[0] == "app"] == []


def test_only_the_dashboard_package_and_app_py_import_flask():
    """Of the Python files shipped or run from the checkout's top (not tests/ or bench/), only the
    dashboard's package and app.py import Flask."""
    top = PACKAGE.parent
    files = [*sorted(top.glob("*.py")), *sorted(p for folder in top.iterdir() if (folder / "__init__.py").is_file()
                                              for p in folder.rglob("*.py"))]
    assert DASHBOARD / "app.py" in files and PACKAGE / "cli" / "serving.py" in files
    importing = {path.relative_to(top).parts[0] for path in files
                 for _, module, _ in _imports(ast.parse(path.read_text(encoding="utf-8")))
                 if module.split(".")[0] in FLASK}
    assert importing <= {"tachikoma_dashboard", "app.py"} and "tachikoma_dashboard" in importing


def test_the_dashboard_package_has_no_import_cycle_and_no_private_name_from_another_module():
    graph = import_graph(DASHBOARD)
    assert [describe_cycle(cycle, group, graph) for cycle, group in import_cycles(graph)] == []
    assert list(private_uses(DASHBOARD)) == []


def test_the_one_exception_is_still_needed():
    """An exception nobody uses any more is dropped, so it cannot hide a new import."""
    assert forbidden_imports(PACKAGE)[1] == ALLOWED


def test_the_check_sees_every_kind_of_import(tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "a.py").write_text("import werkzeug.exceptions\nfrom flask import Flask\n")
    (tmp_path / "b.py").write_text("def f():\n    from flask_wtf.csrf import CSRFError\n    import app\n")
    (tmp_path / "c.py").write_text("import importlib\nx = importlib.import_module('htmx_flask')\n"
                                   "y = __import__('tachikoma_dashboard.guards')\nfrom . import app\nimport flasky\n")
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "serving.py").write_text("def cmd_serve():\n    from tachikoma_dashboard.app import create_app\n")
    found, allowed = forbidden_imports(tmp_path)
    assert [f.split(" (")[0] for f in found] == [
        "tachikoma/b.py:2 imports flask_wtf.csrf", "tachikoma/b.py:3 imports app",
        "tachikoma/c.py:2 imports htmx_flask", "tachikoma/c.py:3 imports tachikoma_dashboard.guards",
        "tachikoma/web/a.py:1 imports werkzeug.exceptions", "tachikoma/web/a.py:2 imports flask"]
    assert allowed == ALLOWED


# ---------------------------------------------------------------- import cycles and private names

#: Import cycles allowed, each as the group of modules that import each other: none.
CYCLES_EXEMPT: set[frozenset[str]] = set()

#: Private names (importing module, module imported from, name) allowed across modules: none.
PRIVATE_EXEMPT: set[tuple[str, str, str]] = set()


def module_names(package: Path) -> dict[str, Path]:
    """Every module under `package` by its dotted name (a package by its own name, from __init__.py)."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imported_from(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module ``from … import`` reads in `module` (at `path`): a relative one
    counts from `module`'s package (from `module` itself for a package's __init__.py)."""
    if not node.level:
        return node.module or ""
    base = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def module_imports(package: Path):
    """(importer, imported module, name taken from it or None, file:line) for every import of a module
    of `package` by a module of `package`: top-level or inside a function, absolute or relative.
    ``from a import b`` where ``a.b`` is a module counts as an import of ``a.b``."""
    names = module_names(package)
    top = package.name
    for module, path in names.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = f"{path.relative_to(package.parent).as_posix()}"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == top or alias.name.startswith(top + "."):
                        yield module, _known(alias.name, names), None, f"{where}:{node.lineno}"
            elif isinstance(node, ast.ImportFrom):
                source = _imported_from(module, path, node)
                if not (source == top or source.startswith(top + ".")):
                    continue
                for alias in node.names:
                    if f"{source}.{alias.name}" in names:
                        yield module, f"{source}.{alias.name}", None, f"{where}:{node.lineno}"
                    else:
                        yield module, _known(source, names), alias.name, f"{where}:{node.lineno}"


def _known(name: str, names: dict[str, Path]) -> str:
    """`name`, or the longest module of the package it starts with (``a.b.c`` of a function c)."""
    while name not in names and "." in name:
        name = name.rpartition(".")[0]
    return name


def import_graph(package: Path) -> dict[str, dict[str, str]]:
    """importer → {imported module: file:line of its first import there}."""
    graph: dict[str, dict[str, str]] = {m: {} for m in module_names(package)}
    for importer, imported, _, at in module_imports(package):
        if imported != importer:
            graph[importer].setdefault(imported, at)
    return graph


def import_cycles(graph: dict[str, dict[str, str]]) -> list[tuple[list[str], list[str]]]:
    """Per group of modules that import each other (directly or through one another): one shortest
    cycle through its first module, as [a, b, …, a], and the whole group."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in graph:
                continue
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    cycles = []
    for group in sorted(groups):
        start, members = group[0], set(group)
        came_from: dict[str, str] = {}
        frontier = [start]
        while start not in came_from:  # breadth first from `start` until back at it
            following = []
            for v in frontier:
                for w in sorted(graph[v]):
                    if w in members and w not in came_from:
                        came_from[w] = v
                        following.append(w)
            frontier = following
        back, v = [], came_from[start]
        while v != start:
            back.append(v)
            v = came_from[v]
        cycles.append(([start, *reversed(back), start], group))
    return cycles


def describe_cycle(cycle: list[str], group: list[str], graph: dict[str, dict[str, str]]) -> str:
    """"a → b → a (a imports b at file:line, b imports a at file:line)", and the rest of a larger group."""
    short = lambda m: m.removeprefix("tachikoma.")  # noqa: E731 (a one-line closure handed on)
    edges = ", ".join(f"{short(a)} imports {short(b)} at {graph[a][b]}" for a, b in zip(cycle, cycle[1:]))
    others = sorted(set(group) - set(cycle))
    also = f"; in the same circle: {', '.join(map(short, others))}" if others else ""
    return f"{' → '.join(map(short, cycle))} ({edges}){also}"


def private_uses(package: Path):
    """(importer, module, private name, file:line) for every ``_name`` a module takes from another module of
    the package: ``from m import _x``, or ``m._x`` on a module bound by ``import``/``from p import m``."""
    names = module_names(package)
    for importer, imported, name, at in module_imports(package):
        if name and name.startswith("_") and not name.startswith("__") and imported != importer:
            yield importer, imported, name, at
    for module, path in names.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bound: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _imported_from(module, path, node)
                for alias in node.names:
                    if f"{source}.{alias.name}" in names:
                        bound[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in names and alias.asname:
                        bound[alias.asname] = alias.name
        where = path.relative_to(package.parent).as_posix()
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                    and node.attr.startswith("_") and not node.attr.startswith("__")
                    and bound[node.value.id] != module):
                yield module, bound[node.value.id], node.attr, f"{where}:{node.lineno}"


def test_no_import_cycles():
    """No module of the package imports, however late, a module that imports it back (directly or
    through others): the layers only ever point down."""
    graph = import_graph(PACKAGE)
    found = [describe_cycle(cycle, group, graph) for cycle, group in import_cycles(graph)
             if frozenset(group) not in CYCLES_EXEMPT]
    assert found == [], "import cycles:\n" + "\n".join(found)


def test_no_private_name_is_used_by_another_module():
    """A name starting with _ belongs to its module; another module that needs it needs it public."""
    found = [f"{at}: {a.removeprefix('tachikoma.')} uses {b.removeprefix('tachikoma.')}.{name}"
             for a, b, name, at in private_uses(PACKAGE) if (a, b, name) not in PRIVATE_EXEMPT]
    assert found == [], "private names used across modules:\n" + "\n".join(found)


def test_the_exemptions_are_still_needed():
    """An exemption nobody needs any more is dropped, so it cannot hide a new cycle or private use."""
    graph = import_graph(PACKAGE)
    assert CYCLES_EXEMPT <= {frozenset(group) for _, group in import_cycles(graph)}
    assert PRIVATE_EXEMPT <= {(a, b, name) for a, b, name, _ in private_uses(PACKAGE)}


def test_the_checks_see_cycles_and_private_names_of_every_kind(tmp_path):
    package = tmp_path / "tachikoma"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import thing\nfrom . import g\n")
    (package / "g.py").write_text("import tachikoma.a\n")
    (package / "b.py").write_text("def f():\n    from tachikoma.sub import c\n")  # late, absolute
    (package / "sub" / "c.py").write_text("import tachikoma.a as first\nfrom ..d import _hidden\nx = first._y\n")
    (package / "d.py").write_text("from . import e\n")
    (package / "e.py").write_text("from tachikoma import d\n")
    (package / "f.py").write_text("from .d import visible\n")  # no cycle, no private name
    graph = import_graph(package)
    assert [describe_cycle(cycle, group, graph) for cycle, group in import_cycles(graph)] == [
        "a → g → a (a imports g at tachikoma/a.py:2, g imports a at tachikoma/g.py:1); "
        "in the same circle: b, sub.c",
        "d → e → d (d imports e at tachikoma/d.py:1, e imports d at tachikoma/e.py:1)"]
    assert sorted(private_uses(package)) == [
        ("tachikoma.sub.c", "tachikoma.a", "_y", "tachikoma/sub/c.py:3"),
        ("tachikoma.sub.c", "tachikoma.d", "_hidden", "tachikoma/sub/c.py:2")]
