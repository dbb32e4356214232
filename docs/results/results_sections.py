"""What a results page is made of: its sections (tables of matches, a round robin, LBR runs, training
records, deal-by-deal differences) and the deal seeds and games they use (``regenerate.py``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "docs" / "results"
RUNS = REPO / "runs" / "results"
BIN = Path(sys.executable).parent

LIMIT = "holdem.limit.2p.reverse_blinds"
NOLIMIT = "holdem.nolimit.2p.reverse_blinds"
TABLE_SEEDS = (1, 234, 6666)
"""The deal seeds of the tables (no agent's selection or tuning used them)."""
SPARRING_SEEDS = (9101, 9102, 9103)
"""The deal seeds of the sparring tables (no table, no agent's selection or tuning used them)."""
EXPLOIT_SEEDS = (9801, 9802, 9803)
"""The deal seeds of ``cfr_exploit``'s table (its bands, press tilt and span were chosen on 8001 to 8003; no
table, no agent's selection or tuning used these)."""
DEFAULTS_SEEDS = (9501, 9502, 9503)
"""The deal seeds of the table of the limit agents' defaults and seed configurations (Poker-CNN's default was
chosen on 9301 to 9303, ``cfr_exploit``'s bands on 8001 to 8003; no table, no agent's selection or tuning used
these)."""
NOLIMIT_SEEDS = (7301, 7302, 7303)
"""The deal seeds of the no-limit tables with the sparring suite (no table, no agent's selection or tuning
used them; the all-in guard's settings were chosen on 7101 to 7103)."""


# --- what a page is made of -------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """An agent with its options, and the label a table shows for it.

    ``{column}`` in ``args`` is replaced by the column's agent (a counter chosen per opponent)."""

    label: str
    agent: str
    args: str = ""

    def options(self, column: Side | None = None) -> str:
        return self.args.replace("{column}", column.agent) if column else self.args


@dataclass(frozen=True)
class Matches:
    """A table of duplicate ``acpc-match`` runs: each row agent against each column agent."""

    slug: str
    title: str
    about: str
    rows: tuple[Side, ...]
    columns: tuple[Side, ...]
    game: str = LIMIT
    seeds: tuple[int, ...] = TABLE_SEEDS
    hands: int = 2000
    allin: bool = False
    """Also show the all-in-adjusted figures (no-limit)."""
    by_seed: bool = False
    """One line per seed as well (for a table of one cell)."""
    aivat: bool = False
    """Also show AIVAT's duplicate figure (``acpc-match --aivat``: both policies known narrow the interval)."""
    skip: frozenset[tuple[str, str]] = frozenset()
    """(row label, column label) cells not played."""


@dataclass(frozen=True)
class RoundRobin:
    """An ``acpc-tournament``: every pair of entrants in duplicate, and the crosstable."""

    slug: str
    title: str
    about: str
    entrants: tuple[Side, ...]
    game: str = LIMIT
    seeds: tuple[int, ...] = TABLE_SEEDS
    hands: int = 2000


@dataclass(frozen=True)
class Lbr:
    """``acpc-lbr`` for each row agent: local best response's winnings against it."""

    slug: str
    title: str
    about: str
    rows: tuple[tuple[Side, int], ...]
    """Each agent with the number of deals of its run (each played in both positions)."""
    game: str = LIMIT
    seeds: tuple[int, ...] = (1,)
    lbr_args: str = ""
    """``acpc-lbr``'s own options for every row (e.g. ``--first-round lbr``)."""


@dataclass(frozen=True)
class Sidecars:
    """Figures recorded by training runs, read from the shipped checkpoints' JSON sidecars."""

    slug: str
    title: str
    about: str
    render: Callable[[Path], list[str]]
    """Markdown lines from the checkpoints folder."""


@dataclass(frozen=True)
class Differences:
    """Rows of a ``Matches`` table compared on the same deals: for each pair of rows and each column, the
    first row's duplicate result minus the second's, deal by deal, with its 95% interval (the luck of the
    cards mostly cancels, so the interval is narrower than either cell's)."""

    slug: str
    title: str
    about: str
    matches: Matches
    pairs: tuple[tuple[str, str], ...]
    """(row label, row label) pairs: the first minus the second."""


@dataclass(frozen=True)
class Commands:
    """Runs of any commands (``acpc-match`` with options a table does not give), the table written by
    ``render`` from the runs' folders."""

    slug: str
    title: str
    about: str
    runs: tuple[tuple[str, tuple[str, ...]], ...]
    """Each run's name (its folder) and command words: the command's name first, ``{out}`` its folder."""
    render: Callable[[dict[str, Path]], list[str]]
    """Markdown lines from the runs' folders, by name."""


Section = Matches | RoundRobin | Lbr | Sidecars | Differences | Commands


@dataclass(frozen=True)
class Page:
    name: str
    title: str
    about: str
    sections: tuple[Section, ...] = field(default_factory=tuple)
