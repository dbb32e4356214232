"""What ``acpc-eval`` plays: the reference gauntlet of a game, the presets by budget, and the card as a
tournament of the bot against each reference (``Gauntlet``).

The gauntlet by game (``gauntlet``):

- limit hold'em: the limit sparring suite (``spar_*``), ``equity``, ``cfr`` and the seed agents
  (``lstm_dqn``, ``dqn``, ``nfq``, ``poker_cnn``);
- no-limit hold'em: the no-limit sparring suite, ``cfr`` and ``ensemble``;
- Kuhn and Leduc (and any other game): the shipped agents that play there and give their policy
  (``random``, ``call``, ``raise``, ``rule``, ``equity``, ``cfr``).

``--quick`` plays the first references of the list (``QUICK_REFERENCES``), few hands and few LBR
deals; the default and ``--thorough`` the whole gauntlet with more of both (``PRESETS``).

A card is a tournament (``tournament.Tournament``) whose pairs are the bot against each reference,
the bot always side A (as ``acpc-match --a BOT --b REFERENCE``): its folder, lock, resumption and checks
are the tournament's (``tournament_folder``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from acpc_arena.dealer.arena.tournament import Entrant, Tournament
from acpc_arena.protocol.game import Game

LIMIT_GAUNTLET = (
    "spar_tag", "equity", "cfr", "dqn", "spar_lag", "spar_station", "spar_rock", "spar_bluffer", "spar_equity",
    "lstm_dqn", "nfq", "poker_cnn",
)  # fmt: skip
"""Limit hold'em's references, the ``--quick`` ones first."""
NOLIMIT_GAUNTLET = (
    "spar_shove30", "cfr", "ensemble", "spar_minraise", "spar_shove10", "spar_shove60", "spar_overbet",
    "spar_limper", "spar_fractions", "spar_oddsize", "spar_fuzz",
)  # fmt: skip
"""No-limit hold'em's references, the ``--quick`` ones first."""
SMALL_GAUNTLET = ("call", "raise", "cfr", "random", "rule", "equity")
"""The references of Kuhn, Leduc and other small games, the ``--quick`` ones first."""
QUICK_REFERENCES = 4
"""How many references ``--quick`` plays (the first of the gauntlet)."""


@dataclass(frozen=True)
class Preset:
    """A budget: the references (None: all), seeds, hands a match, LBR deals a seed."""

    name: str
    references: int | None
    seeds: tuple[int, ...]
    hands: int
    lbr_hands: int


PRESETS = {
    "quick": Preset("quick", QUICK_REFERENCES, (1,), 300, 100),
    "default": Preset("default", None, (1, 234), 1000, 500),
    "thorough": Preset("thorough", None, (1, 234, 6666), 3000, 2000),
}
"""``--quick`` (about 2 minutes on 2 cores for a limit hold'em bot), the default (about 20), ``--thorough``."""


def gauntlet(game: Game, references: int | None = None) -> tuple[str, ...]:
    """The references of ``game`` (the first ``references`` of them, where given)."""
    full: tuple[str, ...]
    if game.num_hole_cards == 2 and game.num_rounds == 4:
        full = NOLIMIT_GAUNTLET if game.no_limit else LIMIT_GAUNTLET
    else:
        full = SMALL_GAUNTLET
    return full if references is None else full[:references]


_NOT_A_NAME = re.compile(r"[^A-Za-z0-9_.+-]+")


def bot_name(spec: str | None, command: str | None, references: tuple[str, ...]) -> str:
    """What the card calls the bot: a shipped or entry-point name as it is, the class of ``module:Class``
    or ``file.py:Class``, the program of a command; ``<name>.bot`` where a reference has its name."""
    name = spec.rpartition(":")[2] if spec is not None else Path(shlex.split(command or "bot")[0]).stem
    name = _NOT_A_NAME.sub("_", name).replace("-vs-", "_vs_").strip("_") or "bot"
    return f"{name}.bot" if name in references else name


@dataclass(frozen=True)
class Gauntlet(Tournament):
    """A card's matches: the tournament whose pairs are ``bot`` (side A) against every other entrant."""

    bot: str = ""
    """The evaluated entrant's name."""

    def bot_entrant(self) -> Entrant:
        return next(entrant for entrant in self.entrants if entrant.name == self.bot)

    def references(self) -> tuple[Entrant, ...]:
        return tuple(entrant for entrant in self.entrants if entrant.name != self.bot)

    def pairs(self) -> list[tuple[Entrant, Entrant]]:
        """The bot against each reference, in the gauntlet's order, the bot first (side A)."""
        bot = self.bot_entrant()
        return [(bot, reference) for reference in self.references()]
