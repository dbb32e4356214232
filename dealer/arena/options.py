"""What the arena's commands take on their command lines, checked in one place: argument types for
``argparse`` (each says in one line what it takes) and ``check_seeds``, which ``play`` uses too."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from acpc_arena.dealer.match_config import MAX_TIMEOUT_MS, UINT32_MAX
from acpc_arena.protocol.commands import number

SIDES = ("a", "b", "c")
"""The contestants' labels, in seat order of a run's first rotation: ``acpc-match --a``, ``--b``, and
``--c`` for three-player games."""

MAX_SEED = 2**32 - 1
"""The largest deal seed: the ACPC dealer's seed is an unsigned 32-bit number."""

positive_int = number(int, lambda v: v > 0, "a whole number above 0")
hand_count = number(
    int, lambda v: 1 <= v <= UINT32_MAX, f"a whole number from 1 to {UINT32_MAX} (as acpc-dealer takes)"
)
"""Hands a match: the bound of ``acpc-dealer`` (and of the C dealer, an unsigned 32-bit count above 0)."""
milliseconds = number(int, lambda v: 1 <= v <= MAX_TIMEOUT_MS, "a whole number of milliseconds from 1 to 2^63")
port_number = number(int, lambda v: 1 <= v <= 65535, "a port number from 1 to 65535")
port_or_any = number(int, lambda v: 0 <= v <= 65535, "a port number from 0 (any free port) to 65535")
seconds = number(float, lambda v: 0 <= v < float("inf"), "a number of seconds, 0 or more")


def check_seeds(seeds: Sequence[int]) -> tuple[int, ...]:
    """``seeds`` as a tuple; ValueError, one line, unless there is one or more, all distinct, each from 0
    to ``MAX_SEED``."""
    if not seeds or len(set(seeds)) != len(seeds) or any(not 0 <= s <= MAX_SEED for s in seeds):
        shown = ",".join(str(s) for s in seeds) or "none"
        raise ValueError(f"seeds must be distinct numbers from 0 to 2**32-1, not {shown}")
    return tuple(seeds)


def seed_list(text: str) -> tuple[int, ...]:
    """``--seeds``: deal seeds separated by commas (``check_seeds``)."""
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must be whole numbers separated by commas: {text!r}") from None
    try:
        return check_seeds(seeds)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
