"""Poker-CNN's training data: the decisions of chosen players, read from ACPC logs.

    python -m acpc_arena.models.training.poker_cnn_data     # make data: play the teacher's matches, then extract
    python -m acpc_arena.models.training.poker_cnn_data --logs L... --imitate NAME [NAME ...]   # any ACPC logs instead

Seed 004 learned from the 2017 ACPC competition logs, which cannot be downloaded
here. By default this plays the teacher (``TEACHER``: ``cfr`` on ``cfr-ehs2``,
always taking its most likely action) against itself and against ``random``,
``call`` and ``raise`` (``OPPONENTS``) on deal seeds 11 to 14 (the results tables'
seeds 1, 234 and 6666 are not used), in-process with the logs ``acpc-match`` writes
for the same agents and seeds, and keeps the teacher's decisions from those logs.
Self-play goes to twice the seeds, one seating each, both players' decisions kept;
the other pairings play both seatings. A stopped run picks up at the first match
without its ``SCORE`` line.

Every decision of an imitated player becomes one record: the view it decided on
(``models.q_networks.encoding.observe``: cards, round, pot, the opponent's last raise), the
action it took, the hand it belongs to, how many more decisions it made in that
hand, and whether it won the hand. ``records.npz`` holds them and
``manifest.json`` says where they came from (teacher, opponents, logs, counts).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent
from acpc_arena.agents.registry import agent_class
from acpc_arena.dealer.server.logfiles import MatchLog
from acpc_arena.dealer.server.match import MatchConfig
from acpc_arena.models.checkpoints import git_commit
from acpc_arena.models.q_networks.encoding import observe
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.match_log import read_log
from acpc_arena.protocol.state import CALL_ACTION, ActionKind, State
from acpc_arena.protocol.wire import LogHand, format_log_line, format_match_state, format_score_line, parse_match_state

DEFAULT_OUT = Path("runs/poker_cnn")
GAME = "holdem.limit.2p.reverse_blinds"
TEACHER = "cfr"
TEACHER_ARGS = "--checkpoint cfr-ehs2 --argmax"
OPPONENTS = ("cfr", "random", "call", "raise")
"""``agent`` or ``agent:options``, each a pairing the teacher plays (the teacher's own name: self-play)."""
SEEDS = (11, 12, 13, 14)
HANDS = 2500
"""Hands per match: 8 self-play matches and 3 x 8 against the baselines (``manifest.json`` counts the decisions)."""


def read_hands(paths: Iterable[str | Path], game: Game | None = None) -> Iterator[LogHand]:
    """Every hand of the ACPC logs at ``paths``, log after log, in order (``game`` overrides the logs' own)."""
    for path in paths:
        yield from read_log(path, game).hands


@dataclass
class Records:
    """One row per decision of an imitated player."""

    observations: np.ndarray
    """(N, fields) int16, ``models.q_networks.encoding.observe`` of the view the player decided on."""
    actions: np.ndarray
    """(N,) int8 ``ActionKind``: 0 fold, 1 call (or check), 2 raise."""
    rounds: np.ndarray
    """(N,) int8 betting round of the decision."""
    hands: np.ndarray
    """(N,) int32 hand number, counted over all the logs read (records of one hand stay together)."""
    later: np.ndarray
    """(N,) int8 decisions the same player made after this one in the hand (0: its last)."""
    won: np.ndarray
    """(N,) bool: the player won chips in the hand (a split pot or a loss is not a win)."""

    def __len__(self) -> int:
        return len(self.actions)

    def subset(self, rows: np.ndarray) -> Records:
        return Records(*(getattr(self, name)[rows] for name in _FIELDS))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **{name: getattr(self, name) for name in _FIELDS})

    @classmethod
    def load(cls, path: str | Path) -> Records:
        try:
            with np.load(path) as data:
                return cls(*(data[name] for name in _FIELDS))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a Poker-CNN records file ({exc}); make it with `make data`") from None


_FIELDS = ("observations", "actions", "rounds", "hands", "later", "won")


def decision_records(hands: Iterable[LogHand], imitate: Iterable[str]) -> Records:
    """The decisions of the players named in ``imitate``, each hand's betting replayed from its start."""
    names = set(imitate)
    rows: list[tuple[np.ndarray, int, int, int, int, bool]] = []
    for number, hand in enumerate(hands):
        final = hand.state
        state = State(final.game, final.hand_id, [list(cards) for cards in final.hole_cards], list(final.board_cards))
        for round_ in range(final.game.num_rounds):
            for action, player in zip(final.actions[round_], final.acting_players[round_], strict=True):
                if hand.names[player] in names:
                    won = hand.values[player] > 0
                    rows.append((observe(state, player), int(action.kind), round_, number, player, won))
                state.apply(action)
    if not rows:
        raise ValueError(f"no decisions of {', '.join(sorted(names))} in these logs (check the player names)")
    observations, actions, rounds, numbers, players, won = zip(*rows, strict=True)
    hands_column = np.array(numbers, dtype=np.int32)
    players_column = np.array(players, dtype=np.int32)
    return Records(
        observations=np.stack(observations).astype(np.int16),
        actions=np.array(actions, dtype=np.int8),
        rounds=np.array(rounds, dtype=np.int8),
        hands=hands_column,
        later=later_decisions(hands_column, players_column),
        won=np.array(won, dtype=bool),
    )


def later_decisions(hands: np.ndarray, players: np.ndarray) -> np.ndarray:
    """For each row, the rows after it of the same hand and player (rows of a hand are consecutive)."""
    later = np.zeros(len(hands), dtype=np.int8)
    for i in range(len(hands) - 2, -1, -1):
        j = i + 1
        while j < len(hands) and hands[j] == hands[i]:
            if players[j] == players[i]:
                later[i] = later[j] + 1
                break
            j += 1
    return later


def action_counts(records: Records) -> dict[str, int]:
    return {kind.name.lower(): int((records.actions == kind).sum()) for kind in ActionKind}


# -- making the data set ---------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    """The teacher (side A) against ``opponent`` (side B, with ``options``), over ``seeds``."""

    opponent: str
    options: str
    seeds: tuple[int, ...]
    hands: int
    seatings: tuple[int, ...] = (1, 2)
    """A's seats (from 1) played for each seed: self-play plays one (the other repeats its views)."""


def pairings(teacher: str, opponents: Sequence[str], seeds: Sequence[int], hands: int) -> list[Pairing]:
    """``opponents`` entries are ``agent`` or ``agent:options``; the teacher itself is self-play,
    whose matches go to twice the seeds, one seating each (both players' decisions are kept)."""
    out = []
    for entry in opponents:
        agent, _, options = entry.partition(":")
        if agent == teacher:
            more = tuple(seeds) + tuple(seed + 100 for seed in seeds)
            out.append(Pairing(agent, options, more, hands, seatings=(1,)))
        else:
            out.append(Pairing(agent, options, tuple(seeds), hands))
    return out


def build_agent(name: str, options: str, game: Game, seed: int) -> Agent:
    """Agent ``name`` with its command-line ``options`` parsed as ``acpc-agent`` parses them."""
    cls = agent_class(name)
    parser = argparse.ArgumentParser(prog=cls.name)
    cls.add_arguments(parser)
    return cls(game, seed, **vars(parser.parse_args(shlex.split(options))))


def play_in_process(
    folder: Path, game_file: str, seed: int, a_seat: int, hands: int, a: tuple[str, str], b: tuple[str, str]
) -> Path:
    """One match of ``acpc-match`` (its log, byte for byte), played in this process without TCP.

    ``a`` and ``b`` are (agent, options). The agents get the seeds and see exactly
    the states they would over TCP (each view is printed and read back as the
    dealer's ``MATCHSTATE`` line), and are called in the same order.
    """
    game = load_game(game_file)
    sides = {"a": a, "b": b}
    labels = ("a", "b") if a_seat == 1 else ("b", "a")
    agents = [build_agent(*sides[label], game, seed * 100 + (1 if label == "a" else 2)) for label in labels]
    names = tuple(f"{label}-{sides[label][0]}" for label in labels)
    config = MatchConfig(
        name=f"seed{seed}-a{a_seat}", game=game, game_file=game_file, hands=hands, seed=seed, players=names
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{config.name}.log"
    log = MatchLog(path)
    totals = [0.0] * game.num_players
    try:
        log.write_text(config.header())
        for state in deal_hands(game, seed, hands):
            seats = [config.seat_of_player(state.hand_id, p) for p in range(game.num_players)]
            for p, seat in enumerate(seats):
                agents[seat].begin_hand(parse_match_state(format_match_state(state, p), game))
            while not state.finished:
                p = state.current_player
                action = agents[seats[p]].act(parse_match_state(format_match_state(state, p), game))
                state.apply(state.validate_action(action, try_fixing=True) or CALL_ACTION)
            for p, seat in enumerate(seats):
                agents[seat].end_hand(parse_match_state(format_match_state(state, p), game))
            values = state.values()
            for p, seat in enumerate(seats):
                totals[seat] += values[p]
            log.write_line(format_log_line(state, values, [names[seat] for seat in seats]))
        log.write_line(format_score_line(totals, names))
    finally:
        log.close()
    return path


def _play_match(job: tuple[Path, str, int, int, int, tuple[str, str], tuple[str, str]]) -> Path:
    torch.set_num_threads(1)
    return play_in_process(*job)


def play_pairings(
    out: Path, teacher: tuple[str, str], pairings_: Sequence[Pairing], game_file: str, jobs: int
) -> list[Path]:
    """Play every match of ``pairings_`` not played yet (``jobs`` at once); all their logs."""
    todo, logs = [], []
    for pairing in pairings_:
        folder = out / "logs" / f"{teacher[0]}-vs-{pairing.opponent}"
        _check_pairing(folder, {"teacher": list(teacher), "game": game_file} | asdict(pairing))
        for seed in pairing.seeds:
            for a_seat in pairing.seatings:
                path = folder / f"seed{seed}-a{a_seat}.log"
                logs.append(path)
                if not _finished(path):
                    job = (folder, game_file, seed, a_seat, pairing.hands, teacher, (pairing.opponent, pairing.options))
                    todo.append(job)
    print(f"{len(logs) - len(todo)} of {len(logs)} matches played already; playing {len(todo)}", flush=True)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for path in pool.map(_play_match, todo):
            print(f"{time.strftime('%H:%M:%S')} {path}", flush=True)
    return logs


def _check_pairing(folder: Path, pairing: dict[str, Any]) -> None:
    """Refuse a folder holding the matches of another pairing (other agents, options, hands, seatings);
    more or fewer seeds are fine (one log a seed and seating)."""
    path = folder / "pairing.json"
    described = {key: value for key, value in pairing.items() if key != "seeds"}
    if path.exists() and json.loads(path.read_text()) != json.loads(json.dumps(described)):
        raise ValueError(f"{folder} holds other matches (see {path}): delete it or give another --out")
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(described, indent=2) + "\n")


def _finished(log: Path) -> bool:
    """The log exists and ends with its SCORE line."""
    if not log.exists():
        return False
    lines = log.read_text().splitlines()
    return bool(lines) and lines[-1].startswith("SCORE:")


def extract(logs: Sequence[Path], imitate: Sequence[str], out: Path, manifest: dict[str, Any]) -> Records:
    """Records of ``imitate``'s decisions in ``logs``, saved with their manifest in ``out``."""
    records = decision_records(read_hands(logs), imitate)
    records.save(out / "records.npz")
    manifest |= {
        "imitate": list(imitate),
        "logs": [str(path) for path in logs],
        "hands": int(records.hands.max()) + 1,
        "records": len(records),
        "actions": action_counts(records),
        "records_per_round": np.bincount(records.rounds).tolist(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "git_commit": git_commit(),  # pins the teacher's code and checkpoint
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return records


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m acpc_arena.models.training.poker_cnn_data", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--teacher", default=TEACHER, help=f"shipped agent to imitate (default {TEACHER})")
    parser.add_argument("--teacher-args", default=TEACHER_ARGS, help=f"its options (default {TEACHER_ARGS!r})")
    parser.add_argument(
        "--opponents", default=",".join(OPPONENTS), help="comma-separated agent[:options] the teacher plays"
    )
    parser.add_argument("--seeds", default=",".join(map(str, SEEDS)), help="deal seeds of the teacher's matches")
    parser.add_argument("--hands", type=int, default=HANDS, help=f"hands per match (default {HANDS})")
    parser.add_argument("--game", default=GAME, help=f"game of the teacher's matches (default {GAME})")
    parser.add_argument("--jobs", type=int, default=2, help="matches played at once (default 2)")
    parser.add_argument("--logs", type=Path, nargs="+", help="read these ACPC logs instead of playing matches")
    parser.add_argument("--imitate", nargs="+", help="with --logs: the player names whose decisions to keep")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.logs:
            if not args.imitate:
                parser.error("--logs needs --imitate NAME ...")
            logs, imitate = list(args.logs), list(args.imitate)
            manifest: dict[str, Any] = {"source": "logs given with --logs"}
        else:
            seeds = [int(s) for s in args.seeds.split(",")]
            plan = pairings(args.teacher, [o for o in args.opponents.split(",") if o], seeds, args.hands)
            logs = play_pairings(args.out, (args.teacher, args.teacher_args), plan, args.game, args.jobs)
            imitate = [f"a-{args.teacher}", f"b-{args.teacher}"]
            manifest = {
                "source": "the teacher's matches, played in-process as acpc-match plays them (same logs)",
                "teacher": args.teacher,
                "teacher_args": args.teacher_args,
                "pairings": [asdict(pairing) for pairing in plan],
                "game": args.game,
            }
        records = extract(logs, imitate, args.out, manifest)
    except (ProtocolError, ValueError, RuntimeError, OSError) as exc:
        sys.exit(f"error: {exc}")
    print(f"{len(records)} decisions of {', '.join(imitate)} in {args.out / 'records.npz'}: {action_counts(records)}")


if __name__ == "__main__":
    main()
