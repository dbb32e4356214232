"""The agents' decision latency and memory (CFR, the Q-networks, Poker-CNN, the ensemble) and their training rates."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.timing import Row, best_of

if TYPE_CHECKING:
    from acpc_arena.agents.base import Agent
    from acpc_arena.protocol.game import Game


def bench_cfr() -> Iterator[Row]:
    """Leduc CFR+ to 2.6e-4 against OpenSpiel's C++ solver; hold'em training; limit and no-limit decisions."""
    import pyspiel

    from acpc_arena.models.cfr.abstraction import ExactCards, all_deals
    from acpc_arena.models.cfr.solver import Solver
    from acpc_arena.models.cfr.tree import build_tree
    from acpc_arena.protocol.game import load_game

    target, step = 2.6e-4, 50
    game = pyspiel.load_game("leduc_poker")
    reference = pyspiel.CFRPlusSolver(game)
    theirs = spent = 0.0
    while True:
        start = time.perf_counter()
        for _ in range(step):
            reference.evaluate_and_update_policy()
        spent += time.perf_counter() - start
        theirs += step
        if pyspiel.exploitability(game, reference.average_policy()) <= target:
            break
    leduc = load_game("leduc")
    solver = Solver(build_tree(leduc), ExactCards(leduc), "cfr+", worlds=all_deals(leduc))
    ours = 0.0
    while True:
        start = time.perf_counter()
        solver.iterate(step)
        ours += time.perf_counter() - start
        if solver.exploitability() <= target:
            break
    yield ("OpenSpiel CFRPlusSolver (C++), leduc_poker to 2.6e-4", f"{spent:.2f} s", f"{int(theirs)} iterations")
    yield (
        "acpc-cfr CFR+, leduc.limit.2p to 2.6e-4",
        f"{ours:.2f} s",
        f"{solver.iterations} iterations; {ours / spent:.3f} of OpenSpiel's time",
    )
    yield _nolimit_decisions()
    for deals in (1, 32):
        seconds, peak = _holdem_training(500, deals)
        yield (
            f"hold'em improved 9 buckets, 500 iterations x {deals} deal{'s' if deals > 1 else ''}",
            f"{seconds:.1f} s",
            f"{500 / seconds:.1f} it/s, {500 * deals / seconds:,.0f} deals/s, peak memory {peak:.0f} MB",
        )
    seconds, peak = _holdem_training(50, 64, "make_abstraction(game, DEFAULT_HOLDEM_ABSTRACTION)")
    yield (
        "hold'em default E[HS^2] buckets, 50 iterations x 64 deals",
        f"{seconds:.1f} s",
        f"{50 / seconds:.1f} it/s, {50 * 64 / seconds:,.0f} deals/s, peak memory {peak:.0f} MB",
    )
    seconds, peak = _public_chance_training(5)
    yield (
        "hold'em public chance sampling (pcs-dcfr), ehs2-exact-200-150-100, 5 boards",
        f"{seconds / 5:.2f} s/iteration",
        f"{3 * 3600 * 5 / seconds:,.0f} iterations in 3 hours, peak memory {peak:.0f} MB",
    )
    from acpc_arena.agents.cfr import CFRAgent

    holdem = load_game("holdem.limit.2p.reverse_blinds")
    for checkpoint in ("cfr-ehs2", "cfr-ehs2-exact"):
        seconds, peak = _agent_load("cfr", {"checkpoint": checkpoint})
        times = _decision_times(CFRAgent(holdem, seed=1, checkpoint=checkpoint), holdem)
        yield (
            f"cfr agent, {checkpoint} checkpoint, one decision",
            f"{1 / times.mean():,.0f} decisions/s",
            f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms "
            f"(goal 20 ms); loads in {seconds:.2f} s, peak memory {peak:.0f} MB",
        )


def _public_chance_training(iterations: int) -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of public chance sampling iterations in a fresh process (the
    flop buckets made up: building the real table takes minutes; a lookup costs the same)."""

    script = f"""
import json, time, numpy as np
from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets
from acpc_arena.models.cfr.public_chance import PublicChanceSolver
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.protocol.game import load_game
game = load_game("holdem.limit.2p.reverse_blinds")
edges = [np.linspace(0, 1, n + 1)[1:-1] for n in (200, 150, 100)]
flops = (np.arange(1755 * 1326) % 200).astype(np.uint8).reshape(1755, 1326)
solver = PublicChanceSolver(build_tree(game), ExactStrengthBuckets(game, (200, 150, 100), edges, flops))
solver.iterate(1)
start = time.perf_counter()
solver.iterate({iterations})
seconds = time.perf_counter() - start
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps([seconds, peak / 1024]))
"""
    return _timed_script(script)


def _nolimit_decisions() -> Row:
    """Decision latency of the shipped no-limit CFR agent against an opponent betting random sizes."""
    from acpc_arena.agents.cfr import CFRAgent
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.game import load_game
    from acpc_arena.protocol.rng import MT19937
    from acpc_arena.protocol.state import CALL, RAISE, Action
    from acpc_arena.protocol.wire import MatchState

    game = load_game("holdem.nolimit.2p.reverse_blinds")
    agent = CFRAgent(game, seed=1)
    cards, choices = MT19937(5), np.random.default_rng(5)
    latencies = []
    for hand_id in range(600):
        state = deal_hand(game, hand_id, cards)
        seat = hand_id % 2
        agent.begin_hand(MatchState(seat, state))
        while not state.finished:
            legal = state.legal_actions()
            if state.current_player == seat:
                start = time.perf_counter()
                action = agent.act(MatchState(seat, state))
                latencies.append(time.perf_counter() - start)
            elif legal.can_raise and choices.random() < 0.4:
                action = Action(RAISE, int(choices.integers(legal.min_raise_to, legal.max_raise_to + 1)))
            else:
                action = Action(CALL)
            state.apply(action)
    times = np.array(latencies[20:])
    return (
        "cfr agent, one no-limit decision (cfr-nl, CPU)",
        f"{1 / times.mean():,.0f} decisions/s",
        f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms",
    )


def _holdem_training(iterations: int, deals: int, abstraction: str = "NineBuckets(game)") -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of a training run in a fresh process."""

    script = f"""
import json, time, numpy as np
from acpc_arena.models.cfr.abstraction import NineBuckets, sample_deals
from acpc_arena.models.cfr.checkpoint import DEFAULT_HOLDEM_ABSTRACTION, make_abstraction
from acpc_arena.models.cfr.solver import Solver
from acpc_arena.models.cfr.tree import build_tree
from acpc_arena.protocol.game import load_game
game = load_game("holdem.limit.2p.reverse_blinds")
rng = np.random.default_rng(0)
solver = Solver(build_tree(game), {abstraction}, "mccfr", sampler=lambda: sample_deals(game, {deals}, rng),
                dtype=np.float32)
start = time.perf_counter()
solver.iterate({iterations})
seconds = time.perf_counter() - start
# ru_maxrss would include the parent's peak (it survives fork and exec); VmHWM is this process's own
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps([seconds, peak / 1024]))
"""
    return _timed_script(script)


def _timed_script(script: str) -> tuple[float, float]:
    """Run ``script`` in a fresh Python; it prints a JSON [seconds, peak memory in MB] as its last line."""
    import json
    import subprocess

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    seconds, peak = json.loads(done.stdout.strip().splitlines()[-1])
    return float(seconds), float(peak)


def _decision_times(agent: Agent, game: Game, hands: int = 400) -> np.ndarray:
    """Seconds of each of ``agent``'s decisions (after the first 20) in seat 0 against an always-call player."""
    from acpc_arena.protocol.dealing import deal_hand
    from acpc_arena.protocol.rng import MT19937
    from acpc_arena.protocol.state import CALL_ACTION
    from acpc_arena.protocol.wire import MatchState

    rng = MT19937(3)
    latencies = []
    for hand_id in range(hands):
        state = deal_hand(game, hand_id, rng)
        agent.begin_hand(MatchState(0, state))
        while not state.finished:
            view = MatchState(state.current_player, state)
            if state.current_player == 0:
                start = time.perf_counter()
                action = agent.act(view)
                latencies.append(time.perf_counter() - start)
            else:
                action = CALL_ACTION
            state.apply(state.validate_action(action, try_fixing=True) or CALL_ACTION)
    return np.array(latencies[20:])


def _agent_load(name: str, options: dict[str, object]) -> tuple[float, float]:
    """Seconds to load agent ``name`` on limit hold'em and the peak resident memory (MB), in a fresh process."""

    script = f"""
import json, time
start = time.perf_counter()
from acpc_arena.agents.registry import agent_class
from acpc_arena.protocol.game import load_game
agent_class({name!r})(load_game("holdem.limit.2p.reverse_blinds"), seed=1, **{options!r})
seconds = time.perf_counter() - start
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps([seconds, peak / 1024]))
"""
    return _timed_script(script)


def bench_dqn() -> Iterator[Row]:
    """Decision latency of the Q-network agents (seed 000's, NFQ's; CPU, or GPU if any) and training throughput."""
    import torch

    from acpc_arena.agents.dqn import DQNAgent, LSTMDQNAgent
    from acpc_arena.models.training.dqn import Trainer, config_for
    from acpc_arena.protocol.game import load_game

    game = load_game("holdem.limit.2p.reverse_blinds")
    device = "GPU" if torch.cuda.is_available() else "CPU"
    for cls in (LSTMDQNAgent, DQNAgent):
        times = _decision_times(cls(game), game)
        yield (
            f"{cls.name} agent, one decision ({device})",
            f"{1 / times.mean():,.0f} decisions/s",
            f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms",
        )
    from acpc_arena.agents.nfq import NFQAgent

    times = _decision_times(NFQAgent(game), game)
    yield (
        f"nfq agent, one decision ({device}, no search)",
        f"{1 / times.mean():,.0f} decisions/s",
        f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms",
    )
    for network in ("lstm_dqn", "dqn"):
        trainer = Trainer(config_for(network, "tuned", hands=3000, reward="chips"), show_progress=False)
        stats = trainer.run()
        yield (f"{network} training, tuned preset ({device})", f"{stats['hands_per_second']:,.0f} hands/s", "")


def bench_poker_cnn() -> Iterator[Row]:
    """Decision latency of the Poker-CNN agent (seed 004; target: p99 under 5 ms on CPU) and its training rate."""
    import torch

    from acpc_arena.agents.poker_cnn import PokerCNNAgent
    from acpc_arena.protocol.game import load_game

    device = "GPU" if torch.cuda.is_available() else "CPU"
    for game_name in ("holdem.limit.2p.reverse_blinds", "holdem.nolimit.2p.reverse_blinds"):
        game = load_game(game_name)
        times = _decision_times(PokerCNNAgent(game), game)
        yield (
            f"poker_cnn agent, one decision, {game_name.split('.')[1]} ({device})",
            f"{1 / times.mean():,.0f} decisions/s",
            f"p50 {1000 * np.percentile(times, 50):.2f} ms, p99 {1000 * np.percentile(times, 99):.2f} ms",
        )


_ENSEMBLE_PLAY = """
import json, time
import numpy as np
from acpc_arena.agents.ensemble import EnsembleAgent
from acpc_arena.agents.styles import RandomStyleAgent
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import MatchState
game = load_game("holdem.nolimit.2p.reverse_blinds")
agent, opponent = EnsembleAgent(game, seed=1, mode=MODE), RandomStyleAgent(game, seed=2)
times, cpu = [], []
for deal in deal_hands(game, 9, HANDS):
    seat = deal.hand_id % 2
    state = State(game, deal.hand_id, deal.hole_cards, deal.board_cards)
    while not state.finished:
        player = state.current_player
        if player == seat:
            start, start_cpu = time.perf_counter(), time.thread_time()
            action = agent.act(MatchState(player, state))
            times.append(time.perf_counter() - start)
            cpu.append(time.thread_time() - start_cpu)
        else:
            action = opponent.act(MatchState(player, state))
            action = state.validate_action(action, try_fixing=True) or action
        state.apply(action)
    agent.end_hand(MatchState(seat, state))
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
times, cpu = np.array(times[50:]), np.array(cpu[50:])
quantiles = [float(np.percentile(times, 50)), float(np.percentile(times, 99)), float(np.percentile(cpu, 99))]
print(json.dumps([*quantiles, len(times), peak / 1024]))
"""


def bench_ensemble() -> Iterator[Row]:
    """Seed 001's ensemble: decision latency and peak memory against o_random (seed's goal: p99 < 100 ms,
    < 0.5 GB resident), the batched population forward pass of the shipped and of table 2's network, and
    the evolution's in-process play rate."""
    import json
    import subprocess

    import torch

    from acpc_arena.agents.registry import agent_class
    from acpc_arena.models.ensemble.network import SHIPPED, TABLE_2, count_weights, forward, init_population
    from acpc_arena.models.ensemble.opponent_model import OpponentModel
    from acpc_arena.models.training.ensemble_play import duplicate_deals, play
    from acpc_arena.protocol.game import load_game

    device = "GPU" if torch.cuda.is_available() else "CPU"
    for mode in ("a_star", "a_base"):
        script = _ENSEMBLE_PLAY.replace("MODE", repr(mode)).replace("HANDS", "600")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        p50, p99, p99_cpu, count, peak = json.loads(done.stdout.strip().splitlines()[-1])
        verdict = "met" if p99 < 0.1 and peak < 512 else "NOT met"
        yield (
            f"ensemble --mode {mode}, one decision vs o_random ({device})",
            f"p99 {1000 * p99:.1f} ms",
            f"p50 {1000 * p50:.1f} ms, p99 of CPU time {1000 * p99_cpu:.1f} ms over {count} decisions, "
            f"peak resident {peak:.0f} MB: goal (wall p99 < 100 ms, < 512 MB) {verdict}",
        )
    torch.set_num_threads(1)
    for label, config, population in (("shipped", SHIPPED, 20), ("table 2", TABLE_2, 20)):
        params = init_population(config, population, torch.Generator().manual_seed(0))
        opponent, steps = torch.zeros(population, 64, 5, 4), torch.zeros(population, 64, 5, 6)
        seconds = best_of(3, lambda: forward(params, config, opponent, steps))  # noqa: B023
        yield (
            f"ensemble {label} network ({count_weights(config):,} weights), 20 x 64 decisions, 1 thread",
            f"{20 * 64 / seconds:,.0f} decisions/s",
            f"{1000 * seconds:.1f} ms a batched pass",
        )
    nolimit = load_game("holdem.nolimit.2p.reverse_blinds")
    params = init_population(SHIPPED, 20, torch.Generator().manual_seed(0))
    for style in ("o1", "o6"):
        deals = duplicate_deals(nolimit, 3, 50)
        opponents = [agent_class(style)(nolimit, seed=1)]
        start = time.perf_counter()
        play(params, SHIPPED, opponents, [OpponentModel()], deals)
        seconds = time.perf_counter() - start
        yield (f"ensemble evolution play vs {style}, population 20", f"{20 * 100 / seconds:,.0f} hands/s", "")
