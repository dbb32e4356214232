"""ACPC logs for the tests and benchmarks: the C dealer's logs as competition logs, and long logs made of them."""

from __future__ import annotations

import gzip
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "c_dealer"
NAMES = {"Alice": "Hyperborean_2017", "Bob": "Slumbot_2017", "Carol": "Feste_2017"}


def competition_copy(game: str, header: str | None = None) -> list[str]:
    """The C dealer's ``game`` log as a competition log: players renamed, its header replaced (or dropped)."""
    lines = []
    for line in (FIXTURES / f"{game}.log").read_text().splitlines():
        if line.startswith("#"):
            continue
        for old, new in NAMES.items():
            line = line.replace(old, new)
        lines.append(line)
    return ([header] if header else []) + lines


def write_long_log(path: Path, hands: int) -> list[str]:
    """A log of ``hands`` hands (gzip-compressed if ``path`` ends in ``.gz``): the C dealer's
    300 no-limit hands over and over, renumbered; returns those 300 lines."""
    source = [line for line in competition_copy("holdem.nolimit.2p.reverse_blinds") if line.startswith("STATE")]
    with gzip.open(path, "wt", compresslevel=1) if path.suffix == ".gz" else open(path, "w") as file:
        for i in range(hands):
            _, _, rest = source[i % len(source)].split(":", 2)
            file.write(f"STATE:{i}:{rest}\n")
    return source
