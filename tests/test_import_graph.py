"""The import graph of the four packages: no cycle between modules, and few function-local imports.

The graph is read from the source files with ``ast``: an edge for every ``import`` of a module of
the four packages, those inside functions included (they run, later: a cycle hidden behind a
function-local import is still a cycle, and hiding it is what they must not do) and those under
``if TYPE_CHECKING:`` left out (they never run; annotations only, which mypy checks). Importing a
module also runs its packages' ``__init__``, but that is not an edge: it is no choice of the
importer's. A cycle is a strongly connected component of more than one module.

A function-local import keeps a heavy dependency (numpy, torch, trio, ...) out of a command's start;
each says why on its line (or the line above), and the project allows 40 of them.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent
FOLDERS = ("protocol", "dealer", "agents", "models")
LOCAL_IMPORT_BUDGET = 40


def module_name(path: Path) -> str:
    """``acpc_arena.dealer.lbr.response`` for ``dealer/lbr/response.py``, ``acpc_arena.dealer`` for its ``__init__``."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return "acpc_arena." + ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


SOURCES = {module_name(path): path for folder in FOLDERS for path in sorted((REPO / folder).rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_nodes(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Each import statement that runs, with whether it is inside a function (``if TYPE_CHECKING:``
    bodies left out, their ``else:`` kept)."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, in_function
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.orelse:
                yield from walk(statement, in_function)
            return
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            yield from walk(child, inner)

    yield from walk(tree, False)


def imported_modules(source: str, importer: str, is_package: bool, modules: Iterable[str]) -> set[str]:
    """The modules of ``modules`` that ``source`` (module ``importer``) imports: ``from p import x`` is an
    import of ``p.x`` where that is a module, else of ``p``; a name past the modules (``import p.x.y`` where
    ``y`` is a name) counts as its module."""
    known = set(modules)
    package = importer if is_package else importer.rpartition(".")[0]
    found: set[str] = set()

    def nearest(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    for node, _ in import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            stem = ".".join(part for part in (base, node.module or "") if part)
            targets = [f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in known else stem for alias in node.names]
        found.update(module for module in map(nearest, targets) if module is not None)
    found.discard(importer)
    return found


@cache
def import_graph() -> dict[str, set[str]]:
    """Every module of the four packages and the modules of the four it imports."""
    return {
        module: imported_modules(path.read_text(), module, path.name == "__init__.py", SOURCES)
        for module, path in SOURCES.items()
    }


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm, iterative), each
    sorted, in order of their first node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def local_imports(source: str) -> list[tuple[int, bool]]:
    """(line, whether a comment gives a reason on it or the line above) of each function-local import."""
    comments = {
        token.start[0]
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    }
    lines = source.splitlines()
    own_line = {n for n in comments if lines[n - 1].lstrip().startswith("#")}
    found = []
    for node, in_function in import_nodes(ast.parse(source)):
        if in_function:
            found.append((node.lineno, node.lineno in comments or node.lineno - 1 in own_line))
    return found


# -- the cycle finder and the graph reader, on hand-made input ----------------------------------


def test_the_cycle_finder_finds_each_cycle_once() -> None:
    graph = {
        "a": ["b"],
        "b": ["c", "d"],
        "c": ["a"],  # a -> b -> c -> a
        "d": ["e"],
        "e": ["d", "f"],  # d <-> e, reached from the first cycle
        "f": ["f"],  # a module importing itself is no cycle between modules
        "g": ["a", "h"],  # g reaches both cycles, nothing comes back to it
        "h": [],
    }
    assert cycles(graph) == [["a", "b", "c"], ["d", "e"]]
    assert cycles({"x": ["y"], "y": []}) == []
    assert cycles({"x": ["y"], "y": ["z"], "z": ["x", "y"]}) == [["x", "y", "z"]]


def test_the_cycle_finder_takes_a_long_chain() -> None:
    chain = {f"m{i}": [f"m{i + 1}"] for i in range(5000)}
    assert cycles(chain) == []
    chain["m5000"] = ["m0"]
    assert cycles(chain) == [sorted(f"m{i}" for i in range(5001))]


def test_imports_are_read_in_each_form() -> None:
    modules = ["p", "p.a", "p.b", "p.c", "p.d", "p.e", "p.sub", "p.sub.f", "q"]
    source = """
from typing import TYPE_CHECKING
import os
import p.a
from p import b, NAME
from p.c import thing
from .sub import f
if TYPE_CHECKING:
    from p.e import Hidden
else:
    import q

def g():
    from p.d import late  # numpy, at first use
"""
    assert imported_modules(source, "p.x", False, modules) == {"p.a", "p.b", "p", "p.c", "p.sub.f", "q", "p.d"}
    assert imported_modules("from . import a\nfrom .sub import f", "p", True, modules) == {"p.a", "p.sub.f"}
    assert imported_modules("from .. import a", "p.sub.f", False, modules) == {"p.a"}


def test_local_imports_and_their_reasons_are_found() -> None:
    source = """import numpy

def f():
    import trio  # trio, only for the live view
    # torch: only when training
    import torch
    import json
    from x import (  # a reason on the first line
        y,
    )
    return lambda: __import__("z")

class C:
    def m(self):
        from a import b
"""
    assert local_imports(source) == [(4, True), (6, True), (7, False), (8, True), (15, False)]


# -- the four packages ----------------------------------------------------------------------------


def test_every_module_is_read() -> None:
    graph = import_graph()
    assert "acpc_arena.dealer.lbr.response" in graph["acpc_arena.dealer.lbr.evaluation"]
    assert "acpc_arena.protocol.state" in graph["acpc_arena.protocol.wire"]


def test_no_import_cycle_between_modules() -> None:
    assert cycles(import_graph()) == []


@cache
def local_imports_by_file() -> dict[str, list[tuple[int, bool]]]:
    """``local_imports`` of each source file, by its path in the repository."""
    return {str(path.relative_to(REPO)): local_imports(path.read_text()) for path in SOURCES.values()}


def unexplained(folder: str) -> list[str]:
    """``path:line`` of each function-local import under ``folder`` that gives no reason."""
    return [
        f"{path}:{line}"
        for path, found in local_imports_by_file().items()
        if path.startswith(f"{folder}/")
        for line, explained in found
        if not explained
    ]


@pytest.mark.parametrize("folder", ["protocol", "dealer", "agents", "models"])
def test_every_function_local_import_says_why(folder: str) -> None:
    assert unexplained(folder) == []


def test_the_protocol_keeps_five_function_local_imports_at_most() -> None:
    count = sum(len(found) for path, found in local_imports_by_file().items() if path.startswith("protocol/"))
    assert count <= 5


def test_function_local_imports_are_within_the_budget() -> None:
    count = sum(map(len, local_imports_by_file().values()))
    assert count <= LOCAL_IMPORT_BUDGET
