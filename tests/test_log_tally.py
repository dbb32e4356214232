"""A run the runner plays itself is scored from what ``LogTally`` kept as the logs were written, not by
reading them back: what it gives must be what ``read_log`` reads from the same logs, field by field and
to the bit (the reference: ``read_log``, and the logs' own text parsed here in a few lines); a match
that did not play all its hands is read back from its log.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
import trio

from acpc_arena.agents.base import Agent
from acpc_arena.dealer.arena import runner
from acpc_arena.dealer.arena.contestants import Contestant, build_agent
from acpc_arena.dealer.arena.log_tally import LogTally
from acpc_arena.dealer.arena.reports import build_report
from acpc_arena.dealer.arena.runner import MatchOutcome, RunSpec, run_matches
from acpc_arena.dealer.arena.scoring import score_run
from acpc_arena.dealer.server.match import DEFAULT_T_RESPONSE_MS, MatchConfig
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import Game, load_game, resolve_game_path
from acpc_arena.protocol.match_log import LoggedMatch, read_log
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.wire import parse_log_line
from tests.helpers.agents import SlowOnFifthDecision
from tests.helpers.processes import program

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"
NOLIMIT_3P = "holdem.nolimit.3p"


def _spec(
    game: str, a: str, b: str, out: Path, in_process: bool, hands: int, t_response_ms: int = DEFAULT_T_RESPONSE_MS
) -> RunSpec:
    more = tuple(Contestant("c", agent="random") for _ in range(load_game(game).num_players - 2))
    return RunSpec(
        a=Contestant("a", agent=a), b=Contestant("b", agent=b), game_file=game, game=load_game(game),
        game_path=resolve_game_path(game).resolve(), seeds=(5,), hands=hands, out_dir=out, concurrency=2,
        in_process=in_process, t_response_ms=t_response_ms, more=more,
    )  # fmt: skip


def _run(spec: RunSpec) -> list[MatchOutcome]:
    return trio.run(run_matches, spec)


def _assert_same(kept: LoggedMatch, read: LoggedMatch) -> None:
    for name in ("path", "name", "game_file", "game", "planned_hands", "seed", "seat_names", "score", "dropped_lines"):
        assert getattr(kept, name) == getattr(read, name), name
    assert len(kept.hands) == len(read.hands)
    assert [h.state.hand_id for h in kept.hands.at([0, len(read.hands) - 1])] == [0, len(read.hands) - 1]
    assert len(kept.values) == len(read.values)
    for mine, theirs in zip(kept.values, read.values, strict=True):
        assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes()  # to the bit
        assert not mine.flags.writeable
    assert kept.allin_hands.tolist() == read.allin_hands.tolist()


@pytest.mark.parametrize(
    ("game", "a", "b", "in_process", "count"),
    [
        (LIMIT, "random", "call", True, 300),
        # spar_overbet works out its equity against a range on each new board (~30 ms in this process): 100 hands
        (NOLIMIT, "random", "spar_overbet", True, 100),
        (NOLIMIT, "random", "raise", False, 300),
        (NOLIMIT_3P, "random", "raise", True, 300),
    ],
    ids=["limit-in-process", "nolimit-in-process", "nolimit-tcp", "nolimit-3p-in-process"],
)
def test_what_the_tally_kept_is_what_read_log_reads(
    tmp_path: Path, game: str, a: str, b: str, in_process: bool, count: int
) -> None:
    outcomes = _run(_spec(game, a, b, tmp_path, in_process, count))
    allin = 0
    for outcome in outcomes:
        assert outcome.error is None and outcome.tally is not None
        kept = outcome.tally.logged(outcome.log)
        assert kept is not None
        read = read_log(outcome.log, load_game(game))
        _assert_same(kept, read)
        allin += len(read.allin_hands)
        hands = [parse_log_line(line, read.game) for line in outcome.log.read_text().splitlines() if "STATE:" in line]
        by_name = {name: [h.values[h.names.index(name)] for h in hands] for name in read.seat_names}
        assert {name: kept.values_of(name).tolist() for name in read.seat_names} == by_name
    assert allin > 0 if game != LIMIT else allin == 0  # the no-limit runs have hands that ended all in


def test_a_match_cut_short_is_read_back_from_its_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat that runs out of time ends its match early: the tally gives nothing, the log is scored as written."""
    built = build_agent

    def slow_caller(contestant: Contestant, game: Game, seed: int) -> Agent:
        return SlowOnFifthDecision(game, seed) if contestant.agent == "call" else built(contestant, game, seed)

    monkeypatch.setattr(runner, "build_agent", slow_caller)
    spec = _spec(LIMIT, "random", "call", tmp_path, True, 50, t_response_ms=200)
    outcomes = _run(spec)
    assert all(o.error is not None and o.tally is not None for o in outcomes)
    assert [o.tally.logged(o.log) for o in outcomes if o.tally is not None] == [None, None]
    report = score_run(spec, outcomes, [])
    assert report is not None
    read = [read_log(o.log, spec.game) for o in outcomes if "STATE:" in o.log.read_text()]  # some hands logged
    assert read and all(0 < len(m.hands) < 50 and m.score is None for m in read)
    errors = {o.log: o.error for o in outcomes if o.error is not None}
    expected = build_report(read, a="a-random", errors=errors).to_json()
    assert json.dumps(report.to_json()) == json.dumps(expected)  # as text: NaN (no pair of seats) equals NaN


def test_a_value_is_kept_as_the_log_writes_it() -> None:
    """A value that is not a whole number is kept as the log's six decimals give it back."""
    game = load_game(LIMIT)
    config = MatchConfig(name="m", game=game, game_file=LIMIT, hands=1, seed=1, players=("A", "B"))
    tally = LogTally(config)
    tally.hand_finished(config, deal_hand(game, 0, MT19937(1)), [1 / 3, -2 / 3], [1 / 3, -2 / 3])
    assert tally.columns["A"].tolist() == [0.333333] and tally.columns["B"].tolist() == [-0.666667]


Z = NormalDist().inv_cdf(0.975)


def test_acpc_match_reports_what_its_logs_give(tmp_path: Path) -> None:
    """acpc-match --in-process's report.json has the figures of its own logs read back, and the duplicate
    estimate numpy gives on the values parsed from the logs' text."""
    out = tmp_path / "run"
    done = subprocess.run(
        [program("acpc-match"), "--a", "random", "--b", "call", "--seeds", "1,2", "--hands", "500",
         "--game", LIMIT, "--out", str(out), "--in-process", "--no-plots", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    logs = sorted(out.glob("seed*.log"))
    expected = build_report([read_log(path, load_game(LIMIT)) for path in logs], a="a-random").to_json()
    assert {key: value for key, value in report.items() if key in expected} == expected
    seats = {}
    for path in logs:
        values = []
        for line in path.read_text().splitlines():
            if line.startswith("STATE:"):
                fields = line.split(":")
                values.append(float(fields[4].split("|")[fields[5].split("|").index("a-random")]))
        seats[path.name] = np.array(values)
    pairs = np.concatenate([(seats[f"seed{s}-a1.log"] + seats[f"seed{s}-a2.log"]) / 2 for s in (1, 2)])
    mean, half = pairs.mean(), Z * pairs.std(ddof=1) / math.sqrt(len(pairs))
    scale = 1000 / 10  # mbb a hand: the big blind is 10
    duplicate = report["duplicate"]
    assert (duplicate["mbb_per_hand"], *duplicate["ci95"]) == pytest.approx(
        (mean * scale, (mean - half) * scale, (mean + half) * scale), rel=1e-12
    )
