"""Training seed 000's Q-networks (LSTM_DQN and DQN) by playing hands through the engine.

Hands are played in-process with the project's ``State`` engine (no TCP), many
tables at once so that the network's decisions go through it in batches. The
learner sits in a random seat against an opponent drawn for each hand from a
weighted pool (``--pool``, recorded in the sidecar): an entry of ``OPPONENTS``
(an agent with its options, e.g. ``cfr-ehs2`` is the ``cfr`` agent on that
checkpoint) or ``self``, a frozen snapshot of the learner refreshed every
``snapshot_every`` hands. ``POOLS`` names two: ``v1``, what the ``lstm_dqn-v1``
and ``dqn-v1`` checkpoints were trained against (``rule``, ``random``, ``call``,
``raise``, ``cfr-improved``, ``self``, equally), where the three bettors without
cards make folding a mistake; ``sound`` (the default), mostly the strong CFR and
``equity``, which punish calling down and bluffing, with snapshots and a little
of each simple bot; ``dqfd``, phase 3 of ``dqn_dqfd``'s training, the default ``cfr``, snapshots and the
simple bots, no ``equity``.

Algorithm 3-3 of the seed: a whole hand's decisions are one episode in the replay
memory (observations, actions, legal moves, final reward); minibatches of 32
episodes are replayed through the network from an empty memory (back-propagation
through time for the LSTM); the target of step t is the reward at the hand's last
decision and gamma times the best legal Q of the next decision otherwise; the
loss is the squared error on the actions taken; Adagrad; epsilon-greedy
exploration from 0.9 down to 0 over the run.

An auxiliary loss (``strength_weight`` > 0, a departure from the seed, off in both presets): a linear
head on the last hidden layer (after its ReLU, before the dropout), through a sigmoid, predicts at
each of the learner's decisions its hand strength on the hand's whole board (the board cards are
dealt with the hand, seen or not) against every hand the opponent could hold, the squared error
weighted by ``strength_weight`` and added to the Q loss. That strength is a sample, unbiased, of the
hand's equity against a random hand given what the learner has seen; the head only shapes the
features the Q values are read from, and is not saved: the checkpoint is the seed's network.

Double DQN (``double``, ``--double``, a departure from the seed, off in both presets): the next
decision's value in the target is the target network's Q at the online network's best legal action,
rather than the target network's max, which overestimates the value of playing on.

Mixed Monte Carlo targets (``monte_carlo_mix`` = beta > 0, ``--mc-mix``, a departure from the seed, off in both
presets; the "mixed Monte Carlo update" of Bellemare et al. 2016 and Ostrovski et al. 2017): the target of a
decision before the hand's last is (1 - beta) times the Q-learning target above plus beta times the hand's
reward discounted to that decision, gamma^(T - t) R. The reward is what the learner's own play (exploration
included) earned, so it has none of the max's overstatement, and it reaches the early decisions in one step.

Rewards, in big blinds: ``chips`` is the hand's result R; ``mcts`` is R - V(S),
V(S) the UCT estimate from the hand's start state (``models.search.mcts``).

Two presets (``--preset``): ``faithful`` keeps the seed's numbers (learning rate
1e-6, the target computed with the same weights, a step every hand); ``tuned``
changes what the seed's numbers cannot learn in the time available: learning rate
1e-2 (Adagrad's usual scale), a target network synced every 250 steps, and a
step every 4 hands (each hand is still replayed about 8 times). Everything else is the same for both.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from acpc_arena.agents.base import Agent, pot_size_raise_to
from acpc_arena.agents.registry import agent_class
from acpc_arena.models.hand_strength.classes import hand_class
from acpc_arena.models.q_networks.checkpoint import save_network
from acpc_arena.models.q_networks.encoding import IMAGE_SIZE
from acpc_arena.models.q_networks.history_encoding import ENCODINGS
from acpc_arena.models.q_networks.networks import HIDDEN, LSTMDQN, NETWORKS, QNetwork
from acpc_arena.models.search.mcts import value_table
from acpc_arena.models.training.dqn_replay import Batch, EpisodeReplay, legal_mask, masked_argmax, td_targets
from acpc_arena.models.training.schedules import Every, falling, seeded
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.equity import showdown_strengths
from acpc_arena.protocol.game import Game, load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, RAISE, Action, ActionKind, State
from acpc_arena.protocol.wire import MatchState

OPPONENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "rule": ("rule", {"samples": 100}),
    "random": ("random", {}),
    "call": ("call", {}),
    "raise": ("raise", {}),
    "cfr": ("cfr", {}),
    "cfr-improved": ("cfr", {"checkpoint": "cfr-improved"}),
    "cfr-ehs2": ("cfr", {"checkpoint": "cfr-ehs2"}),
    "equity": ("equity", {"samples": 200}),
}
"""Training opponents by pool name: (agent, options). ``cfr`` is the game's default CFR checkpoint of
the moment; the Monte Carlo sample counts are small for speed (``rule`` decides on its 0.6 threshold,
``equity`` on exact equities from the turn on)."""

POOLS: dict[str, tuple[tuple[str, float], ...]] = {
    "v1": (("rule", 1.0), ("random", 1.0), ("call", 1.0), ("raise", 1.0), ("cfr-improved", 1.0), ("self", 1.0)),
    "sound": (
        ("cfr-ehs2", 0.35),
        ("equity", 0.30),
        ("self", 0.15),
        ("rule", 0.08),
        ("call", 0.04),
        ("raise", 0.04),
        ("random", 0.04),
    ),
    "dqfd": (("cfr", 0.5), ("self", 0.2), ("rule", 0.1), ("call", 0.05), ("raise", 0.05), ("random", 0.1)),
}
"""Named opponent pools: (opponent, weight); weights are scaled to sum to 1."""


@dataclass(frozen=True)
class TrainConfig:
    network: str = "lstm_dqn"
    preset: str = "tuned"
    game: str = "holdem.limit.2p.reverse_blinds"
    hands: int = 120_000
    pool: str = "sound"
    learning_rate: float = 1e-2
    gamma: float = 0.99
    epsilon_start: float = 0.9
    epsilon_end: float = 0.0
    batch_size: int = 32
    replay_capacity: int = 500_000
    """Hands the replay memory keeps, the latest (``--replay-hands``; more than the run's: all of them, the seed's
    memory of every hand)."""
    hands_per_step: int = 4
    target_every: int = 250
    reward: str = "mcts"
    mcts_rollouts: int = 1000
    mcts_c: float = 1.4
    opponents: tuple[tuple[str, float], ...] = POOLS["sound"]
    """The pool's entries; ``config_for`` fills them from ``pool`` unless given ("custom" pool)."""
    snapshot_every: int = 5_000
    tables: int = 64
    seed: int = 0
    threads: int = 2
    """torch threads (0: torch's default)."""
    strength_weight: float = 0.0
    """Weight of the auxiliary strength loss (0: the seed's loss alone); see the module docstring."""
    double: bool = False
    """Double DQN targets (a departure from the seed): the online network picks the next decision's best
    legal action and the target network values it, instead of the target network's max over them. The
    online choice is read from the Q values of the step's own training pass (dropout on: no second pass);
    without a target network (``faithful``) it is the seed's max."""
    monte_carlo_mix: float = 0.0
    """beta of the mixed Monte Carlo targets (a departure from the seed; 0: the seed's Q-learning targets alone),
    see the module docstring."""
    encoding: str = "seed"
    """The network's input planes (``q_networks.history_encoding.ENCODINGS``): the seed's, or those and the
    betting history (a departure from the seed, written in the checkpoint's sidecar)."""
    dropout: float | None = None
    """The dropout before the output layer while training; None: the seed's 0.5. Played networks use none."""


PRESETS: dict[str, dict[str, Any]] = {
    "faithful": {"learning_rate": 1e-6, "target_every": 0, "hands_per_step": 1},
    "tuned": {"learning_rate": 1e-2, "target_every": 250, "hands_per_step": 4},
}


def config_for(network: str, preset: str, pool: str = "sound", **overrides: Any) -> TrainConfig:
    """The configuration of ``preset`` against ``pool``; ``opponents=...`` instead makes a "custom" pool."""
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}")
    if pool not in POOLS:
        raise ValueError(f"pool must be one of {', '.join(POOLS)}")
    opponents = {"pool": "custom"} if "opponents" in overrides else {"pool": pool, "opponents": POOLS[pool]}
    config = replace(TrainConfig(network=network, preset=preset), **PRESETS[preset], **opponents, **overrides)
    if not config.strength_weight >= 0:  # NaN too
        raise ValueError(f"strength weight must be a number >= 0, not {config.strength_weight}")
    if config.replay_capacity < 1:
        raise ValueError(f"the replay memory must hold at least one hand, not {config.replay_capacity}")
    if not 0 <= config.monte_carlo_mix <= 1:  # NaN too
        raise ValueError(f"Monte Carlo mix must be a number from 0 to 1, not {config.monte_carlo_mix}")
    if config.dropout is not None and not 0 <= config.dropout < 1:  # NaN too
        raise ValueError(f"the dropout (--dropout) must be a number from 0 to below 1, not {config.dropout}")
    if config.encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, not {config.encoding!r}")
    return config


def build_opponents(game: Game, entries: Sequence[tuple[str, float]], seed: int) -> dict[str, Agent]:
    """The agents of a pool's entries by name (``OPPONENTS``; ``self`` is left to the trainer); one that
    cannot be built for ``game`` (e.g. no CFR checkpoint) is left out with a message."""
    agents: dict[str, Agent] = {}
    for name, _ in entries:
        if name == "self":
            continue
        agent, options = OPPONENTS.get(name, (name, {}))
        try:
            agents[name] = agent_class(agent)(game, seed=seed, **options)
        except (ValueError, OSError) as exc:
            print(f"opponent {name} left out: {exc}")
    return agents


@dataclass(frozen=True)
class OpponentPool:
    """The opponents a trainer draws one of per hand: their names (``self``, the learner's snapshot,
    among them) and probabilities."""

    names: list[str]
    weights: np.ndarray

    @classmethod
    def of(cls, entries: Sequence[tuple[str, float]], agents: dict[str, Agent]) -> OpponentPool:
        """The pool's entries that were built (``build_opponents``) or are ``self``, weights normalised."""
        names = [name for name, _ in entries if name == "self" or name in agents]
        weights = np.array([w for name, w in entries if name in names], dtype=np.float64)
        return cls(names, weights / weights.sum())

    def draw(self, rng: np.random.Generator) -> str:
        return self.names[int(rng.choice(len(self.names), p=self.weights))]

    def agents(self) -> dict[str, list[Any]]:
        """{name: [agent, options]} of each opponent but ``self`` (``OPPONENTS``), for the sidecar."""
        return {name: list(OPPONENTS.get(name, (name, {}))) for name in self.names if name != "self"}


def advance(state: State, learner: int, opponent: Agent | None) -> str:
    """Play ``opponent``'s moves until the hand is over ('done') or a network must choose: the
    learner's ('learner'), or the other seat's when ``opponent`` is None, a snapshot ('self')."""
    while not state.finished:
        player = state.current_player
        if player == learner:
            return "learner"
        if opponent is None:
            return "self"
        action = opponent.act(MatchState(player, state))
        state.apply(state.validate_action(action, try_fixing=True) or CALL_ACTION)
    return "done"


@dataclass
class _Table:
    state: State
    learner: int
    opponent: str
    observations: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    legal: list[np.ndarray] = field(default_factory=list)


class Trainer:
    def __init__(self, config: TrainConfig, show_progress: bool = True) -> None:
        self.config = config
        self.show_progress = show_progress
        self.rng = seeded(config.threads, config.seed)
        self.game: Game = load_game(config.game)
        self.encoding = ENCODINGS[config.encoding]
        self.planes = self.encoding.planes(self.game)
        self.net: QNetwork = NETWORKS[config.network](planes=self.planes)
        if config.dropout is not None:
            self.net.dropout.p = config.dropout
        self.target = copy.deepcopy(self.net).eval() if config.target_every else None
        self.snapshot = copy.deepcopy(self.net).eval()
        self.strength_head = nn.Linear(HIDDEN, 1) if config.strength_weight else None
        parameters = list(self.net.parameters())
        if self.strength_head is not None:
            parameters += list(self.strength_head.parameters())
        self.optimizer: torch.optim.Optimizer = torch.optim.Adagrad(parameters, lr=config.learning_rate, foreach=True)
        self.replay = EpisodeReplay(min(config.replay_capacity, config.hands), self.encoding.fields(self.game))
        self.values = (
            value_table(self.game, config.mcts_rollouts, config.mcts_c, config.seed)
            if config.reward == "mcts"
            else None
        )
        self.opponents = self._opponents()
        self.pool = OpponentPool.of(config.opponents, self.opponents)
        self.deal_rng = MT19937(config.seed)
        self.hands_done = 0
        self.steps = 0
        self.results: dict[str, list[float]] = {name: [] for name in self.pool.names}
        self.losses: list[float] = []
        self.strength_losses: list[float] = []

    def _opponents(self) -> dict[str, Agent]:
        return build_opponents(self.game, self.config.opponents, self.config.seed)

    # -- playing -------------------------------------------------------------

    def epsilon(self) -> float:
        c = self.config
        return falling(c.epsilon_start, c.epsilon_end, self.hands_done, c.hands)

    def _new_hand(self) -> _Table:
        state = deal_hand(self.game, self.hands_done, self.deal_rng)
        learner = int(self.rng.integers(self.game.num_players))
        opponent = self.pool.draw(self.rng)
        return _Table(state, learner, opponent)

    def _finish(self, table: _Table) -> None:
        state = table.state
        chips = state.value(table.learner)
        big = self.game.big_blind
        reward = chips / big
        if self.values is not None:
            reward -= self.values[table.learner, hand_class(state.hole_cards[table.learner])]
        if table.actions:
            strength = self._strength(state, table.learner) if self.strength_head is not None else 0.0
            self.replay.add(table.observations, table.actions, table.legal, reward, strength)
        self.results[table.opponent].append(chips / big)
        self.hands_done += 1

    def _strength(self, state: State, learner: int) -> float:
        """The learner's hand strength on the hand's whole board (dealt at the start, seen or not) against
        every hand the opponent could hold: a sample of its equity against a random hand at each decision."""
        hole = np.array([state.hole_cards[learner]], dtype=np.uint8)
        board = np.array([state.board_cards], dtype=np.uint8)
        return float(showdown_strengths(self.game.deck, hole, board)[0])

    def _advance(self, table: _Table) -> str:
        """Play the opponent's moves until the learner or the snapshot must choose: 'learner' or 'self'."""
        return advance(table.state, table.learner, self.opponents.get(table.opponent))

    @torch.no_grad()
    def _decide(self, net: QNetwork, tables: list[_Table], memory: dict[int, Any], explore: bool) -> list[int]:
        """Batched choices for the tables whose player to act uses ``net``; ``memory`` keeps LSTM state per table."""
        observations = [self.encoding.observe(t.state, t.state.current_player) for t in tables]
        batch = torch.from_numpy(self.encoding.images(self.game, np.stack(observations)))[:, None]
        legal = torch.from_numpy(np.stack([legal_mask(t.state) for t in tables]))
        state_in = None
        if isinstance(net, LSTMDQN):  # the recurrent one: its memory is never None
            rows = [memory.get(id(t)) or net.initial_memory(1, batch.device) for t in tables]
            state_in = (torch.cat([h for h, _ in rows], dim=1), torch.cat([c for _, c in rows], dim=1))
        q, state_out = net(batch, state_in)
        choice = masked_argmax(q[:, 0], legal).tolist()
        if isinstance(net, LSTMDQN):
            for i, t in enumerate(tables):
                memory[id(t)] = (state_out[0][:, i : i + 1], state_out[1][:, i : i + 1])
        if explore:
            eps = self.epsilon()
            for i in range(len(tables)):
                if self.rng.random() < eps:
                    allowed = np.flatnonzero(legal[i].numpy())
                    choice[i] = int(allowed[self.rng.integers(len(allowed))])
        if explore:
            for i, t in enumerate(tables):
                t.observations.append(observations[i])
                t.legal.append(legal[i].numpy())
                t.actions.append(choice[i])
        return choice

    def _apply(self, table: _Table, kind: int) -> None:
        state = table.state
        size = 0
        if kind == RAISE and self.game.no_limit:
            size = pot_size_raise_to(state)
        state.apply(state.validate_action(Action(ActionKind(kind), size), try_fixing=True) or CALL_ACTION)

    # -- learning -------------------------------------------------------------

    def batch(self, parts: Sequence[tuple[EpisodeReplay, np.ndarray]]) -> Batch:
        """The episodes ``index`` of each (replay, index) of ``parts``, one after another, as tensors."""
        steps = np.concatenate([replay.steps[index] for replay, index in parts])
        horizon = int(steps.max())

        def column(name: str) -> np.ndarray:
            return np.concatenate([getattr(replay, name)[index, :horizon] for replay, index in parts])

        obs = column("observations")
        images_ = torch.from_numpy(self.encoding.images(self.game, obs.reshape(-1, obs.shape[-1])))
        return Batch(
            images_.reshape(len(steps), horizon, self.planes, IMAGE_SIZE, IMAGE_SIZE),
            torch.from_numpy(column("actions").astype(np.int64)),
            torch.from_numpy(column("legal")),
            torch.arange(horizon)[None, :] < torch.from_numpy(steps)[:, None],
            torch.from_numpy(np.concatenate([replay.reward[index] for replay, index in parts])),
            torch.from_numpy(steps),
        )

    def td_loss(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The seed's Q-learning loss on ``batch`` (the network in training mode), the Q values and the hidden
        layer they were read from."""
        c = self.config
        self.net.train()
        hidden, _ = self.net.hidden(batch.images, None, batch.valid)
        q = self.net.q_values(hidden)
        taken = q.gather(2, batch.actions[:, :, None])[:, :, 0]
        with torch.no_grad():
            bootstrap = self.target if self.target is not None else self.net
            next_q = bootstrap(batch.images, None, batch.valid)[0] if bootstrap is not self.net else q.detach()
            chooser = q.detach() if c.double else None
            target = td_targets(next_q, batch.legal, batch.steps, batch.reward, c.gamma, chooser, c.monte_carlo_mix)
        loss = (((taken - target) ** 2) * batch.valid).sum() / batch.valid.sum()
        return loss, q, hidden

    def learn(self) -> float:
        c = self.config
        index = self.replay.sample(c.batch_size, self.rng)
        batch = self.batch([(self.replay, index)])
        loss, _, hidden = self.td_loss(batch)
        q_loss = loss.item()
        if self.strength_head is not None:
            label = torch.from_numpy(self.replay.strength[index])[:, None]
            predicted = torch.sigmoid(self.strength_head(hidden)[:, :, 0])
            strength_loss = (((predicted - label) ** 2) * batch.valid).sum() / batch.valid.sum()
            self.strength_losses.append(strength_loss.item())
            loss = loss + c.strength_weight * strength_loss
        self.step(loss)
        return q_loss

    def step(self, loss: torch.Tensor) -> None:
        """One gradient step on ``loss``; the target network synced every ``target_every`` steps."""
        self.optimizer.zero_grad()
        torch.autograd.backward(loss)
        self.optimizer.step()
        self.steps += 1
        if self.target is not None and self.steps % self.config.target_every == 0:
            self.target.load_state_dict(self.net.state_dict())

    # -- the run -------------------------------------------------------------

    def run(self, save_every: int = 0, out: str | Path | None = None) -> dict[str, Any]:
        """Train for ``config.hands`` hands; with ``save_every`` and ``out``, save the network so far every
        ``save_every`` hands (a long run that is stopped still leaves its latest checkpoint)."""
        c = self.config
        started = time.perf_counter()
        snapshots, saves = Every(c.snapshot_every), Every(save_every)
        tables = [self._new_hand() for _ in range(c.tables)]
        learner_memory: dict[int, Any] = {}
        snapshot_memory: dict[int, Any] = {}
        bar = tqdm(total=c.hands, unit="hand", disable=not self.show_progress, mininterval=1.0)
        pending_steps = 0.0
        while self.hands_done < c.hands:
            waiting: dict[str, list[_Table]] = {"learner": [], "self": []}
            for i, table in enumerate(tables):
                while True:
                    who = self._advance(table)
                    if who != "done":
                        waiting[who].append(table)
                        break
                    before = self.hands_done
                    self._finish(table)
                    learner_memory.pop(id(table), None)
                    snapshot_memory.pop(id(table), None)
                    table = tables[i] = self._new_hand()
                    bar.update(self.hands_done - before)
                    pending_steps += 1.0 / c.hands_per_step
            if waiting["learner"]:
                self.net.eval()
                for table, kind in zip(
                    waiting["learner"], self._decide(self.net, waiting["learner"], learner_memory, True), strict=True
                ):
                    self._apply(table, kind)
            if waiting["self"]:
                for table, kind in zip(
                    waiting["self"], self._decide(self.snapshot, waiting["self"], snapshot_memory, False), strict=True
                ):
                    self._apply(table, kind)
            while pending_steps >= 1 and self.replay.size >= c.batch_size:
                self.losses.append(self.learn())
                pending_steps -= 1
            if snapshots.due(self.hands_done):
                self.snapshot.load_state_dict(self.net.state_dict())
            if save_every and out is not None and saves.due(self.hands_done):
                self.save(out, self.stats(started))
            if self.show_progress and self.losses:
                bar.set_postfix_str(f"loss {np.mean(self.losses[-200:]):.3f} eps {self.epsilon():.2f}", refresh=False)
        bar.close()
        return self.stats(started)

    def stats(self, started: float) -> dict[str, Any]:
        """The run's figures so far (``started``: its ``time.perf_counter()`` at the start)."""
        seconds = time.perf_counter() - started
        last = {name: float(np.mean(r[-2000:])) * 1000 if r else None for name, r in self.results.items()}
        return {
            "hands": self.hands_done,
            "gradient_steps": self.steps,
            "seconds": round(seconds, 1),
            "hands_per_second": round(self.hands_done / seconds, 1),
            "mbb_per_hand_last_2000_by_opponent": last,
            "final_loss": float(np.mean(self.losses[-200:])) if self.losses else None,
            "final_strength_loss": float(np.mean(self.strength_losses[-200:])) if self.strength_losses else None,
        }

    def save(self, path: str | Path, stats: dict[str, Any]) -> Path:
        config = asdict(self.config)
        config["opponents"] = [list(o) for o in self.config.opponents]
        meta = {
            "config": config,
            "encoding": self.encoding.name,
            "hands_trained": self.hands_done,
            "opponents": self.pool.names,
            "opponent_agents": self.pool.agents(),
            "stats": stats,
        }
        return save_network(path, self.net, self.config.network, self.planes, meta)


def train(
    config: TrainConfig, out: str | Path, show_progress: bool = True, save_every: int = 0
) -> tuple[Path, dict[str, Any]]:
    trainer = Trainer(config, show_progress)
    stats = trainer.run(save_every, out)
    return trainer.save(out, stats), stats
