"""Local best response on hold'em against ``call`` and ``raise``, whose best responses are worked out by hand.

Both bots ignore their cards, so LBR's range stays uniform (every holding that
shares no card with LBR's and the board) and ``wp`` is LBR's equity ``eq``
against a random hand. The reference equities come from eval7 (an independent
evaluator): Monte Carlo on the flop, exact on the turn and river.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from acpc_arena.agents.base import Policy, limit_policy
from acpc_arena.agents.baselines import CallAgent, RaiseAgent
from acpc_arena.dealer.lbr.evaluation import play_hand
from acpc_arena.dealer.lbr.response import Settings
from acpc_arena.protocol.cards import CARD_STRINGS
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState
from tests.helpers.sparring import any_hand

eval7 = pytest.importorskip("eval7")

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
NOLIMIT = load_game("holdem.nolimit.2p.reverse_blinds")


def reference_equity(hole: list[int], board: list[int]) -> float:
    """eval7's equity of ``hole`` against a random hand on ``board`` (flop: 20,000 runouts; later exact)."""
    hand = [eval7.Card(CARD_STRINGS[c]) for c in hole]
    cards = [eval7.Card(CARD_STRINGS[c]) for c in board]
    everything = any_hand()  # parsed once
    if len(board) == 3:
        return float(eval7.py_hand_vs_range_monte_carlo(hand, everything, cards, 20_000))
    return float(eval7.py_hand_vs_range_exact(hand, everything, cards))


def lbr_decisions(agent_type: type, game_name: str, deals: int) -> list[tuple[State, Action]]:
    """LBR's decisions (state before, action) over ``deals`` seeded deals, LBR in both positions."""
    game = load_game(game_name)
    agent = agent_type(game)
    trace: list[tuple[State, Action]] = []
    rng = np.random.default_rng(1)
    for deal in deal_hands(game, 21, deals):
        for position in (0, 1):
            play_hand(agent, deal, position, Settings(), rng, trace)
    return trace


def test_lbr_finds_the_call_bots_exploitability() -> None:
    """Limit hold'em (raises 10 10 20 20) against ``call``, which checks or calls whatever it holds.

    LBR checks and calls before the flop (the paper's LBR), so both put in 10. After that ``call``
    never bets, so on each street LBR either checks, or bets ``size`` and is called, which closes
    the street: one bet a street at most. A bet of ``size`` gains ``size * (2 * eq - 1)`` over a
    check in expectation (won or lost at the showdown, ``eq`` the equity then), and nothing LBR does
    on one street changes what it can do on the next, so the best response bets exactly when
    ``eq > 1/2``, and what it wins is, summed over the streets it reaches,
    ``size * max(0, 2 * eq - 1)`` (the check-down part is zero on average, and exactly zero over a
    duplicate pair). Folding never helps: nothing is owed after the flop. LBR's rule is the same:
    with no folds ``fp = 0`` and the raise's value exceeds the call's by ``size * (2 * wp - 1)``.
    So over LBR's decisions after the flop the best response's gain is
    ``sum(size * max(0, 2 * eq - 1))``, and LBR's is ``sum(size * (2 * eq - 1))`` over those where it
    bet (``eq`` from eval7). LBR must take at least 95% of it (its ``wp`` is sampled on the flop).
    """
    available = taken = 0.0
    decisions = 0
    for state, action in lbr_decisions(CallAgent, "holdem.limit.2p.reverse_blinds", 25):
        if state.round == 0:
            assert action.kind != RAISE
            continue
        decisions += 1
        me = state.current_player
        size = LIMIT.raise_size[state.round]
        edge = size * (2 * reference_equity(state.hole_cards[me], state.visible_board()) - 1)
        available += max(0.0, edge)
        taken += edge if action.kind == RAISE else 0.0
    assert decisions == 3 * 50  # flop, turn and river of every hand: nobody folds
    assert taken >= 0.95 * available, (taken, available)


@pytest.mark.slow  # make test keeps the call bot's (test_lbr_finds_the_call_bots_exploitability)
def test_lbr_finds_the_raise_bots_exploitability() -> None:
    """No-limit hold'em (stacks 20000, blinds 100/50) against ``raise``, which min-raises whenever it
    may and otherwise calls: it never folds.

    Before the flop LBR calls, ``raise`` raises to 200 and LBR calls: both have 200 in, 19800 behind.
    On the flop a best response can move all in (``raise`` cannot raise over it, so it calls) and win
    ``19800 * (2 * eq - 1)`` more than the 200 at stake, or keep calling ``raise``'s minimum bets (100 a
    street, nothing more while it only calls). Going all in with ``eq > 1/2`` on the flop alone gains
    ``19800 * max(0, 2 * eq - 1)`` over checking down, which bounds the exploitability from below (a
    best response does at least this, and more on later streets). LBR's raise value grows with the
    size when ``fp = 0`` and ``wp > 1/2``, so it moves all in exactly then. Over LBR's first flop
    decisions it must take at least 95% of ``sum(19800 * max(0, 2 * eq - 1))`` (eval7's ``eq``).
    """
    available = taken = 0.0
    flops = 0
    seen: set[tuple[int, int]] = set()
    for state, action in lbr_decisions(RaiseAgent, "holdem.nolimit.2p.reverse_blinds", 20):
        me = state.current_player
        key = (state.hand_id * 2 + me, state.round)
        if state.round != 1 or key in seen:
            continue
        seen.add(key)
        flops += 1
        assert state.spent == [200, 200] or max(state.spent) == 300  # LBR first, or facing the minimum bet
        edge = 19800 * (2 * reference_equity(state.hole_cards[me], state.visible_board()) - 1)
        available += max(0.0, edge)
        taken += edge if action == Action(RAISE, NOLIMIT.stack[me]) else 0.0
    assert flops == 40
    assert taken >= 0.95 * available, (taken, available)


def test_the_agent_sees_lbrs_cards_only_at_a_showdown() -> None:
    """As from the dealer (an opponent's hole cards are shown only at a showdown: ``printPlayerHoleCards``
    in the ACPC server's ``game.c``, ``shows_cards`` in ``protocol/wire.py``): the last message of a hand
    LBR won by a fold hides LBR's cards from the agent; a showdown shows them."""
    game = LIMIT
    ends: list[tuple[bool, list[int]]] = []

    class Recording(CallAgent):
        def end_hand(self, view: MatchState) -> None:
            ends.append((any(view.state.folded), list(view.state.hole_cards[1 - view.viewer])))

    class Folding(Recording):
        def act(self, view: MatchState) -> Action:
            return FOLD_ACTION if view.state.legal_actions().can_fold else CALL_ACTION

        def policy(self, view: MatchState) -> Policy:
            return limit_policy(view.state, fold=1.0, call=0.0, raise_=0.0)

    rng = np.random.default_rng(1)
    for agent_type in (Recording, Folding):
        for deal in deal_hands(game, 21, 20):
            play_hand(agent_type(game), deal, 0, Settings(), rng)
    folded = [cards for fold, cards in ends if fold]
    shown = [cards for fold, cards in ends if not fold]
    assert folded and shown
    assert all(cards == [] for cards in folded)
    assert all(len(cards) == 2 for cards in shown)


def test_a_near_tie_rounded_the_other_way_in_a_batch_keeps_the_real_holding() -> None:
    """An argmax agent's batch of 1,326 views can round a near-tie unlike ``act``'s batch of one. Here the
    range's batch says the real holding raises before the flop and calls after it, every other holding the
    reverse, while ``act`` always calls: without the floor the real holding leaves the range at the first call
    and the call on the flop is one no holding left would make."""
    game = LIMIT
    deal = next(iter(deal_hands(game, 21, 1)))
    real = sorted(deal.hole_cards[1])

    class Flaky(CallAgent):
        def policies(self, views: Sequence[MatchState]) -> list[Policy]:
            if len(views) == 1:
                return [{CALL_ACTION: 1.0}]
            out = []
            for view in views:
                mine = sorted(view.state.hole_cards[view.viewer]) == real
                raises = mine == (view.state.round == 0)
                out.append(limit_policy(view.state, fold=0.0, call=float(not raises), raise_=float(raises)))
            return out

        def policy(self, view: MatchState) -> Policy:
            return self.policies([view])[0]

    record = play_hand(Flaky(game), deal, 0, Settings(), np.random.default_rng(1))
    assert record.decisions > 0
