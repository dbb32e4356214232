"""LBR's exact value and the exact best response's in a small limit game (Kuhn, Leduc).

Every deal is enumerated: LBR plays its ``act`` at every information set of the
CFR solver's tree and the solver values the resulting strategy against the agent's
policy, beside the solver's exact best response (the agent's exploitability).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.dealer.lbr.response import ImpossibleAction, LocalBestResponse, Settings
from acpc_arena.models.cfr.abstraction import ExactCards, all_deals
from acpc_arena.models.cfr.solver import Solver
from acpc_arena.models.cfr.tree import NUM_ACTIONS, BettingTree, build_tree
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, Action, ActionKind, State
from acpc_arena.protocol.views import agent_view
from acpc_arena.protocol.wire import MatchState, format_betting


@dataclass
class ExactValues:
    """Exact values in a small limit game, chips per hand, by LBR's (or the best response's) position."""

    lbr: tuple[float, ...]
    best_response: tuple[float, ...]

    @property
    def lbr_mean(self) -> float:
        """LBR's value averaged over the two positions (the duplicate value)."""
        return sum(self.lbr) / len(self.lbr)

    @property
    def exploitability(self) -> float:
        """The best response's value averaged over the positions: the agent's exploitability."""
        return sum(self.best_response) / len(self.best_response)


def _node_states(game: Game, tree: BettingTree) -> list[State]:
    """The (cardless) state at each node of ``tree``."""
    states: list[State] = [State(game)]
    for node in range(1, tree.size):
        up = int(tree.parent[node])
        kind = int(np.flatnonzero(tree.children[up] == node)[0])
        child = states[up].copy()
        child.apply(Action(ActionKind(kind)))
        states.append(child)
    return states


class _Remembered(Agent):
    """``agent``'s policies, each view's asked once (the exact walk asks for the same views many times)."""

    name = "remembered"

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent.game, agent.seed)
        self.agent = agent
        self.known: dict[tuple[str, int, tuple[int, ...], tuple[int, ...]], Policy] = {}

    def policy(self, view: MatchState) -> Policy:
        state = view.state
        key = (format_betting(state), view.viewer, tuple(state.hole_cards[view.viewer]), tuple(state.visible_board()))
        if key not in self.known:
            self.known[key] = self.agent.policy(view)
        return self.known[key]


def exact_values(agent: Agent, game: Game, settings: Settings | None = None) -> ExactValues:
    """LBR's exact value against ``agent`` and the exact best response's, by enumerating every deal of a
    small limit game (Kuhn, Leduc); LBR plays its ``act`` at every information set. ``wp`` must be exact
    (every board completion within ``rollouts``) for LBR to be the deterministic strategy valued."""
    settings = settings or Settings()
    agent = _Remembered(agent)
    tree = build_tree(game)
    abstraction = ExactCards(game)
    solver = Solver(tree, abstraction, "cfr+", worlds=all_deals(game))
    states = _node_states(game, tree)
    agent_table = np.zeros((solver.num_infosets, NUM_ACTIONS))
    lbr_table = np.zeros((solver.num_infosets, NUM_ACTIONS))
    rng = np.random.default_rng(0)
    for node in tree.decision_nodes.tolist():
        state, player = states[node], int(tree.player[node])
        shown = game.board_cards_after(state.round)
        base = int(solver.base[solver.decision_row[node]])
        for hole in itertools.combinations(sorted(game.deck), game.num_hole_cards):
            rest = [c for c in game.deck if c not in hole]
            for board in itertools.combinations(rest, shown):
                row = base + abstraction.key(list(hole), list(board), state.round)
                at = state.copy()
                at.hole_cards[player], at.board_cards = list(hole), list(board)
                for action, p in agent.policy(agent_view(at, player, hole)).items():
                    agent_table[row, action.kind] += p
                lbr_table[row, _lbr_action_at(agent, at, player, settings, rng).kind] = 1.0
    values = []
    for p in range(game.num_players):
        mixed = agent_table.copy()
        keys = [abstraction.num_keys(int(tree.round[n])) for n in tree.decision_nodes]
        rows = np.repeat(tree.player[tree.decision_nodes] == p, keys)
        mixed[rows] = lbr_table[rows]
        values.append(float(solver.expected_values(mixed)[p]))
    best = tuple(solver.best_response_value(agent_table, p) for p in range(game.num_players))
    return ExactValues(tuple(values), best)


def _lbr_action_at(agent: Agent, state: State, position: int, settings: Settings, rng: np.random.Generator) -> Action:
    """LBR's action at ``state`` (its cards and the board in it), its range built by replaying the betting.
    Where the agent never takes the betting's actions (``call`` never raises) the node is never reached and
    LBR's action there is worth nothing either way: it calls."""
    replay = State(state.game, state.hand_id, [list(c) for c in state.hole_cards], list(state.board_cards))
    lbr = LocalBestResponse(agent, position, replay, settings, rng)
    for round_ in range(state.round + 1):
        for action, actor in zip(state.actions[round_], state.acting_players[round_], strict=True):
            if actor != position:
                try:
                    lbr.observe(replay, action)
                except ImpossibleAction:
                    return CALL_ACTION
            replay.apply(action)
    return lbr.act(replay)
