"""CFR training: one solver run (``acpc-cfr solve``), and the runs of the shipped CFR checkpoints
(``acpc-train cfr``, ``acpc-train cfr-nl``).

Small games (Kuhn, Leduc, every deal enumerable) default to the exact card abstraction and
record their exploitability every ``every`` iterations; hold'em defaults to ``ehs2-50-50-50``,
which a sampling algorithm solves. No-limit games are solved on an abstract betting tree
(``models.cfr.nolimit``) and their exploitability in the abstract game estimated on fixed
deals, in sample and held out. The public chance sampling algorithms (``pcs-*``) run in
``cfr_public_chance``. Ctrl-C or SIGTERM saves the average strategy reached and raises
``Interrupted``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from math import comb
from pathlib import Path

import numpy as np
from tqdm import tqdm

from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets, all_deals, sample_deals
from acpc_arena.models.cfr.checkpoint import DEFAULT_HOLDEM_ABSTRACTION, make_abstraction, save_policy
from acpc_arena.models.cfr.nolimit import DEFAULT_BETS, DEFAULT_RAISE_CAP, BetAbstraction, build_nolimit_tree
from acpc_arena.models.cfr.pool import KeyedWorlds, PooledKeys, draw, keyed_pool
from acpc_arena.models.cfr.public_chance import ALGORITHMS as PUBLIC_CHANCE_ALGORITHMS
from acpc_arena.models.cfr.public_chance import PublicChanceSolver
from acpc_arena.models.cfr.solver import SAMPLED, Solver, sampled_exploitability
from acpc_arena.models.cfr.tree import BettingTree, build_tree
from acpc_arena.models.training.cfr_public_chance import train_public_chance
from acpc_arena.models.training.shipped import (
    CFR_GAMES,
    HOLDEM,
    NL_ABSTRACTION,
    NL_BETS,
    NL_POOL,
    NL_RAISE_CAP,
    NOLIMIT,
    PCS_ABSTRACTION,
    checkpoint_path,
)
from acpc_arena.protocol.commands import Interrupted, deferred_interrupts, shows_progress
from acpc_arena.protocol.game import Game, load_game, resolve_game_path

EXACT_DEALS_LIMIT = 200_000
DEFAULT_PUBLIC_CHANCE_ABSTRACTION = "ehs2-exact-200-150-100"


def deal_count(game: Game) -> int:
    """How many deals a game has (hole cards of every player, then the board), for choosing exact or sampled."""
    left, count = len(game.deck), 1
    for _ in range(game.num_players):
        count *= comb(left, game.num_hole_cards)
        left -= game.num_hole_cards
    return count * comb(left, game.total_board_cards)


@dataclass
class CFRRun:
    """A solver under way with what it measures and records in its checkpoint's sidecar."""

    game_name: str
    game_text: str
    abstraction_name: str
    tree: BettingTree
    solver: Solver
    evaluator: Solver | None
    """Measures the exact exploitability (exact card abstractions)."""
    checks: tuple[PooledKeys, KeyedWorlds, KeyedWorlds] | None
    """The keys and the in-sample and held-out deals of the abstract-game estimates (no-limit, abstracted)."""
    deals_per_iteration: int
    seed: int
    pool: int | None
    """The pool's size where the deals are drawn from one."""
    check_deals: int
    started: float = field(default_factory=time.perf_counter)
    history: list[tuple[float, ...]] = field(default_factory=list)

    def extra(self) -> dict[str, object]:
        """The sidecar's record of the run so far."""
        return {
            "game_name": self.game_name,
            "deals_per_iteration": self.deals_per_iteration,
            "seed": self.seed,
            **({"pool": self.pool} if self.pool is not None else {}),
            "seconds": round(time.perf_counter() - self.started, 3),
            **(
                {"sampled_exploitability_history": self.history, "sampled_exploitability_deals": self.check_deals}
                if self.checks
                else {}
            ),
        }

    def measure(self, i: int, every: int, last: int, write: Callable[[str], object]) -> None:
        """Record the exploitability after iteration ``i`` where ``every`` asks for it, and ``write`` it."""
        if self.evaluator is not None and every and (i % every == 0 or i == last):
            value = self.evaluator.exploitability(self.solver.average_strategy())
            self.history.append((i, value))
            write(f"iteration {i}: exploitability {value:.6g}")
        if self.checks is not None and (i % every == 0 or i == last):
            keyed, fit, test = self.checks
            in_sample, held_out = sampled_exploitability(self.tree, keyed, self.solver.average_strategy(), fit, test)
            self.history.append((i, in_sample, held_out))
            write(f"iteration {i}: abstract-game exploitability {in_sample:.6g} in sample, {held_out:.6g} held out")

    def save(self, out: Path, recorded: dict[str, object]) -> Path:
        """Save the average strategy with ``extra()`` and ``recorded`` in its sidecar."""
        return save_policy(out, self.solver, self.game_text, self.abstraction_name, {**self.extra(), **recorded})


def betting_tree(game: Game, bets: str | None, raise_cap: int | None) -> BettingTree:
    """The game's betting tree: limit as played, no-limit abstracted to ``bets`` and ``raise_cap``."""
    if game.no_limit:
        cap = DEFAULT_RAISE_CAP if raise_cap is None else raise_cap
        return build_nolimit_tree(game, BetAbstraction.parse(bets or DEFAULT_BETS, cap, game.num_rounds))
    if bets is not None or raise_cap is not None:
        raise ValueError("--bets and --raise-cap shape no-limit trees; this game is limit")
    return build_tree(game)


def prepare(
    game_name: str,
    game: Game,
    algorithm: str,
    abstraction_name: str | None,
    deals: int,
    seed: int,
    every: int,
    tree: BettingTree,
    check_deals: int,
    pool: int,
) -> CFRRun:
    """The solver of a run (not a ``pcs-*`` one), its sampler and its measures."""
    game_text = resolve_game_path(game_name).read_text()
    small = deal_count(game) <= EXACT_DEALS_LIMIT
    abstraction_name = abstraction_name or ("exact" if small else DEFAULT_HOLDEM_ABSTRACTION)
    abstraction = make_abstraction(game, abstraction_name)
    exact = abstraction_name == "exact"
    if not exact and algorithm not in SAMPLED:
        raise ValueError("an abstracted game is solved by sampling deals: use --algorithm mccfr or mcdcfr")
    rng = np.random.default_rng(seed)
    sampled = algorithm in SAMPLED
    sampler = (lambda: sample_deals(game, deals, rng)) if sampled else None
    if pool and sampled and not exact:
        abstraction = PooledKeys(abstraction)
        pool_worlds = keyed_pool(game, abstraction.base, pool, seed)
        sampler = lambda: draw(pool_worlds, deals, rng)  # noqa: E731
    every_deal = all_deals(game) if exact else None
    solver = Solver(
        tree,
        abstraction,
        algorithm,
        worlds=None if sampled else every_deal,
        sampler=sampler,
        dtype=np.float32 if sampled and not exact else np.float64,
    )
    evaluator = solver if not sampled else (Solver(tree, abstraction, "cfr+", worlds=every_deal) if exact else None)
    checks = None
    if not exact and game.no_limit and every:
        keyed = abstraction if isinstance(abstraction, PooledKeys) else PooledKeys(abstraction)
        fit, test = (keyed_pool(game, keyed.base, check_deals, seed + offset) for offset in (1_000_003, 2_000_003))
        checks = (keyed, fit, test)
    return CFRRun(
        game_name=game_name,
        game_text=game_text,
        abstraction_name=abstraction_name,
        tree=tree,
        solver=solver,
        evaluator=evaluator,
        checks=checks,
        deals_per_iteration=len(every_deal) if every_deal is not None and not sampled else deals,
        seed=seed,
        pool=pool if isinstance(abstraction, PooledKeys) else None,
        check_deals=check_deals,
    )


def train(
    game_name: str,
    algorithm: str,
    iterations: int,
    out: Path,
    abstraction_name: str | None = None,
    deals: int = 32,
    seed: int = 0,
    every: int = 0,
    show_progress: bool | None = None,
    save_every: int = 0,
    bets: str | None = None,
    raise_cap: int | None = None,
    check_deals: int = 2000,
    pool: int = 0,
) -> tuple[Path, Solver | PublicChanceSolver]:
    """Run a solver and save its average strategy; returns the checkpoint path and the solver.

    Ctrl-C or SIGTERM ends the run after the iteration under way: its average strategy is saved
    (the sidecar's ``iterations`` says how many, ``interrupted`` is true) and ``Interrupted``
    raised, saying where. The progress bar is drawn on a terminal alone (``show_progress`` None), or as
    ``show_progress`` says.
    """
    show_progress = shows_progress(False) if show_progress is None else show_progress
    game = load_game(game_name)
    if algorithm in PUBLIC_CHANCE_ALGORITHMS:
        return _train_public_chance(game, algorithm, iterations, out, abstraction_name, seed, save_every, show_progress)
    tree = betting_tree(game, bets, raise_cap)
    run = prepare(game_name, game, algorithm, abstraction_name, deals, seed, every, tree, check_deals, pool)
    with (
        deferred_interrupts() as interrupted,
        tqdm(total=iterations, unit="it", disable=not show_progress, file=sys.stderr, mininterval=0.5) as bar,
    ):
        for i in range(1, iterations + 1):
            run.solver.iterate(1)
            bar.update(1)
            if interrupted():
                break
            run.measure(i, every, iterations, bar.write)
            if save_every and i % save_every == 0 and i < iterations:
                run.save(out, {})
                bar.write(f"iteration {i}: saved {Path(out).with_suffix('.npz')}")
    if interrupted():
        recorded = {"exploitability_history": run.history} if run.evaluator is not None else {}
        path = run.save(out, {**recorded, "interrupted": True})
        raise Interrupted(f"the average strategy of {run.solver.iterations} iterations saved in {path}")
    final: dict[str, object] = {}
    if run.evaluator is not None:
        final["exploitability"] = run.evaluator.exploitability(run.solver.average_strategy())
        final["exploitability_history"] = run.history
    return run.save(out, final), run.solver


def _train_public_chance(
    game: Game,
    algorithm: str,
    iterations: int,
    out: Path,
    abstraction_name: str | None,
    seed: int,
    save_every: int,
    show_progress: bool,
) -> tuple[Path, Solver | PublicChanceSolver]:
    """``pcs-*``: heads-up limit hold'em with exact E[HS^2] buckets, resumable (``cfr_public_chance``)."""
    if game != load_game(HOLDEM):
        raise ValueError(f"--algorithm {algorithm} solves {HOLDEM} only")
    name = abstraction_name or DEFAULT_PUBLIC_CHANCE_ABSTRACTION
    counts = name.split("-")[2:] if name.startswith("ehs2-exact-") else []
    if len(counts) != 3 or not all(c.isdigit() and 0 < int(c) < 256 for c in counts):
        raise ValueError(f"--algorithm {algorithm} needs an ehs2-exact-F-T-R abstraction (1..255 buckets), not {name}")
    abstraction = ExactStrengthBuckets(game, (int(counts[0]), int(counts[1]), int(counts[2])))
    return train_public_chance(out, abstraction, iterations, algorithm, seed, save_every or 100, show_progress)


def train_shipped_limit(
    iterations: int, deals: int, ehs2_iterations: int, only: str | None, pcs_iterations: int, out_dir: Path | None
) -> None:
    """``acpc-train cfr``: the limit CFR checkpoints (``only``: one of them), written under ``out_dir``."""
    if only in (None, "cfr-ehs2-exact"):
        out = checkpoint_path("cfr-ehs2-exact", out_dir)
        path, _ = train(HOLDEM, "pcs-dcfr", pcs_iterations, out, PCS_ABSTRACTION, seed=1, save_every=50)
        print(f"saved {path}")
    holdem = (
        ("cfr-ehs2", DEFAULT_HOLDEM_ABSTRACTION, ehs2_iterations),
        ("cfr-improved", "improved", iterations),
        ("cfr-traditional", "traditional", iterations),
    )
    for name, abstraction, count in holdem:
        if only in (None, name):
            out = checkpoint_path(name, out_dir)
            path, _ = train(HOLDEM, "mccfr", count, out, abstraction, deals, seed=1, save_every=500)
            print(f"saved {path}")
    for name, game, count in CFR_GAMES:
        if only in (None, name):
            path, _ = train(game, "cfr+", count, checkpoint_path(name, out_dir), "exact", every=500)
            print(f"saved {path}")


def train_shipped_nolimit(iterations: int, deals: int, out_dir: Path | None) -> None:
    """``acpc-train cfr-nl``: the no-limit CFR checkpoint, written under ``out_dir``."""
    path, _ = train(
        NOLIMIT,
        "mcdcfr",
        iterations,
        checkpoint_path("cfr-nl", out_dir),
        NL_ABSTRACTION,
        deals,
        seed=1,
        every=500,
        save_every=100,
        bets=NL_BETS,
        raise_cap=NL_RAISE_CAP,
        check_deals=1000,
        pool=NL_POOL,
    )
    print(f"saved {path}")
