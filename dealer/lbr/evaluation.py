"""LBR against an agent over seeded duplicate deals: mbb per hand with a 95% interval.

``evaluate`` plays the seeded deals of each seed twice, LBR in either position
(duplicate), in-process on the engine's ``State``, and reports LBR's winnings in
mbb per hand with a 95% interval over the deals: a lower bound on the agent's
exploitability. It counts the CPU time spent in the agent apart from LBR's own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.dealer.lbr.response import LocalBestResponse, Settings
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import Action, State
from acpc_arena.protocol.views import agent_view
from acpc_arena.protocol.wire import MatchState

_T = TypeVar("_T")


@dataclass
class HandRecord:
    """What happened in one hand LBR played: its chips and its decisions."""

    value: float
    decisions: int


def play_hand(
    agent: Agent,
    deal: State,
    lbr_position: int,
    settings: Settings,
    rng: np.random.Generator,
    trace: list[tuple[State, Action]] | None = None,
) -> HandRecord:
    """One hand of ``deal`` between LBR in ``lbr_position`` and ``agent``: LBR's chips and decisions
    (each of LBR's decisions appended to ``trace`` as (state before, action) when given)."""
    state = State(deal.game, deal.hand_id, [list(c) for c in deal.hole_cards], list(deal.board_cards))
    lbr = LocalBestResponse(agent, lbr_position, state, settings, rng)
    seat = 1 - lbr_position
    own_cards = state.hole_cards[seat]
    agent.begin_hand(agent_view(state, seat, own_cards))
    decisions = 0
    while not state.finished:
        if state.current_player == lbr_position:
            action = lbr.act(state)
            decisions += 1
            if trace is not None:
                trace.append((state.copy(), action))
        else:
            action = agent.act(agent_view(state, seat, own_cards))
            fixed = state.validate_action(action)
            if fixed is None:
                raise ValueError(f"agent {agent.name!r} chose an invalid action {action}")
            lbr.observe(state, fixed)
            action = fixed
        state.apply(action)
    shown = not any(state.folded)  # as the dealer's last message: LBR's cards only at a showdown
    agent.end_hand(MatchState(seat, state) if shown else agent_view(state, seat, own_cards))
    return HandRecord(state.value(lbr_position), decisions)


@dataclass
class Result:
    """LBR's winnings against an agent over duplicate deals, in mbb per hand."""

    agent: str
    game: Game
    seeds: tuple[int, ...]
    hands: int
    """Deals per seed; each is played twice (LBR in either position)."""
    pair_values: np.ndarray
    """(deals,) LBR's chips per hand on each deal, averaged over the two positions."""
    decisions: int
    seconds: float
    cpu_seconds: float
    """This process's CPU time (the measure on a shared machine)."""
    agent_cpu_seconds: float = 0.0
    """The part of ``cpu_seconds`` spent in the agent (its policies for the range, its own play)."""

    @property
    def mbb_per_hand(self) -> float:
        return float(self.pair_values.mean()) * 1000 / self.game.big_blind

    @property
    def interval(self) -> float:
        """Half-width of the 95% interval of ``mbb_per_hand`` (normal, over the deals)."""
        n = len(self.pair_values)
        if n < 2:
            return math.inf
        return 1.96 * float(self.pair_values.std(ddof=1)) / math.sqrt(n) * 1000 / self.game.big_blind

    def as_dict(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "seeds": list(self.seeds),
            "deals": len(self.pair_values),
            "hands": 2 * len(self.pair_values),
            "mbb_per_hand": round(self.mbb_per_hand, 3),
            "ci95": round(self.interval, 3),
            "lbr_decisions": self.decisions,
            "seconds": round(self.seconds, 3),
            "cpu_ms_per_lbr_decision": round(1000 * self.cpu_seconds / max(self.decisions, 1), 1),
            "lbr_own_cpu_ms_per_lbr_decision": round(
                1000 * (self.cpu_seconds - self.agent_cpu_seconds) / max(self.decisions, 1), 1
            ),
        }


def evaluate(
    make_agent: Callable[[], Agent],
    game: Game,
    seeds: Sequence[int],
    hands: int,
    settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Result:
    """LBR against the agents ``make_agent`` builds, on ``hands`` deals of each seed, each deal in both
    positions (one agent for each position, kept across the deals of a seed, as in a duplicate match)."""
    settings = settings or Settings()
    start, cpu = time.perf_counter(), time.process_time()
    pairs: list[float] = []
    decisions = 0
    total = len(seeds) * hands
    timed: list[_Timed] = []
    for seed in seeds:
        agents = [_Timed(make_agent()), _Timed(make_agent())]
        timed += agents
        rng = np.random.default_rng(seed)
        for deal in deal_hands(game, seed, hands):
            both = []
            for position in (0, 1):
                record = play_hand(agents[position], deal, position, settings, rng)
                both.append(record.value)
                decisions += record.decisions
            pairs.append(sum(both) / 2)
            if progress:
                progress(len(pairs), total)
    name = agents[0].name if seeds else "agent"
    return Result(
        name,
        game,
        tuple(seeds),
        hands,
        np.array(pairs),
        decisions,
        time.perf_counter() - start,
        time.process_time() - cpu,
        sum(agent.cpu_seconds for agent in timed),
    )


class _Timed(Agent):
    """``agent``, its CPU time counted (``evaluate`` reports LBR's own work apart from the agent's)."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent.game, agent.seed)
        self.agent = agent
        self.name = agent.name  # type: ignore[misc]
        self.cpu_seconds = 0.0

    def _timed(self, work: Callable[[], _T]) -> _T:
        start = time.process_time()
        try:
            return work()
        finally:
            self.cpu_seconds += time.process_time() - start

    def begin_hand(self, view: MatchState) -> None:
        self._timed(lambda: self.agent.begin_hand(view))

    def act(self, view: MatchState) -> Action:
        return self._timed(lambda: self.agent.act(view))

    def end_hand(self, view: MatchState) -> None:
        self._timed(lambda: self.agent.end_hand(view))

    def policy(self, view: MatchState) -> Policy:
        return self._timed(lambda: self.agent.policy(view))

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        return self._timed(lambda: self.agent.policies(views))
