"""The shape of the code (docs/architecture.md): no import cycle, function-local imports
included; the engine imports nothing of the site; other apps and tools/ see only the package of
games.services; no runtime module grows past 500 lines. The app layers themselves are
import-linter's contracts in pyproject.toml, run by `make test`."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_APPS = ("accounts", "games", "rankings", "tournaments", "moderation", "musweb")
MAX_LINES = 500


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*RUNTIME_APPS)


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm).

    A package's ``__init__`` that re-exports its submodules is not an import *by* them, so
    ``from . import x`` inside a package does not count as a cycle with its ``__init__``.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def edges(module: str) -> set[str]:
        return {
            m
            for m in graph.find_modules_directly_imported_by(module)
            if not module.startswith(m + ".")  # a submodule importing its own package
        }

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_takes_part_in_an_import_cycle(graph: grimp.ImportGraph) -> None:
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(module)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    graph.add_import(importer="a.z", imported="a.x")
    assert cycles(graph) == [["a.x", "a.y"]]


def test_the_engine_imports_nothing_of_the_site(graph: grimp.ImportGraph) -> None:
    engine = {m for m in graph.modules if m == "games.engine" or m.startswith("games.engine.")}
    outside = {
        (m, imported)
        for m in engine
        for imported in graph.find_modules_directly_imported_by(m)
        if imported not in engine
    }
    assert outside == set()


def test_other_apps_and_tools_import_only_the_games_services_package() -> None:
    """The facade (games/services/__init__.py) is all they see: a module inside it may be
    renamed, split or merged without touching them (import-linter's `protected` contract too)."""
    graph = grimp.build_graph(*RUNTIME_APPS, "tools")
    inside = {m for m in graph.modules if m.startswith("games.services.")}
    reaching_in = {
        (importer, imported)
        for imported in inside
        for importer in graph.find_modules_that_directly_import(imported)
        if importer != "games" and not importer.startswith("games.")
    }
    assert reaching_in == set()


def test_no_runtime_module_outside_the_engine_is_over_500_lines() -> None:
    sources = [
        path
        for app in (*RUNTIME_APPS, "static")
        if (ROOT / app).exists()
        for path in (ROOT / app).rglob("*")
        if path.suffix in (".py", ".js")
        and "migrations" not in path.parts
        and not path.is_relative_to(ROOT / "games" / "engine")
        and not path.name.endswith(".min.js")
    ]
    assert sources
    too_long = {
        str(path.relative_to(ROOT)): n
        for path in sources
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert too_long == {}
