"""``Agent.policy``: every shipped agent's policy is the distribution its ``act`` draws from.

Each agent plays seeded hands against the ACPC example player (``random``) through
the engine; at each of its decisions ``policy`` is asked first, then ``act``. The
action taken must have positive probability, the deterministic agents' actions
must be the policy's only action, and over all decisions the counts of folds,
calls and raises must match the sums of the policy's probabilities (a z-score
per kind, the variance that of a sum of independent draws). A second copy of the
agent, with the same seed, is asked for policies of random other hole cards
before each decision: its actions must be the first copy's, so ``policy``
changes nothing (random generators, LSTM memory, cached strengths, the
ensemble's opponent model, which grows from each hand's end over the 60 hands,
so its A* mode decides both with the base network and with the weighted
counters).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from acpc_arena.agents.base import Agent, Policy, has_policy
from acpc_arena.agents.baselines import RandomAgent
from acpc_arena.agents.ensemble import EnsembleAgent
from acpc_arena.agents.registry import AGENTS, agent_class
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.state import Action, ActionKind, State
from acpc_arena.protocol.wire import MatchState

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"

CASES: list[tuple[str, str, int]] = [
    ("random", LIMIT, 150),
    ("random", NOLIMIT, 5),  # its policy lists every legal bet size: thousands of actions a decision
    ("call", LIMIT, 40),
    ("raise", NOLIMIT, 40),
    ("rule", LIMIT, 80),
    ("rule", NOLIMIT, 100),
    ("equity", LIMIT, 30),
    ("cfr", LIMIT, 80),
    ("cfr", NOLIMIT, 150),
    ("cfr", "leduc.limit.2p", 300),
    ("cfr", "kuhn.limit.2p", 300),
    ("cfr_exploit", LIMIT, 80),
    ("lstm_dqn", LIMIT, 25),
    ("dqn", LIMIT, 25),
    ("nfq", LIMIT, 25),
    *((f"o{i}", NOLIMIT, 100) for i in range(1, 9)),
    ("o_random", NOLIMIT, 100),
    ("poker_cnn", LIMIT, 25),
    ("poker_cnn", NOLIMIT, 25),
    ("ensemble", NOLIMIT, 60),
    *((name, LIMIT, 60) for name in ("spar_equity", "spar_tag", "spar_lag", "spar_station", "spar_rock")),
    ("spar_bluffer", LIMIT, 150),
    *((f"spar_shove{top}", NOLIMIT, 60) for top in (10, 30, 60)),
    *((name, NOLIMIT, 60) for name in ("spar_overbet", "spar_minraise", "spar_limper", "spar_fractions")),
    *((name, NOLIMIT, 60) for name in ("spar_oddsize", "spar_fuzz")),
]
WITHOUT_POLICY = {"human"}
"""Agents that do not give ``policy``: a person (``human``): ``acpc-lbr`` refuses it in one line."""


def view_of(state: State, position: int, hole: list[int]) -> MatchState:
    """``state`` as ``position`` sees it holding ``hole`` (no other cards, the board so far)."""
    seen = state.copy()
    seen.hole_cards = [list(hole) if p == position else [] for p in range(state.game.num_players)]
    seen.board_cards = state.visible_board()
    return MatchState(position, seen)


def other_holes(game: Game, state: State, rng: np.random.Generator, count: int) -> list[list[int]]:
    """``count`` random holdings that share no card with the board so far."""
    free = [c for c in game.deck if c not in state.visible_board()]
    return [sorted(rng.choice(free, game.num_hole_cards, replace=False).tolist()) for _ in range(count)]


def play(agent: Agent, shadow: Agent, game: Game, hands: int) -> list[tuple[Policy, Action]]:
    """(policy, action) at each of ``agent``'s decisions; ``shadow`` (same seed) is asked for other
    cards' policies before each decision and must act the same."""
    opponent = RandomAgent(game, seed=99)
    rng = np.random.default_rng(5)
    seen: list[tuple[Policy, Action]] = []
    for deal in deal_hands(game, 17, hands):
        seat = deal.hand_id % 2
        state = State(game, deal.hand_id, deal.hole_cards, deal.board_cards)
        for a in (agent, shadow):
            a.begin_hand(view_of(state, seat, deal.hole_cards[seat]))
        while not state.finished:
            player = state.current_player
            view = view_of(state, player, deal.hole_cards[player])
            if player != seat:
                state.apply(opponent.act(view))
                continue
            policy = agent.policy(view)
            shadow.policies([view_of(state, seat, hole) for hole in other_holes(game, state, rng, 3)])
            action = agent.act(view)
            assert shadow.act(view) == action, "asking for policies changed the agent's play"
            assert state.validate_action(action) == action
            seen.append((policy, action))
            state.apply(action)
        for a in (agent, shadow):  # agents that learn from the hand (the ensemble's opponent model) see its end
            a.end_hand(view_of(state, seat, deal.hole_cards[seat]))
    return seen


def check(seen: list[tuple[Policy, Action]]) -> None:
    """The actions taken are draws from the policies given (each possible; counts by kind within 4 sigma)."""
    expected = np.zeros(3)
    variance = np.zeros(3)
    counts = np.zeros(3)
    for policy, action in seen:
        assert math.isclose(sum(policy.values()), 1.0, abs_tol=1e-9), policy
        assert policy.get(action, 0.0) > 0, (action, policy)
        by_kind = np.zeros(3)
        for a, p in policy.items():
            by_kind[a.kind] += p
        expected += by_kind
        variance += by_kind * (1 - by_kind)
        counts[action.kind] += 1
    stochastic = variance > 0
    if not stochastic.any():
        assert (counts == expected).all()
        return
    z = (counts - expected)[stochastic] / np.sqrt(variance[stochastic])
    assert (abs(z) < 4.0).all(), {
        ActionKind(k).name: (counts[k], round(expected[k], 1)) for k in range(3) if stochastic[k]
    }


@pytest.mark.parametrize(("name", "game_name", "hands"), CASES, ids=[f"{n}-{g.split('.')[0]}" for n, g, _ in CASES])
def test_policy_is_what_act_draws_from(name: str, game_name: str, hands: int) -> None:
    game = load_game(game_name)
    cls = agent_class(name)
    agent, shadow = cls(game, seed=3), cls(game, seed=3)
    seen = play(agent, shadow, game, hands)
    assert len(seen) >= hands // 2
    check(seen)


def test_ensemble_policy_with_the_counters_weighted() -> None:
    """The ensemble's ``a_int`` mode: every decision weighs the counters by the opponent model (A* uses the base
    network until a node was seen 30 times), so ``policy`` reads the model without changing it."""
    game = load_game(NOLIMIT)
    agent, shadow = EnsembleAgent(game, seed=3, mode="a_int"), EnsembleAgent(game, seed=3, mode="a_int")
    seen = play(agent, shadow, game, 30)
    assert agent.last_weights is not None
    check(seen)


def test_every_shipped_agent_gives_its_policy() -> None:
    assert {name for name, _, _ in CASES} == set(AGENTS) - WITHOUT_POLICY
    assert all(has_policy(agent_class(name)) == (name not in WITHOUT_POLICY) for name in AGENTS)


def test_an_agent_without_a_policy_says_so() -> None:
    class Bare(Agent):
        name = "bare"

    assert not has_policy(Bare)
    game = load_game(LIMIT)
    with pytest.raises(NotImplementedError, match="bare"):
        Bare(game).policy(view_of(State(game), 1, [0, 1]))
