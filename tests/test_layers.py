"""The layers of ``pyproject.toml``'s ``[tool.importlinter]`` contracts (checked by ``make lint``) name
packages only and cover every module, the commands import no module that imports them back, no module
imports another's private (``_name``) names, and no module of the tests or the benchmarks imports a test
module. Imports are read from the source files, those inside functions included.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).parent.parent
FOLDERS = ("protocol", "dealer", "agents", "models")
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
CONTRACTS: list[dict[str, Any]] = PYPROJECT["tool"]["importlinter"]["contracts"]
(LAYERS_CONTRACT,) = (c for c in CONTRACTS if c["type"] == "layers")
LAYERS: list[list[str]] = [
    [name.strip() for name in layer.replace("|", ":").split(":")] for layer in LAYERS_CONTRACT["layers"]
]
"""Each layer's modules, the top layer first."""


def module_name(path: Path) -> str:
    """``acpc_arena.dealer.arena.runner`` for ``dealer/arena/runner.py``, ``acpc_arena.models`` for its ``__init__``."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return "acpc_arena." + ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of the layer that holds ``module`` (itself or a package above it)."""
    for index, layer in enumerate(LAYERS):
        if any(module == name or module.startswith(name + ".") for name in layer):
            return index
    return None


SOURCES = sorted(path for folder in FOLDERS for path in (REPO / folder).rglob("*.py"))
CONTAINERS = ("dealer", "models")
"""The folders whose subpackages the layers list (the other two are a layer each)."""


def package_folder(name: str) -> Path:
    """The folder of the package ``name`` (``acpc_arena.dealer.server`` -> ``dealer/server``)."""
    return REPO.joinpath(*name.split(".")[1:])


def test_the_layers_name_packages_only() -> None:
    names = [name for layer in LAYERS for name in layer]
    assert [name for name in names if not (package_folder(name) / "__init__.py").is_file()] == []
    assert len(names) == len(set(names))


def test_the_layered_folders_hold_packages_only_each_in_a_layer() -> None:
    """A module of ``dealer/`` or ``models/`` outside the listed packages would be checked by no contract."""
    for folder in CONTAINERS:
        loose = [path.name for path in (REPO / folder).glob("*.py") if path.name != "__init__.py"]
        assert loose == [], f"{folder}/ holds modules outside its packages"
        packages = [path.parent for path in (REPO / folder).glob("*/__init__.py")]
        assert [p for p in packages if layer_of(module_name(p / "__init__.py")) is None] == []
        init = ast.parse((REPO / folder / "__init__.py").read_text())  # in no layer: it imports nothing
        assert not [node for node in ast.walk(init) if isinstance(node, ast.Import | ast.ImportFrom)]


def test_the_layers_read_as_the_architecture_page_says() -> None:
    assert layer_of("acpc_arena.dealer.commands.match") == 0
    assert layer_of("acpc_arena.models.training.cli") == layer_of("acpc_arena.dealer.benchmark_server.server") == 1
    assert layer_of("acpc_arena.dealer.web.app") == 2
    assert layer_of("acpc_arena.dealer.arena.runner") == layer_of("acpc_arena.dealer.lbr.response") == 3
    assert layer_of("acpc_arena.agents.registry") == 4
    assert layer_of("acpc_arena.models.cfr.solver") == layer_of("acpc_arena.models.search.mcts") == 5
    assert layer_of("acpc_arena.dealer.observers.feed") == 6
    assert layer_of("acpc_arena.dealer.server.match") == layer_of("acpc_arena.dealer.server.seat") == 7
    assert layer_of("acpc_arena.protocol.state") == 8
    assert layer_of("acpc_arena.dealer.arenas") is None  # a prefix of a name is not the name
    assert len(SOURCES) > 120


def test_the_contracts_cover_the_installed_packages() -> None:
    package_dir = PYPROJECT["tool"]["setuptools"]["package-dir"]
    assert sorted(PYPROJECT["tool"]["importlinter"]["root_packages"]) == sorted(package_dir)
    assert sorted(package_dir.values()) == sorted(FOLDERS)
    assert all("ignore_imports" not in contract for contract in CONTRACTS)


def test_the_contracts_hold() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in done.stdout


COMMANDS = "acpc_arena.dealer.commands"
"""The package of the match server's and the arena's commands (each script's module, and what they share)."""


def is_command(module: str) -> bool:
    """Whether ``module`` holds a command line: a module of ``dealer.commands``, or a ``cli``/``*_cli`` module."""
    last = module.rsplit(".", 1)[-1]
    return module.startswith(COMMANDS + ".") or last == "cli" or last.endswith("_cli")


def imported_modules(source: str) -> set[str]:
    """The project's modules that ``source`` imports, ``from package import module`` counted as the module."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("acpc_arena"):
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names if alias.name.startswith("acpc_arena"))
    return names


def test_the_commands_are_the_scripts_modules() -> None:
    """Every script's module holds a command line; outside ``dealer.commands`` a command module is a script's."""
    scripts = {target.split(":")[0] for target in PYPROJECT["project"]["scripts"].values()}
    commands = {module_name(path) for path in SOURCES if is_command(module_name(path))}
    assert scripts <= commands
    assert {module for module in commands - scripts if not module.startswith(COMMANDS + ".")} == set()


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_imports_a_command(path: Path) -> None:
    """A match runs command -> arena -> dealer -> seats, never back into a command module; the commands of
    ``dealer.commands`` share their modules among themselves."""
    importer = module_name(path)
    commands = {module for module in imported_modules(path.read_text()) if is_command(module)}
    if importer.startswith(COMMANDS + "."):
        commands = {module for module in commands if not module.startswith(COMMANDS + ".")}
    assert commands == set()


def private_imports(source: str) -> list[str]:
    """The private names that ``source`` takes from modules of the project: ``from acpc_arena.x import _y``,
    and ``m._y`` where ``m`` is a project module it imported (``import acpc_arena.x as m``,
    ``from acpc_arena import x``)."""
    tree = ast.parse(source)
    found: list[str] = []
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("acpc_arena"):
            for alias in node.names:
                if alias.name.startswith("_"):
                    found.append(f"{node.module}.{alias.name}")
                else:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("acpc_arena.") and alias.asname:
                    modules[alias.asname] = alias.name
                elif alias.name.startswith("acpc_arena."):
                    modules["acpc_arena"] = "acpc_arena"  # used as acpc_arena.x.y
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            chain = [node.attr]
            base = node.value
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name) and base.id in modules:
                found.append(".".join([modules[base.id], *reversed(chain)]))
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_imports_a_private_name_of_another(path: Path) -> None:
    assert private_imports(path.read_text()) == []


def test_private_imports_are_found_in_each_form() -> None:
    source = """
import acpc_arena.protocol.equity
import acpc_arena.protocol.evaluator as evaluator
from acpc_arena.models.search import mcts
from acpc_arena.agents.dqn import _decision_states, decision_states

def f(self):
    acpc_arena.protocol.equity._suit_canonical(1)
    evaluator._classes()
    mcts._Node()
    self._strength()  # an attribute of an object, not of a module
    return mcts.__file__, decision_states
"""
    assert sorted(private_imports(source)) == [
        "acpc_arena.agents.dqn._decision_states",
        "acpc_arena.models.search.mcts._Node",
        "acpc_arena.protocol.equity._suit_canonical",
        "acpc_arena.protocol.evaluator._classes",
    ]


TEST_SIDE = sorted(path for folder in ("tests", "benchmarks") for path in (REPO / folder).rglob("*.py"))
"""The tests' and the benchmarks' modules: what they share is in ``tests/helpers/``, never in a test module."""


def imported_test_modules(source: str) -> set[str]:
    """The test modules (``tests.test_*``) that ``source`` imports, in any form."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    parts = (name.split(".") for name in names)
    return {f"tests.{p[1]}" for p in parts if len(p) > 1 and p[0] == "tests" and p[1].startswith("test_")}


@pytest.mark.parametrize("path", TEST_SIDE, ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_imports_a_test_module(path: Path) -> None:
    """Importing a test module would collect its tests' state, and moving a test would break its importers."""
    assert imported_test_modules(path.read_text()) == set()


def test_test_module_imports_are_found_in_each_form() -> None:
    source = """
import tests.test_a
import tests.test_b as b
from tests.test_c import helper
from tests import test_d, conftest
from tests.helpers.processes import spawn
from tests.helpers import matches

def f():
    from tests.test_e import other
"""
    expected = {"tests.test_a", "tests.test_b", "tests.test_c", "tests.test_d", "tests.test_e"}
    assert imported_test_modules(source) == expected
