"""Every hand of a small game with its probability under two agents' policies: the exact values AIVAT's
tests hold its estimates to."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from acpc_arena.agents.base import Agent
from acpc_arena.agents.registry import agent_class
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import Action, State
from acpc_arena.protocol.views import agent_view
from acpc_arena.protocol.wire import LogHand

NAMES = ("a", "b")


def pair(game: Game, first: str, second: str) -> list[Agent]:
    return [agent_class(first)(game, seed=1), agent_class(second)(game, seed=2)]


def policy_of(agent: Agent, state: State) -> dict[Action, float]:
    player = state.current_player
    return {a: p for a, p in agent.policy(agent_view(state, player, state.hole_cards[player])).items() if p > 0}


def terminal_histories(game: Game, agents: Sequence[Agent]) -> Iterator[tuple[float, LogHand]]:
    """Every finished hand with its probability: every ordered deal equally likely, every action by the
    policy of the agent in its position (agent 0 in position 0)."""
    deck, k = list(game.deck), game.num_hole_cards
    deals = [
        (h0, h1, board)
        for h0 in itertools.permutations(deck, k)
        for h1 in itertools.permutations([c for c in deck if c not in h0], k)
        for board in itertools.permutations([c for c in deck if c not in h0 + h1], game.total_board_cards)
    ]

    def walk(state: State, weight: float) -> Iterator[tuple[float, LogHand]]:
        if state.finished:
            yield weight / len(deals), LogHand(state, tuple(state.values()), NAMES)
            return
        for action, p in policy_of(agents[state.current_player], state).items():
            after = state.copy()
            after.apply(action)
            yield from walk(after, weight * p)

    for h0, h1, board in deals:
        yield from walk(State(game, 0, [list(h0), list(h1)], list(board)), 1.0)
