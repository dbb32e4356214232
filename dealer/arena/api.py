"""The match runner as one Python call: ``play(agents, game, seeds, hands)`` returns the report.

    >>> from acpc_arena.dealer.arena.api import play
    >>> report = play(("rule", "random"), "holdem.limit.2p.reverse_blinds", seeds=(1, 234), hands=1000)
    >>> report.duplicate.mbb_per_hand, report.duplicate.ci95

It is ``acpc-match`` without the command line: the same duplicate matches (each
seed in every seating), the same dealer code and logs, and the report object that
``report.json`` serialises (``Report``, or ``MultiReport`` for three players;
``report.to_json()`` is that file's content). The agents play inside this
process by default (``in_process``; ``False`` starts ``acpc-agent`` processes
that play over TCP, as ``acpc-match`` does): the same logs either way.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path

from acpc_arena.agents.registry import absolute_spec, check_spec
from acpc_arena.dealer.arena.aivat.reporting import wanted
from acpc_arena.dealer.arena.contestants import Contestant, check_agent
from acpc_arena.dealer.arena.options import SIDES, check_seeds
from acpc_arena.dealer.arena.pipeline import play_run
from acpc_arena.dealer.arena.reports import MultiReport, Report
from acpc_arena.dealer.arena.run_progress import RunProgress
from acpc_arena.dealer.arena.runner import RunSpec
from acpc_arena.dealer.server.match import DEFAULT_T_HAND_MS, DEFAULT_T_PER_HAND_MS, DEFAULT_T_RESPONSE_MS
from acpc_arena.protocol.game import load_game, resolve_game_path


def play(
    agents: Sequence[str],
    game: str = "holdem.limit.2p.reverse_blinds",
    seeds: Sequence[int] = (1, 234, 6666),
    hands: int = 3000,
    *,
    in_process: bool = True,
    out_dir: str | Path | None = None,
    concurrency: int = 1,
    t_response_ms: int = DEFAULT_T_RESPONSE_MS,
    t_hand_ms: int = DEFAULT_T_HAND_MS,
    t_per_hand_ms: int = DEFAULT_T_PER_HAND_MS,
    aivat: bool | None = None,
) -> Report | MultiReport:
    """Play agents against each other in duplicate and return the run's report.

    ``agents``: one per seat of ``game`` (A, B and, in a three-player game, C), each an
    agent's spec (a shipped agent's name, ``package.module:Class``, ``path/file.py:Class``
    or an installed plugin's name: ``agents.registry``) followed by its options as
    ``acpc-agent`` takes them, e.g. ``("cfr --argmax", "mybot.py:MyBot --raise-at 0.7")``.
    ``game``: a shipped game's name or a game file. ``seeds``: the deal seeds; every seed is
    played in every seating of the agents, ``hands`` hands a match. The logs go to ``out_dir`` (default: a
    temporary folder, removed before this returns: the report keeps each player's results, and its
    matches' ``hands`` can no longer be read).
    ``concurrency`` matches are played at once (in process, the network agents' decisions of those
    matches are batched: ``in_process.DecisionBatcher``). The time limits are the dealer's
    (milliseconds, as ``acpc-match --t-response`` etc.).

    ``aivat``: add AIVAT's estimate to a two-player report (``extra["aivat"]``: its figures, or why it is
    unavailable), the agents' policies known; None: in Kuhn and Leduc only, where it is cheap.

    The report's ``extra`` holds the run's figures as ``acpc-match``'s ``report.json`` has them
    (``pipeline.RunResult.fields``), ``in_process`` first: its failures (``failed``: a match whose agent
    failed, ran out of time or could not start; its hands up to then are counted), its time and speed.
    Raises ValueError, one line, for a bad argument or an agent that cannot play ``game``; returns no
    report (ValueError) if no hand was played.
    """
    loaded = load_game(game)
    if len(agents) != loaded.num_players:
        raise ValueError(f"{game} has {loaded.num_players} seats: give as many agents, not {len(agents)}")
    if hands < 1 or concurrency < 1:
        raise ValueError(f"hands and concurrency must be 1 or more, not {hands} and {concurrency}")
    seeds = check_seeds(seeds)
    contestants = []
    for side, given in zip(SIDES, agents, strict=False):  # as many sides as seats (checked above)
        name, *args = shlex.split(given) or [""]
        if name == "human":
            raise ValueError("a person plays through acpc-match --a-external and acpc-agent human, not play()")
        check_spec(name)  # one line naming the spec as given
        contestant = Contestant(side, agent=absolute_spec(name), args=tuple(args))
        check_agent(contestant, loaded, game)
        contestants.append(contestant)
    a, b, *more = contestants
    with tempfile.TemporaryDirectory(prefix="acpc-play-") as scratch:
        spec = RunSpec(
            a=a, b=b, more=tuple(more), game_file=game, game=loaded, game_path=resolve_game_path(game).resolve(),
            seeds=seeds, hands=hands, out_dir=Path(out_dir) if out_dir is not None else Path(scratch),
            concurrency=concurrency, t_response_ms=t_response_ms, t_hand_ms=t_hand_ms, t_per_hand_ms=t_per_hand_ms,
            in_process=in_process,
            record_policies=in_process and loaded.num_players == 2 and wanted(loaded, contestants, aivat),
        )  # fmt: skip
        # AIVAT reads the hands again from the logs, before they are removed
        result = play_run(spec, RunProgress(spec, None, quiet=True), aivat=aivat, fields={"in_process": in_process})
    if result.report is None:
        raise ValueError(f"no match played a hand: {'; '.join(result.failed)}")
    return result.report
