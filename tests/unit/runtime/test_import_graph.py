"""The runtime's import graph, read from the source with ``ast``: no circles among modules nor among
packages, the entry points on top, the host boundary at the bottom, and ``js``/``pyodide`` imported
only by the Pyodide entry.

Every import counts: at module level, inside functions and under ``TYPE_CHECKING`` alike, since each
is a dependency of the code that holds it. A package is a folder of ``runtime/`` (``agent``,
``host``, ...); a module directly in ``runtime/`` (``boot``, ``errors``, ``__main__``) stands alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

RUNTIME = Path(__file__).resolve().parents[3] / "runtime"
ENTRY_POINTS = {"__main__", "pyodide_entry"}
BROWSER_MODULES = {"js", "pyodide"}
Graph = Mapping[str, set[str]]


def module_name(path: Path) -> str:
    parts = path.relative_to(RUNTIME.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in RUNTIME.rglob("*.py")}


def imported_names(path: Path) -> Iterable[str]:
    """Every module name an import statement in ``path`` names (``from a import b`` names ``a`` and ``a.b``)."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def module_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: {n for n in imported_names(path) if n in known and n != name} for name, path in known.items()}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_graph(graph: Graph) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {package_of(m): set() for m in graph}
    for module, targets in graph.items():
        packages[package_of(module)] |= {package_of(t) for t in targets} - {package_of(module)}
    return packages


def reachable(graph: Graph, start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def cycles(graph: Graph) -> list[list[str]]:
    """Each set of nodes that reach one another (a circle, or circles that share a node), sorted."""
    reach = {node: reachable(graph, node) for node in graph}
    parts = {frozenset({n, *(m for m in reach[n] if n in reach.get(m, ()))}) for n in graph if n in reach[n]}
    return sorted(sorted(part) for part in parts)


def test_the_checker_finds_a_circle_in_a_made_up_graph() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_checker_sees_imports_inside_functions_and_type_checking_blocks() -> None:
    graph = module_graph()
    assert "runtime.requests.runtime_info" in graph["runtime.requests.dispatch"]  # imported inside methods()
    assert "runtime.requests.ports" in graph["runtime.requests.memory"]  # under TYPE_CHECKING


def test_no_module_imports_itself_in_a_circle() -> None:
    assert cycles(module_graph()) == []


def test_no_package_imports_itself_in_a_circle() -> None:
    assert cycles(package_graph(module_graph())) == []


def test_nothing_imports_an_entry_point() -> None:
    graph = module_graph()
    entries = {f"runtime.{e}" for e in ENTRY_POINTS} | {"runtime.boot"}
    importers = {m: sorted(t & entries) for m, t in graph.items() if t & entries and package_of(m) not in ENTRY_POINTS}
    assert importers == {}


@pytest.mark.parametrize("package", ["host", "errors", "store", "chat"])
def test_the_lower_packages_stand_on_their_own(package: str) -> None:
    allowed = {"host": {"errors"}, "errors": set(), "store": {"errors"}, "chat": {"store"}}[package]
    assert package_graph(module_graph())[package] - {"runtime"} <= allowed


def test_only_the_pyodide_entry_imports_js_or_pyodide() -> None:
    users = {
        name
        for name, path in modules().items()
        if any(n.split(".")[0] in BROWSER_MODULES for n in imported_names(path))
    }
    assert users == {"runtime.pyodide_entry"}
