"""Arrays kept on disk between processes, under names that change with the code that computes them.

Tables that take a while to build (the evaluator's, the UCT values) are saved in
``$ACPC_ARENA_CACHE`` (default ``~/.cache/acpc-arena``). A table's file name holds a
digest of the source files that compute it, so changed code never reads a table
its old version built; a missing, damaged or unwritable file only costs a rebuild.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where used: a command starts without it (make bench SECTIONS=startup)
    import numpy as np


def cache_directory() -> Path:
    return Path(os.environ.get("ACPC_ARENA_CACHE", Path.home() / ".cache" / "acpc-arena"))


def source_digest(*paths: Path) -> str:
    """16 hex digits of SHA-256 over the files' contents, in order."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cached_array(name: str, build: Callable[[], np.ndarray]) -> np.ndarray:
    """The array in ``<cache>/<name>.npy``, or ``build()`` saved there (written atomically)."""
    import numpy as np

    directory = cache_directory()
    path = directory / f"{name}.npy"
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        pass
    array = build()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as file:
            np.save(file, array, allow_pickle=False)
        os.replace(temporary, path)
    except OSError:
        pass  # no cache: every process builds its own
    return array
