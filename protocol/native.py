"""The engine's hot path compiled with mypyc: ``state``, ``wire`` and ``cards``.

Every hand the dealer, the match runner and the trainers play goes through these
three modules (applying actions, printing and reading ``MATCHSTATE`` lines, card
text). ``make install`` compiles them into C extensions beside their sources
(``python -m acpc_arena.protocol.native_build``: mypyc with the machine's C compiler),
which Python then imports in place of the ``.py`` files: the same code, typed by
its annotations, about twice as fast (``make bench``).

Where there is no compiler, or the build fails, nothing is compiled and the
``.py`` files are used, as they always can be. Three rules keep the two paths
one program:

- all or none: the three modules are compiled together (they call each other
  natively), so if any compiled module is missing, or older than its source or
  than a module it was type-checked against (``TYPED_AGAINST``), the package
  imports the sources of all three (``use_sources``);
- ``ACPC_ARENA_PURE=1`` in the environment imports the sources too, whatever is
  compiled;
- ``python -m acpc_arena.protocol.native_build --clean`` removes the compiled files.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

PACKAGE = "acpc_arena.protocol"
FOLDER = Path(__file__).resolve().parent
COMPILED = ("cards", "rank_lookup", "state", "wire")
"""The compiled modules, in the order they import one another."""
TYPED_AGAINST = ("disk_cache", "errors", "game", "rank_rules")
"""The modules they import (not compiled): a change to these may change what the compiled code assumes."""
GROUP = "native_lib"
"""The name of mypyc's shared library of the group (``native_lib__mypyc.*.so`` in this folder)."""
PURE_VARIABLE = "ACPC_ARENA_PURE"


def compiled_files(name: str) -> list[Path]:
    """The compiled extension files of module ``name`` in the package folder (none, or one)."""
    return sorted(FOLDER.glob(f"{name}.*{_extension_suffix()}"))


def _extension_suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0].rsplit(".", 1)[-1]  # "so" or "pyd"


def compiled_and_fresh() -> bool:
    """Whether every module of ``COMPILED`` (and the group's library) is compiled and newer than the sources."""
    newest_source = max((FOLDER / f"{name}.py").stat().st_mtime for name in (*COMPILED, *TYPED_AGAINST))
    for name in (*COMPILED, f"{GROUP}__mypyc"):
        files = compiled_files(name)
        if not files or files[0].stat().st_mtime < newest_source:
            return False
    return True


def use_sources() -> bool:
    """Import the ``.py`` files of ``COMPILED`` unless all are compiled and fresh (or when
    ``ACPC_ARENA_PURE=1``); called by the package before anything imports them. Returns
    whether the sources are used."""
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0") or not compiled_and_fresh():
        for name in COMPILED:
            full = f"{PACKAGE}.{name}"
            if full in sys.modules:
                continue
            path = FOLDER / f"{name}.py"
            loader = importlib.machinery.SourceFileLoader(full, str(path))
            spec = importlib.util.spec_from_file_location(full, path, loader=loader)
            assert spec is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[full] = module
            loader.exec_module(module)
        return True
    return False


def is_compiled() -> bool:
    """Whether the compiled modules are the ones in use."""
    from acpc_arena.protocol import state  # here: this module runs before use_sources says where state loads from

    return not str(state.__file__).endswith(".py")
