"""No two modules of the package import each other, directly or around a circle, not even
through an import inside a function (such a circle breaks as soon as someone moves the import
to the top, and makes the order modules load in matter)."""
from __future__ import annotations

import ast
from pathlib import Path

from helpers import ROOT


def _modules() -> dict[str, Path]:
    out = {}
    for path in (ROOT / "formulations").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in (ROOT / "formulations").rglob("*.c"):  # compiled extensions import nothing here
        out[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    return out


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules ``path`` imports anywhere in its text (a package's ``__init__``
    counts only when it is what is named)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    package = parts[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            base += tuple((node.module or "").split(".")) if node.module else ()
            base = tuple(b for b in base if b)
            names = [".".join((*base, a.name)) for a in node.names]
            targets = [n if n in modules else ".".join(base) for n in names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t:
                found.add(t)
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    modules = _modules()
    assert len(modules) > 50  # the whole tree was seen
    graph = {m: (_imports(p, modules) if p.suffix == ".py" else set()) - {m}
             for m, p in modules.items()}
    assert "formulations.harness.records" in graph["formulations.harness.frames"]  # edges seen
    assert "formulations.lines._core" in graph["formulations.lines.engine"]  # the C core too
    assert _circles(graph) == []


def test_the_checker_sees_a_circle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]
