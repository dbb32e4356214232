"""Training NFQ (seed 003) online, in-process through the engine, many tables at a time.

The learner plays a random seat at each of ``tables`` tables against an opponent drawn
per hand from a weighted pool (``models.training.dqn``'s ``OPPONENTS`` and ``POOLS``,
shared with seed 000's trainer: ``sound`` is mostly ``cfr-ehs2`` and ``equity``, then
snapshots of the learner itself, refreshed every ``snapshot_every`` hands, and a little
of ``rule``, ``call``, ``raise`` and ``random``). The tables' decisions go through the
network together; each table's hand is its own episode, with its own traces.

At each of the learner's decisions t (state s_t, the window of its last n observations):

1. the previous step's TD error is applied: delta = y - Q(s_{t-1}, a_{t-1}) with the fused target
   y = (1 - beta) * gamma * max_a Q(s_t, a) + beta * U_{t-1} (``uct_weight`` beta, below);
2. a_t is epsilon-greedy over the legal actions (epsilon falls linearly over the run);
3. the traces take the gradient of Q(s_t, a_t) (``network.EligibilityTraces``);
4. with the UCT reward, U_t = the mean return of a_t over ``uct_worlds`` determinised worlds
   (``nfq_uct.action_values``, chips over the most a hand can lose).

At the hand's end the last step's target is (1 - beta) * R + beta * U_{T-1}, R the chips won
over the most a hand can lose (rewards in [-1, 1], as the tanh outputs), and the traces are
emptied. ``reward="chips"`` is beta = 0: the plain Q(lambda) on the hand's result.

Choices (the seed gives none). The first three each have a shipped ablation trained on the
same budget with that part changed (``nfq-n1``, ``nfq-lambda0``, ``nfq-chips``), compared
through the dealer on the limit-checkpoints results page of the docs:

- n = 3 observations in the window (``--window``);
- lambda = 0.7 (``--lam``; 0 is one-step Q-learning);
- the UCT reward fused by beta = 0.5 (``--reward chips`` is beta = 0); 16 worlds a
  decision, c = 0.5 in units of the scaled reward, the opponent and the rollouts as the
  module ``nfq_uct`` says;
- alpha = 0.01, gamma = 1 (a hand is a short episode: the trace then decays by lambda, as
  the seed writes it), 64 hidden units, epsilon-greedy from 0.2 to 0.02, 32 tables,
  snapshots every 2,000 hands;
- rewards: chips over the most one player can lose (240 in limit hold'em), in [-1, 1].
"""

from __future__ import annotations

import copy
import random
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent
from acpc_arena.models.nfq.features import FEATURES, check_game, hand_strength, max_loss, observation, window
from acpc_arena.models.nfq.network import EligibilityTraces, NFQNetwork, q_gradients
from acpc_arena.models.q_networks.checkpoint import save_network
from acpc_arena.models.training.dqn import POOLS, OpponentPool, advance, build_opponents
from acpc_arena.models.training.dqn_replay import legal_mask
from acpc_arena.models.training.nfq_uct import action_values
from acpc_arena.models.training.schedules import Every, falling, seeded
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, Action, ActionKind, State


@dataclass(frozen=True)
class NFQConfig:
    game: str = "holdem.limit.2p.reverse_blinds"
    hands: int = 2_000
    window: int = 3
    hidden: int = 64
    alpha: float = 0.01
    gamma: float = 1.0
    lam: float = 0.7
    epsilon_start: float = 0.2
    epsilon_end: float = 0.02
    reward: str = "uct"
    uct_weight: float = 0.5
    uct_worlds: int = 16
    uct_c: float = 0.5
    pool: str = "sound"
    opponents: tuple[tuple[str, float], ...] = POOLS["sound"]
    snapshot_every: int = 2_000
    tables: int = 32
    seed: int = 1
    threads: int = 1

    @property
    def beta(self) -> float:
        """The UCT share of the target (0 with the plain chips reward)."""
        return self.uct_weight if self.reward == "uct" else 0.0


def config_for(pool: str = "sound", **overrides: Any) -> NFQConfig:
    if pool not in POOLS:
        raise ValueError(f"pool must be one of {', '.join(POOLS)}")
    if overrides.get("reward", "uct") not in ("uct", "chips"):
        raise ValueError("reward must be uct or chips")
    return replace(NFQConfig(pool=pool, opponents=POOLS[pool]), **overrides)


@dataclass
class Table:
    row: int
    state: State
    learner: int
    opponent: str
    observations: dict[int, list[np.ndarray]] = field(default_factory=lambda: {0: [], 1: []})
    strengths: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict)
    pending: bool = False
    q_taken: float = 0.0
    uct: float = 0.0


class Trainer:
    def __init__(self, config: NFQConfig, log_every: int = 0) -> None:
        self.config = config
        self.log_every = log_every
        self.rng = seeded(config.threads, config.seed)
        self.search_rng = random.Random(config.seed)
        self.game: Game = load_game(config.game)
        check_game(self.game)
        self.scale = float(max_loss(self.game))
        self.inputs = config.window * FEATURES
        self.net = NFQNetwork(self.inputs, config.hidden)
        self.snapshot = copy.deepcopy(self.net).eval()
        self.traces = EligibilityTraces(self.net, config.tables)
        self.opponents: dict[str, Agent] = build_opponents(self.game, config.opponents, config.seed)
        self.pool = OpponentPool.of(config.opponents, self.opponents)
        self.deal_rng = MT19937(config.seed)
        self.hands_done = 0
        self.updates = 0
        self.results: dict[str, list[float]] = {name: [] for name in self.pool.names}

    def epsilon(self) -> float:
        c = self.config
        return falling(c.epsilon_start, c.epsilon_end, self.hands_done, c.hands)

    def _new_hand(self, row: int) -> Table:
        state = deal_hand(self.game, self.hands_done, self.deal_rng)
        learner = int(self.rng.integers(self.game.num_players))
        opponent = self.pool.draw(self.rng)
        self.traces.reset(torch.tensor([row]))
        return Table(row, state, learner, opponent)

    def _state_vector(self, table: Table) -> np.ndarray:
        """The acting player's window, its new observation appended to the table's record."""
        state, viewer = table.state, table.state.current_player
        key = (viewer, state.round)
        if key not in table.strengths:
            table.strengths[key] = hand_strength(self.game, state.hole_cards[viewer], state.visible_board())
        table.observations[viewer].append(observation(state, viewer, table.strengths[key]))
        return window(table.observations[viewer], self.config.window)

    def _finish(self, table: Table) -> None:
        chips = table.state.value(table.learner)
        if table.pending:
            beta = self.config.beta
            target = (1.0 - beta) * chips / self.scale + beta * table.uct
            self.traces.apply(torch.tensor([table.row]), torch.tensor([target - table.q_taken]), self.config.alpha)
            self.updates += 1
        self.results[table.opponent].append(chips / self.game.big_blind)
        self.hands_done += 1

    def _learner_step(self, tables: list[Table]) -> None:
        c = self.config
        x = torch.from_numpy(np.stack([self._state_vector(t) for t in tables]))
        legal = np.stack([legal_mask(t.state) for t in tables])
        with torch.no_grad():
            q = self.net(x).numpy()
        best = np.where(legal, q, -np.inf).max(axis=1)
        pending = [i for i, t in enumerate(tables) if t.pending]
        if pending:
            beta = c.beta
            delta = [(1.0 - beta) * c.gamma * best[i] + beta * tables[i].uct - tables[i].q_taken for i in pending]
            rows = torch.tensor([tables[i].row for i in pending])
            self.traces.apply(rows, torch.tensor(delta, dtype=torch.float32), c.alpha)
            self.updates += len(pending)
            with torch.no_grad():
                q = self.net(x).numpy()
        actions = np.where(legal, q, -np.inf).argmax(axis=1)
        eps = self.epsilon()
        for i in range(len(tables)):
            if self.rng.random() < eps:
                allowed = np.flatnonzero(legal[i])
                actions[i] = allowed[self.rng.integers(len(allowed))]
        q_taken, gradients = q_gradients(self.net, x, torch.from_numpy(actions))
        self.traces.accumulate(torch.tensor([t.row for t in tables]), gradients, c.lam)
        for i, t in enumerate(tables):
            t.pending, t.q_taken = True, float(q_taken[i])
            if c.beta > 0:
                values, _ = action_values(t.state, c.uct_worlds, c.uct_c, self.scale, self.search_rng)
                t.uct = float(values[actions[i]])
            t.state.apply(Action(ActionKind(int(actions[i]))))

    def _snapshot_step(self, tables: list[Table]) -> None:
        x = torch.from_numpy(np.stack([self._state_vector(t) for t in tables]))
        legal = np.stack([legal_mask(t.state) for t in tables])
        with torch.no_grad():
            q = self.snapshot(x).numpy()
        for t, kind in zip(tables, np.where(legal, q, -np.inf).argmax(axis=1), strict=True):
            t.state.apply(t.state.validate_action(Action(ActionKind(int(kind)))) or CALL_ACTION)

    def run(self, save_every: int = 0, out: str | Path | None = None) -> dict[str, Any]:
        """Train for ``config.hands`` hands (saving to ``out`` every ``save_every`` hands if given)."""
        c = self.config
        started = time.perf_counter()
        tables = [self._new_hand(row) for row in range(c.tables)]
        snapshots, saves, logs = Every(c.snapshot_every), Every(save_every), Every(self.log_every)
        while self.hands_done < c.hands:
            waiting: dict[str, list[Table]] = {"learner": [], "self": []}
            for i, table in enumerate(tables):
                while True:
                    who = advance(table.state, table.learner, self.opponents.get(table.opponent))
                    if who != "done":
                        waiting[who].append(table)
                        break
                    self._finish(table)
                    table = tables[i] = self._new_hand(table.row)
            if waiting["learner"]:
                self._learner_step(waiting["learner"])
            if waiting["self"]:
                self._snapshot_step(waiting["self"])
            if snapshots.due(self.hands_done):
                self.snapshot.load_state_dict(self.net.state_dict())
            if save_every and out is not None and saves.due(self.hands_done):
                self.save(out, self.stats(started))
            if self.log_every and logs.due(self.hands_done):
                stats = self.stats(started)
                print(f"{stats['hands']} hands {stats['seconds']}s eps {self.epsilon():.3f} {stats['mbb']}", flush=True)
        return self.stats(started)

    def stats(self, started: float) -> dict[str, Any]:
        seconds = time.perf_counter() - started
        last = {name: round(float(np.mean(r[-3000:])) * 1000) if r else None for name, r in self.results.items()}
        return {
            "hands": self.hands_done,
            "updates": self.updates,
            "seconds": round(seconds, 1),
            "hands_per_second": round(self.hands_done / max(seconds, 1e-9), 1),
            "mbb": last,
        }

    def save(self, path: str | Path, stats: dict[str, Any], extra: dict[str, Any] | None = None) -> Path:
        """The checkpoint and its sidecar (the run's settings and ``stats``, then the fields of ``extra``)."""
        config = asdict(self.config)
        config["opponents"] = [list(o) for o in self.config.opponents]
        meta = {
            "game": self.config.game,
            "game_definition": self.game.to_text(),
            "window": self.config.window,
            "features": FEATURES,
            "config": config,
            "hands_trained": self.hands_done,
            "opponent_agents": self.pool.agents(),
            "stats": stats,
        } | (extra or {})
        arguments = {"inputs": self.inputs, "hidden": self.config.hidden}
        return save_network(path, self.net, "nfq", None, meta, arguments)


def train(
    config: NFQConfig, out: str | Path, save_every: int = 0, log_every: int = 1000
) -> tuple[Path, dict[str, Any]]:
    trainer = Trainer(config, log_every)
    stats = trainer.run(save_every, out)
    return trainer.save(out, stats), stats
