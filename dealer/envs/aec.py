"""A PettingZoo AEC environment over the match engine: ``PokerAECEnv``.

Any ACPC game of 2 to 10 players. The agents are the match's seats, ``player_0`` to
``player_{n-1}``, each playing the position the dealer gives its seat in each hand (one position
further every hand, unless ``fixed_seats``). An episode is one hand of a match
(``table.Table``): ``reset(seed=s)`` starts the match ``acpc-dealer`` plays with seed ``s`` and
deals its hand 0, ``reset()`` deals the match's next hand (the first call without a seed starts a
match of a random seed). At the end of a hand every agent is terminated with its winnings as its
reward (chips, or mbb with ``rewards="mbb"``) and leaves the episode on its ``step(None)``.

Observations and actions: ``encoding`` and ``actions`` (the line the dealer would send the agent is
``infos[agent]["match_state"]``). Errors: an illegal action, an index outside the action space, a
step or an observation once the hand is over, a bad game file: one line each (``IllegalActionError``,
``EpisodeOverError``, ``ProtocolError``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gymnasium import spaces
from pettingzoo import AECEnv

from acpc_arena.dealer.envs.seat import RENDER_MODES, IllegalActions, Observation, SeatView
from acpc_arena.dealer.envs.table import EpisodeOverError, Rewards, Table, game_of
from acpc_arena.dealer.server.engine import LogSink
from acpc_arena.dealer.server.match_config import UINT32_MAX
from acpc_arena.protocol.game import Game


class PokerAECEnv(AECEnv[str, Observation, int]):  # type: ignore[misc]  # pettingzoo is untyped
    """An ACPC game as a PettingZoo AEC environment (see the module's docstring).

    ``game``: a game file, a shipped game's name (``holdem.nolimit.2p.reverse_blinds``, ``leduc``) or a
    ``Game``. ``hands``: the match's length. ``raise_fractions``: the no-limit raises (``actions``).
    ``log``: a sink for the match's ``.log`` lines (``dealer.server.logfiles.MatchLog``, or any object
    with ``write_line``, ``next_hand = 0`` and ``last_record = ""``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (the framework's own attribute)
        "name": "acpc_poker_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str | Game = "holdem.limit.2p.reverse_blinds",
        *,
        hands: int = UINT32_MAX,
        raise_fractions: Sequence[float] | None = None,
        rewards: Rewards = "chips",
        illegal_actions: IllegalActions = "fix",
        fixed_seats: bool = False,
        line_in_observation: bool = False,
        log: LogSink | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        loaded, game_file = game_of(game)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(loaded.num_players)]
        self.table = Table(loaded, game_file, tuple(self.possible_agents), hands, fixed_seats, rewards, log)
        self.seats = SeatView(self.table, raise_fractions, illegal_actions, line_in_observation, render_mode)
        self.observation_spaces = {agent: self.seats.observation_space() for agent in self.possible_agents}
        self.action_spaces = {agent: self.seats.action_space() for agent in self.possible_agents}
        self.agents: list[str] = []
        self.action_names = self.seats.actions.names
        """What each action index is (``fold``, ``call``, ``raise``, or the no-limit raises)."""
        self.match_seed: int | None = None
        """The deal seed of the match in play."""

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal the next hand of the match, or hand 0 of a new match of ``seed``."""
        table = self.table
        if seed is not None or not table.started:
            self.match_seed = table.start(seed)
        else:
            table.deal()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._update_infos()
        self.agent_selection = self.possible_agents[table.acting_seat()]

    def observe(self, agent: str) -> Observation:
        """``agent``'s observation; EpisodeOverError once it has left the hand (or before ``reset``)."""
        self.table.match_engine()  # EpisodeOverError before the first reset
        if agent not in self.agents:
            raise EpisodeOverError(f"{agent} is not in a hand: the hand is over (reset() deals the next)")
        return self.seats.observe(self.possible_agents.index(agent))

    def step(self, action: int | None) -> None:
        """The selected agent's action (None once it is terminated: it leaves the hand)."""
        self.table.match_engine()
        if not self.agents:
            raise EpisodeOverError("the hand is over and every agent has left it: reset() deals the next")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        self.seats.play(self.possible_agents.index(agent), action)
        acting = table.acting_seat()
        if acting < 0:
            self.rewards = dict(zip(self.possible_agents, table.rewards(), strict=True))
            self.terminations = dict.fromkeys(self.agents, True)
        self._update_infos()
        self._cumulative_rewards[agent] = 0.0
        self.agent_selection = self.possible_agents[acting] if acting >= 0 else agent
        self._accumulate_rewards()
        self._deads_step_first()

    def _update_infos(self) -> None:
        self.infos = {agent: self.seats.info(seat) for seat, agent in enumerate(self.possible_agents)}

    def render(self) -> str | None:
        """The hand as the log shows it (every card), returned (``ansi``) or printed (``human``)."""
        return self.seats.render()

    def close(self) -> None:
        """Nothing to release (the log sink is the caller's)."""
