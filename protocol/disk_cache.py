"""Arrays kept on disk between processes, under names that change with the code that computes them.

Tables that take a while to build (the evaluator's, the UCT values) are saved in
``$ACPC_ARENA_CACHE`` (default ``~/.cache/acpc-arena``). A table's file name holds a
digest of the source files that compute it, so changed code never reads a table
its old version built; a missing, damaged or unwritable file only costs a rebuild.
"""

from __future__ import annotations

import ast
import hashlib
import mmap
import os
import sys
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:  # numpy is imported where used: a command starts without it (make bench SECTIONS=startup)
    import numpy as np

Table: TypeAlias = "np.ndarray | array[int]"
"""What a table's builder returns: a numpy array, or a one-dimensional ``array.array`` (built without numpy)."""


def cache_directory() -> Path:
    return Path(os.environ.get("ACPC_ARENA_CACHE", Path.home() / ".cache" / "acpc-arena"))


def source_digest(*paths: Path) -> str:
    """16 hex digits of SHA-256 over the files' contents, in order."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cached_array(name: str, build: Callable[[], Table]) -> np.ndarray:
    """The array in ``<cache>/<name>.npy``, or ``build()`` saved there (written atomically)."""
    import numpy as np  # numpy: the scalar evaluator maps its tables with cached_view, and starts without it

    directory = cache_directory()
    path = directory / f"{name}.npy"
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        pass
    built = np.asarray(build())
    try:
        directory.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as file:
            np.save(file, built, allow_pickle=False)
        os.replace(temporary, path)
    except OSError:
        pass  # no cache: every process builds its own
    return built


_NPY_TYPES = {"H": "<u2", "i": "<i4"}
"""The ``.npy`` type of each item code ``cached_view`` maps (little-endian, read on little-endian machines)."""


def cached_view(name: str, build: Callable[[], Table], item: Literal["H", "i"]) -> memoryview:
    """The one-dimensional array in ``<cache>/<name>.npy`` as a read-only view of items ``item`` (``"H"``:
    uint16, ``"i"``: int32), mapped from the file without numpy; where the file is missing or holds
    something else, ``cached_array``'s (numpy loaded, the array built and saved if need be)."""
    try:
        view = _mapped_npy(cache_directory() / f"{name}.npy", item)
    except (OSError, ValueError, SyntaxError):
        view = None
    return cached_array(name, build).data if view is None else view


def _mapped_npy(path: Path, item: Literal["H", "i"]) -> memoryview | None:
    """A flat ``.npy`` file's data mapped read-only as items ``item``; None if it is not of that type."""
    if sys.byteorder != "little":
        return None
    with open(path, "rb") as file:
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    if len(mapped) < 12 or mapped[:6] != b"\x93NUMPY" or mapped[6] not in (1, 2, 3):
        return None
    start = 10 if mapped[6] == 1 else 12
    length = int.from_bytes(mapped[8:start], "little")
    header = ast.literal_eval(mapped[start : start + length].decode("latin-1"))
    data = memoryview(mapped)[start + length :]
    descr = _NPY_TYPES[item]
    size = int(descr[2:])
    expected = {"descr": descr, "fortran_order": False, "shape": (len(data) // size,)}
    if header != expected or len(data) % size:
        return None
    return data.cast(item)
