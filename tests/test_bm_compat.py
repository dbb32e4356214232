"""The session as ``bm_server.c`` speaks it, where a site migrating from the C server would notice a difference
(issue 58). Each expected line or value is read from the C source (``bm_server.c``'s ``validateLogon``,
``parseMatchSpec``, ``startBot``, ``startDealer``; ``bm_run_matches.c``'s help), not from this server."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.helpers.bm import LIMIT, Line, query, start_server, write_config
from tests.helpers.processes import program, wait_until

OKAY = "LOGON OKAY - type help for commands\n"


def session(port: int) -> Line:
    client = Line(port)
    client.send("neil test\n")
    assert client.read() == OKAY
    return client


def test_words_after_the_password_are_left_unread_and_log_on(tmp_path: Path) -> None:
    """``validateLogon`` reads ``" %s %s"``: a name and a password; the rest of the line is never read."""
    write_config(tmp_path)
    _, port = start_server(tmp_path)
    client = Line(port)
    client.send("neil test extra words\n")
    assert client.read() == OKAY
    client.send("QSTAT\n")
    assert client.read() == "Queue empty\n"


def test_runmatches_takes_local_in_capitals_only_c_tags_and_reads_no_word_after_the_players(tmp_path: Path) -> None:
    """``parseMatchSpec``: ``strcmp( name, "LOCAL" )`` (so ``local`` is a bot's name, and no bot has it here);
    a tag is any word without ``/``; the players' names are read one a seat and the rest left unread."""
    write_config(tmp_path)
    _, port = start_server(tmp_path)
    client = session(port)
    client.send(f"RUNMATCHES {LIMIT}.game 1 t1 3 local random\n")
    assert client.read().startswith("BAD RUNMATCHES COMMAND")
    client.send(f"RUNMATCHES {LIMIT}.game 1 a/b 3 random cfr\n")
    assert client.read().startswith("BAD RUNMATCHES COMMAND")
    client.send(f"RUNMATCHES {LIMIT}.game 1 t@g! 3 random cfr extra words\n")
    assert client.read() == f"# QUEUED job 1: 1 runs of {LIMIT}.game\n"
    assert client.read_until("# FINISHED")[-1].startswith("# FINISHED 1.0 a-random ")
    assert query(tmp_path / "bm.sqlite3", "SELECT tag FROM jobs") == [("t@g!",)]


def test_a_hosted_bot_script_gets_the_announced_host_its_port_and_position_and_no_other_word(tmp_path: Path) -> None:
    """``startBot`` runs ``SCRIPT HOST PORT POSITION`` with the server's host name, never the listening address
    (``0.0.0.0``), and ``addBot`` reads the script as one word: the config's words after it are not passed."""
    write_config(tmp_path)
    script = tmp_path / "ex.sh"
    script.write_text(
        f'#!/bin/sh\necho "$@" > "{tmp_path}/args.txt"\n'
        f'exec "{program("acpc-agent")}" random "$1" "$2" --game {LIMIT}\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    config = tmp_path / "bm.config"
    config.write_text(config.read_text().replace("    bot cfr cfr\n", "    bot ex ./ex.sh extra words\n", 1))
    _, port = start_server(tmp_path, "--host", "0.0.0.0", "--announce", "127.0.0.1")
    client = session(port)
    client.send(f"RUNMATCHES {LIMIT}.game 1 s 3 ex random\n")
    assert client.read_until("# FINISHED")[-1].startswith("# FINISHED 1.0 a-ex ")
    host, bot_port, position = (tmp_path / "args.txt").read_text().split()
    assert (host, position) == ("127.0.0.1", "0") and bot_port.isdigit()


def test_a_rerun_with_seed_0_plays_that_run_of_the_set_again_with_its_drawn_seed(tmp_path: Path) -> None:
    """``bm_run_matches``' help: "if you tried to run twenty matches with seed 0 and the last match failed, you
    could use the rerun command with seed 0 and match index 19": the rerun deals what that run dealt."""
    write_config(tmp_path)
    _, port = start_server(tmp_path)
    first = Line(port)
    first.send("neil test run 2pl ./unused.sh 2 zero 0 random cfr\n")
    assert first.read_until("Matches finished")[-1] == "Matches finished\n"
    again = Line(port)
    again.send("neil test rerun 2pl ./unused.sh 1 zero 0 random cfr\n")
    assert again.read_until("Matches finished")[-1] == "Matches finished\n"
    seeds = query(tmp_path / "bm.sqlite3", "SELECT job_id, run_index, seed FROM matches ORDER BY job_id, run_index")
    _, (_, _, seed_1), rerun = seeds
    assert rerun == (2, 1, seed_1)
    missing = Line(port)
    missing.send("neil test rerun 2pl ./unused.sh 5 zero 0 random cfr\n")
    assert missing.read().startswith("BAD RUN COMMAND: no run 5 of a set tagged zero")


def test_c_logs_appends_each_run_to_user_tag_log_with_the_players_plain_names(tmp_path: Path) -> None:
    """``startDealer`` runs ``dealer logs/USER.TAG ... USER BOT ... -a``: every run of a set appended to
    ``logs/USER.TAG.log``, its players named as the user and the bots are."""
    write_config(tmp_path)
    _, port = start_server(tmp_path, "--c-logs")
    client = Line(port)
    client.send("neil test run 2pl ./unused.sh 2 set 7 random cfr\n")
    assert client.read_until("Matches finished")[-1] == "Matches finished\n"
    log = tmp_path / "logs" / "neil.set.log"
    wait_until(log.exists, 10, "the C layout's log")
    states = [line for line in log.read_text().splitlines() if line.startswith("STATE:")]
    assert len(states) == 2 * 20  # two runs of matchHands 20
    # the seats change places each hand (the dealer's default), the names as they are
    assert all(line.endswith((":random|cfr", ":cfr|random")) for line in states), states[:2]
    runs = [Path(path).read_text() for (path,) in query(tmp_path / "bm.sqlite3", "SELECT log FROM matches")]
    assert log.read_text() == "".join(runs)  # the two runs' logs, one after the other
