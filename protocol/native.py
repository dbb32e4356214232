"""The hot path compiled with mypyc: the engine's ``state``, ``wire``, ``cards``, ``rank_lookup`` and
``dealing``, and the dealer's blocking loop over it (``dealer.server``'s ``engine``, ``seat_rules``,
``sync_match``, ``blocking_seat`` and ``lines``).

Every hand the dealer, the match runner and the trainers play goes through the
engine's modules (applying actions, printing and reading ``MATCHSTATE`` lines, card
text), and every action ``acpc-dealer`` deals goes through the dealer's. ``make install``
compiles them into C extensions beside their sources
(``python -m acpc_arena.protocol.native_build``: mypyc with the machine's C compiler),
which Python then imports in place of the ``.py`` files: the same code, typed by
its annotations, about twice as fast (``make bench``).

Where there is no compiler, or the build fails, nothing is compiled and the
``.py`` files are used, as they always can be. Three rules keep the two paths
one program:

- all or none: the modules are compiled together (they call each other
  natively), so if any compiled module is missing, or older than its source or
  than a module it was type-checked against (``TYPED_AGAINST``), the sources of
  all of them are imported (``use_sources``);
- ``ACPC_ARENA_PURE=1`` in the environment imports the sources too, whatever is
  compiled;
- ``python -m acpc_arena.protocol.native_build --clean`` removes the compiled files.

The list names the dealer's modules as files: this module imports none of them (the
protocol layer imports nothing above it). ``acpc_arena.dealer.server`` calls
``use_sources`` before any of its modules loads, as this package does.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:  # a compiled class's options (``mypy_extensions.mypyc_attr``) are read by mypyc; run, they change nothing

    def mypyc_attr(*_flags, **_attributes):
        return lambda cls: cls


PACKAGE = "acpc_arena.protocol"
FOLDER = Path(__file__).resolve().parent
ROOT = FOLDER.parent
"""The folder of the packages (``protocol/``, ``dealer/``): ``acpc_arena`` installed, the repository edited."""
COMPILED = (
    "protocol.cards",
    "protocol.rank_lookup",
    "protocol.state",
    "protocol.wire",
    "protocol.rng",
    "protocol.dealing",
    "dealer.server.lines",
    "dealer.server.seat_rules",
    "dealer.server.blocking_seat",
    "dealer.server.engine",
    "dealer.server.sync_match",
)
"""The compiled modules (under ``acpc_arena``), in the order they import one another."""
TYPED_AGAINST = (
    "protocol.disk_cache",
    "protocol.errors",
    "protocol.game",
    "protocol.native",
    "protocol.rank_rules",
    "dealer.server.logfiles",
    "dealer.server.match",
    "dealer.server.match_config",
    "dealer.server.signal_point",
)
"""The project's modules they import (not compiled): a change to these may change what the compiled code assumes."""
GROUP = "protocol.native_lib"
"""mypyc's shared library of the group (``protocol/native_lib__mypyc.*.so``), under ``acpc_arena``."""
PURE_VARIABLE = "ACPC_ARENA_PURE"


def source_file(name: str) -> Path:
    """The ``.py`` file of module ``name`` (``"dealer.server.engine"``: under ``acpc_arena``)."""
    return ROOT.joinpath(*name.split(".")).with_suffix(".py")


def compiled_files(name: str) -> list[Path]:
    """The compiled extension files of module ``name`` beside its source (none, or one)."""
    path = source_file(name)
    return sorted(path.parent.glob(f"{path.stem}.*{_extension_suffix()}"))


def _extension_suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0].rsplit(".", 1)[-1]  # "so" or "pyd"


def compiled_and_fresh() -> bool:
    """Whether every module of ``COMPILED`` (and the group's library) is compiled and newer than the sources."""
    newest_source = max(source_file(name).stat().st_mtime for name in (*COMPILED, *TYPED_AGAINST))
    for name in (*COMPILED, f"{GROUP}__mypyc"):
        files = compiled_files(name)
        if not files or files[0].stat().st_mtime < newest_source:
            return False
    return True


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of ``COMPILED`` as their ``.py`` files (first on ``sys.meta_path``)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        name = fullname.removeprefix("acpc_arena.")
        if name == fullname or name not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, source_file(name))


_using_sources: bool | None = None
"""What ``use_sources`` decided (None: not yet)."""


def use_sources() -> bool:
    """Import the ``.py`` files of ``COMPILED`` unless all are compiled and fresh (or when
    ``ACPC_ARENA_PURE=1``); called by the packages before anything imports them (the decision is
    taken once). Returns whether the sources are used."""
    global _using_sources
    if _using_sources is None:
        _using_sources = os.environ.get(PURE_VARIABLE, "") not in ("", "0") or not compiled_and_fresh()
        if _using_sources:
            sys.meta_path.insert(0, _SourceFinder())
    return _using_sources


def is_compiled() -> bool:
    """Whether the compiled modules are the ones in use."""
    from acpc_arena.protocol import state  # here: this module runs before use_sources says where state loads from

    return not str(state.__file__).endswith(".py")
