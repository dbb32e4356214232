"""``acpc-agent human``: a person plays through a terminal (a tmux pane) against ``call`` under the real
TCP dealer. What the screen shows is checked against the dealer's log and the game's blinds; bad
entries get one line and the question again, and only legal actions reach the dealer."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers.processes import program, start_agent, start_dealer

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

GAME = "holdem.nolimit.2p.reverse_blinds"  # blinds 100 (player 1) and 50 (player 2, first to act), stacks 20000
PROMPT = r"(?m)^>"


class Pane:
    """A program in a detached tmux session of its own: type into it (Ctrl-C too) and read its screen,
    which stays readable after the program ends (its exit status is shown last)."""

    def __init__(self, command: list[str], socket_dir: Path) -> None:
        self.tmux = ["tmux", "-S", str(socket_dir / "tmux.sock")]
        script = f"trap : INT; {shlex.join(command)}; echo exit status $?; sleep 120"  # the shell outlives a Ctrl-C
        subprocess.run([*self.tmux, "new-session", "-d", "-x", "160", "-y", "50", "sh", "-c", script], check=True)

    def text(self) -> str:
        done = subprocess.run([*self.tmux, "capture-pane", "-p", "-J", "-S", "-"], capture_output=True, text=True)
        return done.stdout

    def type(self, entry: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-l", entry], check=True)
        subprocess.run([*self.tmux, "send-keys", "Enter"], check=True)

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 60) -> str:
        """The screen once ``pattern`` occurs ``count`` times on it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.text()
            if len(re.findall(pattern, text)) >= count:
                return text
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} did not appear {count} times; the screen:\n{self.text()}")

    def interrupt(self) -> None:
        """Ctrl-C, as the person types it."""
        subprocess.run([*self.tmux, "send-keys", "C-c"], check=True)

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


def test_a_person_plays_three_hands_of_no_limit_through_a_terminal(tmp_path: Path) -> None:
    dealer = start_dealer(tmp_path, "humanmatch", GAME, "3", "7", "human", "call", "--t_per_hand", "600000")
    opponent = start_agent("call", dealer.ports[1], "--game", GAME)
    pane = Pane([program("acpc-agent"), "human", "127.0.0.1", str(dealer.ports[0]), "--game", GAME], tmp_path)
    try:
        prompts = 0

        def next_prompt() -> str:
            nonlocal prompts
            prompts += 1
            return pane.wait_for(PROMPT, prompts)

        first = next_prompt()
        pane.type("x")
        screen = next_prompt()
        assert "'x' is not a move: type f, c or r AMOUNT" in screen
        pane.type("r 50")
        screen = next_prompt()
        assert re.search(r"a raise to 50 is not allowed: from \d+ to 20000", screen)
        # hand 1: check or call to the end
        pane.type("c")
        while "=== hand 2" not in (screen := pane.text()):
            if len(re.findall(PROMPT, screen)) > prompts:
                prompts += 1
                pane.type("c")
            time.sleep(0.05)
        # hand 2: all in at the first decision (call calls it: a showdown)
        next_prompt()
        pane.type("r 20000")
        pane.wait_for("=== hand 3")
        # hand 3: fold at the first decision, or check when nothing is owed and then fold
        screen = next_prompt()
        pane.type("f")
        while dealer.process.poll() is None:
            screen = pane.text()
            if len(re.findall(PROMPT, screen)) > prompts:
                prompts += 1
                pane.type("c" if screen.rstrip().endswith("nothing to call, so no fold: type c to check\n>") else "f")
            time.sleep(0.05)
        status, _, err = dealer.wait(timeout=60)
        assert status == 0, err
        opponent.wait(timeout=30)
        screen = pane.wait_for("exit status 0")
    finally:
        pane.close()
        if dealer.process.poll() is None:
            dealer.process.kill()
    hands = [
        line.split(":") for line in (tmp_path / "humanmatch.log").read_text().splitlines() if line.startswith("STATE")
    ]
    assert len(hands) == 3
    # the cards and pot the screen showed at the first decision: the human's cards in the log, the
    # blinds (150), and the small blind's call (200) when the human is player 1 (big blind, second)
    position = hands[0][5].split("|").index("human")
    hole = hands[0][3].split("|")[position].split("/")[0]
    assert f"=== hand 1: you are player {position + 1} of 2 ===" in first
    shown = re.search(r"your cards (\S\S) (\S\S)", first)
    assert shown is not None and shown.group(1) + shown.group(2) == hole
    assert f"pot {200 if position == 0 else 150}" in first
    yours = 100 if position == 0 else 50  # a no-limit game's stacks (20000) are shown, less what is in
    assert f"  you: in {yours}, stack left {20000 - yours}\n" in first
    assert f"  player {2 - position}: in 100, stack left 19900\n" in first  # the big blind, or the small one's call
    assert hands[0][2].replace("/", "") == "cc" * 4  # every decision a call or check, as typed
    assert "r20000c" in hands[1][2]
    assert "f" in hands[2][2] or "nothing to call" in screen
    assert "WARNING" not in screen  # nothing sent needed fixing
    won = re.findall(r"you (won|lost) (\d+)", screen)
    assert len(won) == 3


def test_entries_in_a_limit_game() -> None:
    from acpc_arena.agents.human import read_entry
    from acpc_arena.protocol.game import load_game
    from acpc_arena.protocol.state import CALL_ACTION, LIMIT_RAISE_ACTION, State

    state = State(load_game("holdem.limit.2p.reverse_blinds"))  # the small blind (5 of 10) to act
    assert read_entry("r\n", state) == (LIMIT_RAISE_ACTION, "")
    assert read_entry(" C \n", state) == (CALL_ACTION, "")
    assert read_entry("r 20\n", state) == (None, "a limit game: type r to raise, without an amount")
    state.apply(CALL_ACTION)  # the big blind owes nothing
    assert read_entry("f\n", state) == (None, "nothing to call, so no fold: type c to check")
    for _ in range(3):  # three raises: the pre-flop cap (maxRaises = 3 4 4 4)
        state.apply(LIMIT_RAISE_ACTION)
    action, why = read_entry("r\n", state)
    assert action is None and why.startswith("no raise is allowed here")


def test_a_limit_game_shows_no_stacks_and_ctrl_c_leaves_in_one_line(tmp_path: Path) -> None:
    """A limit game has no stacks (ACPC's limit games give none): the screen shows what each player has put
    in and nothing about stacks. Ctrl-C at the prompt leaves the match with one line and status 130."""
    game = "holdem.limit.2p.reverse_blinds"  # blinds 10 (player 1) and 5 (player 2, first to act)
    dealer = start_dealer(tmp_path, "limitmatch", game, "3", "7", "human", "call", "--t_per_hand", "600000")
    opponent = start_agent("call", dealer.ports[1], "--game", game)
    pane = Pane([program("acpc-agent"), "human", "127.0.0.1", str(dealer.ports[0]), "--game", game], tmp_path)
    try:
        first = pane.wait_for(PROMPT)
        pane.interrupt()
        screen = pane.wait_for("exit status")
        dealer.wait(timeout=60)
        opponent.wait(timeout=30)
    finally:
        pane.close()
        if dealer.process.poll() is None:
            dealer.process.kill()
    # player 1 (the big blind) is asked after player 2's call; player 2 (the small blind) first
    money = re.findall(r"^  (you|player \d): in (\d+)(.*)$", first, re.MULTILINE)
    assert money in ([("you", "10", ""), ("player 2", "10", "")], [("player 1", "10", ""), ("you", "5", "")])
    assert "stack" not in first
    assert screen.rstrip().endswith("acpc-agent: interrupted by SIGINT: human left the match\nexit status 130")
