"""The installed package: one distinct import name, every package folder and data file in it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("protocol", "dealer", "agents", "models")
DIST_INFO = f"acpc_arena-{tomllib.loads((REPO / 'pyproject.toml').read_text())['project']['version']}.dist-info"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the repository, built once for the tests of this module from a copy of the files git
    does not ignore (a stale ``build/`` folder in the repository would add the files it still holds)."""
    directory = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("source")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, check=True, capture_output=True,
    ).stdout.decode()  # fmt: skip
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(directory),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = directory.glob("*.whl")
    return built


def _wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_wheel_installs_only_under_acpc_arena(wheel: Path) -> None:
    names = _wheel_names(wheel)
    top_level = {name.split("/", 1)[0] for name in names}
    assert top_level == {"acpc_arena", DIST_INFO}

    # Every package folder of the repository is in the wheel (none forgotten in pyproject's list).
    for folder in FOLDERS:
        for init in (REPO / folder).rglob("__init__.py"):
            relative = init.relative_to(REPO).as_posix()
            assert f"acpc_arena/{relative}" in names, relative

    # Data the code loads at run time: the shipped games, and every checkpoint's sidecar.
    for data in [*(REPO / "protocol" / "games").glob("*.game"), *(REPO / "models" / "checkpoints").glob("*.json")]:
        relative = data.relative_to(REPO).as_posix()
        assert f"acpc_arena/{relative}" in names, relative


SHIPPED_WEIGHTS = {
    # each agent's default for each game (docs/agents/index.md, "The shipped checkpoints")
    "cfr-ehs2-exact.npz", "cfr-nl.npz", "cfr-leduc.npz", "cfr-kuhn.npz", "cfr-kuhn3p.npz",
    "lstm_dqn.pt", "dqn.pt", "nfq.pt", "poker_cnn.pt", "ensemble-networks.pt", "ensemble-clone.pt",
    # seed 003's configuration and its ablations (49 KB)
    "nfq-seed.pt", "nfq-chips.pt", "nfq-lambda0.pt", "nfq-n1.pt",
}  # fmt: skip
WHEEL_BUDGET = 8_000_000
"""The wheel's most bytes (8 MB, as pip and PyPI count them; issue 39): the superseded checkpoints stay in the
repository."""


def test_wheel_ships_the_default_checkpoints_and_not_the_superseded_ones(wheel: Path) -> None:
    folder = "acpc_arena/models/checkpoints/"
    weights = {
        n.removeprefix(folder) for n in _wheel_names(wheel) if n.startswith(folder) and not n.endswith((".py", ".json"))
    }
    assert weights == SHIPPED_WEIGHTS
    repository = {p.name for p in (REPO / "models" / "checkpoints").iterdir() if p.suffix in (".npz", ".pt")}
    assert {"lstm_dqn-v1.pt", "dqn-v3.pt", "cfr-ehs2.npz", "cfr-improved.npz"} <= repository - weights


def test_wheel_fits_its_budget(wheel: Path) -> None:
    size = wheel.stat().st_size
    print(f"wheel {wheel.name}: {size / 1e6:.2f} MB ({size:,} bytes) of a budget of {WHEEL_BUDGET / 1e6:g} MB")
    assert size <= WHEEL_BUDGET


def test_wheel_carries_the_license_and_a_py_typed_marker_in_each_top_level_package(wheel: Path) -> None:
    license_text = (REPO / "LICENSE").read_text()
    assert license_text.startswith("MIT License\n\nCopyright (c) 2026 the acpc-arena authors\n")
    dist_info = DIST_INFO
    with zipfile.ZipFile(wheel) as archive:
        # PEP 639: a license file is stored under .dist-info/licenses/ at its path in the source tree,
        # and the metadata names the SPDX expression and the file.
        assert archive.read(f"{dist_info}/licenses/LICENSE").decode() == license_text
        metadata = archive.read(f"{dist_info}/METADATA").decode().splitlines()
        names = set(archive.namelist())
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    # PEP 561: `acpc_arena` is a namespace package, so each package under it carries the marker
    # (a marker covers its package's subpackages).
    for folder in FOLDERS:
        assert f"acpc_arena/{folder}/py.typed" in names, folder


def test_generic_names_are_not_importable_outside_the_repository(tmp_path: Path) -> None:
    probe = "import importlib.util as u; print([n for n in ('protocol','dealer','agents','models') if u.find_spec(n)])"
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
    result = subprocess.run(
        [sys.executable, "-c", "import acpc_arena.protocol.game"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_no_file_points_to_a_shared_folder_outside_the_repository() -> None:
    """A user's clone has nothing beside it: no tracked file, the README and the docs included, names a
    ``shared`` folder next to the repository or under /work."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    names = [name for name in listed.decode().split("\0") if name]
    pattern = re.compile(rb"(\.\.|/work)/shared")  # written so that this file does not match itself
    hits = [name for name in names if (REPO / name).is_file() and pattern.search((REPO / name).read_bytes())]
    assert hits == []


CORE_MODULES = (
    "acpc_arena.dealer.commands.dealer",
    "acpc_arena.dealer.observers.metrics",
    "acpc_arena.dealer.commands.match",
    "acpc_arena.dealer.arena.runner",
    "acpc_arena.dealer.commands.report",
    "acpc_arena.agents.cli",
    "acpc_arena.agents.baselines",
)
OPTIONAL = ("torch", "matplotlib")


def test_the_core_modules_import_neither_torch_nor_matplotlib() -> None:
    probe = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]: importlib.import_module(name)\n"
        f"print(sorted(n for n in {OPTIONAL!r} if n in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe, *CORE_MODULES], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def _without_extras(tmp_path: Path) -> dict[str, str]:
    """An environment whose Python finds neither torch nor matplotlib (as installed without the extras)."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        f"import sys\nfor name in {OPTIONAL!r}:\n    sys.modules[name] = None  # importing it: ModuleNotFoundError\n"
    )
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    for name in OPTIONAL:
        probe = subprocess.run([sys.executable, "-c", f"import {name}"], env=env, capture_output=True, text=True)
        assert probe.returncode == 1 and "ModuleNotFoundError" in probe.stderr
    return env


def test_dealer_runner_and_report_work_without_torch_and_matplotlib(tmp_path: Path) -> None:
    env = _without_extras(tmp_path)
    bin_dir = Path(sys.executable).parent
    run = tmp_path / "run"
    done = subprocess.run(
        [bin_dir / "acpc-match", "--a", "rule", "--b", "random", "--seeds", "1", "--hands", "50", "--quiet",
         "--out", str(run)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == "acpc-match: no plots: matplotlib is not installed (pip install 'acpc-arena[plots]')\n"
    assert "report and logs in" in done.stdout and (run / "report.json").exists()
    assert not list(run.glob("*.png"))
    logs = sorted(str(path) for path in run.glob("*.log"))
    done = subprocess.run([bin_dir / "acpc-report", *logs], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "duplicate" in done.stdout
    done = subprocess.run([bin_dir / "acpc-dealer", "--help"], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "matchName" in done.stdout


def test_a_neural_agent_without_torch_names_the_extra(tmp_path: Path) -> None:
    env = _without_extras(tmp_path)
    agent = Path(sys.executable).parent / "acpc-agent"
    done = subprocess.run([agent, "dqn", "127.0.0.1", "1"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2  # a usage error: the agent asked for cannot be loaded here
    assert done.stderr == "ERROR: agent 'dqn' needs torch, which is not installed (pip install 'acpc-arena[agents]')\n"


def test_console_scripts_are_declared() -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["acpc-train"] == "acpc_arena.models.training.cli:main"
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    core = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not [d for d in core if d.split(">")[0].split("=")[0] in OPTIONAL]
    assert any(d.startswith("torch") for d in extras["agents"])
    assert any(d.startswith("matplotlib") for d in extras["plots"])


@pytest.mark.slow
def test_a_core_install_in_a_fresh_venv_has_no_torch_and_plays(tmp_path: Path) -> None:
    """``pip install acpc-arena`` without extras, in a venv of its own (no system site-packages):
    pip resolves the core dependencies (from its cache or index), and a run and its report work."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    done = subprocess.run([*pip, str(REPO)], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    probe = "import importlib.util as u; print([n for n in ('torch', 'matplotlib') if u.find_spec(n)])"
    found = subprocess.run([venv / "bin" / "python", "-c", probe], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"
    run = tmp_path / "run"
    done = subprocess.run(
        [venv / "bin" / "acpc-match", "--a", "rule", "--b", "random", "--seeds", "1", "--hands", "50", "--quiet",
         "--out", str(run)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (run / "report.json").exists() and "matplotlib is not installed" in done.stderr
