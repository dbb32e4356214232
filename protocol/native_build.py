"""Compiles the hot path (``protocol.native``) with mypyc: ``make install`` runs it.

``python -m acpc_arena.protocol.native_build`` compiles the modules of ``native.COMPILED``
(the engine's and the dealer's blocking loop) into C extensions beside their sources, one
group sharing one library; ``--clean`` removes them. A
build that fails (no C compiler, no mypyc) removes what it made and says so: the
sources stay in use.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from acpc_arena.protocol.native import COMPILED, GROUP, ROOT, compiled_and_fresh, compiled_files


def clean() -> None:
    for name in (*COMPILED, f"{GROUP}__mypyc"):
        for path in compiled_files(name):
            path.unlink()


def build() -> None:
    """Compile ``COMPILED`` with mypyc beside the sources (raises on any failure)."""
    from mypyc.build import mypycify  # build tools, for make install only: missing, the build fails and says so
    from setuptools import setup  # type: ignore[import-untyped]  # (with mypyc: a build tool)

    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        (root / "acpc_arena").mkdir()
        for package in {name.split(".")[0] for name in COMPILED}:  # imports resolve as installed
            (root / "acpc_arena" / package).symlink_to(ROOT / package, target_is_directory=True)
        sources = [f"acpc_arena/{name.replace('.', '/')}.py" for name in COMPILED]
        old_cwd, old_path = Path.cwd(), os.environ.get("MYPYPATH")
        os.chdir(root)
        os.environ["MYPYPATH"] = str(root)
        try:
            extensions = mypycify(
                ["--explicit-package-bases", *sources], opt_level="3", separate=[(sources, f"acpc_arena.{GROUP}")]
            )
            setup(
                name="acpc-arena-native",
                ext_modules=extensions,
                script_args=[
                    "build_ext",
                    "--inplace",
                    "--build-temp",
                    str(root / "tmp"),
                    "--build-lib",
                    str(root / "lib"),
                ],
            )
        finally:
            os.chdir(old_cwd)
            if old_path is None:
                os.environ.pop("MYPYPATH", None)
            else:
                os.environ["MYPYPATH"] = old_path
        shutil.rmtree(root / "build", ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    """``python -m acpc_arena.protocol.native_build [--clean]``: compile (or remove) the hot path; a failed
    build leaves the pure-Python modules in use and exits 0 with a message."""
    args = sys.argv[1:] if argv is None else argv
    clean()
    if "--clean" in args:
        print("protocol.native_build: compiled modules removed; the pure-Python engine is in use")
        return
    try:
        build()
    except BaseException as exc:  # no compiler, no mypyc, a type error: the sources still work
        if isinstance(exc, KeyboardInterrupt):
            raise
        clean()
        print(f"protocol.native_build: not compiled ({type(exc).__name__}: {exc}); the pure-Python engine is in use")
        return
    if not compiled_and_fresh():
        clean()
        print("protocol.native_build: the build produced no modules; the pure-Python engine is in use")
        return
    print(f"protocol.native_build: compiled {', '.join(COMPILED)} with mypyc")


if __name__ == "__main__":
    main()
