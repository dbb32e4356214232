"""AIVAT in the reports: a run's report gets the AIVAT estimate of its player A beside the duplicate one
(``add_to_report``: ``report.extra["aivat"]``, which ``report.json`` holds), and its tables the line
``aivat_lines`` writes.

The settings follow the game's size (``default_settings``): in a game of few holdings (Kuhn, Leduc)
a known player's range holds every holding; in hold'em it holds the dealt one and ``DEFAULT_DECOYS``
others, since every holding of the range costs a policy at each of the player's actions.

``DEFAULT_DECOYS`` is the count that took the least CPU to reach a given half-width, (AIVAT's half-width
/ duplicate's)^2 x (the match's CPU + AIVAT's) / the match's, measured for limit ``cfr`` against
``equity`` and no-limit ``cfr`` against ``o_random`` over 5 to 160 decoys: AIVAT's CPU grows little with
the decoys while the pairs of the two ranges fit ``values.DENSE_PAIRS`` (the work of each decision and
each board dominates), and the interval narrows; 40 was best in limit and level with 20 in no-limit,
and past 63 the sorted sums make each decoy dear. The flop's drawn outcomes keep the estimator's
``SAMPLES`` and ``SAMPLE_BUDGET``: fewer cost no less CPU. The lines under the table give AIVAT's CPU
seconds beside the match's (``cpu_line``).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from acpc_arena.agents.base import Agent, has_policy
from acpc_arena.agents.registry import agent_class, is_spec
from acpc_arena.dealer.arena.aivat.estimator import AivatUnavailable, Settings
from acpc_arena.dealer.arena.aivat.logs import AgentSource, aivat_estimates, run_agent, shipped_agent
from acpc_arena.dealer.arena.aivat.recorded import RecordedAgent
from acpc_arena.dealer.arena.aivat.values import holdings_of
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.estimates import signed
from acpc_arena.dealer.arena.policy_record import PolicyRecord
from acpc_arena.dealer.arena.reports import Report
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.match_log import LoggedMatch

DEFAULT_DECOYS = 40
"""Holdings besides the dealt one in a known player's range in a large game (the least CPU for a given
half-width: see the module docstring and the AIVAT guide)."""
SMALL_GAME = 100
"""Games of at most this many holdings weigh every holding, and ``acpc-match`` adds AIVAT unasked."""


def small_game(game: Game) -> bool:
    """Whether AIVAT over every holding is cheap in ``game`` (a two-player game of few holdings)."""
    if game.num_players != 2 or game.num_hole_cards not in (1, 2):
        return False
    return holdings_of(game).size <= SMALL_GAME


def default_settings(game: Game, decoys: int | None = None) -> Settings:
    """Every holding in a small game, else the dealt one and ``decoys`` (default ``DEFAULT_DECOYS``) others."""
    if decoys is None and not small_game(game):
        decoys = DEFAULT_DECOYS
    return Settings(decoys=decoys)


def add_to_report(
    report: Report, known: Mapping[str | int, AgentSource], settings: Settings | None = None, progress: bool = False
) -> str | None:
    """Put A's AIVAT figures over the report's logs in ``report.extra["aivat"]``; returns None, or why AIVAT
    is unavailable (one line, also kept there as ``{"unavailable": ...}``)."""
    matches = [figure.match for figure in report.matches]
    hands = sum(len(match.hands) for match in matches)
    bar = tqdm(total=hands, unit="hand", desc="AIVAT", disable=not progress)
    try:
        aivat = aivat_estimates(
            matches, known, player=report.a, settings=settings or default_settings(report.game), progress=bar.update
        )
    except AivatUnavailable as exc:
        report.extra["aivat"] = {"unavailable": str(exc)}
        return str(exc)
    finally:
        bar.close()
    report.extra["aivat"] = aivat.to_json()
    return None


def wanted(game: Game, contestants: Sequence[Contestant], asked: bool | None) -> bool:
    """Whether a run adds AIVAT's figures: where ``asked``, or, not told (None), in a small game
    (``small_game``) where every agent's policy is known (``known``)."""
    return asked is True or (asked is None and small_game(game) and all(known(c) for c in contestants))


def add_to_run(
    report: Report,
    contestants: Sequence[Contestant],
    asked: bool | None,
    progress: bool = False,
    records: Mapping[Path, Mapping[str, PolicyRecord]] | None = None,
) -> str | None:
    """AIVAT's figures for a run's report, the policies known of its agents that give them (``known``; as they
    were built for each match), as ``wanted`` says. ``records``: by log, the policies recorded as the agents
    played in this process (``RunSpec.record_policies``), which AIVAT then does not ask of them again. Returns
    None, or why AIVAT is unavailable (one line, kept in ``report.extra["aivat"]`` too)."""
    if not wanted(report.game, contestants, asked):
        return None
    policies = [c for c in contestants if known(c)]
    if not policies:
        reason = "no player's policy is known (no agent that gives its policy)"
        report.extra["aivat"] = {"unavailable": reason}
        return reason
    sources: dict[str | int, AgentSource] = {c.name: _recorded(c, records or {}) for c in policies}
    return add_to_report(report, sources, default_settings(report.game), progress=progress)


def known(contestant: Contestant) -> bool:
    """Whether AIVAT knows ``contestant``'s policy: an agent (shipped or a plugin) that gives it
    (``Agent.policy``), not a command or an external bot."""
    if contestant.agent is None or contestant.command is not None or contestant.external:
        return False
    return has_policy(agent_class(contestant.agent))


def _recorded(contestant: Contestant, records: Mapping[Path, Mapping[str, PolicyRecord]]) -> AgentSource:
    """What builds ``contestant``'s agent for a log, with its recorded policies where the log has them."""
    build = run_agent(contestant)

    def recorded(match: LoggedMatch) -> Agent:
        record = records.get(match.path, {}).get(contestant.name)
        return build(match) if record is None else RecordedAgent(build(match), record)

    return recorded


TableRow = tuple[str, str, str, str, str, str, str]
"""A row of ``tables.format_table``: seed, A's seat, hands, chips, mbb/h, hands won, note."""


def aivat_row(report: Report) -> TableRow | None:
    """The table's AIVAT row (None where AIVAT was not asked for or is unavailable)."""
    entry: dict[str, Any] | None = report.extra.get("aivat")
    if not entry or "unavailable" in entry:
        return None
    low, high = entry["ci95"]
    kind = "duplicate" if entry["estimate"] == "duplicate" else "per hand"
    samples = entry["duplicate" if kind == "duplicate" else "per_hand"]["samples"]
    note = f"AIVAT {kind}, 95% CI [{signed(low)}, {signed(high)}]"
    return ("all", "both", str(samples), "", signed(entry["mbb_per_hand"]), "", note)


def aivat_lines(report: Report) -> list[str]:
    """The lines under the table that say which corrections AIVAT made and its CPU time beside the match's
    (none without AIVAT)."""
    entry: dict[str, Any] | None = report.extra.get("aivat")
    if not entry or "unavailable" in entry:
        return []
    return [f"AIVAT's corrections: {entry['corrections']}", cpu_line(entry, report.extra.get("cpu_seconds"))]


def cpu_line(entry: Mapping[str, Any], match_cpu: float | None) -> str:
    """AIVAT's CPU seconds (``entry``: ``report.extra["aivat"]``) beside the match's (``match_cpu``: the run's
    ``cpu_seconds``, None where the report comes from logs alone)."""
    aivat = float(entry["cpu_seconds"])
    if match_cpu is None:
        return f"AIVAT's CPU: {aivat:.1f} s (the match's CPU time is not in the logs)"
    ratio = f" ({aivat / match_cpu:.1f}x)" if match_cpu > 0 else ""
    return f"AIVAT's CPU: {aivat:.1f} s beside the match's {match_cpu:.1f} s{ratio}"


def known_players(specs: list[str]) -> dict[str | int, AgentSource]:
    """The known players of ``--aivat`` options: each a player's name in the logs (``<label>-<agent>``, as
    ``acpc-match`` names them), then ``=`` and its agent's spec where the name's ``<agent>`` is not one (a
    plugin: ``a-MyBot=mybot.py:MyBot``), then the agent's options if any (``a-cfr --argmax``)."""
    players: dict[str | int, AgentSource] = {}
    for spec in specs:
        try:
            given, *args = shlex.split(spec)
        except ValueError as exc:
            raise AivatUnavailable(f"--aivat {spec!r}: {str(exc).lower()}") from None
        name, _, agent = given.partition("=")
        if not is_spec(agent):  # a name with "=" in it (a log may hold one), no spec given
            name, agent = given, ""
        players[name] = shipped_agent(name, args, agent or None)
    return players
