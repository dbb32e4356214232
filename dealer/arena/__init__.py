"""The evaluation harness around the match server: seeded duplicate runs of agents
(``runner``, ``acpc-match``, and ``play`` for the same from Python), their reports with
mbb/h and intervals (``logreading``, ``estimates``, ``allin``, ``reports``, ``tables``,
``acpc-report``) and plots. The server itself (``acpc-dealer``) is the parent package;
the pages (``dealer.web``) use this package, never the other way round."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acpc_arena.dealer.arena.api import play

__all__ = ["play"]


def __getattr__(name: str) -> Any:
    """``play`` is imported when first asked for (it loads the runner; the report tools need not)."""
    if name == "play":
        from acpc_arena.dealer.arena.api import play

        return play
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
