"""The states of an ACPC hand and of OpenSpiel's ``universal_poker``, each as the other, exactly.

- ``information_state(view)``: a player's view as ``universal_poker``'s information-state string
  (``[Round 1][Player: 0][Pot: 6][Money: ...][Private: 4d][Public: 2c][Sequences: crc|]``): the round, the player
  to act, the pot (the largest amount put in times the players not folded), each player's stack less what they put
  in, the player's cards and the board dealt so far as sets, the betting of each round (``r`` in limit games,
  ``r<raise-to>`` in no-limit ones) separated by ``|``;
- ``spiel_action``/``arena_action``: an action of the arena at a state as ``universal_poker``'s action id under a
  betting abstraction (``games``) and back; ``spiel_legal_actions`` lists the ids OpenSpiel allows;
- ``arena_state(state)``: an OpenSpiel state (every card dealt so far, its history) as the arena's ``State``;
- ``spiel_state(view)``: a view as an OpenSpiel state of the same information state: the player's cards, the board,
  the betting, and for the cards the view does not show the lowest ones left in the deck (a policy reads only the
  player's information state, never those).

OpenSpiel deals every player's hole cards first (player 0's, then player 1's), each round's board cards as the round
starts, and at the end of a hand the board cards still missing; its no-limit ``fcpa`` pot-sized raise is a raise to
the pot after a call plus the call (``agents.base.pot_size_raise_to``), its all-in a raise to the whole stack.
"""

from __future__ import annotations

from typing import Any

from acpc_arena.agents.base import pot_size_raise_to
from acpc_arena.agents.openspiel.games import arena_card, card_set_text, spiel_card, stacks
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL, CALL_ACTION, FOLD, FOLD_ACTION, LIMIT_RAISE_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState

FOLD_ID, CALL_ID, BET_ID, ALL_IN_ID = 0, 1, 2, 3
"""``universal_poker``'s ids of fold and call, and of the raise (``fcpa``: pot-sized in no-limit) and all-in."""


def information_state(view: MatchState) -> str:
    """``view`` as ``universal_poker``'s information-state string of ``view.viewer``."""
    state = view.state
    game = state.game
    pot = state.max_spent * (game.num_players - state.num_folded)
    money = " ".join(str(stack - spent) for stack, spent in zip(stacks(game), state.spent, strict=True))
    private = card_set_text(game, state.hole_cards[view.viewer])
    public = card_set_text(game, state.visible_board())
    sequences = "|".join(_betting(game, state.actions[r]) for r in range(state.round + 1))
    return (
        f"[Round {state.round}][Player: {_player(state)}][Pot: {pot}][Money: {money}][Private: {private}]"
        f"[Public: {public}][Sequences: {sequences}]"
    )


def _player(state: State) -> int:
    """OpenSpiel's player to act: -4 at the end of a hand (its terminal player)."""
    return state.current_player if not state.finished else -4


def _betting(game: Game, actions: list[Action]) -> str:
    """One round's betting as the ACPC code of ``universal_poker`` prints it."""
    letters = {FOLD: "f", CALL: "c", RAISE: "r"}
    return "".join(
        f"r{action.size}" if action.kind == RAISE and game.no_limit else letters[action.kind] for action in actions
    )


def spiel_legal_actions(state: State, betting: str) -> list[int]:
    """The action ids ``universal_poker`` allows the player to act at ``state`` under ``betting``."""
    legal = state.legal_actions()
    ids = [FOLD_ID] if legal.can_fold else []
    ids.append(CALL_ID)
    if not legal.can_raise or betting == "fc":
        return ids
    if not state.game.no_limit:
        return [*ids, BET_ID]
    if betting == "fullgame":
        return ids + list(range(legal.min_raise_to, legal.max_raise_to + 1))
    pot = pot_size_raise_to(state)
    if legal.min_raise_to <= pot <= legal.max_raise_to:
        ids.append(BET_ID)
    if pot != legal.max_raise_to:
        ids.append(ALL_IN_ID)
    return ids


def arena_action(state: State, action_id: int, betting: str) -> Action:
    """The arena's action of ``universal_poker``'s ``action_id`` at ``state`` under ``betting``; ValueError, one
    line, for an id OpenSpiel does not allow there."""
    if action_id not in _legal_or_range(state, action_id, betting):
        raise ValueError(f"action {action_id} is not one universal_poker ({betting}) allows at {_where(state)}")
    if action_id == FOLD_ID:
        return FOLD_ACTION
    if action_id == CALL_ID:
        return CALL_ACTION
    if not state.game.no_limit:
        return LIMIT_RAISE_ACTION
    if betting == "fullgame":
        return Action(RAISE, action_id)
    return Action(RAISE, pot_size_raise_to(state) if action_id == BET_ID else state.legal_actions().max_raise_to)


def _legal_or_range(state: State, action_id: int, betting: str) -> list[int] | range:
    """The legal ids, or (no-limit ``fullgame``) the raise sizes as a range, which is quicker to ask."""
    if betting == "fullgame" and action_id > CALL_ID:
        legal = state.legal_actions()
        return range(legal.min_raise_to, legal.max_raise_to + 1) if legal.can_raise else []
    return spiel_legal_actions(state, betting)


def spiel_action(state: State, action: Action, betting: str) -> int:
    """``universal_poker``'s id of the arena's legal ``action`` at ``state`` under ``betting``; ValueError, one line,
    for a raise the abstraction has no action for (``fcpa`` in no-limit: a size other than the pot or all-in)."""
    if action.kind == FOLD:
        return FOLD_ID
    if action.kind == CALL:
        return CALL_ID
    if betting == "fullgame":
        return arena_action(state, action.size, betting).size
    legal = spiel_legal_actions(state, betting)
    if not state.game.no_limit:
        found = BET_ID if BET_ID in legal else None
    elif action.size == pot_size_raise_to(state) and BET_ID in legal:
        found = BET_ID
    else:
        found = ALL_IN_ID if ALL_IN_ID in legal and action.size == state.legal_actions().max_raise_to else None
    if found is None:
        raise ValueError(f"{_shown(action, state)} at {_where(state)} has no action in universal_poker's {betting}")
    return found


def _shown(action: Action, state: State) -> str:
    return f"a raise to {action.size}" if state.game.no_limit else "a raise"


def _where(state: State) -> str:
    """The state's betting as ``information_state`` prints it, for messages."""
    rounds = "|".join(_betting(state.game, state.actions[r]) for r in range(state.round + 1))
    return f"the betting {rounds!r}"


def arena_state(spiel: Any, game: Game, betting: str) -> State:
    """``universal_poker``'s state ``spiel`` (of ``game`` under ``betting``) as the arena's ``State``: its cards
    and its betting replayed from its history."""
    history = [int(action) for action in spiel.history()]
    hole_count = game.num_players * game.num_hole_cards
    cards = [arena_card(game, outcome) for outcome in history[:hole_count]]
    holes = [cards[p * game.num_hole_cards : (p + 1) * game.num_hole_cards] for p in range(game.num_players)]
    state = State(game, 0, holes, [])
    for action_id in history[hole_count:]:
        if len(state.board_cards) < game.board_cards_after(state.round) or state.finished:
            state.board_cards.append(arena_card(game, action_id))
        else:
            state.apply(arena_action(state, action_id, betting))
    return state


def spiel_state(view: MatchState, spiel_game: Any, betting: str) -> Any:
    """``view`` as a ``universal_poker`` state of ``spiel_game``: the viewer's information state, the cards it
    does not show dealt from the lowest left."""
    state = view.state
    game = state.game
    board = state.visible_board()
    known = {card for hole in state.hole_cards for card in hole} | set(board)
    spare = iter([card for card in game.deck if card not in known])
    spiel = spiel_game.new_initial_state()
    replay = State(game)
    for hole in state.hole_cards:
        for card in hole if len(hole) == game.num_hole_cards else [next(spare) for _ in range(game.num_hole_cards)]:
            spiel.apply_action(spiel_card(game, card))
    dealt = 0
    for round_ in range(state.round + 1):
        for card in board[dealt : game.board_cards_after(round_)]:
            spiel.apply_action(spiel_card(game, card))
        dealt = game.board_cards_after(round_)
        for action in state.actions[round_]:
            spiel.apply_action(spiel_action(replay, action, betting))
            replay.apply(action)
    return spiel
