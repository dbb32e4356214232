"""The shipped checkpoints, trained by this project's own commands (``make train AGENT=...``)."""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).parent


def checkpoint_path(name: str) -> Path:
    """The shipped checkpoint ``name`` (without its suffix)."""
    return FOLDER / f"{name}.npz"
