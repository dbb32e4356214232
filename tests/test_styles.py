"""Seed 001's style opponents ``o1`` ... ``o8`` and ``o_random`` (table 1).

Each style plays 10,000 hands of heads-up no-limit against ``call`` in-process
(the engine, no TCP; seats rotating as the dealer rotates them); its VPIP and
aggression factor are counted here from the hands' action records, apart from
the agent. The bands tested, from table 1's wording:

- range: VPIP from the small blind (first in, facing only the big blind: the
  seat where playing a hand costs chips against ``call``) is the share of the
  1,326 starting hands in the top ``range``, counted by enumeration here, within
  4 binomial standard errors; that share is within one point of the table's
  70 / 50 / 30 / 10%. From the big blind against a call, putting chips in means
  raising: VPIP over all hands is half the small blind's plus half the big
  blind's raise rate (``bet`` in range, ``bluff`` out of it).
- aggression factor, (bets + raises) / calls over all streets: extremely
  passive < 0.5; relatively passive 0.5 to 1.5; relatively aggressive 1.5 to 3;
  extremely aggressive > 3. Against ``call`` its only calls are small-blind limps.
"""

from __future__ import annotations

import itertools
import math
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.agents.base import Agent
from acpc_arena.agents.baselines import CallAgent
from acpc_arena.agents.registry import agent_class
from acpc_arena.agents.styles import (
    STYLES,
    SWITCH_EVERY,
    RandomStyleAgent,
    StyleAgent,
)
from acpc_arena.models.hand_strength.postflop import postflop_strength
from acpc_arena.models.hand_strength.preflop import EQUITY, class_equity, percentile
from acpc_arena.protocol.cards import parse_cards
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.evaluator import rank_hand
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import CALL, FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState, format_betting, parse_log_line, parse_match_state
from tests.helpers.processes import REPO, program

GAME = load_game("holdem.nolimit.2p.reverse_blinds")
HANDS = 10_000
SMALL_BLIND = 1  # blind = 100 50: position 1 posts the small blind and acts first pre-flop
AF_BANDS = {
    "extremely passive": (0.0, 0.5),
    "relatively passive": (0.5, 1.5),
    "relatively aggressive": (1.5, 3.0),
    "extremely aggressive": (3.0, math.inf),
}


DEALS = deal_hands(GAME, 11, HANDS)
"""The cards of every match against ``call`` (the same for each style)."""


def play_in_process(agents: list[Agent], deals: list[State]) -> list[State]:
    """The dealt hands played between the agents of seats 0 and 1 through the engine, seats rotating
    one position a hand as the dealer rotates them. (Agents see the other's cards here; the TCP test
    checks that the styles play the same without them.)"""
    played = []
    for deal in deals:
        hand_id = deal.hand_id
        state = State(GAME, hand_id, deal.hole_cards, deal.board_cards)
        while not state.finished:
            player = state.current_player
            action = agents[(player + hand_id) % 2].act(MatchState(player, state))
            assert state.validate_action(action) == action, (format_betting(state), action)
            state.apply(action)
        played.append(state)
    return played


@dataclass
class Counts:
    hands: int = 0
    vpip: int = 0
    small_blind_hands: int = 0
    small_blind_vpip: int = 0
    big_blind_hands: int = 0
    big_blind_vpip: int = 0
    aggressive: int = 0
    """bets and raises, every street"""
    calls: int = 0
    """calls with chips owed (checks excluded), every street"""

    @property
    def aggression_factor(self) -> float:
        return self.aggressive / self.calls if self.calls else math.inf


def count_play(hands: list[State], seat: int) -> Counts:
    """VPIP and aggression counts of the agent in ``seat``, read off the hands' actions.

    Heads-up, a call puts chips in exactly when it answers a raise or is the small blind's
    first action (completing the blind); any other call is a check.
    """
    counts = Counts()
    for final in hands:
        me = (seat - final.hand_id) % 2
        voluntary = False
        for round_ in range(GAME.num_rounds):
            previous = None
            for action, actor in zip(final.actions[round_], final.acting_players[round_], strict=True):
                owed = previous == RAISE or (round_ == 0 and previous is None)
                if actor == me and (action.kind == RAISE or (action.kind == CALL and owed)):
                    counts.aggressive += action.kind == RAISE
                    counts.calls += action.kind == CALL
                    voluntary = voluntary or round_ == 0
                previous = action.kind
        counts.hands += 1
        counts.vpip += voluntary
        if me == SMALL_BLIND:
            counts.small_blind_hands += 1
            counts.small_blind_vpip += voluntary
        else:
            counts.big_blind_hands += 1
            counts.big_blind_vpip += voluntary
    return counts


def share_of_starting_hands_in_range(range_: float) -> float:
    """Share of the 1,326 starting hands in the top ``range_`` (plain enumeration)."""
    inside = sum(percentile(hole) >= 1 - range_ for hole in itertools.combinations(range(52), 2))
    return inside / 1326


def within(measured: int, trials: int, expected: float, errors: float = 4.0) -> bool:
    """Whether ``measured / trials`` is within ``errors`` binomial standard errors of ``expected``."""
    spread = errors * math.sqrt(max(expected * (1 - expected), 1e-4) / trials)
    return abs(measured / trials - expected) <= spread


# -- hand strength ---------------------------------------------------------------------------------


def test_preflop_table_matches_the_published_equities_against_a_random_hand() -> None:
    # PokerStove's figures as listed at https://forums.replaypoker.com/t/hand-equity-v-random-hand/22406
    published = {"AA": 85.2, "KK": 82.4, "QQ": 79.9, "JJ": 77.5, "TT": 75.0, "99": 72.1, "88": 69.2}
    published |= {"AKs": 67.0, "AQs": 66.2, "AJs": 65.4, "AKo": 65.3, "AQo": 64.4, "KQs": 63.4, "55": 60.3}
    for name, value in published.items():
        cards = {"AA": "AsAh", "KK": "KsKh", "QQ": "QsQh", "JJ": "JsJh", "TT": "TsTh", "99": "9s9h", "88": "8s8h"}
        cards |= {"AKs": "AsKs", "AQs": "AsQs", "AJs": "AsJs", "AKo": "AsKh", "AQo": "AsQh", "KQs": "KsQs"}
        cards |= {"55": "5s5h"}
        hole = parse_cards(cards[name])
        high, low = sorted((hole[0] // 4, hole[1] // 4), reverse=True)
        assert abs(class_equity(high, low, hole[0] % 4 == hole[1] % 4) - value) <= 0.35, name
    flat = [v for row in EQUITY for v in row]
    assert len(flat) == 169 and max(flat) == class_equity(12, 12, False) and min(flat) == class_equity(1, 0, False)


def test_percentiles_of_starting_hands() -> None:
    holes = list(itertools.combinations(range(52), 2))
    values = [percentile(h) for h in holes]
    assert abs(sum(values) / len(values) - 0.5) < 1e-9
    assert percentile(parse_cards("AsAh")) > 0.99 and percentile(parse_cards("3c2d")) < 0.01
    assert percentile(parse_cards("AsKs")) > percentile(parse_cards("AsKh")) > percentile(parse_cards("6s6h"))


def test_postflop_strength_counts_every_opponent_hand() -> None:
    hole, board = parse_cards("AsKs"), parse_cards("QsJsTs")
    assert postflop_strength(tuple(hole), tuple(board)) == 1.0  # a royal flush
    hole, board = parse_cards("7c2d"), parse_cards("AhKhQd9s4c")
    # a plain count of the 990 hands the opponent may hold: 7-high loses to everything but the other 7-highs
    unseen = [c for c in GAME.deck if c not in hole + board]
    mine = rank_hand(hole + board)
    theirs = [rank_hand([a, b, *board]) for a, b in itertools.combinations(unseen, 2)]
    expected = (sum(t < mine for t in theirs) + 0.5 * sum(t == mine for t in theirs)) / len(theirs)
    assert len(theirs) == 990 and postflop_strength(tuple(hole), tuple(board)) == pytest.approx(expected)


def test_holes_on_one_board_each_count_pokerkits_showdowns() -> None:
    # several holes on one flop share the board's ranked holdings: each is still its own count of the hands
    # the opponent may hold (none of its cards or the board's), each showdown ranked by pokerkit
    import pokerkit

    from acpc_arena.protocol.cards import CARD_STRINGS

    board = parse_cards("9h8h2c")

    def strength(hole: list[int]) -> pokerkit.Hand:
        return pokerkit.StandardHighHand.from_game(*("".join(CARD_STRINGS[c] for c in part) for part in (hole, board)))

    for text in ("ThJh", "2s2d", "AcKd", "8s7s"):
        hole = parse_cards(text)
        mine = strength(hole)
        unseen = [c for c in GAME.deck if c not in hole + board]
        theirs = [strength([a, b]) for a, b in itertools.combinations(unseen, 2)]
        expected = (sum(mine > t for t in theirs) + 0.5 * sum(mine == t for t in theirs)) / len(theirs)
        assert postflop_strength(tuple(hole), tuple(board)) == expected


# -- the table and its agents ----------------------------------------------------------------------

TABLE_1 = {
    "o1": ("loose-passive", 0.70, "extremely passive"),
    "o2": ("loose-aggressive", 0.70, "extremely aggressive"),
    "o3": ("tight-passive", 0.10, "extremely passive"),
    "o4": ("tight-aggressive", 0.10, "extremely aggressive"),
    "o5": ("loose-passive", 0.50, "relatively passive"),
    "o6": ("loose-aggressive", 0.50, "relatively aggressive"),
    "o7": ("tight-passive", 0.30, "relatively passive"),
    "o8": ("tight-aggressive", 0.30, "relatively aggressive"),
}
"""Seed 001's table 1 (docs/agents/seed-001-ensemble.md): name, label, range, aggression level."""


def test_the_styles_are_table_1() -> None:
    assert {name: (s.label, s.range, s.aggression.label) for name, s in STYLES.items()} == TABLE_1


@pytest.mark.parametrize("name", sorted(TABLE_1))
def test_each_row_of_table_1_is_the_agent_registered_as_its_name(name: str) -> None:
    cls = agent_class(name)
    assert issubclass(cls, StyleAgent) and cls is not StyleAgent
    assert (cls.name, cls.__name__, cls.style.name) == (name, f"O{name[1]}Agent", name)
    assert (cls.style.label, cls.style.range, cls.style.aggression.label) == TABLE_1[name]
    assert cls(GAME, seed=1).current_style(parse_match_state("MATCHSTATE:0:0::AsAh|", GAME)).name == name


# -- decisions ---------------------------------------------------------------------------------------


def test_the_seed_notes_o1_folds_to_a_raise_and_o2_does_not() -> None:
    facing_raise = parse_match_state("MATCHSTATE:0:0:r300:QsJh|", GAME)  # the big blind facing a raise to 300
    o1, o2 = agent_class("o1")(GAME, seed=1), agent_class("o2")(GAME, seed=1)
    assert {o1.act(facing_raise).kind for _ in range(200)} == {FOLD}
    assert FOLD not in {o2.act(facing_raise).kind for _ in range(200)}
    aces = parse_match_state("MATCHSTATE:0:0:r300:AsAh|", GAME)
    assert FOLD not in {o1.act(aces).kind for _ in range(200)}


def test_first_in_the_range_decides_and_sizes_follow_the_pot() -> None:
    o3 = agent_class("o3")(GAME, seed=2)
    assert o3.act(parse_match_state("MATCHSTATE:1:0::|9c4d", GAME)).kind == FOLD
    kinds = Counter(o3.act(parse_match_state("MATCHSTATE:1:0::|KsKh", GAME)).kind for _ in range(2000))
    assert kinds[FOLD] == 0 and 30 <= kinds[RAISE] <= 90  # raises with probability 0.03, else calls
    o2 = agent_class("o2")(GAME, seed=3)
    actions = [o2.act(parse_match_state("MATCHSTATE:1:0::|KsKh", GAME)) for _ in range(400)]
    raises = [a for a in actions if a.kind == RAISE]
    # a pot-sized raise: call 50 to make the pot 200, then raise 200 more: to 300
    assert {a.size for a in raises} == {300} and 300 < len(raises) < 380


def test_never_more_than_the_stack() -> None:
    o2 = agent_class("o2")(GAME, seed=4)
    view = parse_match_state("MATCHSTATE:0:0:r19000:AsAh|", GAME)
    assert all(o2.act(view) in (Action(CALL), Action(RAISE, 20000)) for _ in range(100))


# -- table 1: VPIP and aggression against call ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(STYLES))
def test_style_plays_its_row_of_table_1_against_call(name: str) -> None:
    style = STYLES[name]
    share = share_of_starting_hands_in_range(style.range)
    assert abs(share - style.range) <= 0.01
    hands = play_in_process([agent_class(name)(GAME, seed=7), CallAgent(GAME)], DEALS)
    counts = count_play(hands, seat=0)
    assert within(counts.small_blind_vpip, counts.small_blind_hands, share), counts
    big_blind_raise = share * style.aggression.bet + (1 - share) * style.aggression.bluff
    assert within(counts.big_blind_vpip, counts.big_blind_hands, big_blind_raise), counts
    low, high = AF_BANDS[style.aggression.label]
    assert low <= counts.aggression_factor < high, (counts, counts.aggression_factor)


def test_o_random_plays_the_style_of_each_block_against_call() -> None:
    agent = agent_class("o_random")(GAME, seed=5)
    hands = play_in_process([agent, CallAgent(GAME)], DEALS)
    schedule = [RandomStyleAgent(GAME, seed=5).style_of_hand(h).name for h in range(0, HANDS, SWITCH_EVERY)]
    assert len(set(schedule)) >= 4  # 20 blocks drawn from eight styles
    expected = np.mean([share_of_starting_hands_in_range(STYLES[s].range) for s in schedule])
    counts = count_play(hands, seat=0)
    assert within(counts.small_blind_vpip, counts.small_blind_hands, float(expected)), counts
    # block by block: a tight block plays far fewer hands from the small blind than a loose one
    for block, style in enumerate(schedule):
        part = count_play(hands[block * SWITCH_EVERY : (block + 1) * SWITCH_EVERY], seat=0)
        share = share_of_starting_hands_in_range(STYLES[style].range)
        assert within(part.small_blind_vpip, part.small_blind_hands, share, errors=4.5), (block, style, part)


def test_o_random_schedule_depends_on_the_seed_and_hand_number_only() -> None:
    one, other = RandomStyleAgent(GAME, seed=9), RandomStyleAgent(GAME, seed=9)
    ids = list(range(0, 200 * SWITCH_EVERY, 250))
    forward = [one.style_of_hand(h).name for h in ids]
    assert forward == [other.style_of_hand(h).name for h in reversed(ids)][::-1]
    assert all(forward[2 * k] == forward[2 * k + 1] for k in range(len(ids) // 2))  # 500 hands a block
    blocks = [RandomStyleAgent(GAME, seed=9).style_of_hand(b * SWITCH_EVERY).name for b in range(4000)]
    frequencies = np.array([blocks.count(name) for name in STYLES]) / len(blocks)
    assert np.all(np.abs(frequencies - 1 / 8) < 0.025)  # uniform over the eight
    assert blocks != [RandomStyleAgent(GAME, seed=10).style_of_hand(b * SWITCH_EVERY).name for b in range(4000)]


def test_styles_are_repeatable_given_the_seed() -> None:
    def betting(seed: int) -> list[str]:
        agents = [agent_class("o6")(GAME, seed=seed), agent_class("o_random")(GAME, seed=seed + 1)]
        return [format_betting(s) for s in play_in_process(agents, DEALS[:600])]

    assert betting(1) == betting(1)
    assert betting(1) != betting(2)


def test_styles_refuse_games_other_than_holdem() -> None:
    with pytest.raises(ValueError, match="hold'em"):
        agent_class("o1")(load_game("leduc.limit.2p"), seed=1)
    assert isinstance(agent_class("o5")(load_game("holdem.limit.2p.reverse_blinds"), seed=1), StyleAgent)


def test_every_style_has_a_play_match_wrapper() -> None:
    for name in [*STYLES, "o_random"]:
        link = REPO / "agents" / "bin" / name
        assert link.is_symlink() and link.resolve() == REPO / "agents" / "bin" / "run-agent", name


# -- over TCP ------------------------------------------------------------------------------------------


def test_o_random_over_tcp_plays_as_in_process(tmp_path: Path) -> None:
    """A duplicate pair through ``acpc-match`` (real dealer, agent processes): the hands match an
    in-process replay with the seeds the runner gives, in both seatings, across a style switch."""
    hands = SWITCH_EVERY + 40
    schedule = RandomStyleAgent(GAME, seed=4 * 100 + 1)  # the seed the runner gives A for run seed 4
    assert schedule.style_of_hand(SWITCH_EVERY - 1) != schedule.style_of_hand(SWITCH_EVERY)  # o4, then o1
    done = subprocess.run(
        [program("acpc-match"), "--a", "o_random", "--b", "call", "--seeds", "4", "--hands", str(hands),
         "--game", "holdem.nolimit.2p.reverse_blinds", "--concurrency", "2", "--quiet", "--no-plots",
         "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    dealt = deal_hands(GAME, 4, hands)
    for a_seat in (0, 1):
        log = tmp_path / "run" / f"seed4-a{a_seat + 1}.log"
        logged = [parse_log_line(line, GAME) for line in log.read_text().splitlines() if line.startswith("STATE")]
        assert len(logged) == hands
        assert all(entry.state.hole_cards == deal.hole_cards for entry, deal in zip(logged, dealt, strict=True))
        seats = [RandomStyleAgent(GAME, seed=4 * 100 + 1), CallAgent(GAME)][:: 1 if a_seat == 0 else -1]
        replayed = play_in_process(seats, dealt)
        assert [format_betting(e.state) for e in logged] == [format_betting(s) for s in replayed]
        # nothing but actions: no warning of an action fixed by the client, no word of the style switch
        assert (tmp_path / "run" / "agents" / f"seed4-a{a_seat + 1}-a.err").read_text() == ""
