"""One run of a job played through the arena's runner (``runner.run_matches``), as ``acpc-match`` plays a
match: the hosted bots started for it, the requester's bots (``LOCAL``) connecting to the ports announced."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.runner import MatchSpec, RunObserver, RunSpec, run_matches
from acpc_arena.dealer.benchmark_server.config import LOCAL, BmConfig, GameConfig
from acpc_arena.dealer.benchmark_server.store import QueuedRun, Result

LABELS = "abcdefghij"
NO_LIMIT_S = 10.0**7
"""The wait for a connection where the config's startup time is 0 (no limit)."""


@dataclass(frozen=True)
class Played:
    ok: bool
    log: Path | None
    error: str | None
    results: list[Result]


class _Announcer(RunObserver):
    def __init__(self, on_waiting: Callable[[int], None]) -> None:
        self.on_waiting = on_waiting

    def external_waiting(self, match: MatchSpec, contestant: Contestant, host: str, port: int) -> None:
        self.on_waiting(port)


def contestants(
    run: QueuedRun, game: GameConfig, local_from: str | None = None, plain: bool = False
) -> list[Contestant]:
    """The run's players by seat: its user's bot for ``LOCAL`` (taken only from the address ``local_from``
    where one is given), the hosted bots by their config lines. Their names in the log are ``a-USER``,
    ``b-BOT``, ... (the runner's ``label-name``), or with ``plain`` ``USER``, ``BOT`` as ``bm_server.c`` names
    them (labelled all the same where two seats would share a name: a log could not tell them apart)."""
    titles = [run.user if player == LOCAL else player for player in run.players]
    plain = plain and len(set(titles)) == len(titles)
    seated = []
    position = 0
    for label, player in zip(LABELS, run.players, strict=False):
        if player == LOCAL:
            allowed = None if local_from is None else (local_from,)
            seated.append(Contestant(label, external=True, title=run.user, allowed_from=allowed, plain=plain))
            continue
        bot = game.bots[player]
        if bot.agent is not None:
            seated.append(Contestant(label, agent=bot.agent, args=bot.args, title=bot.name, plain=plain))
        else:
            seated.append(Contestant(label, command=bot.command_line(position), title=bot.name, plain=plain))
            position += 1
    return seated


def hosted_bots(players: tuple[str, ...]) -> int:
    return sum(player != LOCAL for player in players)


async def play_run(
    run: QueuedRun,
    config: BmConfig,
    out_dir: Path,
    where: tuple[str, str],
    on_waiting: Callable[[int], None],
    local_from: str | None = None,
    plain: bool = False,
) -> Played:
    """Play ``run`` afresh into ``out_dir`` (emptied first), listening on ``where``'s address and telling the
    bots its announced one (``(host, announce)``); ``on_waiting(port)`` for each ``LOCAL`` seat's port, which
    takes a connection from ``local_from`` only (None: any)."""
    game = config.games[run.game]
    shutil.rmtree(out_dir, ignore_errors=True)
    seated = contestants(run, game, local_from, plain)
    startup = float(config.startup_timeout_secs) or NO_LIMIT_S
    spec = RunSpec(
        a=seated[0],
        b=seated[1],
        more=tuple(seated[2:]),
        game_file=game.name,
        game=game.game,
        game_path=game.path,
        seeds=(run.seed,),
        hands=game.match_hands,
        out_dir=out_dir,
        host=where[0],
        announce=where[1],
        t_response_ms=config.response_timeout_secs * 1000,
        t_hand_ms=config.hand_timeout_secs * 1000,
        t_per_hand_ms=config.avg_hand_time_secs * 1000,
        connect_timeout=startup,
        external_timeout=startup,
    )
    (outcome,) = await run_matches(spec, _Announcer(on_waiting), matches=[MatchSpec(run.seed, 0, len(seated))])
    results = []
    if outcome.result is not None and outcome.result.hands_played:
        results = [
            Result(seat, contestant.name, total, outcome.result.hands_played)
            for seat, (contestant, total) in enumerate(zip(seated, outcome.result.totals, strict=True))
        ]
    error = outcome.error
    if error is not None and outcome.agent_notes:
        error = f"{error}; {'; '.join(outcome.agent_notes)}"
    log = outcome.log if outcome.log.exists() else None
    return Played(error is None, log, error, results)
