"""Player names as the C dealer takes them, one rule for ``acpc-dealer`` and the runner (``acpc-match``,
``acpc-tournament``, ``play``), read back without loss.

A name is the bytes it has on the command line: non-ASCII ones, UTF-8 or not, go to the log byte for
byte, as the C dealer writes them. Refused is only what would make a log unreadable or ambiguous:
``|`` and ``:`` (they separate a log line's fields), control characters (a newline plants a line),
`` #`` (a comment to the log readers), an empty name, one past 255 bytes, two seats of one name.

The expected logs are the C dealer's (``dealer.c`` of the ACPC server, built from its source and run
as ``dealer m kuhn.limit.2p.game 2 7 Jürgen $'\\xff'`` with two always-calling players); the reports'
figures follow from those two hands by hand. The commands' one-line refusals are also checked in
test_hostile_input.py (acpc-dealer) and test_runner_faults.py (acpc-match).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from acpc_arena.dealer.arena.contestants import Contestant
from acpc_arena.dealer.commands.dealer_options import UsageError, parse_args
from acpc_arena.dealer.server.logfiles import check_player_name, unicode_text
from tests.helpers.processes import dealer_args, free_port, program, read_ports, spawn

JURGEN = "J\u00fcrgen".encode()
"""``Jürgen`` in UTF-8."""
FF = b"\xff"
"""A lone byte that is no UTF-8."""
C_LOG = [
    b"STATE:0:cc:Qs|As:-1|1:J\xc3\xbcrgen|\xff",
    b"STATE:1:cc:Ks|Qs:1|-1:\xff|J\xc3\xbcrgen",
    b"SCORE:-2|2:J\xc3\xbcrgen|\xff",
]
"""The C dealer's hand and score lines for ``m kuhn.limit.2p.game 2 7 Jürgen $'\\xff'``, players calling."""
GAME = "kuhn.limit.2p"

ACCEPTED = [
    "Bot",
    "a b",
    "x-1_(v2)",
    "~!@#$%^&*+=[]{};'\",.<>/?`\\",
    "a#1",
    "J\u00fcrgen",
    "\u540d\u524d",
    "a\u00a0b",
    os.fsdecode(FF),
    os.fsdecode(b"caf\xe9"),
    "x" * 255,
    "\u00e9" * 127 + "x",  # 255 bytes in UTF-8
]
REFUSED = {
    "a|b": "contains '|'",
    "b:c": "contains ':'",
    "a\tb": "contains the control character '\\t'",
    "a\nSCORE:1|-1:a|b": "contains the control character '\\n'",
    "a\r": "contains the control character '\\r'",
    "a\x00": "contains the control character '\\x00'",
    "a\x7f": "contains the control character '\\x7f'",
    "bot #1": "contains ' #'",
    "": "is empty",
}
RULE = "it cannot go in an ACPC log (a name is 1 to 255 bytes, without '|', ':', control characters or ' #')"


def refused_by_dealer(*names: str, game: str = "kuhn") -> str | None:
    try:
        parse_args(["m", game, "2", "7", *names])
    except UsageError as exc:
        return str(exc)
    return None


def refused_by_runner(title: str) -> str | None:
    try:
        Contestant("b", agent="call", title=title)  # the log's name: b-<title>
    except ValueError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", ACCEPTED)
def test_names_the_c_dealer_takes_and_a_log_holds_are_taken_by_both(name: str) -> None:
    check_player_name(name)
    assert refused_by_dealer(name, "other") is None
    assert refused_by_runner(name[2:]) is None  # "b-" before it: as long


@pytest.mark.parametrize(("name", "what"), REFUSED.items())
def test_what_a_log_cannot_hold_is_refused_by_both_in_one_line(name: str, what: str) -> None:
    expected = f"player name {name!r} {what}: {RULE}"
    with pytest.raises(ValueError) as refused:
        check_player_name(name)
    assert str(refused.value) == expected
    assert refused_by_dealer(name, "other") == expected
    if name:  # an empty title is no name: the runner names the player after its agent
        assert refused_by_runner(name) == f"player name {'b-' + name!r} {what}: {RULE}"


def test_a_name_past_255_bytes_is_refused() -> None:
    name = "\u00e9" * 128  # 256 bytes in UTF-8
    expected = f"player name {chr(0xE9) * 20 + '...'!r} is 256 bytes long: {RULE}"
    assert refused_by_dealer(name, "other") == expected
    assert refused_by_runner("x" * 254) == f"player name {'b-' + 'x' * 18 + '...'!r} is 256 bytes long: {RULE}"


def test_two_seats_of_one_name_are_refused() -> None:
    name = os.fsdecode(FF)
    assert refused_by_dealer("a", name, name, game="kuhn.limit.3p") == (
        "player name '\\udcff' is given to seats 2 and 3: a log could not tell them apart"
    )


def test_names_in_unicode_text() -> None:
    """Where a format must be valid Unicode (Prometheus, PHH, plots): a byte that is not UTF-8 as ``\\xff``."""
    assert unicode_text("J\u00fcrgen") == "J\u00fcrgen"
    assert unicode_text(os.fsdecode(b"a\xffb\xe9")) == "a\\xffb\\xe9"
    assert unicode_text("\ud800") == "\\ud800"  # no byte of a command line: as Python escapes it


# -- real processes: acpc-dealer, acpc-match, acpc-report ----------------------------------------


def dealer(cwd: Path, *args: str | bytes) -> subprocess.Popen[bytes]:
    return spawn([program("acpc-dealer"), *dealer_args(*args)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def calling_players(process: subprocess.Popen[bytes]) -> list[subprocess.Popen[bytes]]:
    """An ``acpc-agent call`` on each port the dealer prints first."""
    return [
        spawn([program("acpc-agent"), "call", "127.0.0.1", str(port), "--game", GAME], stderr=subprocess.DEVNULL)
        for port in read_ports(process)
    ]


def play_c_match(cwd: Path, *names: str | bytes) -> tuple[bytes, bytes]:
    """``acpc-dealer m kuhn.limit.2p 2 7 NAMES -q``, calling players: its log and standard output after the ports."""
    process = dealer(cwd, "m", GAME, "2", "7", *names, "-q")
    players = calling_players(process)
    out, err = process.communicate(timeout=60)
    for player in players:
        player.wait(timeout=30)
    assert process.returncode == 0, err
    return (cwd / "m.log").read_bytes(), out


def report(*args: str | bytes | Path) -> bytes:
    done = subprocess.run([program("acpc-report"), *args], capture_output=True, timeout=120)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return done.stdout


def test_acpc_dealer_logs_the_names_bytes_as_the_c_dealer_and_the_report_finds_them(tmp_path: Path) -> None:
    log, out = play_c_match(tmp_path, JURGEN, FF)
    assert log.split(b"\n")[4:] == [*C_LOG, b""]
    assert out == C_LOG[-1] + b"\n"
    # Jürgen lost 1 chip in each of the two hands: -2 chips, -1000 mbb/h (big blind 1)
    table = report(tmp_path / "m.log", "--player", JURGEN).split(b"\n")
    assert table[0] == b"player J\xc3\xbcrgen, game kuhn.limit.2p, big blind 1"
    assert table[3].split() == [b"m.log", FF, b"1", b"2", b"-2", b"-1000.0"]
    # and back: the name as the report's JSON has it plays a match under the same bytes
    report(tmp_path / "m.log", "--a", FF, "--json", tmp_path / "report.json")
    written = json.loads((tmp_path / "report.json").read_text())
    assert (written["a"], written["b"], written["mbb_per_hand"]) == (os.fsdecode(FF), "J\u00fcrgen", 1000.0)
    again = tmp_path / "again"
    again.mkdir()
    log_again, _ = play_c_match(again, written["b"], written["a"])
    assert log_again == log


def test_acpc_match_plays_reports_and_plots_non_ascii_names(tmp_path: Path) -> None:
    """B's label has a byte that is no UTF-8 and a formula to matplotlib (drawn as text)."""
    agent = f"{program('acpc-agent')} call {{host}} {{port}} --game {{game}}"
    run = tmp_path / "run"
    label = FF + b"$\\frac{$"
    done = subprocess.run(
        [program("acpc-match"), "--a", JURGEN, "--a-cmd", agent, "--b", label, "--b-cmd", agent,
         "--game", GAME, "--seeds", "7", "--hands", "2", "--out", run],
        capture_output=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    # seed 7 deals as the C dealer's match; A sits first in seed7-a1 and second in seed7-a2
    a, b = b"a-" + JURGEN, b"b-" + label
    first = (run / "seed7-a1.log").read_bytes().split(b"\n")
    assert first[4:] == [line.replace(JURGEN, a).replace(FF, b) for line in C_LOG] + [b""]
    second = (run / "seed7-a2.log").read_bytes().split(b"\n")
    assert second[-2] == b"SCORE:-2|2:" + b + b"|" + a
    written = json.loads((run / "report.json").read_text())
    assert (written["a"], written["b"]) == (os.fsdecode(a), os.fsdecode(b))
    assert (run / "cumulative.png").stat().st_size > 0 and (run / "cumulative-seed-7.png").stat().st_size > 0
    # seed 7 deals Qs to seat 1 and As to seat 2, then Ks to seat 2 and Qs to seat 1: calling, seat 2
    # wins both hands (+2 chips, +1000 mbb/h at big blind 1); B sits second in seed7-a1, first in seed7-a2
    table = report(run / "seed7-a1.log", run / "seed7-a2.log", "--player", b).split(b"\n")
    assert table[0] == b"player " + b + b", game kuhn.limit.2p, big blind 1"
    assert table[3].split() == [b"seed7-a1.log", a, b"2", b"2", b"+2", b"+1000.0"]
    assert table[4].split() == [b"seed7-a2.log", a, b"1", b"2", b"-2", b"-1000.0"]


def test_hostile_names_leave_the_metrics_and_the_live_page_whole(tmp_path: Path) -> None:
    """Prometheus's own checker reads the page; the live page's JSON gives back each name's ``os.fsdecode``."""
    names = [b'<script>alert("x")</script>\\', b"\xff\xfe $x$ '''"]
    metrics, web = free_port(), free_port()
    process = dealer(
        tmp_path, "m", GAME, "2", "7", *names, "-q",
        "--metrics-port", str(metrics), "--metrics-linger", "60", "--web", str(web), "--web-linger", "60",
    )  # fmt: skip
    players = calling_players(process)
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == b"SCORE:-2|2:" + b"|".join(names) + b"\n"
        for player in players:
            player.wait(timeout=30)
        page = urllib.request.urlopen(f"http://127.0.0.1:{metrics}/metrics", timeout=5).read()
        chips = {
            sample.labels["player"]: sample.value
            for family in text_string_to_metric_families(page.decode("utf-8"))
            for sample in family.samples
            if sample.name == "acpc_dealer_chips_won"
        }
        assert chips == {'<script>alert("x")</script>\\': -2.0, "\\xff\\xfe $x$ '''": 2.0}
        promtool = shutil.which("promtool")
        if promtool is not None:
            checked = subprocess.run([promtool, "check", "metrics"], input=page, capture_output=True, timeout=30)
            assert b"parsing error" not in checked.stdout + checked.stderr, checked.stdout + checked.stderr
        live = json.loads(_until_finished(f"http://127.0.0.1:{web}/api/live"))
        (match,) = live["matches"]
        assert match["seats"] == [os.fsdecode(name) for name in names]
    finally:
        process.terminate()
        process.communicate(timeout=30)


def _until_finished(url: str) -> bytes:
    """The live page's JSON once its match is told finished (the feed sends every tenth of a second)."""
    deadline = time.monotonic() + 30
    while True:
        body: bytes = urllib.request.urlopen(url, timeout=5).read()
        if b'"status":"finished"' in body or time.monotonic() > deadline:
            return body
        time.sleep(0.1)
