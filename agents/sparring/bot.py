"""What every sparring bot shares: the game check, one seeded draw per decision, and facts about the hand.

A bot's ``decide(view)`` is its policy: the probability of each valid action,
computed from the view (and, for a bot that reads its opponent, from the hands
it has seen end). ``act`` draws one uniform number from the bot's generator
(``numpy``, seeded by ``--seed``) at every decision and takes the action it
falls on, the actions in the order ``decide`` lists them; so a match replays
exactly, and ``policy`` (the same ``decide``) changes nothing.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.agents.ranges import equity_vs_random
from acpc_arena.models.hand_strength.preflop import percentile
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL, Action, State
from acpc_arena.protocol.wire import MatchState

LIMIT_GAME = "holdem.limit.2p.reverse_blinds"
NOLIMIT_GAME = "holdem.nolimit.2p.reverse_blinds"
PREFLOP, FLOP, TURN, RIVER = range(4)


def check_game(game: Game, no_limit: bool) -> None:
    """ValueError, one line, unless ``game`` is heads-up hold'em of the suite's betting (limit or no-limit)."""
    holdem = game.num_hole_cards == 2 and len(game.deck) == 52 and game.total_board_cards == 5
    if not holdem or game.num_players != 2 or game.no_limit != no_limit or game.num_rounds != 4:
        wanted = NOLIMIT_GAME if no_limit else LIMIT_GAME
        raise ValueError(f"this sparring bot plays heads-up {'no-' * no_limit}limit hold'em ({wanted}) only")


class SparringBot(Agent):
    """A sparring bot: ``decide`` gives the policy, ``act`` draws from it (see the module docstring)."""

    no_limit: ClassVar[bool] = False

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed, **options)
        check_game(game, self.no_limit)
        self.rng = np.random.default_rng(seed)

    def decide(self, view: MatchState) -> Policy:
        """The probability of each valid action at ``view`` (they sum to 1)."""
        raise NotImplementedError

    def policy(self, view: MatchState) -> Policy:
        return self.decide(view)

    def act(self, view: MatchState) -> Action:
        x = float(self.rng.random())
        last = None
        for action, p in self.decide(view).items():
            if x < p:
                return action
            x -= p
            last = action
        assert last is not None
        return last  # rounding left x past the end


def hole_and_board(view: MatchState) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The viewer's hole cards and the board so far."""
    state = view.state
    return tuple(state.hole_cards[view.viewer]), tuple(state.visible_board())


def hand_equity(view: MatchState) -> float:
    """The viewer's equity against a random hand on the board so far (``ranges.equity_vs_random``)."""
    return equity_vs_random(*hole_and_board(view))


def preflop_percentile(view: MatchState) -> float:
    """The viewer's starting hand's percentile (``models.hand_strength.preflop``)."""
    return percentile(view.state.hole_cards[view.viewer])


def pot(state: State) -> int:
    """Chips in the pot."""
    return sum(state.spent)


def price(state: State) -> float:
    """The share of the pot after calling that a call costs: the equity a call needs to break even."""
    to_call = state.legal_actions().to_call
    return to_call / (pot(state) + to_call) if to_call else 0.0


def first_in(state: State) -> bool:
    """Before the flop, nobody has acted but the blinds (the small blind's first decision)."""
    return state.round == PREFLOP and not state.actions[PREFLOP]


def checked_to(state: State) -> bool:
    """Nothing is owed and the opponent has checked this round."""
    actions = state.actions[state.round]
    return state.legal_actions().to_call == 0 and bool(actions) and actions[-1].kind == CALL
