"""A tournament's output folder: its lock, and the checks of what it holds before a run trusts it.

The lock: ``tournament.lock`` in the folder, held with ``flock`` (exclusive, not waited
for) as long as the run lasts, holding the run's process id. A second run on the same
folder stops at once (``FolderInUse``), naming that process; the kernel lets go of the
lock when the process ends, however it ends (a kill -9 included).

Before a run resumes, every path it would read or write is checked, in two kinds:

- **Refused** (``refusal``; the run stops before it changes anything): where the
  tournament keeps a folder (a pair's, its ``agents/``) or a file (a log,
  ``report.json``, ``tournament.json``, the crosstable's files) there is something it
  never writes: a file for a folder, or a folder, FIFO, device, socket or symbolic
  link for a file. Someone else put it there; what it is for is theirs to say.
- **Played again** (``resume``): a regular file in a match's place that holds every
  hand and the ``SCORE`` line but is not that match's record is moved aside to
  ``<match>.log.rejected-N`` and the match is played again, one line saying so. Its
  faults (``log_problem``): it does not read as an ACPC log whose values follow from
  its cards and betting and whose ``SCORE`` line sums its hands (``match_log.read_log``),
  its header names another match, game, number of hands or seed, its players are not
  the pair's in the seats the match gives them (the match's seed and half of the
  duplicate pair, ``MatchSpec.seating``; hand by hand, as the seats rotate), or its
  cards are not those its seed deals; or it is past the bound on a log's bytes
  (``ACPC_ARENA_MAX_LOG_BYTES``, ``protocol.files``).

A log that does not hold every hand and the ``SCORE`` line (a match cut short) is
played again from its first hand, over the old log, as an interrupted run's is.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from acpc_arena.dealer.arena.contestants import check_agent
from acpc_arena.dealer.arena.fanout import MatchJob
from acpc_arena.dealer.arena.runner import MatchSpec, RunSpec
from acpc_arena.dealer.arena.tournament import Entrant, Tournament, match_finished
from acpc_arena.protocol.commands import FAILED, USAGE
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import GAME_BYTES, InputError, read_bounded
from acpc_arena.protocol.match_log import LoggedMatch, read_log
from acpc_arena.protocol.rng import MT19937

LOCK = "tournament.lock"
"""The lock file in the output folder."""
TOURNAMENT_FILES = ("tournament.json", "crosstable.json", "crosstable.md", "crosstable.png")
"""The files the tournament writes in its output folder (besides the lock)."""
PAIR_FILES = ("report.json",)
"""The files it writes in a pair's folder (besides the logs)."""


class FolderInUse(Exception):
    """Another process holds the folder's lock; the text says which, in one line."""


def lock_folder(folder: Path) -> int:
    """Make ``folder`` if needed and take its lock; returns the lock file's descriptor (the lock lasts
    until it is closed or the process ends). ``FolderInUse`` if another process holds it; ``OSError``
    if the lock file cannot be opened (a folder or a symbolic link in its place)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(f"{path} is not a regular file")
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip()
            who = f"process {holder}" if holder.isdigit() else "another process"
            raise FolderInUse(
                f"{folder} is in use by {who} (another run of this tournament): "
                "wait for it to end, or give another --out"
            ) from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode("ascii"), 0)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _kind(mode: int) -> str:
    """What a file of ``mode`` is, in words."""
    kinds = {
        stat.S_ISDIR: "a folder",
        stat.S_ISLNK: "a symbolic link",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
        stat.S_ISCHR: "a device",
        stat.S_ISBLK: "a device",
    }
    return next((words for test, words in kinds.items() if test(mode)), "a regular file")


def _mode(path: Path) -> int | None:
    """``path``'s mode, not following a symbolic link; None if nothing is there."""
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return None


def _not_a_file(path: Path) -> str | None:
    """Why ``path`` cannot be one of the tournament's files, or None (a regular file, or nothing)."""
    mode = _mode(path)
    if mode is None or stat.S_ISREG(mode):
        return None
    return f"{path} is {_kind(mode)}, where the tournament keeps a file of its own"


def _not_a_folder(path: Path) -> str | None:
    """Why ``path`` cannot be one of the tournament's folders, or None (a folder, or nothing)."""
    mode = _mode(path)
    if mode is None or stat.S_ISDIR(mode):
        return None
    return f"{path} is {_kind(mode)}, where the tournament keeps a folder of its own"


def refusal(tournament: Tournament) -> str | None:
    """Why the tournament cannot run in its folder as it stands (one line, the first path at fault), or None."""
    out = tournament.out_dir
    for name in TOURNAMENT_FILES:
        if problem := _not_a_file(out / name):
            return problem
    for first, second in tournament.pairs():
        spec = tournament.run_spec(first, second)
        for folder in (spec.out_dir, spec.out_dir / "agents"):
            if problem := _not_a_folder(folder):
                return problem
        logs = [spec.out_dir / f"{match.name}.log" for match in spec.matches()]
        for path in [*logs, *(spec.out_dir / name for name in PAIR_FILES)]:
            if problem := _not_a_file(path):
                return problem
    return None


def log_problem(log: LoggedMatch, spec: RunSpec, match: MatchSpec) -> str | None:
    """What makes ``log`` (read by ``match_log.read_log``) not a record of ``match`` of ``spec``, or None.

    Its header must name the match, the game, the hands and the seed; its players, by
    seat, the pair's as the match seats them, in every hand's positions as the seats
    rotate; its cards those the seed deals; at most the planned hands.
    """
    header = (log.name, log.game_file, log.planned_hands, log.seed)
    wanted = (match.name, spec.game_file, spec.hands, match.seed)
    if header != wanted:
        shown = " ".join(map(str, header))
        return f"{log.path}: its header is {shown!r}, not {' '.join(map(str, wanted))!r}"
    seats = tuple(contestant.name for contestant in match.seating(spec.contestants))
    if log.seat_names != seats:
        return f"{log.path}: its players by seat are {'|'.join(log.seat_names)}; {match.name} seats {'|'.join(seats)}"
    if len(log.hands) > spec.hands:
        return f"{log.path}: {len(log.hands)} hands, more than the {spec.hands} planned"
    players = len(seats)
    rng = MT19937(match.seed)  # the hands dealt one at a time, as the log's are read
    for hand in log.hands:
        dealt = deal_hand(spec.game, hand.state.hand_id, rng)
        state = hand.state
        positions = tuple(seats[(p + state.hand_id) % players] for p in range(players))
        if hand.names != positions:
            named, given = "|".join(hand.names), "|".join(positions)
            return f"{log.path}: hand {state.hand_id} names {named}, where the seats give {given}"
        board = dealt.board_cards[: len(state.board_cards)]
        if state.hole_cards != dealt.hole_cards or state.board_cards != board:
            return f"{log.path}: hand {state.hand_id}'s cards are not those seed {match.seed} deals"
    return None


def _finished_problem(path: Path, spec: RunSpec, match: MatchSpec) -> str | None:
    """Why the finished-looking log at ``path`` is not ``match``'s whole record, or None."""
    try:
        log = read_log(path, spec.game)
    except ProtocolError as exc:
        return str(exc)
    if problem := log_problem(log, spec, match):
        return problem
    if len(log.hands) != spec.hands or log.score is None or log.dropped_lines:
        return f"{path}: not a whole match of {spec.hands} hands ending with its SCORE line"
    return None


def set_aside(path: Path) -> Path:
    """Rename ``path`` to ``<name>.rejected-N``, N the first number free; returns the new path."""
    number = 1
    while _mode(aside := path.with_name(f"{path.name}.rejected-{number}")) is not None:
        number += 1
    path.rename(aside)
    return aside


def resume(tournament: Tournament) -> tuple[list[tuple[Entrant, Entrant, MatchSpec]], list[str]]:
    """The matches to play (pair by pair) and a line for each log set aside to be played again.

    Checks every finished-looking log (``log_problem`` and ``match_log.read_log``); moves a
    failing one aside (``set_aside``). Run ``refusal`` first: this trusts the paths' kinds.
    Raises ValueError (one line) if a log cannot be moved aside.
    """
    todo = []
    told = []
    for first, second in tournament.pairs():
        spec = tournament.run_spec(first, second)
        for match in spec.matches():
            path = spec.out_dir / f"{match.name}.log"
            try:
                finished = match_finished(path, tournament.hands)
                problem = _finished_problem(path, spec, match) if finished else None
            except InputError as exc:  # past the bound on a log's bytes
                finished, problem = True, str(exc)
            if not finished:
                todo.append((first, second, match))
                continue
            if problem is None:
                continue
            try:
                aside = set_aside(path)
            except OSError as exc:
                raise ValueError(f"{problem}; it could not be moved aside: {exc.strerror or exc}") from None
            told.append(f"acpc-tournament: {problem}; moved aside to {aside.name}, the match is played again")
            todo.append((first, second, match))
    return todo, told


def close_lock(descriptor: int) -> None:
    """Let go of the lock ``lock_folder`` took."""
    with contextlib.suppress(OSError):
        os.close(descriptor)


def pair_logs(spec: RunSpec, told: set[Path] | None = None, failures: list[str] | None = None) -> list[LoggedMatch]:
    """The pair's logs with a hand or more that are its matches' records (``log_problem``); any other is left
    out, and told in ``failures`` (when given) unless its path is in ``told`` (a match told failed already)."""
    logged = []
    for match in spec.matches():
        path = spec.out_dir / f"{match.name}.log"
        if not path.exists():
            continue
        try:
            log = read_log(path, spec.game)
        except ProtocolError as exc:
            if failures is not None and path not in (told or set()):
                failures.append(f"not scored: {exc}")
            continue
        problem = log_problem(log, spec, match)
        if problem is not None:
            if failures is not None:
                failures.append(f"not scored: {problem}")
        elif log.hands:
            logged.append(log)
    return logged


def run_locked(command: str, tournament: Tournament, game_name: str, run: Callable[[], int]) -> int:
    """Check the entrants' agents, lock the tournament's folder and ``run`` in it; the exit status (a bad
    agent is a usage error, a folder in use a failure, each told in one line)."""
    try:
        for entrant in tournament.entrants:
            check_agent(entrant.contestant("a"), tournament.game, game_name)
    except (ProtocolError, ValueError) as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return USAGE
    try:
        lock = lock_folder(tournament.out_dir)
    except FolderInUse as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return FAILED
    except OSError as exc:
        print(f"{command}: cannot use the output folder {tournament.out_dir}: {exc.strerror or exc}", file=sys.stderr)
        return USAGE
    try:
        return run()
    finally:
        close_lock(lock)


def pending_jobs(tournament: Tournament) -> tuple[list[MatchJob], list[str]]:
    """The folder checked and claimed: the jobs of the matches still to play, and the logs set aside.
    ValueError, ProtocolError, UnicodeDecodeError (a usage error), or OSError (the folder)."""
    refused = refusal(tournament)
    if refused is not None:
        raise ValueError(f"{refused}: move it away, or give another --out")
    tournament.claim_folder()
    game_text = read_bounded(tournament.game_path, GAME_BYTES).decode("ascii")
    pending, set_aside = resume(tournament)
    jobs = [MatchJob(tournament.run_spec(first, second), match, game_text) for first, second, match in pending]
    return jobs, set_aside
