"""The C ``bm_server.config`` format as ``acpc-bm-server`` reads it, its errors, and the users' command
``acpc-bm-user`` (argon2 hashes, password rotation, quotas)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from acpc_arena.dealer.benchmark_server.config import read_config
from acpc_arena.protocol.files import InputError
from tests.helpers.bm import LIMIT, Line, query, start_server, write_config
from tests.helpers.processes import program, run_in_process

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
        ("port seventy", 2, "port takes a whole number from 0 to 65535: none after it"),
        ("port ²", 2, "port takes a whole number from 0 to 65535: none after it"),
        ("port 70000", 2, "port takes a whole number from 0 to 65535, not 70000"),
        ("port -1", 2, "port takes a whole number from 0 to 65535, not -1"),
        ("port " + "9" * 5000, 2, "port takes a whole number from 0 to 65535, not 99999999999999999999..."),
        (f"game {LIMIT} {{\nport 5\n}}", 3, "port must be defined outside of game blocks"),
        (f"game {LIMIT} {{\nbot a random\nbot a cfr\n}}", 4, f"bot a is already defined for {LIMIT}"),
        (f"game {LIMIT} {{\nbot LOCAL random\n}}", 3, "LOCAL is a reserved bot name"),
        (f"game {LIMIT} {{\nbot a|b random\n}}", 3, "bot name 'a|b': player name 'a|b' contains '|'"),
        ("user neil", 2, "write a user as: user NAME PASSWORD"),
        ("user ne/il test", 2, "user name 'ne/il': it goes into the logs' file names"),
        ("user neil a\nuser neil b", 3, "duplicate user neil"),
        ("game nosuch.game {", 2, "no game file 'nosuch.game'"),
    ],
)
def test_a_bad_line_is_refused_naming_the_file_and_line(tmp_path: Path, line: str, number: int, reason: str) -> None:
    """One line naming the file and line, and exit status 1: ``bm_server.c``'s ``exit( EXIT_FAILURE )``."""
    path = tmp_path / "bad.config"
    path.write_text(f"# line 1\n{line}\n")
    with pytest.raises(InputError) as caught:
        read_config(path)
    assert caught.value.line == number
    assert caught.value.reason.startswith(reason), caught.value.reason
    done = run_in_process("acpc-bm-server", str(path))  # as a process: test_an_address_the_server_cannot_listen_on
    assert done.returncode == 1
    where = f"{path}, line {number}: " if number else f"{path}: "
    assert done.stderr.startswith(f"acpc-bm-server: {where}{reason}")
    assert len(done.stderr.splitlines()) == 1


C_EVERY_FORM = f"""# a comment line
; a comment line of C's other kind
   # an indented comment
port 0 # a comment after a value
MAXRUNNINGBOTS 0 and words after it
startupTimeoutSecs 60
responseTimeoutSecs 600 ; another
handTimeoutSecs 21000
avgHandTimeSecs 7
game {LIMIT}.game {{ # the block's comment
    maxMatchRuns 10 # runs
    maxRunningJobs 1
    matchHands 20
    bot test@Bot random
    bot local random
    bot script ./example.sh extra words C never reads
}} # end
user neil test extra
user neil@x test
user LOCAL secret
game {LIMIT.replace("2p", "3p").replace(".reverse_blinds", "")}.game
    bot testBot random
"""
"""Every key and comment form of a config that ``bm_server.c``'s ``readConfig`` accepts, and the names it
takes: a bot ``test@Bot`` and ``local`` (it reserves ``LOCAL`` alone), users ``neil@x`` and ``LOCAL``, words
after a value, a game line without ``{{``, a block never closed."""


def test_a_config_in_the_c_format_with_every_form_c_accepts_starts_the_server(tmp_path: Path) -> None:
    (tmp_path / "bm.config").write_text(C_EVERY_FORM)
    (tmp_path / "example.sh").write_text("#!/bin/sh\n")
    config = read_config(tmp_path / "bm.config")
    # what bm_server.c's sscanf calls read from these lines
    assert (config.port, config.max_running_bots, config.response_timeout_secs) == (0, 0, 600)
    assert config.users == {"neil": "test", "neil@x": "test", "LOCAL": "secret"}
    limit = config.games[f"{LIMIT}.game"]
    assert (limit.max_match_runs, limit.max_running_jobs, limit.match_hands) == (10, 1, 20)
    assert list(limit.bots) == ["test@Bot", "local", "script"]
    assert limit.bots["script"].command_line(0) == f"{tmp_path / 'example.sh'} {{host}} {{port}} 0"
    assert list(config.games["holdem.limit.3p.game"].bots) == ["testBot"]
    _, port = start_server(tmp_path)
    session = Line(port)
    session.send("neil@x test\n")
    assert session.read() == "LOGON OKAY - type help for commands\n"


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


def test_the_guides_example_config_starts_the_server(tmp_path: Path) -> None:
    """The config shown on the command's page (its first ``text`` block), its port made 0 (any free one)."""
    (page,) = Path(__file__).parent.parent.glob("docs/**/acpc-bm-server.md")
    example = page.read_text().split("```text\n", 1)[1].split("```", 1)[0]
    assert example.startswith("port 54000 ")
    (tmp_path / "bm.config").write_text(example.replace("port 54000", "port 0", 1))
    _, port = start_server(tmp_path)
    assert logon(port, "neil test") == "LOGON OKAY - type help for commands\n"


def test_an_address_the_server_cannot_listen_on_is_one_line_and_status_1(tmp_path: Path) -> None:
    write_config(tmp_path)
    done = subprocess.run(
        [program("acpc-bm-server"), "bm.config", "--host", "999.1.1.1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("acpc-bm-server: cannot listen on 999.1.1.1 port 0: ")
