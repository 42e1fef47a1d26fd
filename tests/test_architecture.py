"""The package `tachikoma/` never imports Flask or the dashboard: faces stay thin.

Read statically with `ast` (nothing is imported), so a lazy import inside a
function, or one by `importlib.import_module("flask")`, is caught as well as
one at the top of a module. The Flask glue lives in `dashboard/` and the
routes in `app.py`; they import `tachikoma`, never the other way round.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tachikoma"

#: Top-level modules the package must not import.
FORBIDDEN = {"flask", "flask_wtf", "htmx_flask", "werkzeug", "app", "dashboard"}

#: The one known exception: `tachikoma serve` starts the dashboard, so the CLI's
#: serve command (not the module) imports app.py's factory when it runs.
ALLOWED = {("cli.py", "cmd_serve", "app")}


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


def test_the_dashboard_glue_does_not_import_the_routes():
    """dashboard/ is used by app.py, so it cannot import app.py back."""
    dashboard = PACKAGE.parent / "dashboard"
    assert sorted(dashboard.glob("*.py"))
    assert [(path.name, module) for path in sorted(dashboard.glob("*.py"))
            for _, module, _ in _imports(ast.parse(path.read_text(encoding="utf-8")))
            if module.split(".")[0] == "app"] == []


def test_the_one_exception_is_still_needed():
    """An exception nobody uses any more is dropped, so it cannot hide a new import."""
    assert forbidden_imports(PACKAGE)[1] == ALLOWED


def test_the_check_sees_every_kind_of_import(tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "a.py").write_text("import werkzeug.exceptions\nfrom flask import Flask\n")
    (tmp_path / "b.py").write_text("def f():\n    from flask_wtf.csrf import CSRFError\n    import app\n")
    (tmp_path / "c.py").write_text("import importlib\nx = importlib.import_module('htmx_flask')\n"
                                   "y = __import__('dashboard.guards')\nfrom . import app\nimport flasky\n")
    (tmp_path / "cli.py").write_text("def cmd_serve():\n    from app import create_app\n")
    found, allowed = forbidden_imports(tmp_path)
    assert [f.split(" (")[0] for f in found] == [
        "tachikoma/b.py:2 imports flask_wtf.csrf", "tachikoma/b.py:3 imports app",
        "tachikoma/c.py:2 imports htmx_flask", "tachikoma/c.py:3 imports dashboard.guards",
        "tachikoma/web/a.py:1 imports werkzeug.exceptions", "tachikoma/web/a.py:2 imports flask"]
    assert allowed == ALLOWED
