"""The C ``bm_server.config`` format as ``acpc-bm-server`` reads it, its errors, and the users' command
``acpc-bm-user`` (argon2 hashes, password rotation, quotas)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from acpc_arena.dealer.bm.config import read_config
from acpc_arena.protocol.files import InputError
from tests.helpers.bm import LIMIT, Line, query, start_server, write_config
from tests.helpers.processes import program

C_SAMPLE = """# port to connect to the server
port 54000

# maxmimum number of simultaneously locally running bots
# 0 disables
maxRunningBots 0

startupTimeoutSecs 100
responseTimeoutSecs 600
handTimeoutSecs 21000
avgHandTimeSecs 7

game holdem.limit.2p.reverse_blinds.game {
     maxMatchRuns 10
     maxRunningJobs 1
     matchHands 5000
     bot testBot example_player.limit.2p.sh
}

game holdem.nolimit.2p.reverse_blinds.game {
     maxMatchRuns 10
     maxRunningJobs 1
     matchHands 5000
     bot testBot example_player.nolimit.2p.sh
}

game holdem.limit.3p.game {
     maxMatchRuns 10
     maxRunningJobs 1
     matchHands 5000
     bot testBot example_player.limit.3p.sh
}

# Users authorized to run jobs on the benchmark (user name pass)
user neil test
"""


def test_the_c_packages_sample_config_is_read_as_the_c_server_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "bm_server.config"
    path.write_text(C_SAMPLE)
    config = read_config(path)
    assert (config.port, config.max_running_bots, config.startup_timeout_secs) == (54000, 0, 100)
    assert (config.response_timeout_secs, config.hand_timeout_secs, config.avg_hand_time_secs) == (600, 21000, 7)
    assert list(config.games) == [f"{LIMIT}.game", "holdem.nolimit.2p.reverse_blinds.game", "holdem.limit.3p.game"]
    assert [game.kind for game in config.games.values()] == ["2pl", "2pn", "3pl"]
    limit = config.games[f"{LIMIT}.game"]
    assert (limit.max_match_runs, limit.max_running_jobs, limit.match_hands) == (10, 1, 5000)
    # a C bot script is run with the host, the port and its place among the match's hosted bots
    assert limit.bots["testBot"].command_line(0) == "example_player.limit.2p.sh {host} {port} 0"
    assert config.users == {"neil": "test"}


def test_a_bot_script_beside_a_config_named_by_a_relative_path_runs_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bot NAME ./ext.sh`` in ``bm.config`` (the server started in the config's folder) names the script
    by its absolute path, so the runner finds it whatever folder a match starts the bot in."""
    (tmp_path / "ext.sh").write_text("#!/bin/sh\n")
    (tmp_path / "bm.config").write_text(f"port 0\ngame {LIMIT} {{\nbot ext ./ext.sh\n}}\n")
    monkeypatch.chdir(tmp_path)
    config = read_config(Path("bm.config"))
    bot = config.games[LIMIT].bots["ext"]
    assert bot.command_line(0) == f"{tmp_path / 'ext.sh'} {{host}} {{port}} 0"


@pytest.mark.parametrize(
    ("line", "number", "reason"),
    [
        ("colour blue", 2, "unknown configuration option 'colour'"),
        ("maxMatchRuns 3", 2, "maxMatchRuns must be defined within a game block"),
        ("port seventy", 2, "port takes one whole number from 0 to 65535"),
        ("port 70000", 2, "port takes one whole number from 0 to 65535"),
        (f"game {LIMIT} {{\nport 5\n}}", 3, "port must be defined outside of game blocks"),
        (f"game {LIMIT} {{\nbot a random\nbot a cfr\n}}", 4, f"bot a is already defined for {LIMIT}"),
        (f"game {LIMIT} {{\nbot LOCAL random\n}}", 3, "bot name 'LOCAL': use 1 to 32 letters"),
        ("user neil", 2, "write a user as: user NAME PASSWORD"),
        ("game nosuch.game {", 2, "no game file 'nosuch.game'"),
        (f"game {LIMIT} {{", 0, f"the block of game {LIMIT} is not closed"),
    ],
)
def test_a_bad_line_is_refused_naming_the_file_and_line(tmp_path: Path, line: str, number: int, reason: str) -> None:
    path = tmp_path / "bad.config"
    path.write_text(f"# line 1\n{line}\n")
    with pytest.raises(InputError) as caught:
        read_config(path)
    assert caught.value.line == number
    assert caught.value.reason.startswith(reason), caught.value.reason
    done = subprocess.run([program("acpc-bm-server"), str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    where = f"{path}, line {number}: " if number else f"{path}: "
    assert done.stderr.startswith(f"acpc-bm-server: {where}{reason}")
    assert len(done.stderr.splitlines()) == 1


def bm_user(folder: Path, *args: str, password: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("acpc-bm-user"), *args], cwd=folder, input=password + "\n", capture_output=True, text=True, timeout=60
    )


def test_users_are_stored_as_argon2_hashes_their_passwords_rotate_and_their_quotas_hold(tmp_path: Path) -> None:
    write_config(tmp_path)
    assert bm_user(tmp_path, "add", "zoe", "--quota", "2", password="first").returncode == 0
    (stored,) = query(tmp_path / "bm.sqlite3", "SELECT hash FROM users WHERE name = 'zoe'")[0]
    assert stored.startswith("$argon2id$")
    assert PasswordHasher().verify(stored, "first")  # argon2's own check, not the server's
    again = bm_user(tmp_path, "add", "zoe", password="other")
    assert (again.returncode, again.stderr) == (
        1,
        "acpc-bm-user: user zoe exists already (change the password with passwd)\n",
    )
    bad = bm_user(tmp_path, "add", "z|oe", password="x")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1

    _, port = start_server(tmp_path, "--max-pending-jobs", "1")
    assert logon(port, "zoe first") == "LOGON OKAY - type help for commands\n"
    assert bm_user(tmp_path, "passwd", "zoe", password="second").returncode == 0
    assert logon(port, "zoe first") == "BAD LOGON\n"
    session = Line(port)
    session.send("zoe second\n")
    assert session.read() == "LOGON OKAY - type help for commands\n"
    session.send(f"RUNMATCHES {LIMIT}.game 3 big 5 random random\n")
    assert session.read() == "BAD RUNMATCHES COMMAND: over quota: 0 of 2 runs used, 3 asked for\n"
    session.send(f"RUNMATCHES {LIMIT}.game 9 big 5 random random\n")
    assert session.read() == "BAD RUNMATCHES COMMAND: #runs must be a whole number from 0 to 5, not '9'\n"
    session.send(f"RUNMATCHES {LIMIT}.game 2 two 5 LOCAL random\n")  # waits for its LOCAL bot: stays pending
    assert session.read() == f"# QUEUED job 1: 2 runs of {LIMIT}.game\n"
    session.send(f"RUNMATCHES {LIMIT}.game 1 more 5 random random\n")
    lines = session.read_until("BAD RUNMATCHES")
    assert lines[-1] == "BAD RUNMATCHES COMMAND: 1 jobs pending already, the most a user may have\n"
    listed = bm_user(tmp_path, "list")
    assert "zoe 2 runs of 2\n" in listed.stdout


def logon(port: int, words: str) -> str:
    client = Line(port)
    client.send(words + "\n")
    answer = client.read()
    client.close()
    return answer
