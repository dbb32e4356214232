"""``acpc-agent --check``, ``--list`` and a bad spec, run as a user runs them.

The broken bots below each break one promise of the agent API, at a hand chosen by their own code (the
hand's number in ``view.state.hand_id``), and claim Kuhn poker alone; the check must name that promise,
the game and that hand, in one line, and exit 1. Kuhn's first player (seat 0) acts first with nothing owed,
and nobody may fold with nothing owed, so a bot acts in every hand.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from acpc_arena.agents.checking import chi_square_sf, sampling_test
from tests.helpers.processes import error_lines, program

BOTS = '''
import random

from acpc_arena.agents.api import CALL_ACTION, FOLD_ACTION, LIMIT_RAISE_ACTION, Action, Agent, MatchState, Policy


class Caller(Agent):
    """Calls: keeps every promise (no policy)."""

    name = "caller"
    games = ("kuhn.limit.2p",)

    def act(self, view: MatchState) -> Action:
        return CALL_ACTION


class IllegalFold(Caller):
    """Folds with nothing owed in hand 4."""

    def act(self, view: MatchState) -> Action:
        if view.state.hand_id == 4 and not view.state.legal_actions().can_fold:
            return FOLD_ACTION
        return CALL_ACTION


class ShortPolicy(Caller):
    """A policy summing to 0.9 in hand 7, else all on call."""

    def policy(self, view: MatchState) -> Policy:
        return {CALL_ACTION: 0.9 if view.state.hand_id == 7 else 1.0}


class Argmax(Caller):
    """Says call or raise half the time each, and always calls."""

    def policy(self, view: MatchState) -> Policy:
        if view.state.legal_actions().can_raise:
            return {CALL_ACTION: 0.5, LIMIT_RAISE_ACTION: 0.5}
        return {CALL_ACTION: 1.0}


class RaisesAgainstPolicy(Caller):
    """Says always call, and raises in hand 2 where it can."""

    def policy(self, view: MatchState) -> Policy:
        return {CALL_ACTION: 1.0}

    def act(self, view: MatchState) -> Action:
        if view.state.hand_id == 2 and view.state.legal_actions().can_raise:
            return LIMIT_RAISE_ACTION
        return CALL_ACTION


class Mutator(Caller):
    """Adds a chip to its own spending in its view in hand 3."""

    def act(self, view: MatchState) -> Action:
        if view.state.hand_id == 3:
            view.state.spent[view.viewer] += 1
        return CALL_ACTION


class Unseeded(Caller):
    """Calls or raises by Python's global generator, whatever its seed."""

    def act(self, view: MatchState) -> Action:
        if view.state.legal_actions().can_raise and random.random() < 0.5:
            return LIMIT_RAISE_ACTION
        return CALL_ACTION


class Crasher(Caller):
    """Divides by zero in hand 6."""

    def act(self, view: MatchState) -> Action:
        return CALL_ACTION if view.state.hand_id != 6 else Action(1 // 0)


class PolicyMovesItsGenerator(Caller):
    """Draws from its generator when asked its policy, and acts by the same generator."""

    def __init__(self, game, seed=None, **options):
        super().__init__(game, seed, **options)
        self.rng = random.Random(seed)

    def policy(self, view: MatchState) -> Policy:
        self.rng.random()
        if view.state.legal_actions().can_raise:
            return {CALL_ACTION: 0.5, LIMIT_RAISE_ACTION: 0.5}
        return {CALL_ACTION: 1.0}

    def act(self, view: MatchState) -> Action:
        if view.state.legal_actions().can_raise and self.rng.random() < 0.5:
            return LIMIT_RAISE_ACTION
        return CALL_ACTION


class TwoPlayerLimitOnly(Agent):
    """Claims nothing: its constructor refuses all but the two-player limit games."""

    name = "two_player_limit"

    def __init__(self, game, seed=None, **options):
        if game.num_players != 2 or game.no_limit:
            raise ValueError("two-player limit games only")
        super().__init__(game, seed, **options)

    def act(self, view: MatchState) -> Action:
        return CALL_ACTION


class ClaimsAGameItRefuses(TwoPlayerLimitOnly):
    games = ("kuhn.limit.2p", "kuhn.limit.3p")
'''

BROKEN = {  # bot: the promise and where the check must say it was first broken
    "IllegalFold": "FAIL legal actions only: kuhn.limit.2p, hand 4: act returned fold, not legal",
    "ShortPolicy": "FAIL policy sums to 1 over legal actions: kuhn.limit.2p, hand 7: policy probabilities sum to 0.9",
    "Argmax": "FAIL act samples policy: kuhn.limit.2p, hands 0-299: act's choices do not follow its policy",
    "RaisesAgainstPolicy": (
        "FAIL act samples policy: kuhn.limit.2p, hand 2: act chose raise, which its policy gives probability 0"
    ),
    "Mutator": "FAIL views never changed: kuhn.limit.2p, hand 3: act changed its view",
    "Unseeded": "FAIL deterministic under a seed: kuhn.limit.2p, hand ",
    "Crasher": "FAIL no method raises: kuhn.limit.2p, hand 6: act raised ZeroDivisionError: integer division or modulo",
    "PolicyMovesItsGenerator": "FAIL policy leaves the agent unchanged: kuhn.limit.2p, hand ",
    "ClaimsAGameItRefuses": "FAIL plays the games it claims: kuhn.limit.3p, construction: the constructor refuses it",
}
NO_POLICY = "not applicable: no policy (so no LBR and no AIVAT for it)"


def _agent(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program("acpc-agent"), *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture
def bots(tmp_path: Path) -> Path:
    path = tmp_path / "bots.py"
    path.write_text(BOTS, encoding="utf-8")
    return path


@pytest.mark.parametrize(("bot", "line"), BROKEN.items(), ids=BROKEN.keys())
def test_check_names_the_broken_promise_game_and_hand_in_one_line(bots: Path, bot: str, line: str) -> None:
    done = _agent("--check", f"{bots}:{bot}", cwd=bots.parent)
    assert done.returncode == 1, done.stdout + done.stderr
    failures = [one for one in done.stdout.splitlines() if one.startswith("FAIL")]
    assert len(failures) == 1, done.stdout
    assert failures[0].startswith(line), failures[0]


def test_an_agent_that_keeps_its_promises_without_a_policy_passes_and_is_told_why_no_lbr(bots: Path) -> None:
    done = _agent("--check", "bots.py:Caller", "--hands", "50", cwd=bots.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("kuhn.limit.2p: 50 hands") for line in lines)
    assert any(NO_POLICY in line for line in lines)
    assert not any(line.startswith("FAIL") for line in lines)


def test_without_games_an_agent_claims_the_shipped_games_its_constructor_takes(bots: Path) -> None:
    done = _agent("--check", "bots.py:TwoPlayerLimitOnly", "--hands", "20", cwd=bots.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    played = {line.split(":")[0] for line in done.stdout.splitlines() if " hands, " in line}
    assert played == {"holdem.limit.2p.reverse_blinds", "kuhn.limit.2p", "leduc.limit.2p"}
    assert sum(line.startswith("not claimed: ") for line in done.stdout.splitlines()) == 4


@pytest.mark.parametrize(
    ("agent", "game"),
    [("random", "kuhn.limit.3p"), ("call", "leduc.limit.2p"), ("equity", "leduc.limit.2p"), ("cfr", "kuhn")],
)
def test_shipped_agents_with_policies_pass(tmp_path: Path, agent: str, game: str) -> None:
    done = _agent("--check", agent, "--game", game, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "ok: every promise kept"
    assert not any(NO_POLICY in line for line in done.stdout.splitlines())


def test_list_names_the_shipped_agents_as_shipped(tmp_path: Path) -> None:
    done = _agent("--list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = set(done.stdout.splitlines())
    assert {f"{name}: shipped" for name in ("random", "call", "raise", "rule", "equity", "cfr", "spar_fuzz")} <= lines


@pytest.mark.parametrize(
    ("spec", "cause"),
    [("missing.py:Bot", "no file missing.py"), ("bots.py:Nope", "has no 'Nope'"), ("nope", "not a shipped agent")],
)
def test_a_bad_spec_is_one_line_and_status_2(bots: Path, spec: str, cause: str) -> None:
    done = _agent("--check", spec, cwd=bots.parent)
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert line.startswith(f"ERROR: agent {spec!r}: ") and cause in line


CHI_SQUARE_TAILS = [  # (df, x, P(X >= x)): scipy.stats.chi2.sf (scipy 1.17), the textbook 5% points among them
    (1, 3.841458820694124, 0.05),
    (2, 5.991464547107979, 0.05),
    (3, 0.5, 0.9188914116546758),
    (4, 9.0, 0.06109948096033269),
    (7, 2.0, 0.9598403687301016),
    (9, 16.918977604620448, 0.05),
    (9, 33.7, 0.00010080678416966285),
    (10, 60.0, 3.6243009520614924e-09),
    (9, 1000.0, 1.7240681189224405e-209),
]


@pytest.mark.parametrize(("df", "x", "tail"), CHI_SQUARE_TAILS)
def test_chi_square_tail(df: int, x: float, tail: float) -> None:
    assert chi_square_sf(x, df) == pytest.approx(tail, rel=1e-9)


def test_sampling_test_of_evenly_spread_and_of_lumped_draws() -> None:
    even = [(i + 0.5) / 1000 for i in range(1000)]
    assert sampling_test(even) == (0.0, 1.0)
    lumped = [u / 2 for u in even]  # every draw below 1/2: 200 in each of the first five bins, 100 expected
    statistic, p = sampling_test(lumped)
    assert statistic == pytest.approx(10 * 100**2 / 100)
    assert p == pytest.approx(1.7240681189224405e-209, rel=1e-9)  # scipy.stats.chi2.sf(1000, 9)
