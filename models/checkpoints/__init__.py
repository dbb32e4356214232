"""The shipped checkpoints (trained by this project's own commands: ``make train AGENT=...``) and what
every kind of checkpoint shares: a weights file (``.npz`` for CFR, ``.pt`` for the networks) with its
JSON description beside it (the *sidecar*), read within the limits of ``protocol/files.py``, and one
``CheckpointError`` of one line naming the file for whatever cannot be used.

A name without a folder (``cfr-improved``, ``dqn-v1``) is a shipped checkpoint unless a file of
that name exists; a wheel installation ships every sidecar but not every weights file, and naming
one it lacks says the command that rebuilds it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from acpc_arena.protocol.files import CHECKPOINT_BYTES, InputError, check_regular, read_json

FOLDER = Path(__file__).resolve().parent


class CheckpointError(Exception):
    """A checkpoint that cannot be used: missing, damaged, or for another game or tree."""


def checkpoint_path(name: str, suffix: str = ".npz") -> Path:
    """The shipped checkpoint ``name`` (without its suffix)."""
    return FOLDER / f"{name}{suffix}"


def resolve_checkpoint(given: str | Path | None, suffix: str) -> Path | None:
    """The checkpoint file ``given``, or the shipped checkpoint of that name (``cfr-improved``,
    ``lstm_dqn-v1``) when it is a bare name and no such file exists; None for None."""
    if given is None:
        return None
    path = Path(given)
    shipped = checkpoint_path(str(given), suffix)
    if not path.with_suffix(suffix).exists() and path.name == str(given) and shipped.exists():
        return shipped
    return path


def git_commit() -> str:
    """The commit of the working tree the code runs from (recorded in each sidecar), or ``unknown``."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, cwd=Path(__file__).parent
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def sidecar(path: Path) -> Path:
    """The JSON description of the checkpoint ``path``."""
    return path.with_suffix(".json")


def read_sidecar(path: Path) -> dict[str, Any]:
    """The JSON description beside the checkpoint ``path`` (any kind: ``.npz``, ``.pt``).

    Raises ``CheckpointError``, one line naming the file, when the checkpoint does not
    exist, or its description is missing or unreadable.
    """
    weights_size(path)
    return read_json_object(sidecar(path), "description", missing="no description beside the checkpoint")


def weights_size(path: Path) -> int:
    """The size of the checkpoint file ``path``; ``CheckpointError`` (one line naming it) when it is
    missing, not a regular file, or past ``ACPC_ARENA_MAX_CHECKPOINT_BYTES``."""
    try:
        size = check_regular(path).st_size
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such checkpoint file{rebuild_hint(path)}") from None
    except (InputError, OSError) as exc:
        raise CheckpointError(str(exc) if isinstance(exc, InputError) else f"{path}: {exc.strerror or exc}") from None
    most = CHECKPOINT_BYTES.value()
    if size > most:
        raise CheckpointError(f"{path}: {CHECKPOINT_BYTES.exceeded(most)}")
    return size


def rebuild_hint(path: Path) -> str:
    """For a shipped checkpoint's name whose weights this installation lacks (the wheel ships every sidecar,
    not every weights file), the command that rebuilds it; else nothing."""
    name = path.name.removesuffix(path.suffix) if path.suffix in (".npz", ".pt") else path.name
    if path.parent not in (Path(), FOLDER) or not (FOLDER / f"{name}.json").is_file():
        return ""
    return (
        f" ({name} is not installed with this package: `acpc-train --from-sidecar {name} --install` rebuilds it here)"
    )


def read_json_object(path: Path, what: str, missing: str | None = None) -> dict[str, Any]:
    """The JSON object in ``path``, a checkpoint's file, read within the limits of ``protocol/files.py``;
    else a ``CheckpointError`` of one line naming the file and ``what`` it should hold (``missing``:
    the words for a file that is not there)."""
    try:
        data = read_json(path)
    except FileNotFoundError:
        raise CheckpointError(f"{path}: {missing or 'no ' + what}") from None
    except InputError as exc:
        where = f"{exc.path}, line {exc.line}" if exc.line else exc.path
        raise CheckpointError(f"{where}: unreadable {what} ({exc.reason})") from None
    except OSError as exc:
        raise CheckpointError(f"{path}: unreadable {what} ({exc.strerror or exc})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: not a {what}")
    return data
