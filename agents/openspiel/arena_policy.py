"""``ArenaPolicy``: an agent of this arena with ``policy`` as an OpenSpiel policy on ``universal_poker``.

    from open_spiel.python.algorithms import exploitability
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.protocol.game import load_game

    cfr = ArenaPolicy(CFRAgent(load_game("leduc")))
    exploitability.exploitability(cfr.game, cfr)  # 3.654201e-05, exact (docs/guides/openspiel.md)

At an OpenSpiel state the agent is shown the view of the player to act (``states.arena_state``, then
``protocol.views.agent_view``: its cards, the board so far, the betting) and its ``policy`` is mapped to action ids
(``states.spiel_action``), every legal id listed (0 where the agent gives none). So OpenSpiel's ``exploitability``,
``best_response`` and ``expected_game_score`` run on it: exactly in Kuhn and Leduc, and on larger games through the
same object where OpenSpiel's algorithm can walk them. The game is ``universal_poker`` of the agent's game
(``games.spiel_game``: ``fcpa`` in limit games, ``fullgame`` in no-limit ones, every raise size an action); given
another abstraction, a raise the agent gives that the abstraction has no action for is a ValueError.
"""

from __future__ import annotations

from typing import Any

from open_spiel.python import policy as spiel_policy

from acpc_arena.agents.base import Agent
from acpc_arena.agents.openspiel.games import game_betting, spiel_game
from acpc_arena.agents.openspiel.states import arena_state, spiel_action, spiel_legal_actions
from acpc_arena.protocol.views import agent_view


class ArenaPolicy(spiel_policy.Policy):  # type: ignore[misc]  # OpenSpiel's classes are untyped
    """``agent``'s policy on ``universal_poker`` of its game (``game``: that game under another betting
    abstraction; a game that is not the agent's is a ValueError naming both)."""

    def __init__(self, agent: Agent, game: Any = None) -> None:
        game = game if game is not None else spiel_game(agent.game)
        self.betting = game_betting(game, agent.game)
        super().__init__(game, list(range(game.num_players())))
        self.agent = agent

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        """``{action id: probability}`` of every legal action of the player to act at ``state``."""
        player = state.current_player()
        if player < 0 or player_id not in (None, player):
            raise ValueError(f"the policy answers for the player to act ({player}), not for player {player_id}")
        full = arena_state(state, self.agent.game, self.betting)
        view = agent_view(full, player, full.hole_cards[player])
        out = dict.fromkeys(spiel_legal_actions(full, self.betting), 0.0)
        for action, p in self.agent.policy(view).items():
            out[spiel_action(full, action, self.betting)] += p
        return out
