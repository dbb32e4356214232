"""Many holdings on one board (a range's, as AIVAT asks): ``strength_moments`` shares the board's work
(``protocol.completions.shared_board_strengths``) and gives each holding the numbers it gets alone, checked
against plain loops over the evaluator; the style agents' batched ``policies`` are their ``policy``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from acpc_arena.agents.registry import agent_class
from acpc_arena.agents.styles import range_strengths
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.equity import strength_moments
from acpc_arena.protocol.evaluator import rank_hand
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL_ACTION, RAISE, Action, State
from acpc_arena.protocol.views import range_views

DECK = list(range(52))


def plain_strength(hole: list[int], board: list[int], opponents: list[tuple[int, ...]]) -> float:
    """HS against the opponent hands given, by a plain loop (ties half)."""
    mine = rank_hand(hole + board)
    ranks = [rank_hand([*theirs, *board]) for theirs in opponents]
    return sum(1.0 if mine > r else 0.5 if mine == r else 0.0 for r in ranks) / len(ranks)


def test_holdings_on_one_turn_get_their_exact_moments() -> None:
    board = parse_cards("Td7d2cJs")
    holes = [parse_cards(text) for text in ("AdKd", "7c7h", "3s2s", "9h8h")]
    ehs, ehs2 = strength_moments(DECK, np.array(holes), np.array([board] * len(holes)), 5)
    for i, hole in enumerate(holes):
        unseen = [c for c in DECK if c not in hole + board]
        strengths = []
        for river in unseen:
            rest = [c for c in unseen if c != river]
            strengths.append(plain_strength(hole, [*board, river], list(itertools.combinations(rest, 2))))
        assert ehs[i] == pytest.approx(np.mean(strengths), abs=1e-12)
        assert ehs2[i] == pytest.approx(np.mean(np.square(strengths)), abs=1e-12)


@pytest.mark.parametrize("board", ["Td7d2c", "Td7d2cJs"])
def test_a_range_on_one_board_gets_what_each_holding_gets_alone(board: str) -> None:
    # the cfr agent's buckets: a fixed choice of completions and of opponent hands, by position among the
    # cards each holding does not see; asked for a range, each holding's numbers are those of it alone
    cards = parse_cards(board)
    rng = np.random.default_rng(7)
    rest = [c for c in DECK if c not in cards]
    holes = np.array([rng.choice(rest, 2, replace=False) for _ in range(9)], dtype=np.uint8)
    boards = np.array([cards] * len(holes), dtype=np.uint8)
    runouts, opponents = (12, 6) if len(cards) == 3 else (None, 8)
    together = strength_moments(DECK, holes, boards, 5, runouts, opponents)
    for i in range(len(holes)):
        alone = strength_moments(DECK, holes[i : i + 1], boards[i : i + 1], 5, runouts, opponents)
        assert together[0][i] == alone[0][0] and together[1][i] == alone[1][0]


def test_style_policies_of_a_range_are_each_holdings_policy() -> None:
    game = load_game("holdem.nolimit.2p.reverse_blinds")
    agent = agent_class("o_random")(game, seed=3)
    state = State(game, 0, [parse_cards("AsKs"), parse_cards("7h2c")], parse_cards("Td7d2cJs9h"))
    for action in (CALL_ACTION, Action(RAISE, 300), CALL_ACTION):
        state.apply(action)
    shown = set(state.visible_board())
    holdings = [[a, b] for a, b in itertools.combinations(range(52), 2) if not {a, b} & shown][::7]
    views = range_views(state, state.current_player, holdings)
    batched = agent.policies(views)
    assert state.round == 1 and batched == [agent.policy(view) for view in views]
    assert len({id(policy) for policy in batched}) < len(batched)  # holdings alike share one policy


def test_style_strengths_of_a_range_count_every_opponent_hand() -> None:
    board = parse_cards("Td7d2cJs")
    holes = [parse_cards(text) for text in ("AdKd", "7c7h", "3s2s", "9h8h", "Jd2d")]
    for hole, strength in zip(holes, range_strengths(holes, tuple(board)), strict=True):
        unseen = [c for c in DECK if c not in hole + board]
        assert strength == plain_strength(hole, board, list(itertools.combinations(unseen, 2)))
