"""``acpc-agent human HOST PORT [--game GAME]``: a person plays from a terminal.

At each decision it shows the hand: the player's position, the hole cards, the
board, the pot, what each player has put in (and, in a no-limit game, has left),
and the legal actions.
Type a key and Enter: ``f`` folds, ``c`` checks or calls, ``r`` raises (in a limit
game); in a no-limit game type the amount to raise to (``r 600`` or ``600``). An
entry that is not legal here gets one line saying why and the question again, so
nothing invalid is ever sent. At the end of each hand it shows the cards shown
and the result. End of input (Ctrl-D) leaves the match.

It works under any ACPC dealer; give the dealer time limits a person can meet,
e.g. ``acpc-dealer ... --t_per_hand 600000``. ``acpc-match`` cannot start a terminal
player for you: run it with ``--b-external`` and connect ``acpc-agent human`` to
the port it prints. A person has no policy to query, so ``acpc-lbr`` refuses it.
"""

from __future__ import annotations

import sys
from typing import TextIO

from acpc_arena.agents.base import Agent
from acpc_arena.agents.client import ClientError
from acpc_arena.protocol.cards import card_to_str
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState

ROUND_NAMES = ("pre-flop", "flop", "turn", "river")


class HumanAgent(Agent):
    """A person at a terminal (standard input and output)."""

    name = "human"

    def __init__(
        self,
        game: Game,
        seed: int | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        super().__init__(game, seed)
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.total = 0.0
        self.hands = 0

    def say(self, text: str) -> None:
        print(text, file=self.stdout, flush=True)

    def begin_hand(self, view: MatchState) -> None:
        state = view.state
        self.say(f"\n=== hand {state.hand_id + 1}: you are player {view.viewer + 1} of {self.game.num_players} ===")

    def act(self, view: MatchState) -> Action:
        self.say(describe(view))
        self.say(prompt(view.state))
        while True:
            self.stdout.write("> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                raise ClientError("the player left (end of input)")
            action, problem = read_entry(line, view.state)
            if action is not None:
                return action
            self.say(problem)

    def end_hand(self, view: MatchState) -> None:
        state = view.state
        self.say(describe(view))
        others = [
            f"player {p + 1}: {_cards(state.hole_cards[p])}"
            for p in range(self.game.num_players)
            if p != view.viewer and state.hole_cards[p]
        ]
        if others:
            self.say("shown: " + ", ".join(others))
        try:
            value = state.value(view.viewer)
        except (ProtocolError, ValueError, IndexError):  # cards missing from the dealer's message
            return
        self.total += value
        self.hands += 1
        self.say(f"you {'won' if value >= 0 else 'lost'} {abs(value):g}; {self.total:+g} over {self.hands} hands")


def _cards(cards: list[int]) -> str:
    return " ".join(card_to_str(card) for card in cards)


def describe(view: MatchState) -> str:
    """The hand as the player sees it: round, cards, board, pot, money in, and left in a no-limit game
    (a limit game has no stacks)."""
    state = view.state
    me = view.viewer
    rounds = ROUND_NAMES if state.game.num_rounds == 4 else tuple(f"round {r + 1}" for r in range(4))
    board = state.visible_board()
    lines = [
        f"{rounds[min(state.round, 3)]}: your cards {_cards(state.hole_cards[me])}"
        + (f", board {_cards(board)}" if board else ""),
        f"pot {sum(state.spent)}",
    ]
    for p in range(state.game.num_players):
        who = "you" if p == me else f"player {p + 1}"
        left = f", stack left {state.game.stack[p] - state.spent[p]}" if state.game.no_limit else ""
        status = " (folded)" if state.folded[p] else ""
        lines.append(f"  {who}: in {state.spent[p]}{left}{status}")
    return "\n".join(lines)


def prompt(state: State) -> str:
    """The legal actions and how to type them."""
    legal = state.legal_actions()
    choices = []
    if legal.can_fold:
        choices.append("f fold")
    choices.append(f"c call {legal.to_call}" if legal.to_call else "c check")
    if legal.can_raise:
        if state.game.no_limit:
            choices.append(f"r AMOUNT (or AMOUNT) raise to {legal.min_raise_to}..{legal.max_raise_to}")
        else:
            choices.append(f"r raise to {legal.min_raise_to}")
    return "your move: " + " | ".join(choices)


def read_entry(line: str, state: State) -> tuple[Action | None, str]:
    """The action ``line`` asks for, if legal at ``state``; else None and one line saying why."""
    text = line.strip().lower()
    legal = state.legal_actions()
    words = text.split()
    if text == "f":
        if legal.can_fold:
            return FOLD_ACTION, ""
        return None, "nothing to call, so no fold: type c to check"
    if text == "c":
        return CALL_ACTION, ""
    if (words and words[0] == "r") or text.isdigit():
        if not legal.can_raise:
            return None, "no raise is allowed here (the raises of this round are used up, or nobody can call one)"
        if not state.game.no_limit:
            if text == "r":
                return LIMIT_RAISE_ACTION, ""
            return None, "a limit game: type r to raise, without an amount"
        amount = words[-1] if words and words[0] == "r" and len(words) == 2 else text
        if not amount.isdigit():
            return None, f"give the amount to raise to, from {legal.min_raise_to} to {legal.max_raise_to}: r 600"
        size = int(amount)
        if not legal.min_raise_to <= size <= legal.max_raise_to:
            return None, f"a raise to {size} is not allowed: from {legal.min_raise_to} to {legal.max_raise_to}"
        return Action(RAISE, size), ""
    shown = line.strip()[:40]
    return None, f"{shown!r} is not a move: type f, c or r" + (" AMOUNT" if state.game.no_limit else "")
