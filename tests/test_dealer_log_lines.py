"""The dealer's files read back by a resumed ``acpc-dealer -a``: real dealers and agents.

The ACPC log's lines end with a line feed alone: a name holding the byte 0x85 (the UTF-8 of
``Å``; U+0085, NEL, once the bytes are read as latin-1) or U+2028 (LINE SEPARATOR, a line end
to ``str.splitlines``) is no line end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.processes import start_agent, start_dealer


def play_dealer(cwd: Path, match: str, *args: str) -> None:
    dealer = start_dealer(cwd, match, "kuhn", "3", "7", *args, "-q", "-T")
    players = [
        start_agent(agent, port, "--game", "kuhn") for agent, port in zip(("call", "raise"), dealer.ports, strict=True)
    ]
    status, _, err = dealer.wait()
    for player in players:
        player.wait(timeout=30)
    assert status == 0, err


@pytest.mark.parametrize(
    ("match", "name"),
    [("m", "Bot"), ("m", "b\u00c5t"), ("m", "b\u2028t"), ("m\u00c5", "Bot")],
    ids=["ascii", "0x85 in a player name", "U+2028 in a player name", "0x85 in the match name"],
)
def test_a_finished_match_resumed_with_a_is_not_scored_again(tmp_path: Path, match: str, name: str) -> None:
    """``-T -a`` on a finished match replays every hand from the transaction file, and appends the header
    again (as the C dealer does, opening its log with ``a+``) but no second SCORE line: the log's last
    record is one already. A name is bytes to the log; split at line feeds alone, the same for all."""
    log = tmp_path / f"{match}.log"
    play_dealer(tmp_path, match, name, "Raiser")
    first = log.read_bytes()
    play_dealer(tmp_path, match, name, "Raiser", "-a")
    header = first[: first.index(b"STATE:")]
    assert log.read_bytes() == first + header
    assert first.count(b"\nSCORE:") == 1 and f"# name/game/hands/seed {match} ".encode() in first
    # calling against a raiser, the C dealer's deals of seed 7 (Qs|As, Ks|Qs, Ks|As) lose 2 chips each
    assert first.endswith(f"\nSCORE:-6|6:{name}|Raiser\n".encode())
