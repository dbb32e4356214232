"""A Gymnasium single-agent environment: one seat of a match, the other seats played by agents.

``PokerGymEnv(game, opponents)``: the learner plays seat ``seat`` (0 by default) of a match whose
other seats are ``opponents``, in seat order: agent specs (a shipped name such as ``call`` or ``cfr``,
``package.module:Class``, ``path/file.py:Class``, an entry point: ``agents.registry``), built with their
default options as ``acpc-match`` builds a contestant's agent, with its seed rule (deal seed ``s``,
seat ``i``: ``100 * s + i + 1``), or ``Agent`` objects built by the caller (never reseeded). The
agents read the match as over TCP: the dealer's lines, through the client runtime
(``agents.client.ClientSession``), and their replies are read back as the dealer reads a reply.

An episode is one hand in which the learner acts (``table.Table``): ``reset(seed=s)`` starts the
match ``acpc-dealer`` plays with seed ``s`` (the agents built anew from their specs), ``reset()``
deals the next hand, the first call without a seed starts a match of a seed drawn from
``np_random``. A hand that ends before the learner's first decision (the others fold to its blind)
is played through by ``reset``: its reward is ``info["unplayed_reward"]`` (the sum over such hands
since the last episode), so that the episodes' rewards and these together are the learner's result.
The reward is the learner's winnings at the hand's last step (0 before), in chips or mbb.

Observations, actions and illegal actions: ``encoding``, ``actions`` (``illegal_actions="fix"`` by
default: an illegal action is played as a call and counted in ``info["invalid_actions"]``, as the
dealer does with a bot's; ``"error"``: ``IllegalActionError``). A step once the hand is over is an
``EpisodeOverError``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

import gymnasium
import numpy as np
import numpy.typing as npt

from acpc_arena.agents.base import Agent
from acpc_arena.agents.client import ClientSession
from acpc_arena.agents.registry import agent_class, agent_seed
from acpc_arena.dealer.envs.seat import RENDER_MODES, IllegalActions, Observation, SeatView
from acpc_arena.dealer.envs.table import EpisodeOverError, Rewards, Table, game_of
from acpc_arena.dealer.server.engine import LogSink, MatchEngine
from acpc_arena.dealer.server.match_config import UINT32_MAX
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.wire import MatchState


class PokerGymEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of an ACPC match against agents, as a Gymnasium environment (see the module's docstring).

    ``game``, ``hands``, ``raise_fractions``, ``rewards``, ``fixed_seats``, ``line_in_observation`` and
    ``log`` as in ``aec.PokerAECEnv``; ``agent_log``: where the agents' warnings go.
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES)}  # noqa: RUF012 (the framework's own attribute)

    def __init__(
        self,
        game: str | Game = "holdem.limit.2p.reverse_blinds",
        opponents: Sequence[str | Agent] = ("call",),
        *,
        seat: int = 0,
        hands: int = UINT32_MAX,
        raise_fractions: Sequence[float] | None = None,
        rewards: Rewards = "chips",
        illegal_actions: IllegalActions = "fix",
        fixed_seats: bool = False,
        line_in_observation: bool = False,
        log: LogSink | None = None,
        agent_log: TextIO = sys.stderr,
        render_mode: str | None = None,
    ) -> None:
        loaded, game_file = game_of(game)
        n = loaded.num_players
        if len(opponents) != n - 1:
            raise ValueError(f"{game_file} has {n} seats: give {n - 1} opponents, not {len(opponents)}")
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0 to {n - 1}, not {seat}")
        self.render_mode = render_mode
        self.seat = seat
        self.specs: list[str | Agent | None] = list(opponents)
        self.specs.insert(seat, None)
        self.agent_log = agent_log
        self.sessions: list[ClientSession | None] = [None] * n
        names = tuple("learner" if s is None else f"player_{i}" for i, s in enumerate(self.specs))
        self.table = Table(loaded, game_file, names, hands, fixed_seats, rewards, log)
        self.seats = SeatView(self.table, raise_fractions, illegal_actions, line_in_observation, render_mode)
        self.observation_space = self.seats.observation_space()
        self.action_space = self.seats.action_space()
        self.action_names = self.seats.actions.names
        """What each action index is (``fold``, ``call``, ``raise``, or the no-limit raises)."""
        self.match_seed: int | None = None
        """The deal seed of the match in play."""
        self._views: dict[int, tuple[str, MatchState | None]] = {}
        """Each agent's last line and the view it is to act on there (None when it is not to act)."""
        self._over = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Deal the next hand in which the learner acts, or begin the match of ``seed``."""
        super().reset(seed=seed)
        table = self.table
        if seed is not None or not table.started:
            match_seed = seed if seed is not None else int(self.np_random.integers(2**32))
            self.match_seed = table.start(match_seed)
            self._build_agents(self.match_seed)
        else:
            table.deal()
        unplayed = 0.0
        while not self._advance():
            unplayed += table.rewards()[self.seat]
            table.deal()
        self._over = False
        info = self.seats.info(self.seat)
        info["unplayed_reward"] = unplayed
        return self.seats.observe(self.seat), info

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The learner's action; the reward is its winnings once the hand is over."""
        self.table.match_engine()  # EpisodeOverError before the first reset
        if self._over:
            raise EpisodeOverError("the hand is over: reset() deals the next")
        self.seats.play(self.seat, action)
        asked = self._advance()
        reward = 0.0 if asked else self.table.rewards()[self.seat]
        self._over = not asked
        return self.seats.observe(self.seat), reward, not asked, False, self.seats.info(self.seat)

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal actions now (``sb3_contrib``'s ``MaskablePPO`` reads this method)."""
        mask: npt.NDArray[np.int8] = self.seats.observe(self.seat)["action_mask"]
        return mask

    def _build_agents(self, seed: int) -> None:
        """The opponents for the match of ``seed``: those given by spec built anew, their sessions fresh."""
        game = self.table.game
        for seat, spec in enumerate(self.specs):
            if spec is None:
                continue
            agent = agent_class(spec)(game, agent_seed(seed, seat)) if isinstance(spec, str) else spec
            self.sessions[seat] = ClientSession(agent, self.agent_log)
        self._views = {}

    def _advance(self) -> bool:
        """Play the agents' turns until the learner is to act (True) or the hand is over (False)."""
        engine = self.table.match_engine()
        while True:
            self._tell(engine)
            asked = engine.next_reply()
            if asked is None:
                return False
            seat = asked[0]
            if seat == self.seat:
                return True
            session = self.sessions[seat]
            line, view = self._views[seat]
            assert session is not None and view is not None
            engine.receive(f"{session.reply(line, view)}\r\n".encode("ascii"), 0.0, 0.0)
            self.table.played()

    def _tell(self, engine: MatchEngine) -> None:
        """The engine's messages for the state as it stands, read by the agents (the learner's aside)."""
        for seat, data, _, noted in engine.messages():
            session = self.sessions[seat]
            if session is not None:
                line = data.decode("ascii").rstrip("\r\n")
                self._views[seat] = (line, session.receive(line))
            if noted:
                engine.sent(seat, 0.0, 0.0)

    def render(self) -> str | None:
        """The hand as the log shows it (every card), returned (``ansi``) or printed (``human``)."""
        return self.seats.render()
