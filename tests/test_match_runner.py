"""``acpc-match`` end to end: real agent processes over TCP, the report, the logs, the plots."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.matches import card_sections, mean_and_ci95_mbb, run_match, values_of
from tests.helpers.processes import program, spawn


def test_small_duplicate_run(tmp_path: Path) -> None:
    done, report = run_match(tmp_path, "--a", "rule", "--b", "random", "--seeds", "3,4", "--hands", "150")
    assert done.returncode == 0, done.stderr
    for key in ("a", "b", "game", "seeds", "hands", "mbb_per_hand", "ci95", "allin_adjusted", "matches"):
        assert key in report
    assert report["a"] == "a-rule" and report["b"] == "b-random" and report["seeds"] == [3, 4]
    assert len(report["matches"]) == 4
    for match in report["matches"]:
        assert set(match) >= {"seed", "a_seat", "hands", "chips_a", "mbb_per_hand_a", "log"}
        assert match["hands"] == 150
    low, high = report["ci95"]
    assert low < report["mbb_per_hand"] < high
    run = tmp_path / "run"
    # The two seatings of a seed are dealt the same cards, hand for hand.
    for seed in (3, 4):
        first, second = card_sections(run / f"seed{seed}-a1.log"), card_sections(run / f"seed{seed}-a2.log")
        assert len(first) == len(second) == 150
        for one, other in zip(first, second, strict=True):  # a log shows the board only as far as the hand went
            assert one.startswith(other) or other.startswith(one)
            assert one.split("/")[0] == other.split("/")[0]
    assert card_sections(run / "seed3-a1.log") != card_sections(run / "seed4-a1.log")
    # The figures, worked out from the logs' text: duplicate samples pair hand i of both seatings.
    pairs, singles = [], []
    for seed in (3, 4):
        seat_1, seat_2 = (values_of(run / f"seed{seed}-a{seat}.log", "a-rule") for seat in (1, 2))
        singles += seat_1 + seat_2
        pairs += [(x + y) / 2 for x, y in zip(seat_1, seat_2, strict=True)]
        entry = next(e for e in report["per_seed"] if e["seed"] == seed)
        assert entry["chips_a"] == pytest.approx(sum(seat_1) + sum(seat_2))
        for seat, values in ((1, seat_1), (2, seat_2)):
            match = next(m for m in report["matches"] if (m["seed"], m["a_seat"]) == (seed, seat))
            assert match["chips_a"] == pytest.approx(sum(values))
    mbb, ci95 = mean_and_ci95_mbb(pairs, 10)
    assert report["estimate"] == "duplicate" and report["duplicate_pairs"] == 300
    assert report["mbb_per_hand"] == pytest.approx(mbb) and report["ci95"] == pytest.approx(ci95, rel=1e-4)
    mbb, ci95 = mean_and_ci95_mbb(singles, 10)
    assert report["per_hand"]["mbb_per_hand"] == pytest.approx(mbb)
    assert report["per_hand"]["ci95"] == pytest.approx(ci95, rel=1e-4)
    # acpc-report recomputes the same figures from the logs alone.
    again = tmp_path / "again.json"
    logs = sorted(str(p) for p in run.glob("*.log"))
    subprocess.run(
        [program("acpc-report"), *logs, "--a", "a-rule", "--json", str(again)], check=True, capture_output=True
    )
    recomputed = json.loads(again.read_text())
    for key in ("mbb_per_hand", "ci95", "allin_adjusted", "duplicate", "per_hand", "per_seed"):
        assert recomputed[key] == report[key], key
    assert (run / "cumulative.png").stat().st_size > 10_000
    assert (run / "cumulative-seed-3.png").exists() and (run / "cumulative-seed-4.png").exists()
    # The printed table: a row per seed and seat with A's chips, and a duplicate row per seed.
    rows = [line.split() for line in done.stdout.splitlines()]
    for seed in (3, 4):
        seed_rows = {row[1]: row for row in rows if row[:1] == [str(seed)] and row[1] in ("1", "2", "both")}
        assert sorted(seed_rows) == ["1", "2", "both"]
        for seat in (1, 2):
            chips = sum(values_of(run / f"seed{seed}-a{seat}.log", "a-rule"))
            assert seed_rows[str(seat)][2:4] == ["150", f"{chips:+.0f}"]
        assert seed_rows["both"][-5:-3] == ["duplicate,", "95%"]
    # The verdict: who wins, by the duplicate interval worked out from the logs above.
    mbb, (low, high) = mean_and_ci95_mbb(pairs, 10)
    winner = "A (a-rule) wins" if low > 0 else "B (b-random) wins" if high < 0 else "no significant difference at 95%"
    assert f"verdict: {winner}: {mbb:+.1f} mbb/h for A, 95% CI [" in done.stdout


def test_call_against_call_is_exactly_even_in_duplicate(tmp_path: Path) -> None:
    done, report = run_match(tmp_path, "--a", "call", "--b", "call", "--seeds", "5", "--hands", "200", "--no-plots")
    assert done.returncode == 0, done.stderr
    assert report["mbb_per_hand"] == 0.0 and report["ci95"] == [0.0, 0.0]
    assert report["per_hand"]["ci95"][1] > 0  # a single seating is all luck


def test_raise_against_call_figures_from_the_logs(tmp_path: Path) -> None:
    """Read the logs by hand: A's chips per hand, and the duplicate pairs (exactly even here,
    since in limit hold'em raise-vs-call puts the same chips in whoever sits where)."""
    done, report = run_match(tmp_path, "--a", "raise", "--b", "call", "--seeds", "3", "--hands", "300", "--no-plots")
    assert done.returncode == 0, done.stderr
    results = {}
    for seat in (1, 2):
        values = values_of(tmp_path / "run" / f"seed3-a{seat}.log", "a-raise")
        results[seat] = values
        match = next(m for m in report["matches"] if m["a_seat"] == seat)
        assert match["chips_a"] == pytest.approx(sum(values))
        assert match["mbb_per_hand_a"] == pytest.approx(1000 * sum(values) / 300 / 10)
    pairs = [(x + y) / 2 for x, y in zip(results[1], results[2], strict=True)]
    assert report["mbb_per_hand"] == pytest.approx(1000 * sum(pairs) / 300 / 10) == 0.0
    assert report["per_hand"]["mbb_per_hand"] == pytest.approx(1000 * sum(results[1] + results[2]) / 600 / 10)


@pytest.mark.slow
def test_confidence_interval_narrows_with_more_hands(tmp_path: Path) -> None:
    widths = []
    for hands in (100, 800):
        folder = tmp_path / str(hands)
        folder.mkdir()
        done, report = run_match(
            folder, "--a", "rule", "--b", "random", "--seeds", "11", "--hands", str(hands), "--no-plots"
        )
        assert done.returncode == 0, done.stderr
        widths.append(report["ci95"][1] - report["ci95"][0])
    assert widths[1] < widths[0] * 0.6


def test_nolimit_units_and_allin_adjustment(tmp_path: Path) -> None:
    done, report = run_match(
        tmp_path, "--a", "raise", "--b", "random", "--seeds", "2", "--hands", "60",
        "--game", "holdem.nolimit.2p.reverse_blinds", "--no-plots",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert report["big_blind"] == 100
    match = report["matches"][0]
    assert match["mbb_per_hand_a"] == pytest.approx(10 * match["chips_a"] / match["hands"])
    assert report["allin_adjusted"]["mbb_per_hand"] != report["mbb_per_hand"]  # random shoves: all-ins happen


def test_a_crashing_agent_fails_only_its_matches(tmp_path: Path) -> None:
    bot = tmp_path / "flaky.py"
    bot.write_text(
        "import socket, sys\n"
        "host, port, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])\n"
        "s = socket.create_connection((host, port)); f = s.makefile('rb')\n"
        "s.sendall(b'VERSION:2.0.0\\r\\n')\n"
        "for n, raw in enumerate(f):\n"
        "    if seed == 8 and n == 40:\n"
        "        sys.exit('flaky bot gives up')\n"
        "    line = raw.decode().strip()\n"
        "    s.sendall((line + ':c\\r\\n').encode())  # answers every state; the dealer ignores extras\n"
    )
    done, report = run_match(
        tmp_path, "--a", "call", "--b", "flaky", "--b-cmd", f"{sys.executable} {bot} {{host}} {{port}} {{seed}}",
        "--seeds", "7,8", "--hands", "60", "--no-plots",
    )  # fmt: skip
    assert done.returncode == 1
    failed = [m for m in report["matches"] if m["error"]]
    assert {m["seed"] for m in failed} == {8}
    assert all("disconnected" in m["error"] and "b-flaky" in m["error"] for m in failed)
    assert all(m["hands"] == 60 for m in report["matches"] if m["seed"] == 7)
    assert "match seed8-a1 failed" in done.stdout and "flaky bot gives up" in done.stdout
    assert report["failed"]


def test_an_agent_that_never_connects(tmp_path: Path) -> None:
    done, _report = run_match(
        tmp_path, "--a", "call", "--b", "gone", "--b-cmd",
        f"{sys.executable} -c 'raise SystemExit(4)' {{host}} {{port}}", "--seeds", "1", "--hands", "10",
    )  # fmt: skip
    assert done.returncode == 1
    assert "exited with status 4 before the match started" in done.stderr


def test_external_bots_connect_to_printed_ports(tmp_path: Path) -> None:
    process = spawn(
        [program("acpc-match"), "--a", "call", "--b-external", "--seeds", "9", "--hands", "40", "--out",
         str(tmp_path / "run"), "--quiet", "--game", "kuhn"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    bots: list[subprocess.Popen[bytes]] = []
    while len(bots) < 2:
        line = process.stdout.readline()
        assert line, process.stderr.read() if process.stderr else ""
        if "connect an ACPC bot to" in line:
            port = line.split(" to ")[1].split()[1]
            bots.append(spawn([program("acpc-agent"), "raise", "127.0.0.1", port, "--game", "kuhn"]))
    _out, err = process.communicate(timeout=120)
    for bot in bots:
        bot.wait(timeout=30)
    assert process.returncode == 0, err
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["b"] == "b-external" and report["big_blind"] == 1 and len(report["matches"]) == 2


def test_command_line_agents_with_templates(tmp_path: Path) -> None:
    agent = program("acpc-agent")
    done, report = run_match(
        tmp_path, "--a", "raise", "--a-args", "--name mine", "--b", "caller",
        "--b-cmd", f"{agent} call {{host}} {{port}} --game {{game}}", "--seeds", "1", "--hands", "30", "--no-plots",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert report["b"] == "b-caller"


def test_bad_arguments(tmp_path: Path) -> None:
    done, _ = run_match(tmp_path, "--a", "nobody", "--b", "call")
    assert done.returncode == 2 and "--a: agent 'nobody': not a shipped agent" in done.stderr
    done, _ = run_match(tmp_path, "--a", "call", "--b", "call", "--game", "holdem.limit.3p")
    assert done.returncode == 2 and "holdem.limit.3p has 3 players: give --c" in done.stderr
    done, _ = run_match(tmp_path, "--a", "call", "--b", "call", "--seeds", "1,1")
    assert done.returncode == 2 and "distinct" in done.stderr


def test_metrics_are_served_during_a_run(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = spawn(
        [program("acpc-match"), "--a", "raise", "--b", "call", "--seeds", "1,2", "--hands", "1500",
         "--metrics-port", str(port), "--out", str(tmp_path / "run"), "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    seen: list[float] = []
    scraped = ""
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline and len(seen) < 3:
        try:
            scraped = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
        except OSError:
            time.sleep(0.1)
            continue
        for line in scraped.splitlines():
            if line.startswith('acpc_match_hands_total{a="a-raise",b="b-call"}'):
                value = float(line.split()[-1])
                if not seen or value > seen[-1]:
                    seen.append(value)
        time.sleep(0.2)
    # What this test checks has been seen: the rest of the run's 6,000 hands would only cost time (what a stopped
    # run keeps: tests/test_interrupt.py; a run served to its end: tests/test_metrics_prometheus.py).
    process.terminate()
    process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM
    assert len(seen) >= 2 and seen[-1] > seen[0]  # the counter moved while we watched
    assert 'acpc_match_mbb_per_hand{a="a-raise",b="b-call"}' in scraped
    assert 'acpc_match_action_seconds_count{agent="a-raise"}' in scraped
    assert 'acpc_match_matches_running{a="a-raise",b="b-call"}' in scraped
    assert "acpc_dealer_hands_total" in scraped
