"""Deal seeds are checked by one rule (``options.check_seeds``), the same for ``--seeds`` of
``acpc-match``, ``acpc-tournament`` and ``acpc-lbr`` and for ``play``: one or more, distinct, each
an unsigned 32-bit number as the ACPC dealer takes (0 to 4294967295)."""

from __future__ import annotations

import argparse

import pytest

from acpc_arena.dealer.arena.api import play
from acpc_arena.dealer.arena.options import check_seeds, seed_list

BAD = [(), (1, 1), (-1,), (4294967296,), (7, 3, 7)]


@pytest.mark.parametrize("seeds", BAD)
def test_play_and_the_commands_refuse_the_same_seeds(seeds: tuple[int, ...]) -> None:
    shown = ",".join(str(s) for s in seeds)
    with pytest.raises(ValueError, match=r"^seeds must be distinct numbers from 0 to 2\*\*32-1, not "):
        play(("call", "raise"), "kuhn", seeds=seeds, hands=1)
    with pytest.raises(argparse.ArgumentTypeError, match=r"^seeds must be distinct numbers"):
        seed_list(shown)


def test_the_bounds_and_the_order_are_kept() -> None:
    assert check_seeds([4294967295, 0]) == (4294967295, 0)
    assert seed_list(" 9, 1,4294967295,") == (9, 1, 4294967295)


def test_seeds_that_are_not_numbers() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="whole numbers separated by commas"):
        seed_list("1,two")
