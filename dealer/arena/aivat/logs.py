"""AIVAT over ACPC logs (``aivat_estimates``): one player's AIVAT value in every hand, the mean with its
95% interval, and, for seeds played in both seatings, the duplicate estimate over the pairs of hands
(the two seatings' AIVAT values of hand *i* averaged).

The known players are given by name (or seat, from 0) with their agents: an agent object, used
for every log in order, or a function that builds the agent for a log (``shipped_agent`` builds
an agent as ``acpc-match`` built it for that match: same spec, options and seed).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.agents.base import Agent
from acpc_arena.dealer.arena.aivat.estimator import AivatUnavailable, HandEstimator, Settings
from acpc_arena.dealer.arena.contestants import Contestant, build_agent
from acpc_arena.dealer.arena.estimates import DuplicateOrPerHand, Estimate, duplicate_pair, estimate
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.match_log import LoggedMatch, read_log

AgentSource = Agent | Callable[[LoggedMatch], Agent]
"""A known player's agent, or what builds it for a log."""


@dataclass
class MatchAivat:
    """One log's AIVAT values for the player, hand by hand (chips)."""

    match: LoggedMatch
    seat: int
    values: np.ndarray
    results: np.ndarray
    """The player's results as logged."""


@dataclass
class AivatReport(DuplicateOrPerHand):
    """A player's AIVAT figures over logs."""

    player: str
    known: tuple[str, ...]
    corrections: str
    """Which corrections were used, in words."""
    matches: list[MatchAivat]
    per_hand: Estimate
    duplicate: Estimate
    duplicate_pairs: int
    seconds: float
    cpu_seconds: float
    """This process's CPU time over the estimate (the agents' policies included)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "known": list(self.known),
            "corrections": self.corrections,
            **self.main_json(),
            "duplicate": self.duplicate.to_json(),
            "per_hand": self.per_hand.to_json(),
            "duplicate_pairs": self.duplicate_pairs,
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
        }


def shipped_agent(name: str, args: Sequence[str] = (), agent: str | None = None) -> Callable[[LoggedMatch], Agent]:
    """What builds the agent of the player ``name`` (``<label>-<agent>``, as ``acpc-match`` names its
    players) for a log, as ``acpc-match`` built it: the agent ``agent`` (a spec; default: the name's
    ``<agent>``, a shipped agent or an installed plugin) with ``args`` (``run_agent``)."""
    label, _, named = name.partition("-")
    if not (len(label) == 1 and label.isalpha() and named):
        raise AivatUnavailable(f"{name!r} is not a player of acpc-match (<label>-<agent>, such as a-cfr)")
    return run_agent(Contestant(label, agent=agent or named, args=tuple(args), title=named))


def run_agent(contestant: Contestant) -> Callable[[LoggedMatch], Agent]:
    """What builds a run's agent for a log as the run built it: its options, seeded for the log's
    seed. Building it raises ``AivatUnavailable`` (one line) when it cannot be loaded."""

    def build(match: LoggedMatch) -> Agent:
        try:
            return build_agent(contestant, match.game, contestant.agent_seed(match.seed))
        except Exception as exc:  # a missing checkpoint, an unknown agent, a bad option: one line
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise AivatUnavailable(f"cannot load agent {contestant.agent!r} for {contestant.name}: {reason}") from None

    return build


def aivat_estimates(
    logs: Sequence[str | Path | LoggedMatch],
    known: Mapping[str | int, AgentSource],
    player: str | None = None,
    settings: Settings | None = None,
    progress: Callable[[int], object] | None = None,
) -> AivatReport:
    """``player``'s (default: seat 1 of the first log) AIVAT values in every hand of ``logs``, with the
    ``known`` players' policies (see the module docstring). Raises ``AivatUnavailable``: one line saying
    why (a log of another kind of game, an agent that cannot be loaded or whose policy gives a logged
    action probability 0); a log that cannot be read raises ``ProtocolError`` as ``read_log`` does.
    ``progress`` is called with the number of hands done since its last call."""
    start, cpu = time.perf_counter(), time.process_time()
    matches = [log if isinstance(log, LoggedMatch) else read_log(log) for log in logs]
    if not matches:
        raise ProtocolError("no logs to score")
    player = player or matches[0].seat_names[0]
    settings = settings or Settings()
    for match in matches:
        if match.game != matches[0].game:
            raise AivatUnavailable(f"{match.path} is a different game from {matches[0].path}")
        if player not in match.seat_names:
            raise AivatUnavailable(f"{match.path} has no player named {player!r}")
    names: set[str] = set()
    figures = [MatchAivat(m, m.seat_of(player), np.zeros(len(m.hands)), np.zeros(len(m.hands))) for m in matches]
    for group in _groups(matches, known):
        estimators = []
        for i in group:
            agents = _agents_of(matches[i], known)
            names |= set(agents)
            estimators.append(HandEstimator(matches[i].game, agents, settings))
        _score([figures[i] for i in group], estimators, player, progress)
    game = matches[0].game
    pairs = _duplicate_pairs(figures)
    return AivatReport(
        player=player,
        known=tuple(sorted(names)),
        corrections=corrections_used(sorted(names), settings),
        matches=figures,
        per_hand=estimate(np.concatenate([f.values for f in figures]), game.big_blind),
        duplicate=estimate(pairs, game.big_blind),
        duplicate_pairs=len(pairs),
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu,
    )


def corrections_used(known: Sequence[str], settings: Settings) -> str:
    """The corrections AIVAT makes with these players known, in words."""
    parts = ["chance: the cards dealt and the board cards"]
    if known:
        parts.append(f"actions of {' and '.join(known)}")
        if settings.imaginary:
            held = "every holding" if settings.decoys is None else f"its holding and {settings.decoys} others"
            parts.append(f"the known players' cards weighed over their ranges ({held})")
    return "; ".join(parts)


def _groups(matches: Sequence[LoggedMatch], known: Mapping[str | int, AgentSource]) -> list[list[int]]:
    """The logs (by index) scored together, hand by hand in turn: a seed's seatings, which deal the same boards
    (an agent keeps the work of a board for the next seating's hand, ``baselines.EquityAgent``), where every
    known agent is built for its log; else one log at a time (an agent object given is told the logs' hands
    in order)."""
    if any(isinstance(source, Agent) for source in known.values()):
        return [[i] for i in range(len(matches))]
    by_seed: dict[int, list[int]] = {}
    for i, match in enumerate(matches):
        by_seed.setdefault(match.seed, []).append(i)
    return list(by_seed.values())


def _score(
    figures: Sequence[MatchAivat],
    estimators: Sequence[HandEstimator],
    player: str,
    progress: Callable[[int], object] | None,
) -> None:
    """Fill ``figures``' values and results (``player``'s side) with their logs' AIVAT values, hand *i* of each
    log in turn; ``progress`` is told every 100 hands and the rest at the end."""
    done = 0
    streams = [enumerate(figure.match.hands) for figure in figures]
    live = list(range(len(figures)))
    while live:
        for j in list(live):
            i, hand = next(streams[j], (-1, None))
            if hand is None:
                live.remove(j)
                continue
            try:
                value = estimators[j].hand(hand)
            except AivatUnavailable as exc:
                raise AivatUnavailable(f"{figures[j].match.path}: {exc}") from None
            sign = 1.0 if hand.names[0] == player else -1.0
            figures[j].values[i], figures[j].results[i] = value.value * sign, value.result * sign
            done += 1
            if progress is not None and done % 100 == 0:
                progress(100)
    if progress is not None:
        progress(done % 100)


def _agents_of(match: LoggedMatch, known: Mapping[str | int, AgentSource]) -> dict[str, Agent]:
    """The known players of ``match`` by name, their agents built for it."""
    agents: dict[str, Agent] = {}
    for key, source in known.items():
        if isinstance(key, int):
            if not 0 <= key < len(match.seat_names):
                raise AivatUnavailable(f"{match.path} has no seat {key + 1}")
            name = match.seat_names[key]
        elif key in match.seat_names:
            name = key
        else:
            raise AivatUnavailable(f"{match.path} has no player named {key!r}")
        agents[name] = source if isinstance(source, Agent) else source(match)
    return agents


def _duplicate_pairs(figures: list[MatchAivat]) -> np.ndarray:
    """The pairs' AIVAT values (hand *i* of a seed's two seatings averaged), every seed played in both."""
    by_seed: dict[int, dict[int, np.ndarray]] = {}
    for figure in figures:
        by_seed.setdefault(figure.match.seed, {})[figure.seat] = figure.values
    pairs = []
    for seats in by_seed.values():
        if 0 in seats and 1 in seats:
            pairs.append(duplicate_pair(seats[0], seats[1]))
    return np.concatenate(pairs) if pairs else np.array([])
