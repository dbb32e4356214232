"""AIVAT for one hand of a heads-up game (Burch, Schmid, Moravčík, Morrill and Bowling 2018, "AIVAT: A
New Variance Reduction Technique for Agent Evaluation in Imperfect Information Games").

The hand is replayed from its log line as a sequence of events: the players' cards dealt, each
round's board cards, each action. A *view* of the hand is chosen: it sees the public events
and the cards of every player whose policy is not known (an external bot, or, with
``imaginary=False``, every player); the cards of the known players are never seen but
weighed over: each known player has a *range*, a weight for every holding it could have,
multiplied after each of its actions by the probability its policy gives that action with
that holding. At every event whose probability given the view is known (chance: the seen
players' cards, each round's board cards; the known players' actions) the estimate
subtracts a correction

    V(view after the event) - sum over outcomes o of P(o | view) V(view with o)

(``values``' value function ``V``), and the hand's result is replaced by its expectation
over the unseen cards given the view at the end. Every correction has expectation 0 given
what came before it, so the estimate's expectation is the hand's expected result whatever
``V`` is; where ``V`` follows the value, the corrections cancel the luck of the cards and
of the known players' randomness. Once the betting is over before the last round (all in),
the rest of the board is one chance event: the runout, valued against every runout, which
takes the luck of all-in hands out as a whole. Board cards with more outcomes than
``enumerate_up_to`` (hold'em's flop, a runout from the flop back) are corrected against the
mean of ``V`` over outcomes drawn from their distribution given the view (unbiased too;
seeded by the hand's number): ``sample_budget`` over the holdings weighed, at least
``samples``.

Requirements: two players; one or two hole cards; each known agent's ``policies`` is the
distribution its action was drawn from, given its view and its earlier hands (the agent is
told each hand's start and end, as in a match); an action that a known policy gives
probability 0 with the cards the player held makes AIVAT unavailable (``AivatUnavailable``).
A range weighs each holding in both orders of its two cards (a policy may depend on the order
the cards were dealt in: an agent may seed its draws with them, ``baselines.card_seeded_rng``); the value
function sees the cards alone.

Cost: a known player's holdings are asked of its agent in one ``policies`` call a decision (the views
share the state: ``range_views``); where the two ranges weigh few pairs (decoy ranges, Kuhn, Leduc) the
value function and the action corrections sum over the pairs directly, one matrix of the pairs' signs
a board, and the full ranges of hold'em take ``values.sign_sums``' sorted sums.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import comb

import numpy as np

from acpc_arena.agents.base import Agent, Policy
from acpc_arena.dealer.arena.aivat.values import (
    DENSE_PAIRS,
    board_ranks,
    holding_strata,
    holdings_of,
    outcome_masks,
    sign_sums,
    stake,
    stratum_order,
)
from acpc_arena.protocol.cards import NUM_CARDS
from acpc_arena.protocol.equity import Holdings
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import FOLD, RAISE, Action, State
from acpc_arena.protocol.views import agent_view, range_views
from acpc_arena.protocol.wire import LogHand, MatchState, format_action

ENUMERATE_UP_TO = 2000
"""Board-card outcomes up to which a chance correction sums over every one (hold'em's turn and river)."""
SAMPLES = 64
"""The fewest outcomes drawn for a chance correction with more (hold'em's flop)."""
SAMPLE_BUDGET = 5000
"""Drawn outcomes times holdings weighed that a drawn chance correction takes, where that is more."""
_DECOYS, _BOARD = 0, 1
"""Keys that keep the generators of the decoys and of the drawn boards apart (independent draws)."""


class AivatUnavailable(ValueError):
    """AIVAT cannot be computed for these hands and agents; the message says why in one line."""


@dataclass(frozen=True)
class Settings:
    """How the estimate is computed (see the module docstring)."""

    imaginary: bool = True
    """Weigh the known players' cards over their ranges (AIVAT); False: see every card (cheaper, less
    variance removed)."""
    decoys: int | None = None
    """None: a known player's range starts with every holding; a number: with its own holding and one
    holding drawn from each of this many other strata of ``values.holding_strata`` (the view sees the set,
    not which one is dealt; each holding weighed costs a policy at each of the player's actions)."""
    enumerate_up_to: int = ENUMERATE_UP_TO
    samples: int = SAMPLES
    sample_budget: int = SAMPLE_BUDGET
    seed: int = 0
    """Mixed with each hand's number to seed the drawn outcomes."""


@dataclass(frozen=True)
class HandEstimate:
    """One hand's AIVAT value and its parts, in chips for the player in position 0."""

    value: float
    result: float
    """The hand's result (the log's value)."""
    chance: float
    """The chance corrections subtracted (cards dealt, board cards)."""
    actions: float
    """The known players' action corrections subtracted."""


class HandEstimator:
    """AIVAT of the hands of one match: ``known`` maps a player's name to its agent (the agent keeps
    its state from hand to hand, so give it the match's hands in order)."""

    def __init__(self, game: Game, known: Mapping[str, Agent], settings: Settings | None = None) -> None:
        if game.num_players != 2:
            raise AivatUnavailable(f"AIVAT is for two-player games, not {game.num_players} players")
        try:
            self.holdings: Holdings = holdings_of(game)
        except ValueError as exc:
            raise AivatUnavailable(str(exc)) from None
        self.game = game
        self.known = dict(known)
        self.settings = settings or Settings()
        self.orders = 2 if game.num_hole_cards == 2 else 1
        self._board_ranks: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        """By board: the ranks of the holdings on it and which are ranked yet (``_ranks_on``)."""
        self._outcome_ranks: tuple[np.ndarray, np.ndarray] = (np.zeros(0, dtype=np.intp), np.zeros((0, 0)))
        """The holdings the last ``_sums`` ranked with outcomes, and their ranks (outcome, holding)."""
        everything = np.ones((self.holdings.size, self.orders))
        self.prior_value = self._value(State(game), [everything, everything], [])

    # -- the value function --------------------------------------------------

    def _value(self, state: State, ranges: Sequence[np.ndarray], board: Sequence[int]) -> float:
        """``V`` for position 0 at ``state`` with these ranges and the board shown."""
        if state.num_folded:
            return state.value(0)
        signed, mass = self._outcome_sums(ranges, board, np.zeros((1, 0), dtype=np.uint8))
        return stake(state) * float(signed[0] / mass[0])

    # -- one hand ------------------------------------------------------------

    def hand(self, hand: LogHand) -> HandEstimate:
        """The AIVAT value of ``hand`` (a finished hand, every card in it, as a log line has it)."""
        final, holdings, game = hand.state, self.holdings, self.game
        agents = {p: self.known[name] for p, name in enumerate(hand.names) if name in self.known}
        hidden = set(agents) if self.settings.imaginary else set()
        holes = [list(cards) for cards in final.hole_cards]
        seen_cards = [c for p in range(2) if p not in hidden for c in holes[p]]
        ranges = []
        for p in range(2):
            if p in hidden:
                ranges.append(self._start_range(holdings.apart_from(seen_cards), holes[p], [final.hand_id, _DECOYS, p]))
            else:
                ranges.append(np.zeros((holdings.size, self.orders)))
                ranges[p][self._entry(holes[p])] = 1.0
        replay = State(game, final.hand_id, holes, list(final.board_cards))
        for p, agent in agents.items():
            agent.begin_hand(agent_view(replay, p, holes[p]))
        # the deal, as the view sees it: exact when at most one player's cards are weighed over a range
        chance = self._value(replay, ranges, []) - self.prior_value if len(hidden) < 2 else 0.0
        actions = 0.0
        board: list[int] = []
        for round_ in range(final.round + 1):
            new = final.board_cards[len(board) : game.board_start[round_ + 1]] if round_ else []
            if replay.finished:  # all in: the rest of the board is one chance event, the runout
                new = final.board_cards[len(board) : game.total_board_cards]
            if new:
                chance += self._board_correction(replay, ranges, board, new, hidden, seen_cards, hand)
                board += new
            for action, actor in zip(final.actions[round_], final.acting_players[round_], strict=True):
                if actor in agents:
                    actions += self._action_correction(replay, actor, agents[actor], ranges, board, action, hand)
                replay.apply(action)
        end = self._value(replay, ranges, board)
        for p, agent in agents.items():
            shown = not replay.num_folded
            agent.end_hand(MatchState(p, replay) if shown else agent_view(replay, p, holes[p]))
        return HandEstimate(end - chance - actions, hand.values[0], chance, actions)

    def _start_range(self, possible: np.ndarray, hole: list[int], seed: list[int]) -> np.ndarray:
        """A hidden player's range before any action: every ``possible`` holding in both orders, or with
        ``decoys`` its own as dealt and one possible holding drawn from each other stratum of the
        ``decoys + 1`` of ``holding_strata`` (a set that spans the holdings from strong to weak), each in one
        order drawn at random (one order a holding halves the policies asked for). Given the set, a member is
        the one dealt with probability proportional to the possible holdings of its stratum (Bayes: the set
        had one chance in that many of each other stratum's draw), which is its weight."""
        decoys = self.settings.decoys
        if decoys is None or decoys + 1 >= self.holdings.size:
            return np.repeat(possible[:, None], self.orders, axis=1).astype(np.float64)
        own = self._entry(hole)
        strata, order = holding_strata(self.game, decoys + 1), stratum_order(self.game, decoys + 1)
        by_stratum = order[possible[order]]  # the possible holdings by stratum, each stratum's in row order
        sizes = np.bincount(strata[by_stratum], minlength=decoys + 1)
        rng = np.random.default_rng([self.settings.seed, *seed])
        picks = np.cumsum(sizes) - sizes + (rng.random(decoys + 1) * sizes).astype(np.intp)
        drawn = ((sizes > 0) & (np.arange(decoys + 1) != strata[own[0]])).nonzero()[0]
        chosen = by_stratum[picks[drawn]]
        start = np.zeros((self.holdings.size, self.orders))
        start[chosen, rng.integers(self.orders, size=len(chosen))] = sizes[drawn]
        start[own] = sizes[strata[own[0]]]
        return start

    # -- corrections ---------------------------------------------------------

    def _board_correction(
        self,
        state: State,
        ranges: list[np.ndarray],
        board: list[int],
        new: list[int],
        hidden: set[int],
        seen_cards: list[int],
        hand: LogHand,
    ) -> float:
        """V with the board cards ``new`` less its expectation over the cards that could have come; the
        ranges lose the holdings the new cards block."""
        holdings, m = self.holdings, stake(state)
        unseen = [c for c in self.game.deck if c not in board and c not in seen_cards]
        if comb(len(unseen), len(new)) <= self.settings.enumerate_up_to:
            outcomes = np.array(list(itertools.combinations(unseen, len(new))), dtype=np.uint8)
            signed, mass = self._outcome_sums(ranges, board, outcomes)
            expected = m * float(signed.sum() / mass.sum())
            self._keep_ranks(board + new, outcomes, new)
        else:
            rng = np.random.default_rng([self.settings.seed, hand.state.hand_id, _BOARD, state.round])
            outcomes = self._draw_outcomes(ranges, hidden, unseen, len(new), rng)
            signed, mass = self._outcome_sums(ranges, board, outcomes)
            expected = m * float((signed / mass).mean())
        for p in hidden:
            ranges[p] *= holdings.apart_from(new)[:, None]
        return self._value(state, ranges, board + new) - expected

    def _outcome_sums(
        self, ranges: Sequence[np.ndarray], board: Sequence[int], outcomes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``_sums`` of the ranges (n, orders)."""
        return self._sums(_per_holding(ranges[0]), _per_holding(ranges[1]), board, outcomes)

    def _sums(
        self, first: np.ndarray, second: np.ndarray, board: Sequence[int], outcomes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``sign_sums`` of the ranges ``first`` and ``second`` (by holding: (n,), or (B, n) one pair a row)
        with each row of ``outcomes`` (B, e) added to the board, without the holdings it blocks (the value
        is ``stake * S / Z``; ``Z`` is the outcome's probability up to a factor)."""
        holdings = self.holdings
        first, second = np.atleast_2d(first), np.atleast_2d(second)
        if outcomes.shape[1] == 0:  # the board alone: every row the same ranks, kept for the board
            return self._board_sums(first, second, board)
        rows = np.union1d(_weighed(first), _weighed(second))
        apart = (outcome_masks(outcomes)[:, None] & holdings.masks[rows][None, :]) == 0
        ranks = board_ranks(holdings, board, outcomes, rows)
        self._outcome_ranks = (rows, ranks)
        return sign_sums(holdings, rows, first[:, rows] * apart, second[:, rows] * apart, ranks)

    def _keep_ranks(self, board: Sequence[int], outcomes: np.ndarray, new: Sequence[int]) -> None:
        """Keep for ``_ranks_on`` the ranks on ``board`` (the cards ``new`` dealt) of the holdings the last
        ``_sums`` ranked with each of ``outcomes``, ``new`` among them."""
        rows, ranks = self._outcome_ranks
        dealt = int((outcome_masks(outcomes) == np.uint64(sum(1 << c for c in new))).nonzero()[0][0])
        kept, known = self._ranks_entry(board)
        kept[rows], known[rows] = ranks[dealt], True

    def _board_sums(self, first: np.ndarray, second: np.ndarray, board: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """``_sums`` with the board alone (``first`` and ``second`` (B, n)): where the ranges weigh few pairs,
        one matrix of the pairs' signs (0 for a pair sharing a card) and one of the pairs apart, else
        ``sign_sums``."""
        mine, theirs = _weighed(first), _weighed(second)
        ranks = self._ranks_on(board, np.concatenate([mine, theirs]))
        if len(mine) * len(theirs) > DENSE_PAIRS:
            rows = np.union1d(mine, theirs)
            shown = np.broadcast_to(ranks[rows], (len(first), len(rows)))
            return sign_sums(self.holdings, rows, first[:, rows], second[:, rows], shown)
        masks = self.holdings.masks
        apart = (masks[mine][:, None] & masks[theirs][None, :]) == 0
        signs = np.sign(ranks[mine][:, None] - ranks[theirs][None, :]) * apart
        p, q = first[:, mine], second[:, theirs]
        return ((p @ signs) * q).sum(axis=1), ((p @ apart) * q).sum(axis=1)

    def _ranks_on(self, board: Sequence[int], rows: np.ndarray) -> np.ndarray:
        """(n,) the rank of each holding of ``rows`` with ``board`` (0 for a holding that shares a card with it;
        the other entries mean nothing), each ranked once for the board of the moment and the empty one."""
        ranks, known = self._ranks_entry(board)
        missing = rows[~known[rows]]
        if len(missing):
            shown = np.uint64(sum(1 << c for c in board))
            apart = missing[(self.holdings.masks[missing] & shown) == 0]
            ranks[apart] = board_ranks(self.holdings, board, np.zeros((1, 0), dtype=np.uint8), apart)[0]
            known[missing] = True
        return ranks

    def _ranks_entry(self, board: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """The ranks on ``board`` kept for ``_ranks_on`` and which holdings they hold (a new board drops the
        last one's, the empty board's kept)."""
        key = tuple(board)
        entry = self._board_ranks.get(key)
        if entry is None:
            if key:
                self._board_ranks = {(): self._board_ranks[()]} if () in self._board_ranks else {}
            size = self.holdings.size
            entry = self._board_ranks[key] = (np.zeros(size, dtype=np.int64), np.zeros(size, dtype=bool))
        return entry

    def _draw_outcomes(
        self, ranges: list[np.ndarray], hidden: set[int], unseen: list[int], size: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Draws of the next ``size`` board cards given the view (``sample_count`` of them): the hidden
        players' holdings drawn from their joint distribution, then the cards from the rest of the deck."""
        holdings = self.holdings
        count = self._sample_count(ranges)
        unseen_cards = np.array(unseen, dtype=np.intp)
        taken = np.zeros((count, len(unseen_cards)), dtype=bool)  # a drawn holding's cards, by unseen card
        live = (_per_holding(ranges[0]) + _per_holding(ranges[1])).nonzero()[0]  # the holdings of some weight
        drawn: np.ndarray | None = None
        for p in sorted(hidden):
            weights = _per_holding(ranges[p])[live]
            if drawn is None and len(hidden) == 2:  # the first player's marginal: weighed by the other's apart
                weights = weights * self._apart_mass(ranges[1 - p], live)
            weights = np.broadcast_to(weights, (count, len(live)))
            if drawn is not None:  # the second player's: apart from the first's drawn holding
                weights = weights * ((holdings.masks[live][None, :] & holdings.masks[drawn][:, None]) == 0)
            cumulative = np.cumsum(weights, axis=1)
            picks = (1.0 - rng.random(count)) * cumulative[:, -1]  # in (0, total]: never a holding of weight 0
            drawn = live[np.minimum((cumulative < picks[:, None]).sum(axis=1), len(live) - 1)]
            taken |= (holdings.masks[drawn][:, None] >> unseen_cards.astype(np.uint64)[None, :]) & np.uint64(1) == 1
        keys = np.where(taken, np.inf, rng.random((count, len(unseen_cards))))
        return unseen_cards[np.argsort(keys, axis=1)[:, :size]].astype(np.uint8)

    def _sample_count(self, ranges: Sequence[np.ndarray]) -> int:
        """How many outcomes a drawn chance correction takes: ``sample_budget`` over the holdings weighed,
        at least ``samples``."""
        weighed = int(np.count_nonzero(_per_holding(ranges[0]) + _per_holding(ranges[1])))
        return max(self.settings.samples, self.settings.sample_budget // max(weighed, 1))

    def _apart_mass(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """(len(rows),) for each holding of ``rows``, the weight of the range ``weights`` (n, orders) on the
        holdings sharing no card with it: the whole weight, less that of the holdings holding each of its
        cards, the holding itself taken back once for each card but one."""
        cards = self.holdings.cards
        k = cards.shape[1]
        weights = _per_holding(weights)
        held = weights.nonzero()[0]
        if len(held) * len(rows) <= DENSE_PAIRS:  # few pairs (decoy ranges): over the pairs directly
            masks = self.holdings.masks
            return np.asarray(((masks[rows][:, None] & masks[held][None, :]) == 0) @ weights[held])
        per_card = np.bincount(cards[held].ravel(), weights=np.repeat(weights[held], k), minlength=NUM_CARDS)
        return weights[held].sum() - per_card[cards[rows]].sum(axis=1) + (k - 1) * weights[rows]

    def _entry(self, hole: Sequence[int]) -> tuple[int, int]:
        """The (holding, order) entry of a range for the hole cards ``hole`` as dealt."""
        return self.holdings.of(hole), int(self.orders == 2 and hole[0] > hole[1])

    def _action_correction(
        self,
        state: State,
        actor: int,
        agent: Agent,
        ranges: list[np.ndarray],
        board: list[int],
        action: Action,
        hand: LogHand,
    ) -> float:
        """V after ``action`` less its expectation over the actions the actor's policy could have taken
        given the view; the actor's range is weighed by the probability of ``action``."""
        holdings, weights = self.holdings, ranges[actor].ravel()  # a view: updates reach the range
        live = weights.nonzero()[0]  # 1-D: nonzero without flatnonzero's ravel and wrapper
        rows, orders = np.divmod(live, self.orders)
        cards = holdings.cards[rows]
        cards = np.where(orders[:, None] == 1, cards[:, ::-1], cards)
        policies = self._policies(agent, state, actor, cards.tolist(), hand)
        row, order = self._entry(state.hole_cards[actor])
        actual = int(np.searchsorted(live, row * self.orders + order))
        if policies[actual].get(action, 0.0) <= 0:
            raise AivatUnavailable(
                f"hand {hand.state.hand_id}: the policy given for {hand.names[actor]} ({agent.name}) gives its "
                f"action {format_action(action, self.game)} probability 0: not the policy it played"
            )
        shared = all(policy is policies[0] or policy == policies[0] for policy in policies)
        choices = [a for a, p in policies[0].items() if p > 0] if shared else _support(policies)
        if shared:
            sigma = np.array([[policies[0][a]] for a in choices]) * np.ones((1, len(live)))
        else:
            sigma = np.array([[policy.get(a, 0.0) for policy in policies] for a in choices])
        other = ranges[1 - actor]
        reach = weights[live] * self._apart_mass(other, rows)
        chances = sigma @ reach / reach.sum()
        values = np.empty(len(choices))
        going_on = [i for i, a in enumerate(choices) if a.kind != FOLD]
        for i, a in enumerate(choices):
            if a.kind == FOLD:
                values[i] = -state.spent[0] if actor == 0 else state.spent[1]
        if going_on:
            # one value per distinct range after the action: a policy the same with every holding leaves it as is
            columns = sigma[going_on[:1]] if shared else sigma[going_on]
            signs = self._signs_after(actor, rows, weights[live] * columns, _per_holding(other), board)
            for j, i in enumerate(going_on):
                values[i] = self._stake_after(state, choices[i]) * signs[0 if shared else j]
        taken = choices.index(action)
        weights[live] *= sigma[taken]
        ranges[actor] /= weights.sum()
        return float(values[taken] - chances @ values)

    def _signs_after(
        self, actor: int, rows: np.ndarray, after: np.ndarray, other: np.ndarray, board: Sequence[int]
    ) -> np.ndarray:
        """(C,) ``E[sign(rank0 - rank1)]`` for each range of the actor after an action (``after`` (C, len(rows)):
        weights of the holdings ``rows``, a holding maybe twice, once an order) against the other player's
        (``other`` (n,)): where they weigh few pairs, over the pairs directly, else by ``_sums``."""
        theirs = other.nonzero()[0]
        first = np.ones(len(rows), dtype=bool)  # rows are in order: each holding's first entry
        first[1:] = rows[1:] != rows[:-1]
        starts = first.nonzero()[0]
        mine = rows[starts]
        compact = np.add.reduceat(after, starts, axis=1)  # a holding's orders added (0 + a + b as one by one)
        if len(mine) * len(theirs) <= DENSE_PAIRS:
            masks, ranks = self.holdings.masks, self._ranks_on(board, np.concatenate([mine, theirs]))
            apart = (masks[mine][:, None] & masks[theirs][None, :]) == 0
            signs = np.sign(ranks[mine][:, None] - ranks[theirs][None, :]) * apart
            signed = (compact @ signs) @ other[theirs] * (1 if actor == 0 else -1)
            mass = (compact @ apart) @ other[theirs]
        else:
            full = np.zeros((len(after), self.holdings.size))
            full[:, mine] = compact
            others = np.broadcast_to(other, full.shape)
            pair = (full, others) if actor == 0 else (others, full)
            signed, mass = self._board_sums(pair[0], pair[1], board)
        return np.divide(signed, mass, out=np.zeros_like(signed, dtype=np.float64), where=mass > 0)

    def _stake_after(self, state: State, action: Action) -> int:
        """``stake`` once ``action`` (a call or a raise) is taken at ``state``: a limit raise counts at its
        raise-to size (bets are small and mostly called); a no-limit one at the bet it calls (a large raise is
        mostly folded to: valued at its size, its corrections added more variance than they took out)."""
        if action.kind != RAISE or self.game.no_limit:
            return stake(state)
        return min(min(state.legal_actions().min_raise_to, chips) for chips in self.game.stack)

    def _policies(self, agent: Agent, state: State, actor: int, cards: list[list[int]], hand: LogHand) -> list[Policy]:
        try:
            return agent.policies(range_views(state, actor, cards))
        except Exception as exc:  # the agent's own failure: AIVAT is unavailable, the match's figures stand
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise AivatUnavailable(
                f"hand {hand.state.hand_id}: {hand.names[actor]} ({agent.name}) gives no policy: {reason}"
            ) from None


def _support(policies: Sequence[Policy]) -> list[Action]:
    """The actions of positive probability in any of ``policies``, in the order first met."""
    seen: dict[Action, None] = {}
    for policy in policies:
        for action, p in policy.items():
            if p > 0:
                seen.setdefault(action)
    return list(seen)


def _per_holding(weights: np.ndarray) -> np.ndarray:
    """(n,) a range's (n, orders) weight of each holding, its orders added (as ``sum(axis=1)`` adds them, at a
    tenth of the cost on a hold'em range)."""
    return weights[:, 0] + weights[:, 1] if weights.shape[1] == 2 else weights[:, 0].copy()


def _weighed(weights: np.ndarray) -> np.ndarray:
    """The holdings (columns) of some weight in any row of ``weights`` (B, n)."""
    return (weights[0] if len(weights) == 1 else np.asarray(weights.any(axis=0))).nonzero()[0]
