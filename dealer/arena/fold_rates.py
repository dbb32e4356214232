"""Fold rates by pre-flop hand class, from ACPC match logs: does a player fold trash and keep its aces?

    python -m acpc_arena.dealer.arena.fold_rates PLAYER LOG [LOG ...] [--by decile|class]

``PLAYER`` is a player's name in the logs or, for the logs of ``acpc-match`` (which
name the players ``a-NAME``, ``b-NAME``, ``c-NAME``), the agent's name alone. For
every hand ``PLAYER`` was dealt in the logs (the log shows every player's
cards), its two hole cards fall into one of hold'em's 169 classes
(``models/hand_strength/preflop.py``); rows group them by pre-flop percentile decile ("top 10%"
... "90-100%", from the strongest down; the default) or give each class
(``--by class``). Per row:

- ``hands``: hands dealt to the player;
- ``vs raise``: its pre-flop decisions facing a raise, i.e. decisions where the
  last raise of the round so far was another player's (the big blind alone is
  not a raise);
- ``folded``: how many of those decisions were folds, and their share;
- ``folds``: the share of its hands that it ended by folding, in any round.

Only hold'em-like games with two hole cards and a pre-flop round make sense here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from acpc_arena.models.hand_strength.preflop import class_name, class_of, percentile
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.match_log import read_log
from acpc_arena.protocol.state import FOLD, RAISE, State


@dataclass
class FoldCounts:
    """One row: hands dealt, pre-flop decisions facing a raise, folds there, hands ended by a fold."""

    hands: int = 0
    facing_raise: int = 0
    folded_to_raise: int = 0
    folded: int = 0

    def add(self, other: FoldCounts) -> None:
        self.hands += other.hands
        self.facing_raise += other.facing_raise
        self.folded_to_raise += other.folded_to_raise
        self.folded += other.folded


def hand_counts(state: State, player: int) -> FoldCounts:
    """The counts of one finished hand for the player in position ``player``."""
    counts = FoldCounts(hands=1)
    last_raiser = -1
    for action, actor in zip(state.actions[0], state.acting_players[0], strict=True):
        if actor == player and last_raiser not in (-1, player):
            counts.facing_raise += 1
            counts.folded_to_raise += action.kind == FOLD
        if action.kind == RAISE:
            last_raiser = actor
    counts.folded = int(state.folded[player])
    return counts


def decile_label(hole: list[int]) -> str:
    """``top 10%``, ``10-20%``, ... ``90-100%``: where the hand ranks among the 1,326 starting hands."""
    from_top = min(9, int((1.0 - percentile(hole)) * 10))
    return "top 10%" if from_top == 0 else f"{10 * from_top}-{10 * from_top + 10}%"


def class_label(hole: list[int]) -> str:
    """The hand's class: ``AA``, ``AKs``, ``72o``."""
    return class_name(*class_of(hole))


def player_in(seat_names: tuple[str, ...], player: str, path: str | Path) -> str | None:
    """The name in a log's ``seat_names`` that ``player`` stands for: the name itself, else the runner's
    ``a-NAME``, ``b-NAME`` or ``c-NAME`` (the side before the agent's name); None if neither is there."""
    if player in seat_names:
        return player
    sided = [name for name in seat_names if name in (f"a-{player}", f"b-{player}", f"c-{player}")]
    if len(sided) > 1:
        raise ProtocolError(f"{path}: {player!r} plays more than one seat ({', '.join(sided)}): name one of them")
    return sided[0] if sided else None


def fold_rates(paths: Iterable[str | Path], player: str, by: str = "decile") -> dict[str, FoldCounts]:
    """Counts by group (strongest group first), over every hand of ``player`` in the logs
    (``player`` as ``player_in`` finds it in each log)."""
    label = {"decile": decile_label, "class": class_label}[by]
    rows: dict[str, FoldCounts] = {}
    strength: dict[str, float] = {}
    found = False
    seen: set[str] = set()
    for path in paths:
        match = read_log(path)
        seen.update(match.seat_names)
        name = player_in(match.seat_names, player, path)
        if name is None:
            continue
        found = True
        for hand in match.hands:
            position = hand.names.index(name)
            hole = hand.state.hole_cards[position]
            if len(hole) != 2:
                raise ProtocolError(f"{path}: fold rates by hand class need two hole cards, not {len(hole)}")
            key = label(hole)
            rows.setdefault(key, FoldCounts()).add(hand_counts(hand.state, position))
            strength[key] = percentile(hole)  # the same for every hand of a class
    if not found:
        raise ProtocolError(
            f"no log has a player named {player!r} (nor a-{player}, b-{player}, c-{player}); "
            f"the players are: {', '.join(sorted(seen))}"
        )
    if by == "decile":
        return {key: rows[key] for key in sorted(rows, key=lambda k: -1 if k == "top 10%" else int(k.split("-")[0]))}
    return {key: rows[key] for key in sorted(rows, key=lambda k: -strength[k])}


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def format_rates(rows: dict[str, FoldCounts]) -> str:
    """A Markdown table of the rows and their total."""
    total = FoldCounts()
    for counts in rows.values():
        total.add(counts)
    lines = [
        "| hand group | dealt | pre-flop vs raise | folded to a raise | hands folded |",
        "| --- | --- | --- | --- | --- |",
    ]
    for key, c in [*rows.items(), ("all", total)]:
        to_raise = f"{c.folded_to_raise} ({_share(c.folded_to_raise, c.facing_raise)})"
        lines.append(
            f"| {key} | {c.hands} | {c.facing_raise} | {to_raise} | {c.folded} ({_share(c.folded, c.hands)}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m acpc_arena.dealer.arena.fold_rates", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "player", help="the player's name in the logs, or an agent's name (a-NAME, b-NAME, c-NAME in acpc-match's logs)"
    )
    parser.add_argument("logs", nargs="+", type=Path, help="ACPC .log files")
    parser.add_argument(
        "--by", choices=["decile", "class"], default="decile", help="rows: percentile deciles or classes"
    )
    args = parser.parse_args(argv)
    try:
        print(format_rates(fold_rates(args.logs, args.player, args.by)))
    except ProtocolError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
