"""``acpc-agent --check``: the promises of the agent API (``agents.base``), verified by play.

``check_agent`` plays ``hands`` hands of every shipped game the agent claims (``claimed_games``), in
process, against shipped opponents (``random`` and ``call``: one of them a hand in turn heads-up, both at a
three-player table), the agent in seat ``hand % players`` of hand ``hand``, the cards dealt by MT19937
seeded with ``seed``. At each of its decisions it checks:

- ``legal``: the action ``act`` returned, as returned (before any fixing), is legal in the state;
- ``policy``: ``policy(view)`` gives legal actions only (no-limit raises by a raise-to within the
  bounds), probabilities that are finite, not negative and sum to 1 within ``SUM_TOLERANCE``; the same
  for ``policies`` of the view and two other holdings, and ``policies``' answer for the view is ``policy``'s;
- ``sampling``: ``act`` never chooses an action its policy gives probability 0, and its choices follow
  the policy (``sampling_test``: a chi-square test, false alarm rate ``FALSE_ALARM`` a game);
- ``views``: ``begin_hand``, ``act``, ``policy``, ``policies`` and ``end_hand`` leave every field of
  their views as they were (``fingerprint``);
- ``seed``: a second agent built with the same seed and options, shown the same views, acts alike;
- ``unchanged``: asking ``policy`` and ``policies`` does not change what ``act`` does (the checked agent,
  asked them, acts as a third agent of the same seed that is never asked);
- ``runs``: no method raises (the game's check stops at the first exception).

An agent without ``policy`` has no ``policy`` nor ``sampling`` check (nor ``unchanged``): not applicable,
and the report says so (no LBR and no AIVAT for it).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from acpc_arena.agents.base import Agent, Policy, has_policy, valid_or_call
from acpc_arena.agents.registry import agent_class, cause_line
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import GAME_ALIASES, SHIPPED_GAMES, Game, load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL, CALL_ACTION, FOLD, FOLD_ACTION, RAISE, Action, State
from acpc_arena.protocol.views import agent_view, range_views
from acpc_arena.protocol.wire import MatchState, shows_cards

SUM_TOLERANCE = 1e-6
"""How far from 1 a policy's probabilities may sum."""
FALSE_ALARM = 1e-4
"""The sampling test fails a game when its p-value is below this: the chance a faithful agent fails it."""
BINS = 10
"""The sampling test's bins of the uniform draws (``sampling_test``)."""
LEAST_MIXED = 5 * BINS
"""The fewest mixed decisions the chi-square test is run on (5 expected in each bin)."""
OPPONENTS = ("random", "call")
"""The shipped agents the checked agent plays against."""
OTHER_HOLDINGS = 2
"""Holdings other than its own that ``policies`` is asked about at each decision."""
PROMISES = {
    "legal": "legal actions only",
    "policy": "policy sums to 1 over legal actions",
    "sampling": "act samples policy",
    "views": "views never changed",
    "seed": "deterministic under a seed",
    "unchanged": "policy leaves the agent unchanged",
    "runs": "no method raises",
    "games": "plays the games it claims",
}
"""Each promise's key and its name in the report."""
NO_POLICY = "policy, sampling: not applicable: no policy (so no LBR and no AIVAT for it)"

T = TypeVar("T")


@dataclass
class Finding:
    """A broken promise in one game: where it was first seen and how often."""

    promise: str
    game: str
    hand: str
    detail: str
    count: int = 1

    def line(self) -> str:
        more = f" (and {self.count - 1} more in this game)" if self.count > 1 else ""
        return f"FAIL {PROMISES[self.promise]}: {self.game}, {self.hand}: {self.detail}{more}"


@dataclass
class GameCheck:
    """One game's check: what was played, what failed, and notes (the sampling test's figures)."""

    game: str
    hands: int = 0
    decisions: int = 0
    findings: dict[str, Finding] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def played(self) -> str:
        return f"{self.hands} hands, {self.decisions} decisions"

    def fail(self, promise: str, hand: str, detail: str) -> None:
        """Record a broken promise (its first occurrence kept, the others counted)."""
        found = self.findings.get(promise)
        if found is None:
            self.findings[promise] = Finding(promise, self.game, hand, detail)
        else:
            found.count += 1


@dataclass
class CheckReport:
    """What ``check_agent`` found: a game check per game played, and the games declined."""

    spec: str
    has_policy: bool
    games: list[GameCheck] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)
    """A line for each shipped game the agent does not claim (its constructor refused it)."""
    failures: list[Finding] = field(default_factory=list)
    """Broken promises outside any game's play (a claimed game the constructor refuses)."""

    @property
    def ok(self) -> bool:
        return not self.failures and all(not check.findings for check in self.games) and bool(self.games)

    def lines(self) -> list[str]:
        """The report, a line each: every game, every broken promise, the verdict."""
        out = [f"{check.game}: {'; '.join([check.played(), *check.notes])}" for check in self.games]
        out += [f"not claimed: {line}" for line in self.declined]
        if not self.has_policy:
            out.append(NO_POLICY)
        out += [finding.line() for finding in self.failures]
        out += [finding.line() for check in self.games for finding in check.findings.values()]
        if not self.games and not self.failures:
            out.append("FAIL plays the games it claims: no shipped game")
        broken = len(self.failures) + sum(len(check.findings) for check in self.games)
        out.append("ok: every promise kept" if self.ok else f"broken: {broken} promise(s)")
        return out


class _Raised(Exception):
    """A method of the checked agent raised (``runs``)."""


def fingerprint(view: MatchState) -> tuple[object, ...]:
    """Every field of a view, copied into tuples: equal before and after a call that leaves the view alone."""
    s = view.state
    return (
        view.viewer,
        s.hand_id,
        s.round,
        s.finished,
        s.current_player,
        s.max_spent,
        s.min_no_limit_raise_to,
        s.num_folded,
        s.num_all_in,
        s.round_raises,
        tuple(s.spent),
        tuple(s.folded),
        tuple(tuple(actions) for actions in s.actions),
        tuple(tuple(players) for players in s.acting_players),
        tuple(tuple(cards) for cards in s.hole_cards),
        tuple(s.board_cards),
    )


def shown(action: object) -> str:
    """An action in words (``fold``, ``call``, ``raise``, ``raise to 600``), anything else as its repr."""
    if not isinstance(action, Action) or action.kind not in (FOLD, CALL, RAISE):
        return repr(action)
    words = ("fold", "call", "raise")[action.kind]
    if not action.size:
        return words
    return f"raise to {action.size}" if action.kind == RAISE else f"{words} of size {action.size}"


def is_legal(state: State, action: object) -> bool:
    """Whether ``action`` is exactly a legal action at ``state`` (a raise-to within bounds; no size but a
    no-limit raise's)."""
    return isinstance(action, Action) and state.validate_action(action) == action


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom (closed forms for whole ``df``)."""
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        terms, term = 0.0, 1.0
        for i in range(df // 2):
            term = 1.0 if i == 0 else term * half / i
            terms += term
        return math.exp(-half) * terms
    total = math.erfc(math.sqrt(half))
    for i in range(1, (df + 1) // 2):
        total += math.exp((i - 0.5) * math.log(half) - half - math.lgamma(i + 0.5))
    return min(1.0, total)


def sampling_test(draws: Sequence[float]) -> tuple[float, float]:
    """(chi-square, p-value) of ``draws`` against the uniform distribution on [0, 1), in ``BINS`` bins.

    Each draw is the randomized probability integral transform of one mixed decision: with the policy's
    actions in order and ``F`` their cumulative probability, the chosen action ``a`` gives ``F(before a) +
    V * p(a)``, ``V`` uniform and independent. If ``act`` draws from its policy, each draw is uniform given
    the decisions before it, so the draws are independent uniforms whatever the policies were, and the
    statistic is chi-square with ``BINS - 1`` degrees of freedom (approximately, with 5 or more expected a bin).
    """
    counts = [0] * BINS
    for u in draws:
        counts[min(BINS - 1, int(u * BINS))] += 1
    expected = len(draws) / BINS
    statistic = sum((count - expected) ** 2 / expected for count in counts)
    return statistic, chi_square_sf(statistic, BINS - 1)


def policy_problem(state: State, policy: object) -> str | None:
    """What breaks the policy promise at ``state``, or None (a no-limit policy may have thousands of raise
    sizes: each test is one pass in C)."""
    if not isinstance(policy, dict) or not policy:
        return f"not a non-empty dict of actions: {policy!r:.80}"
    if set(map(type, policy)) != {Action}:
        return f"gives probability to {next(a for a in policy if type(a) is not Action)!r}, not an Action"
    legal = state.legal_actions()
    raises = policy.keys() - {FOLD_ACTION, CALL_ACTION}
    if raises:
        sizes = (legal.min_raise_to, legal.max_raise_to) if state.game.no_limit else (0, 0)
        lowest, highest = min(raises), max(raises)  # actions in order: (kind, size), RAISE the highest kind
        if not legal.can_raise or lowest < Action(RAISE, sizes[0]):
            return f"gives probability to {shown(lowest)}, not a legal action"
        if highest > Action(RAISE, sizes[1]):
            return f"gives probability to {shown(highest)}, not a legal action"
    if FOLD_ACTION in policy and not legal.can_fold:
        return "gives probability to fold where nothing is owed, not a legal action"
    values = list(policy.values())
    try:
        total = math.fsum(values)
    except TypeError:
        return (
            f"gives a probability that is not a number: {next(p for p in values if not isinstance(p, float | int))!r}"
        )
    if not math.isfinite(total) or min(values) < 0:
        return f"gives the probability {min(values) if math.isfinite(total) else total!r}"
    if abs(total - 1) > SUM_TOLERANCE:
        return f"probabilities sum to {total!r}"
    return None


def _same_policy(a: Policy, b: Policy) -> bool:
    return a == b or (a.keys() == b.keys() and all(abs(a[k] - b[k]) <= SUM_TOLERANCE for k in a))


def claimed_games(
    cls: type[Agent], options: dict[str, object], seed: int, only: str | None = None
) -> tuple[list[tuple[str, Game]], list[str], list[Finding]]:
    """(the games to check, a line for each shipped game not claimed, failures): ``cls.games`` if given (a
    claimed game its constructor refuses is a failure), else every shipped game its constructor takes;
    ``only`` (a game name) narrows them to one."""
    claimed = cls.games
    if only is not None:
        names = [GAME_ALIASES.get(only, only)]
    else:
        names = list(claimed if claimed is not None else SHIPPED_GAMES)
    games: list[tuple[str, Game]] = []
    declined: list[str] = []
    failures: list[Finding] = []
    for name in names:
        game = load_game(name)
        try:
            cls(game, seed, **options)
        except ValueError as exc:  # the agent does not play this game, or not with these options
            if only is None and claimed is None:
                declined.append(f"{name} ({cause_line(exc)})")
            else:
                refused = f"the constructor refuses it: {cause_line(exc)}"
                failures.append(Finding("games", name, "construction", refused))
            continue
        except Exception as exc:
            failures.append(Finding("runs", name, "construction", f"the constructor raised {cause_line(exc)}"))
            continue
        games.append((name, game))
    return games, declined, failures


def check_agent(
    spec: str, options: dict[str, object], *, hands: int = 300, seed: int = 1, game: str | None = None
) -> CheckReport:
    """Play ``hands`` hands of each game the agent ``spec`` claims (or of ``game``) and check its promises."""
    cls = agent_class(spec)
    report = CheckReport(spec, has_policy(cls))
    games, report.declined, report.failures = claimed_games(cls, options, seed, game)
    for name, loaded in games:
        check = _Table(cls, options, name, loaded, seed)
        check.play(hands)
        report.games.append(check.result)
    return report


class _Table:
    """One game's check: the checked agent, its two same-seed copies, the opponents and the deal."""

    def __init__(self, cls: type[Agent], options: dict[str, object], name: str, game: Game, seed: int) -> None:
        self.game = game
        self.result = GameCheck(name)
        self.agent = cls(game, seed, **options)
        self.twin = cls(game, seed, **options)  # shown the same views, never asked its policy
        self.third = cls(game, seed, **options)  # the same: does a seed make act repeatable?
        self.with_policy = has_policy(cls)
        self.opponents = [agent_class(name)(game, seed + 1 + i) for i, name in enumerate(OPPONENTS)]
        self.deal = MT19937(seed)
        self.pick = random.Random(seed)  # other holdings; the sampling test's V
        self.draws: list[float] = []
        self.hand = ""

    def play(self, hands: int) -> None:
        """Play the hands, then run the sampling test."""
        for hand_id in range(hands):
            self.hand = f"hand {hand_id}"
            try:
                self._hand(deal_hand(self.game, hand_id, self.deal))
            except _Raised as exc:
                self.result.fail("runs", self.hand, str(exc))
                return
            self.result.hands += 1
        if self.with_policy:
            self._sampling(hands)

    def _seating(self, hand_id: int) -> tuple[int, list[Agent]]:
        """The checked agent's seat and the opponents by the other seats in order."""
        players = self.game.num_players
        if players == 2:
            return hand_id % 2, [self.opponents[hand_id // 2 % 2]]
        return hand_id % players, [self.opponents[(hand_id + i) % 2] for i in range(players - 1)]

    def _hand(self, state: State) -> None:
        seat, others = self._seating(state.hand_id)
        table = {p: others.pop(0) for p in range(self.game.num_players) if p != seat}
        for p, opponent in table.items():
            opponent.begin_hand(agent_view(state, p, state.hole_cards[p]))
        self._each_copy("begin_hand", lambda: agent_view(state, seat, state.hole_cards[seat]))
        while not state.finished:
            p = state.current_player
            if p != seat:
                state.apply(valid_or_call(state, table[p].act(agent_view(state, p, state.hole_cards[p]))))
                continue
            self.result.decisions += 1
            state.apply(self._decide(state, seat))
        for p, opponent in table.items():
            opponent.end_hand(_final_view(state, p))
        self._each_copy("end_hand", lambda: _final_view(state, seat))

    def _each_copy(self, method: str, view: Callable[[], MatchState]) -> None:
        """Call ``method`` of the checked agent and its copies, each with a view of its own."""
        for agent in (self.agent, self.twin, self.third):
            one = view()
            self._called(method, one, partial(getattr(agent, method), one), agent is self.agent)

    def _called(self, method: str, view: MatchState, call: Callable[[], T], watched: bool = True) -> T:
        """``call()``, its view's fingerprint compared; an exception is ``_Raised``."""
        before = fingerprint(view)
        try:
            out = call()
        except Exception as exc:
            raise _Raised(f"{method} raised {cause_line(exc)}") from None
        if watched and fingerprint(view) != before:
            self.result.fail("views", self.hand, f"{method} changed its view")
        return out

    def _decide(self, state: State, seat: int) -> Action:
        """The checked agent's action, every promise of the decision checked; a legal action to apply."""
        policy = self._policies(state, seat) if self.with_policy else None
        action: object = self._called("act", (view := _view(state, seat)), lambda: self.agent.act(view))
        twin = self._called("act", (view2 := _view(state, seat)), lambda: self.twin.act(view2), False)
        third = self._called("act", (view3 := _view(state, seat)), lambda: self.third.act(view3), False)
        if not is_legal(state, action):
            self.result.fail("legal", self.hand, f"act returned {shown(action)}, not legal at {_at(state)}")
        if twin != third or (action != twin and not self.with_policy):
            pair = (twin, third) if twin != third else (action, twin)
            self.result.fail(
                "seed",
                self.hand,
                f"two agents of one seed, shown the same views, acted {shown(pair[0])} and {shown(pair[1])}",
            )
        elif action != twin:
            self.result.fail(
                "unchanged", self.hand, f"asked its policy, it acted {shown(action)}; not asked, {shown(twin)}"
            )
        if not isinstance(action, Action):
            return CALL_ACTION
        if policy is not None:
            self._sample(policy, action)
        return action if is_legal(state, action) else valid_or_call(state, action)

    def _policies(self, state: State, seat: int) -> Policy | None:
        """``policy`` at the view and ``policies`` at it and other holdings, checked; the policy if valid."""
        view = _view(state, seat)
        policy = self._called("policy", view, lambda: self.agent.policy(view))
        problem = policy_problem(state, policy)
        if problem is not None:
            self.result.fail("policy", self.hand, f"policy {problem}")
        holdings = [state.hole_cards[seat], *self._other_holdings(state, seat)]
        views = range_views(state, seat, holdings)
        before = [fingerprint(one) for one in views]
        try:
            answers: object = self.agent.policies(views)
        except Exception as exc:
            raise _Raised(f"policies raised {cause_line(exc)}") from None
        if [fingerprint(one) for one in views] != before:
            self.result.fail("views", self.hand, "policies changed its views")
        if not isinstance(answers, list) or len(answers) != len(views):
            self.result.fail("policy", self.hand, f"policies of {len(views)} views gave {answers!r:.80}")
        else:
            for answer in answers:
                if (wrong := policy_problem(state, answer)) is not None:
                    self.result.fail("policy", self.hand, f"policies {wrong}")
            if problem is None and policy_problem(state, answers[0]) is None and not _same_policy(policy, answers[0]):
                self.result.fail("policy", self.hand, "policies([view]) is not policy(view)")
        return policy if problem is None else None

    def _other_holdings(self, state: State, seat: int) -> list[list[int]]:
        """Holdings the player at ``seat`` could hold, other than its own (the visible board left out)."""
        game = self.game
        unseen = [c for c in game.deck if c not in state.visible_board() and c not in state.hole_cards[seat]]
        if len(unseen) < game.num_hole_cards:
            return []
        return [sorted(self.pick.sample(unseen, game.num_hole_cards)) for _ in range(OTHER_HOLDINGS)]

    def _sample(self, policy: Policy, action: Action) -> None:
        """The zero-probability check, and the decision's draw for ``sampling_test`` if the policy mixes."""
        p = policy.get(action, 0.0)
        if p <= 0:
            self.result.fail("sampling", self.hand, f"act chose {shown(action)}, which its policy gives probability 0")
            return
        if sum(q > 0 for q in policy.values()) < 2:
            return
        before = math.fsum(q for a, q in policy.items() if a < action)  # the actions in order: (kind, size)
        total = math.fsum(policy.values())
        self.draws.append(min((before + self.pick.random() * p) / total, math.nextafter(1.0, 0.0)))

    def _sampling(self, hands: int) -> None:
        n = len(self.draws)
        if n == 0:
            self.result.notes.append("sampling: the policy never mixes (act chose its one action each time)")
            return
        if n < LEAST_MIXED:
            self.result.notes.append(
                f"sampling: {n} mixed decisions ({LEAST_MIXED} needed for the chi-square test): not run"
            )
            return
        statistic, p = sampling_test(self.draws)
        figures = f"chi-square {statistic:.1f} ({BINS - 1} df) over {n} mixed decisions, p = {p:.2g}"
        if p < FALSE_ALARM:
            self.result.fail("sampling", f"hands 0-{hands - 1}", f"act's choices do not follow its policy: {figures}")
        else:
            self.result.notes.append(f"sampling: {figures}")


def _view(state: State, seat: int) -> MatchState:
    return agent_view(state, seat, state.hole_cards[seat])


def _final_view(state: State, seat: int) -> MatchState:
    """The last state of the hand as ``seat`` sees it (the cards of a showdown shown)."""
    view = state.copy()
    players = range(state.game.num_players)
    view.hole_cards = [list(state.hole_cards[p]) if shows_cards(state, p, seat) else [] for p in players]
    view.board_cards = state.visible_board()
    return MatchState(seat, view)


def _at(state: State) -> str:
    legal = state.legal_actions()
    folds = "fold, " if legal.can_fold else ""
    sizes = f" to {legal.min_raise_to}-{legal.max_raise_to}" if state.game.no_limit else ""
    raises = f", raise{sizes}" if legal.can_raise else ""
    return f"a state where it may {folds}call{raises}"
