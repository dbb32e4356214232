"""The installed package: one distinct import name, every package folder and data file in it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FOLDERS = ("protocol", "dealer", "agents", "models")


def _wheel_names(tmp_path: Path) -> set[str]:
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
            str(tmp_path),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_wheel_installs_only_under_acpc_arena(tmp_path: Path) -> None:
    names = _wheel_names(tmp_path)
    top_level = {name.split("/", 1)[0] for name in names}
    assert top_level == {"acpc_arena", "acpc_arena-0.1.0.dist-info"}

    # Every package folder of the repository is in the wheel (none forgotten in pyproject's list).
    for folder in FOLDERS:
        for init in (REPO / folder).rglob("__init__.py"):
            relative = init.relative_to(REPO).as_posix()
            assert f"acpc_arena/{relative}" in names, relative

    # Data the code loads at run time: the shipped games and checkpoints.
    for data in [*(REPO / "protocol" / "games").glob("*.game"), *(REPO / "models" / "checkpoints").glob("*.*")]:
        relative = data.relative_to(REPO).as_posix()
        if data.suffix != ".py":
            assert f"acpc_arena/{relative}" in names, relative


def test_generic_names_are_not_importable_outside_the_repository(tmp_path: Path) -> None:
    probe = "import importlib.util as u; print([n for n in ('protocol','dealer','agents','models') if u.find_spec(n)])"
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
    result = subprocess.run(
        [sys.executable, "-c", "import acpc_arena.protocol.game"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
