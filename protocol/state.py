"""The betting state machine of one hand, rule for rule as the ACPC server's ``game.c``.

A ``State`` holds what ``game.c``'s ``State`` holds (money spent, actions per
round, folds, cards) and keeps the player to act and a few counts up to date as
actions are applied, so the dealer and agents never recompute them.

Actions are ``Action(kind, size)`` with kinds ``FOLD``, ``CALL``, ``RAISE`` (an
``ActionKind``); the size is the no-limit raise-to amount and 0 everywhere else.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final, NamedTuple

from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.game import MAX_NUM_ACTIONS, Game
from acpc_arena.protocol.rank_lookup import rank_hand


class ActionKind(IntEnum):
    """What an action does; the values index ``ACTION_CHARS`` and the (fold, call, raise) arrays of the agents.

    The engine compares kinds with ``is`` (each kind is one object): compiled in a group
    (``protocol.native``), ``==`` on an ``IntEnum`` is a generic comparison.
    """

    FOLD = 0
    CALL = 1
    RAISE = 2


FOLD: Final = ActionKind.FOLD
CALL: Final = ActionKind.CALL
RAISE: Final = ActionKind.RAISE
ACTION_CHARS: Final = "fcr"
"""The letter the ACPC protocol prints for each kind."""


class Action(NamedTuple):
    """An action: ``kind`` is FOLD, CALL or RAISE; ``size`` the no-limit raise-to (else 0)."""

    kind: ActionKind
    size: int = 0


FOLD_ACTION: Final = Action(FOLD, 0)
CALL_ACTION: Final = Action(CALL, 0)
LIMIT_RAISE_ACTION: Final = Action(RAISE, 0)
_MAX_ACTIONS: Final = MAX_NUM_ACTIONS
"""``MAX_NUM_ACTIONS`` (a name final here: compiled, read as a constant, not looked up)."""


class LegalActions(NamedTuple):
    """What the player to act may do: everything an agent needs to choose an action."""

    player: int
    can_fold: bool
    can_raise: bool
    min_raise_to: int
    """Smallest total the player may raise to (the fixed raise-to in limit games)."""
    max_raise_to: int
    """Largest total the player may raise to (equal to ``min_raise_to`` in limit games)."""
    to_call: int
    """Chips the player must add to call (less when calling puts them all in)."""


class GameRules:
    """What states (action after action) and deals read of a ``Game``, read from it once.

    ``Game`` is a frozen dataclass, not compiled: each of its attributes read by compiled code is a
    lookup by name; these are fields. Shared by every state of the game (``rules_of``).
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.no_limit: bool = game.no_limit
        self.num_players: int = game.num_players
        self.num_rounds: int = game.num_rounds
        self.stack = list(game.stack)
        self.blind = list(game.blind)
        self.raise_size = list(game.raise_size)
        self.max_raises = list(game.max_raises)
        self.first_player = list(game.first_player)
        self.board_start = list(game.board_start)
        self.deck = list(game.deck)
        self.num_hole_cards: int = game.num_hole_cards
        self.start_max_spent = max(self.blind)
        """The largest blind: what the first raise must beat."""
        self.round_min_raise = max(1, self.start_max_spent)
        """A round's smallest no-limit raise, added to the bet (every round after the first)."""
        self.start_min_raise_to = (self.start_max_spent * 2 if self.start_max_spent else 1) if game.no_limit else 0
        self.start_all_in = sum(1 for p in range(self.num_players) if self.blind[p] >= self.stack[p])


_RULES: Final[dict[int, GameRules]] = {}
"""The rules of each game seen, by the game's ``id`` (each holds its game, so the id stays its own)."""
_MOST_RULES: Final = 256
"""Games whose rules are kept at once (past them the cache starts again: a program that makes many
``Game`` objects does not keep them all)."""


def rules_of(game: Game) -> GameRules:
    """The ``GameRules`` of ``game``, made on its first state."""
    rules = _RULES.get(id(game))
    if rules is None or rules.game is not game:
        if len(_RULES) >= _MOST_RULES:
            _RULES.clear()
        rules = _RULES[id(game)] = GameRules(game)
    return rules


class State:
    """One hand of an ACPC game: betting, money spent and cards."""

    __slots__ = (
        "game",
        "rules",
        "hand_id",
        "max_spent",
        "min_no_limit_raise_to",
        "spent",
        "actions",
        "acting_players",
        "round",
        "finished",
        "folded",
        "hole_cards",
        "board_cards",
        "num_folded",
        "num_all_in",
        "round_raises",
        "current_player",
    )

    def __init__(
        self,
        game: Game,
        hand_id: int = 0,
        hole_cards: list[list[int]] | None = None,
        board_cards: list[int] | None = None,
    ) -> None:
        """The start of a hand (the ACPC ``initState``), with the given cards if any."""
        rules = rules_of(game)
        self.game = game
        self.rules = rules
        self.hand_id = hand_id
        self.spent = rules.blind.copy()
        self.max_spent = rules.start_max_spent
        self.min_no_limit_raise_to = rules.start_min_raise_to
        rounds = rules.num_rounds
        self.actions: list[list[Action]] = [[] for _ in range(rounds)]
        self.acting_players: list[list[int]] = [[] for _ in range(rounds)]
        self.round = 0
        self.finished = False
        self.folded = [False] * rules.num_players
        self.hole_cards: list[list[int]] = (
            hole_cards if hole_cards is not None else [[] for _ in range(rules.num_players)]
        )
        self.board_cards: list[int] = board_cards if board_cards is not None else []
        self.num_folded = 0
        self.num_all_in = rules.start_all_in
        self.round_raises = 0
        self.current_player = -1
        self.current_player = self._first_player()

    # -- queries -------------------------------------------------------------

    def copy(self) -> State:
        state = self.sharing_all_but_hole_cards([list(c) for c in self.hole_cards])
        state.board_cards = list(self.board_cards)
        state.spent = self.spent.copy()
        state.actions = [list(a) for a in self.actions]
        state.acting_players = [list(a) for a in self.acting_players]
        state.folded = self.folded.copy()
        return state

    def sharing_all_but_hole_cards(self, hole_cards: list[list[int]]) -> State:
        """A state with these hole cards and this one's other fields, shared, not copied (for views
        that differ only in the cards, which readers never change)."""
        state = State(self.game, self.hand_id, hole_cards, self.board_cards)
        state.max_spent = self.max_spent
        state.min_no_limit_raise_to = self.min_no_limit_raise_to
        state.spent = self.spent
        state.actions = self.actions
        state.acting_players = self.acting_players
        state.round = self.round
        state.finished = self.finished
        state.folded = self.folded
        state.num_folded = self.num_folded
        state.num_all_in = self.num_all_in
        state.round_raises = self.round_raises
        state.current_player = self.current_player
        return state

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickled as its deal and its betting, replayed when read back (a compiled ``State``,
        ``protocol.native``, has no default way)."""
        return _replayed_state, (self.game, self.hand_id, self.hole_cards, self.board_cards, self.actions)

    def _next_player(self, player: int) -> int:
        """The next player after ``player`` who has not folded and is not all in."""
        rules = self.rules
        n = rules.num_players
        folded = self.folded
        spent = self.spent
        stack = rules.stack
        p = player
        for _ in range(n):
            p = (p + 1) % n
            if not folded[p] and spent[p] < stack[p]:
                return p
        return -1

    def _first_player(self) -> int:
        rules = self.rules
        return self._next_player(rules.first_player[self.round] + rules.num_players - 1)

    def num_called(self) -> int:
        """Players who have called (or made) the current bet this round and are not all in."""
        spent = self.spent
        stack = self.rules.stack
        count = 0
        actions = self.actions[self.round]
        players = self.acting_players[self.round]
        for i in range(len(actions) - 1, -1, -1):
            kind = actions[i].kind
            if kind is FOLD:
                continue
            p = players[i]
            if spent[p] < stack[p]:
                count += 1
            if kind is RAISE:
                break
        return count

    def num_active(self) -> int:
        """Players who can still act: not folded and not all in (the ACPC ``numActingPlayers``).

        A player all in can no longer fold, so the two counts never overlap.
        """
        return self.rules.num_players - self.num_folded - self.num_all_in

    def raise_range(self) -> tuple[int, int] | None:
        """The ACPC ``raiseIsValid``: None if no raise is allowed, else ``(min, max)``
        raise-to sizes for no-limit games and ``(0, 0)`` for limit games."""
        rules = self.rules
        if self.finished:
            return None
        round_ = self.round
        if self.round_raises >= rules.max_raises[round_]:
            return None
        if len(self.actions[round_]) + rules.num_players > _MAX_ACTIONS:
            return None
        if self.num_active() <= 1:
            return None
        if not rules.no_limit:
            return (0, 0)
        stack = rules.stack[self.current_player]
        low = self.min_no_limit_raise_to
        if low > stack:
            if self.max_spent >= stack:
                return None
            return (stack, stack)
        return (low, stack)

    def can_fold(self) -> bool:
        """Folding is valid only when the player to act owes chips and is not all in."""
        if self.finished:
            return False
        p = self.current_player
        spent = self.spent[p]
        return spent != self.max_spent and spent != self.rules.stack[p]

    def legal_actions(self) -> LegalActions:
        """The choices of the player to act; raise-to amounts are totals over the hand."""
        if self.finished:
            raise ProtocolError("the hand is over: nobody is to act")
        game = self.game
        p = self.current_player
        stack = game.stack[p]
        to_call = min(self.max_spent, stack) - self.spent[p]
        bounds = self.raise_range()
        if bounds is None:
            low = high = 0
        elif game.no_limit:
            low, high = bounds
        else:
            low = high = min(self.max_spent + game.raise_size[self.round], stack)
        return LegalActions(p, self.can_fold(), bounds is not None, low, high, to_call)

    def validate_action(self, action: Action, try_fixing: bool = False) -> Action | None:
        """The ACPC ``isValidAction``: the action (fixed if ``try_fixing``) or None if invalid.

        Fixing clamps a no-limit raise size into ``[min, max]``; sizes given to anything
        but a no-limit raise are dropped, as the ACPC server does.
        """
        if self.finished:
            return None
        kind = action.kind
        if kind is RAISE:
            bounds = self.raise_range()
            if bounds is None:
                return None
            if self.rules.no_limit:
                low, high = bounds
                if action.size < low:
                    return Action(RAISE, low) if try_fixing else None
                if action.size > high:
                    return Action(RAISE, high) if try_fixing else None
                return action
            return action if action.size == 0 else LIMIT_RAISE_ACTION
        if kind is FOLD:
            if not self.can_fold():
                return None
            return FOLD_ACTION
        if kind is CALL:
            return CALL_ACTION
        return None  # type: ignore[unreachable]  # not a kind (an int, run from the source)

    # -- transitions -----------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Record ``action`` for the player to act (the ACPC ``doAction``; no validity check)."""
        rules = self.rules
        p = self.current_player
        round_ = self.round
        actions = self.actions[round_]
        if p < 0 or self.finished:
            raise ProtocolError("the hand is over: no action can be applied")
        if len(actions) >= _MAX_ACTIONS:
            raise ProtocolError(f"more than {_MAX_ACTIONS} actions in one round")
        actions.append(action)
        self.acting_players[round_].append(p)
        stack = rules.stack[p]
        max_spent = self.max_spent
        kind = action.kind
        if kind is FOLD:
            self.folded[p] = True
            self.num_folded += 1
        elif kind is CALL:
            called = stack if max_spent > stack else max_spent
            self.spent[p] = called
            if called >= stack:
                self.num_all_in += 1
        elif kind is RAISE:
            if rules.no_limit:
                size = action.size
                if size <= max_spent or size > stack:
                    raise ProtocolError(f"raise to {size} is not between {max_spent + 1} and {stack}")
                next_min = size + size - max_spent
                if next_min > self.min_no_limit_raise_to:
                    self.min_no_limit_raise_to = next_min
                max_spent = size
            elif max_spent + rules.raise_size[round_] > stack:
                max_spent = stack
            else:
                max_spent += rules.raise_size[round_]
            self.max_spent = max_spent
            self.spent[p] = max_spent
            self.round_raises += 1
            if max_spent >= stack:
                self.num_all_in += 1
        else:
            raise ProtocolError(f"not an action kind: {kind!r}")

        if self.num_folded + 1 >= rules.num_players:
            self.finished = True
            self.current_player = -1
            return
        active = self.num_active()
        if self.num_called() >= active:
            if active > 1:
                if round_ + 1 < rules.num_rounds:
                    self.round = round_ + 1
                    self.round_raises = 0
                    self.min_no_limit_raise_to = rules.round_min_raise + self.max_spent
                    self.current_player = self._first_player()
                    return
                self.finished = True
            else:
                self.finished = True
                self.round = rules.num_rounds - 1
            self.current_player = -1
            return
        self.current_player = self._next_player(p)

    # -- results -------------------------------------------------------------

    def visible_board(self) -> list[int]:
        """Board cards dealt up to the current round."""
        return self.board_cards[: self.rules.board_start[self.round + 1]]

    def value(self, player: int) -> float:
        """Chips won (negative: lost) by ``player`` in a finished hand (``valueOfState``).

        Side pots and split pots as the ACPC server: one pot per distinct amount
        spent, folded players rank below every showdown hand.
        """
        if not self.finished:
            raise ProtocolError("the hand is not finished")
        spent = self.spent
        if self.folded[player]:
            return float(-spent[player])
        if self.num_folded + 1 == self.rules.num_players:
            return float(sum(spent) - spent[player])
        return self._pot_share(player, self._contender_ranks())

    def values(self) -> list[float]:
        """``value(p)`` for every player (each hand ranked once)."""
        if not self.finished:
            raise ProtocolError("the hand is not finished")
        spent, folded, n = self.spent, self.folded, self.rules.num_players
        total, low, high = 0, spent[0], spent[0]  # a loop, not sum/min/max: compiled, those are calls by name
        for amount in spent:
            total += amount
            low = amount if amount < low else low
            high = amount if amount > high else high
        if self.num_folded + 1 == n:
            return [float(-spent[p]) if folded[p] else float(total - spent[p]) for p in range(n)]
        ranks = self._contender_ranks()
        if len(ranks) == n and low == high:  # one pot, everyone in it: the best hands share it
            best = ranks[0]
            for rank in ranks:
                best = rank if rank > best else best
            winners = ranks.count(best)
            share, loss = 0.0 + spent[0] * (n - winners) / winners, 0.0 - spent[0]  # as _pot_share counts them
            return [float(-spent[p]) if folded[p] else share if ranks[p] == best else loss for p in range(n)]
        return [float(-spent[p]) if folded[p] else self._pot_share(p, ranks) for p in range(n)]

    def _contender_ranks(self) -> list[int]:
        """The hand rank of everyone who put money in, by position (-1: folded)."""
        board = self.visible_board()
        spent, folded, holes = self.spent, self.folded, self.hole_cards
        return [-1 if folded[p] else rank_hand(holes[p] + board) for p in range(len(spent)) if spent[p] != 0]

    def _pot_share(self, player: int, ranks: list[int]) -> float:
        """What ``player`` (at a showdown, not folded) wins or loses, given ``_contender_ranks``."""
        spent = self.spent
        amounts = [amount for amount in spent if amount != 0]
        me = -1  # a player who put nothing in: -1 (the last contender's rank is read, one pot counted)
        if spent[player] != 0:
            me = 0
            for p in range(player):
                if spent[p] != 0:
                    me += 1
        value = 0.0
        while True:
            size = min(amounts)
            best = max(ranks)
            winners = ranks.count(best)
            if ranks[me] == best:
                value += size * (len(amounts) - winners) / winners
            else:
                value -= size
            keep = [i for i in range(len(amounts)) if amounts[i] > size]
            if me not in keep:
                return value
            me = keep.index(me)
            ranks = [ranks[i] for i in keep]
            amounts = [amounts[i] - size for i in keep]


def _replayed_state(
    game: Game, hand_id: int, hole_cards: list[list[int]], board_cards: list[int], actions: list[list[Action]]
) -> State:
    state = State(game, hand_id, hole_cards, board_cards)
    for round_actions in actions:
        for action in round_actions:
            state.apply(action)
    return state
