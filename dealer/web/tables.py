"""What the page draws: a table at one moment of a hand, and a logged hand as the steps of its betting.

A table (``snapshot``) is a JSON-ready dict: the hand number, the round, the board
dealt so far, each position's name, hole cards (where shown), chips put in, stack
left (no-limit) and fold, the pot, the betting in ACPC text, whose turn it is with
their legal actions, and a sentence for the last action. ``replay`` plays a log's
hand again from its cards, one snapshot per action, every card shown (a finished
hand hides nothing from a spectator).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acpc_arena.protocol.cards import card_to_str
from acpc_arena.protocol.state import CALL, FOLD, Action, State
from acpc_arena.protocol.wire import LogHand, format_betting

ROUND_NAMES = ("preflop", "flop", "turn", "river")


def round_name(round_: int) -> str:
    return ROUND_NAMES[round_] if round_ < len(ROUND_NAMES) else f"round {round_ + 1}"


def describe(state_before: State, action: Action, name: str) -> str:
    """``"alice raises to 300"``: ``action`` taken in ``state_before`` by the player to act there."""
    if action.kind == FOLD:
        return f"{name} folds"
    if action.kind == CALL:
        owed = state_before.max_spent - state_before.spent[state_before.current_player]
        return f"{name} calls {owed}" if owed else f"{name} checks"
    legal = state_before.legal_actions()
    return f"{name} raises to {action.size or legal.min_raise_to}"


def snapshot(
    state: State,
    names: Sequence[str],
    shown: Sequence[bool],
    last: str = "",
    values: Sequence[float] | None = None,
) -> dict[str, Any]:
    """The table of ``state`` with the hole cards of the positions where ``shown`` is true."""
    game = state.game
    visible = game.board_cards_after(state.round)
    players = []
    for p in range(game.num_players):
        cards = state.hole_cards[p] if p < len(state.hole_cards) else []
        players.append(
            {
                "name": names[p],
                "hole": [card_to_str(c) for c in cards] if shown[p] and cards else None,
                "spent": state.spent[p],
                "stack": game.stack[p] - state.spent[p] if game.no_limit else None,
                "folded": state.folded[p],
                "value": None if values is None else values[p],
            }
        )
    table: dict[str, Any] = {
        "hand": state.hand_id,
        "round": round_name(state.round),
        "board": [card_to_str(c) for c in state.board_cards[:visible]],
        "hole_cards": game.num_hole_cards,
        "players": players,
        "pot": sum(state.spent),
        "betting": format_betting(state),
        "finished": state.finished,
        "to_act": -1 if state.finished else state.current_player,
        "last": last,
        "legal": None,
    }
    if not state.finished:
        legal = state.legal_actions()
        table["legal"] = {
            "can_fold": legal.can_fold,
            "can_raise": legal.can_raise,
            "min_raise_to": legal.min_raise_to,
            "max_raise_to": legal.max_raise_to,
            "to_call": legal.to_call,
            "no_limit": game.no_limit,
        }
    return table


def actions_in_order(state: State) -> list[Action]:
    """Every action of ``state``'s hand in the order taken (rounds one after another)."""
    return [action for round_actions in state.actions for action in round_actions]


def replay(hand: LogHand) -> list[dict[str, Any]]:
    """The snapshots of a logged hand: the deal, then one after each action (all cards shown)."""
    final = hand.state
    game = final.game
    state = State(game, final.hand_id, [list(c) for c in final.hole_cards], list(final.board_cards))
    shown = [True] * game.num_players
    steps = [snapshot(state, hand.names, shown, "cards dealt")]
    for action in actions_in_order(final):
        text = describe(state, action, hand.names[state.current_player])
        state.apply(action)
        steps.append(snapshot(state, hand.names, shown, text, hand.values if state.finished else None))
    return steps


def summary(hand: LogHand, index: int) -> dict[str, Any]:
    """One line of a log's hand list: what the filters and the cumulative plot need."""
    state = hand.state
    return {
        "index": index,
        "hand": state.hand_id,
        "line": hand.line,
        "names": list(hand.names),
        "values": list(hand.values),
        "pot": sum(state.spent),
        "showdown": state.num_folded + 1 < state.game.num_players,
        "all_in": state.num_all_in > 0,
        "betting": format_betting(state),
    }


def last_action(state: State, names: Sequence[str]) -> str:
    """The sentence for the last action of ``state``'s hand ("cards dealt" before any)."""
    actions = actions_in_order(state)
    if not actions:
        return "cards dealt"
    before = State(state.game, state.hand_id)
    for action in actions[:-1]:
        before.apply(action)
    return describe(before, actions[-1], names[before.current_player])
