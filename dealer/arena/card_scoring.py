"""A card's pair scored from its logs: the report ``acpc-match`` writes (``reports.build_report``), AIVAT's
estimate with every policy that is known, the bot's winnings by how hands end, and its cumulative AIVAT
values (``score_pair``).

AIVAT knows the policy of each side that gives one (``Agent.policy``): the references always, the bot
when it is an agent with ``policy``; a bot over TCP or without ``policy`` leaves AIVAT its opponent's
actions and the cards (``aivat.logs.corrections_used``). The settings are ``acpc-match``'s
(``aivat.reporting.default_settings``), so a pair's figures are those of ``acpc-match --aivat``.

How hands end (``outcomes``), from the bot's side: ``fold`` (a player folded), ``showdown`` (the cards
were shown, nobody all in), ``all-in`` (no-limit: the cards were shown with a player all in; a limit
game's stakes are its betting's). Each gets its hands,
the bot's chips, and its share of the bot's mbb per hand (the three add up to the per-hand figure).

A pair's figures are kept in its folder (``card.json``) with the size and time of each log they were
made from, and used again while the logs are unchanged: a resumed card scores again only the pairs
that played.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from acpc_arena.agents.base import has_policy
from acpc_arena.agents.registry import agent_class
from acpc_arena.dealer.arena.aivat.estimator import AivatUnavailable
from acpc_arena.dealer.arena.aivat.logs import AgentSource, aivat_estimates, run_agent
from acpc_arena.dealer.arena.aivat.reporting import default_settings
from acpc_arena.dealer.arena.allin import AllinValues
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.reports import Report, build_report
from acpc_arena.dealer.arena.runner import RunSpec
from acpc_arena.dealer.arena.tournament_folder import pair_logs
from acpc_arena.protocol.files import read_json, write_atomic
from acpc_arena.protocol.match_log import LoggedMatch
from acpc_arena.protocol.state import State

PAIR_CARD = "card.json"
"""The pair's figures for the card, in the pair's folder."""
CURVE_POINTS = 200
"""The most points of a cumulative curve kept (evenly spaced hands, the last one included)."""
ENDINGS = ("fold", "showdown", "all-in")


@dataclass(frozen=True)
class PairFigures:
    """The bot's figures against one reference, as ``card.json`` keeps them (``figures``)."""

    reference: str
    figures: dict[str, Any]
    """``duplicate`` and ``per_hand`` (``Estimate.to_json``), ``aivat`` (as ``report.json`` has it, or
    ``{"unavailable": why}``), ``outcomes``, ``aivat_curve`` and ``results_curve`` (chips), ``hands``."""

    @property
    def main(self) -> dict[str, Any]:
        """AIVAT's estimate where there is one, else the duplicate one."""
        aivat = self.figures.get("aivat") or {}
        return aivat if "ci95" in aivat else self.figures["duplicate"]


def known_policies(contestants: tuple[Contestant, ...]) -> dict[str | int, AgentSource]:
    """The contestants whose policy AIVAT may ask: agents (not commands) whose class gives ``policy``."""
    known: dict[str | int, AgentSource] = {}
    for contestant in contestants:
        if contestant.agent is not None and contestant.command is None and has_policy(agent_class(contestant.agent)):
            known[contestant.name] = run_agent(contestant)
    return known


def _stamps(spec: RunSpec) -> list[list[Any]]:
    """Each match log's name, size and modification time (nanoseconds), as they stand."""
    stamps = []
    for match in spec.matches():
        try:
            status = (spec.out_dir / f"{match.name}.log").stat()
        except OSError:
            continue
        stamps.append([match.name, status.st_size, status.st_mtime_ns])
    return stamps


def score_pair(
    spec: RunSpec, reference: str, allin: AllinValues, progress: Callable[[int], object] | None = None
) -> PairFigures | None:
    """The pair's figures (None where no match played a hand): those kept in ``card.json`` while the logs
    are unchanged, else scored again (``report.json`` and ``card.json`` written)."""
    stamps = _stamps(spec)
    kept = _kept(spec.out_dir / PAIR_CARD, stamps)
    if kept is not None:
        return PairFigures(reference, kept)
    logged = pair_logs(spec)
    if not logged:
        return None
    report = build_report(logged, a=spec.a.name, errors={}, allin=allin)
    curve = add_aivat(report, (spec.a, spec.b), progress)
    figures = {
        "duplicate": report.duplicate.to_json(),
        "per_hand": report.per_hand.to_json(),
        "aivat": report.extra["aivat"],
        "hands": sum(len(match.hands) for match in logged),
        "outcomes": outcomes(logged, spec.a.name),
        "aivat_curve": thinned(np.cumsum(curve)) if curve is not None else None,
        "results_curve": thinned(np.cumsum(_results(logged, spec.a.name))),
    }
    write_atomic(spec.out_dir / "report.json", json.dumps(report.to_json(), indent=2) + "\n")
    write_atomic(spec.out_dir / PAIR_CARD, json.dumps({"logs": stamps, "figures": figures}, indent=2) + "\n")
    return PairFigures(reference, figures)


def _kept(path: Path, stamps: list[list[Any]]) -> dict[str, Any] | None:
    """The figures ``path`` keeps, if made from the logs as they stand."""
    try:
        kept = read_json(path)
        figures: dict[str, Any] = kept["figures"]
        return figures if kept["logs"] == stamps and stamps else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def add_aivat(
    report: Report, contestants: tuple[Contestant, ...], progress: Callable[[int], object] | None
) -> np.ndarray | None:
    """Put A's AIVAT figures in ``report.extra["aivat"]`` (as ``aivat.reporting.add_to_report`` does, with
    the known policies of ``known_policies``); returns A's AIVAT values hand by hand, or None where AIVAT
    is unavailable (``{"unavailable": why}``)."""
    known = known_policies(contestants)
    if not known:
        report.extra["aivat"] = {"unavailable": "no player's policy is known (neither side gives Agent.policy)"}
        return None
    matches = [figure.match for figure in report.matches]
    try:
        aivat = aivat_estimates(
            matches, known, player=report.a, settings=default_settings(report.game), progress=progress
        )
    except AivatUnavailable as exc:
        report.extra["aivat"] = {"unavailable": str(exc)}
        return None
    report.extra["aivat"] = aivat.to_json()
    return np.concatenate([figure.values for figure in aivat.matches])


def _results(logged: list[LoggedMatch], player: str) -> np.ndarray:
    """``player``'s chips hand by hand, the logs in order."""
    return np.array([hand.values[hand.names.index(player)] for match in logged for hand in match.hands])


def ending(state: State) -> str:
    """How a finished hand ended: ``fold``, ``all-in`` (no-limit: shown down with a player all in) or
    ``showdown``."""
    if state.num_folded:
        return "fold"
    return "all-in" if state.game.no_limit and state.num_all_in else "showdown"


def outcomes(logged: list[LoggedMatch], player: str) -> dict[str, dict[str, float]]:
    """``player``'s hands and chips by how the hands ended, and each ending's mbb per hand of all hands."""
    hands = dict.fromkeys(ENDINGS, 0)
    chips = dict.fromkeys(ENDINGS, 0.0)
    for match in logged:
        for hand in match.hands:
            kind = ending(hand.state)
            hands[kind] += 1
            chips[kind] += hand.values[hand.names.index(player)]
    total = max(sum(hands.values()), 1)
    big_blind = logged[0].game.big_blind if logged else 1
    return {
        kind: {"hands": hands[kind], "chips": chips[kind], "mbb_per_hand": chips[kind] * 1000 / big_blind / total}
        for kind in ENDINGS
    }


def thinned(values: np.ndarray) -> list[list[float]]:
    """At most ``CURVE_POINTS`` points ``[hand, value]`` of ``values`` (hands from 1), the last one kept."""
    if not len(values):
        return []
    step = max(1, -(-len(values) // CURVE_POINTS))
    indices = list(range(step - 1, len(values), step))
    if indices[-1] != len(values) - 1:
        indices.append(len(values) - 1)
    return [[index + 1, round(float(values[index]), 3)] for index in indices]
