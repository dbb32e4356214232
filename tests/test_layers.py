"""The dealer's packages import one way: ``dealer.web`` (the pages, a person's seat) may use
``dealer.arena`` (runs, reports), which may use the dealer's own modules (``dealer/*.py``: the match
server, its files, the page process's feed and start), never the other way; and no module of
``dealer/`` imports another's private (``_name``) names. Read from the source files' imports, those
inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DEALER = Path(__file__).parent.parent / "dealer"
ORDER = ["dealer", "dealer.arena", "dealer.web"]
"""From the bottom up: a package may import those before it."""


def package_of(module: str) -> str | None:
    """``dealer``, ``dealer.arena`` or ``dealer.web`` for a module of the dealer, else None."""
    parts = module.split(".")
    if parts[:2] != ["acpc_arena", "dealer"]:
        return None
    return f"dealer.{parts[2]}" if len(parts) > 2 and parts[2] in ("arena", "web") else "dealer"


def imports(path: Path) -> list[ast.ImportFrom]:
    return [node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ImportFrom)]


SOURCES = sorted(DEALER.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(DEALER)))
def test_no_module_imports_a_package_above_its_own(path: Path) -> None:
    folder = path.relative_to(DEALER).parts[:-1]
    own = f"dealer.{folder[0]}" if folder else "dealer"
    above = ORDER[ORDER.index(own) + 1 :]
    wrong = [node.module for node in imports(path) if node.module and package_of(node.module) in above]
    assert wrong == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(DEALER)))
def test_no_module_imports_a_private_name_of_another(path: Path) -> None:
    private = [
        f"{node.module}.{alias.name}"
        for node in imports(path)
        if node.module and node.module.startswith("acpc_arena.")
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert private == []


def test_the_packages_are_where_the_order_says() -> None:
    assert package_of("acpc_arena.dealer.match") == "dealer"
    assert package_of("acpc_arena.dealer.arena.runner") == "dealer.arena"
    assert package_of("acpc_arena.dealer.arena") == "dealer.arena"  # from acpc_arena.dealer.arena import options
    assert package_of("acpc_arena.dealer.web.side") == "dealer.web"
    assert package_of("acpc_arena.protocol.game") is None
    assert len(SOURCES) > 30
