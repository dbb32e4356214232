"""Round robins: every pair of entrants in duplicate, and the crosstable of their mbb/h.

A tournament is the ``acpc-match`` run of every pair of entrants (the first of the
pair as A): each seed in both seatings, the same dealer, the same logs. Its output
folder holds one folder per pair (``<first>-vs-<second>/``, with the pair's logs,
``agents/`` and ``report.json``), ``tournament.json`` (the settings), and the
crosstable (``crosstable.json``, ``crosstable.md``, ``crosstable.png``).

The logs are the record: a match counts as played once its log holds every hand
and the final ``SCORE`` line and is that match's record (``tournament_folder``
checks it, and the folder's lock keeps one run at a time). Running the same
tournament again with the same output folder plays only the matches that are not
(a crash or Ctrl-C loses no finished match; a match cut short is played again from
its first hand); entrants may be added, which plays the new pairs alone. Settings
that would change a finished match (game, seeds, hands, time limits, an entrant's
definition) are refused for an existing folder.

The crosstable's cell (row X, column Y) is X's duplicate mbb/h against Y with its
95% interval, from X's side (so the cell (Y, X) is its negation). An entrant's
average against the field is the mean of its row; the pairs are independent
samples, so its interval's half-width is the root of the sum of the squared
half-widths, divided by the number of opponents.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from acpc_arena.agents.registry import spec_label
from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.arena.estimates import Estimate, signed
from acpc_arena.dealer.arena.options import check_command
from acpc_arena.dealer.arena.reports import Report
from acpc_arena.dealer.arena.runner import RunSpec
from acpc_arena.dealer.server.match import DEFAULT_T_HAND_MS, DEFAULT_T_PER_HAND_MS, DEFAULT_T_RESPONSE_MS
from acpc_arena.protocol.files import LOG_BYTES, InputError, read_bounded, read_json, write_atomic
from acpc_arena.protocol.game import Game

_NAME = re.compile(r"[A-Za-z0-9_.+-]+")


@dataclass(frozen=True)
class Entrant:
    """One player of a tournament: an agent (its spec, ``agents.registry``) with its options, or any ACPC bot's
    command line."""

    name: str
    """Unique in the tournament: the folders, the table and the logs' player names use it."""
    agent: str | None = None
    """An agent's spec, a file's path absolute (``registry.absolute_spec``)."""
    args: tuple[str, ...] = ()
    command: str | None = None
    """A command line as ``acpc-match --a-cmd`` takes it (``{host}``, ``{port}``, ``{game}``, ``{seed}``)."""

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name) or "-vs-" in self.name:
            raise ValueError(f"entrant name {self.name!r}: use letters, digits and _ . + - only, without '-vs-'")
        if (self.agent is None) == (self.command is None):
            raise ValueError(f"entrant {self.name}: give an agent or a command, one of them")
        if self.command is not None:
            check_command(self.command)

    def contestant(self, side: str) -> Contestant:
        """This entrant as side ``side`` (``a`` or ``b``) of a pair's run; its logs call it ``<side>-<name>``."""
        if self.command is not None:
            return Contestant(side, command=self.command, title=self.name)
        return Contestant(side, agent=self.agent, args=self.args, title=self.name)

    @staticmethod
    def parse(text: str) -> Entrant:
        """``AGENT [OPTIONS]`` (named after the agent: its ``spec_label``, a plugin's class name) or
        ``NAME=AGENT [OPTIONS]``, AGENT a spec."""
        name, equals, rest = text.partition("=")
        if not equals or not _NAME.fullmatch(name.strip()):
            name, rest = "", text
        words = shlex.split(rest)
        if not words:
            raise ValueError(f"entrant {text!r}: no agent given")
        return Entrant(name.strip() or spec_label(words[0]), agent=words[0], args=tuple(words[1:]))

    @staticmethod
    def parse_command(text: str) -> Entrant:
        """``NAME=COMMAND LINE``."""
        name, equals, command = text.partition("=")
        if not equals or not command.strip():
            raise ValueError(f"--cmd takes NAME=COMMAND, e.g. 'mybot=./mybot {{host}} {{port}}': {text!r}")
        return Entrant(name.strip(), command=command.strip())


@dataclass(frozen=True)
class Tournament:
    entrants: tuple[Entrant, ...]
    game_file: str
    game: Game
    game_path: Path
    seeds: tuple[int, ...]
    hands: int
    out_dir: Path
    concurrency: int = 1
    in_process: bool = False
    host: str = "127.0.0.1"
    t_response_ms: int = DEFAULT_T_RESPONSE_MS
    t_hand_ms: int = DEFAULT_T_HAND_MS
    t_per_hand_ms: int = DEFAULT_T_PER_HAND_MS

    def __post_init__(self) -> None:
        if len(self.entrants) < 2:
            raise ValueError("a tournament needs two entrants or more")
        names = [e.name for e in self.entrants]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"entrant names must differ: {', '.join(repeated)} (name them NAME=AGENT ...)")
        if self.game.num_players != 2:
            raise ValueError(
                f"a tournament is played in two-player games; {self.game_file} has {self.game.num_players}"
            )

    def pairs(self) -> list[tuple[Entrant, Entrant]]:
        """Every pair once, in the entrants' order, each as (A, B): A the one whose name sorts first, so that
        a pair's matches (its agents' seeds follow A and B) and its cell do not depend on the order the
        entrants are given in."""
        return [(x, y) if x.name < y.name else (y, x) for x, y in itertools.combinations(self.entrants, 2)]

    def pair_folder(self, first: Entrant, second: Entrant) -> Path:
        return self.out_dir / f"{first.name}-vs-{second.name}"

    def run_spec(self, first: Entrant, second: Entrant) -> RunSpec:
        """The ``acpc-match`` run of one pair."""
        return RunSpec(
            a=first.contestant("a"), b=second.contestant("b"), game_file=self.game_file, game=self.game,
            game_path=self.game_path, seeds=self.seeds, hands=self.hands, out_dir=self.pair_folder(first, second),
            concurrency=self.concurrency, host=self.host, t_response_ms=self.t_response_ms,
            t_hand_ms=self.t_hand_ms, t_per_hand_ms=self.t_per_hand_ms, in_process=self.in_process,
        )  # fmt: skip

    def settings(self) -> dict[str, Any]:
        """What a finished match depends on (``tournament.json``, as JSON reads it back); the entrants by name."""
        settings = {
            "game": self.game_file,
            "seeds": list(self.seeds),
            "hands": self.hands,
            "t_response_ms": self.t_response_ms,
            "t_hand_ms": self.t_hand_ms,
            "t_per_hand_ms": self.t_per_hand_ms,
            "entrants": {e.name: {k: v for k, v in asdict(e).items() if k != "name"} for e in self.entrants},
        }
        result: dict[str, Any] = json.loads(json.dumps(settings))
        return result

    def claim_folder(self) -> None:
        """Make the output folder, or check that the one there holds this tournament (ValueError if not).

        New entrants may join an existing tournament; nothing that changes a finished match may differ.
        ``tournament.json`` is written (whole or not at all) only when it changes.
        """
        path = self.out_dir / "tournament.json"
        mine = self.settings()
        before = None
        if path.exists():
            try:
                before = read_json(path)
                theirs = dict(before)
                theirs_entrants = dict(theirs.pop("entrants"))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise ValueError(f"{path} cannot be read ({exc}): give another --out") from None
            changed = [key for key in {**mine, **theirs} if key != "entrants" and theirs.get(key) != mine.get(key)]
            changed += [
                f"entrant {name}"
                for name, entrant in mine["entrants"].items()
                if theirs_entrants.get(name, entrant) != entrant
            ]
            if changed:
                raise ValueError(
                    f"{self.out_dir} holds a tournament with other settings ({', '.join(changed)} differ): "
                    "run it with its own settings to resume it, or give another --out"
                )
            mine["entrants"] = {**theirs_entrants, **mine["entrants"]}
        self.out_dir.mkdir(parents=True, exist_ok=True)
        if mine != before:
            write_atomic(path, json.dumps(mine, indent=2) + "\n")


def match_finished(log: Path, hands: int) -> bool:
    """Whether ``log`` holds ``hands`` hands and the final ``SCORE`` line (all whole lines, ended by
    line feeds alone: the ACPC log's line end). ``InputError`` if it is not a regular file or is
    past ``ACPC_ARENA_MAX_LOG_BYTES``."""
    try:
        data = read_bounded(log, LOG_BYTES)
    except InputError:
        raise
    except OSError:
        return False
    lines = data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]
    return (
        bool(lines) and lines[-1].startswith(b"SCORE:") and sum(line.startswith(b"STATE:") for line in lines) == hands
    )


@dataclass(frozen=True)
class Cell:
    """Row's duplicate result against the column's (mbb/h, 95% interval), over ``pairs`` hand pairs."""

    mbb_per_hand: float
    ci95: tuple[float, float]
    pairs: int
    allin_mbb_per_hand: float | None = None
    allin_ci95: tuple[float, float] | None = None
    aivat_mbb_per_hand: float | None = None
    """AIVAT's estimate (duplicate where both seatings were played), where it was computed."""
    aivat_ci95: tuple[float, float] | None = None

    @property
    def half_width(self) -> float:
        return (self.ci95[1] - self.ci95[0]) / 2

    def negated(self) -> Cell:
        allin_ci = None if self.allin_ci95 is None else (-self.allin_ci95[1], -self.allin_ci95[0])
        allin = None if self.allin_mbb_per_hand is None else -self.allin_mbb_per_hand
        aivat_ci = None if self.aivat_ci95 is None else (-self.aivat_ci95[1], -self.aivat_ci95[0])
        aivat = None if self.aivat_mbb_per_hand is None else -self.aivat_mbb_per_hand
        return Cell(-self.mbb_per_hand, (-self.ci95[1], -self.ci95[0]), self.pairs, allin, allin_ci, aivat, aivat_ci)

    @staticmethod
    def of_report(report: Report) -> Cell:
        """A's figure: duplicate when both seatings were played, else per hand; all-in adjusted where it differs;
        AIVAT's where the report has it."""
        main = report.duplicate if report.duplicate_pairs else report.per_hand
        adjusted = report.allin_duplicate if report.duplicate_pairs else report.allin_per_hand
        differs = _differs(main, adjusted)
        aivat = report.extra.get("aivat") or {}
        aivat_ci = (float(aivat["ci95"][0]), float(aivat["ci95"][1])) if "ci95" in aivat else None
        return Cell(
            main.mbb_per_hand,
            main.ci95,
            report.duplicate_pairs,
            adjusted.mbb_per_hand if differs else None,
            adjusted.ci95 if differs else None,
            aivat.get("mbb_per_hand"),
            aivat_ci,
        )


def _differs(main: Estimate, adjusted: Estimate) -> bool:
    return not (math.isclose(main.mbb_per_hand, adjusted.mbb_per_hand) and main.ci95 == adjusted.ci95)


@dataclass(frozen=True)
class Crosstable:
    names: tuple[str, ...]
    cells: dict[tuple[str, str], Cell]
    """(row, column) -> the row's result against the column; missing where the pair played no hand."""
    game_file: str
    seeds: tuple[int, ...]
    hands: int

    @staticmethod
    def of_pairs(tournament: Tournament, results: dict[tuple[str, str], Cell]) -> Crosstable:
        """From each pair's cell, first entrant's side; fills in the other side."""
        cells = dict(results)
        for (first, second), cell in results.items():
            cells[(second, first)] = cell.negated()
        names = tuple(e.name for e in tournament.entrants)
        return Crosstable(names, cells, tournament.game_file, tournament.seeds, tournament.hands)

    def average(self, name: str) -> Cell | None:
        """``name``'s mean result against the opponents it has a cell against (see the module's text)."""
        row = [self.cells[(name, other)] for other in self.names if (name, other) in self.cells]
        if not row:
            return None
        mean = sum(c.mbb_per_hand for c in row) / len(row)
        half = math.sqrt(sum(c.half_width**2 for c in row)) / len(row)
        return Cell(mean, (mean - half, mean + half), sum(c.pairs for c in row))

    def ranking(self) -> list[str]:
        """The entrants by average against the field, best first (no result last)."""
        averages = {name: self.average(name) for name in self.names}
        return sorted(self.names, key=lambda n: -averages[n].mbb_per_hand if averages[n] else math.inf)  # type: ignore[union-attr]

    def to_json(self) -> dict[str, Any]:
        def cell_json(cell: Cell | None) -> dict[str, Any] | None:
            if cell is None:
                return None
            out: dict[str, Any] = {"mbb_per_hand": cell.mbb_per_hand, "ci95": list(cell.ci95), "pairs": cell.pairs}
            if cell.allin_mbb_per_hand is not None and cell.allin_ci95 is not None:
                out["allin_adjusted"] = {"mbb_per_hand": cell.allin_mbb_per_hand, "ci95": list(cell.allin_ci95)}
            if cell.aivat_mbb_per_hand is not None and cell.aivat_ci95 is not None:
                out["aivat"] = {"mbb_per_hand": cell.aivat_mbb_per_hand, "ci95": list(cell.aivat_ci95)}
            return out

        return {
            "game": self.game_file,
            "seeds": list(self.seeds),
            "hands": self.hands,
            "estimate": "duplicate mbb/hand of the row against the column, 95% interval",
            "entrants": list(self.ranking()),
            "crosstable": {
                row: {col: cell_json(self.cells.get((row, col))) for col in self.names if col != row}
                for row in self.names
            },
            "average": {name: cell_json(self.average(name)) for name in self.names},
        }

    def markdown(self) -> str:
        """The table, rows and columns by average against the field, each cell ``+123 ±45``."""
        order = self.ranking()
        lines = [
            "| agent | " + " | ".join(f"`{n}`" for n in order) + " | average |",
            "| --- | " + " | ".join("---:" for _ in order) + " | ---: |",
        ]
        for row in order:
            cells = ["" if col == row else _short(self.cells.get((row, col))) for col in order]
            lines.append(f"| `{row}` | " + " | ".join(cells) + f" | {_short(self.average(row))} |")
        return "\n".join(lines)


def _short(cell: Cell | None) -> str:
    if cell is None:
        return "-"
    text = f"{signed(cell.mbb_per_hand, 0)} ±{cell.half_width:.0f}"
    if cell.aivat_mbb_per_hand is not None and cell.aivat_ci95 is not None:
        half = (cell.aivat_ci95[1] - cell.aivat_ci95[0]) / 2
        text += f" (AIVAT {signed(cell.aivat_mbb_per_hand, 0)} ±{half:.0f})"
    return text
