"""Seed 000's agents: ``lstm_dqn`` (CNN + LSTM Q-network) and ``dqn`` (the same without the LSTM).

Each decision encodes the view as the checkpoint's sidecar names it
(``models.q_networks.history_encoding``: the seed's 16x17x17 card image when it
names none, or those planes with the betting history and position added) and takes
the legal action with the highest output: the highest Q value of a Q-network, the
most likely action of an average-policy network (a sidecar saying ``"outputs":
"average-policy"``: the logits of a softmax over fold, call, raise). Fold is never
chosen with nothing owed, nor raise when raising is not allowed. The LSTM's memory
is a function of the hand's decisions so far: the network runs one decision at a
time (``step``) over the viewer's card images at each of them, from an empty memory.
The output and the memory after each sequence of images met are kept, by network,
so a decision usually costs one step, and ``policy`` gives the choice for any hole
cards without a state of the agent's own. The seed learns no bet sizes: in no-limit
games a raise is a pot-size raise (clamped to the legal range). Checkpoints load
onto the GPU when there is one.

Every network pass goes through ``models.q_networks.row_passes``, so a decision comes out
the same alone (over TCP) and batched with other tables' (``act_batch``, which
the in-process runner calls with the views of many matches at once; see
``batch_key``), and ``act`` never parts from ``policy`` on a near tie.

``--checkpoint`` takes a ``.pt`` file or a shipped checkpoint's name. The defaults,
``lstm_dqn`` and ``dqn``, are the seed's networks as NFSP-style average-policy networks
learned from the default limit ``cfr``'s demonstrations on the betting-history planes
(``models/training/dqn_average_policy.py``). Kept for comparison: ``lstm_dqn-v1`` and
``dqn-v1`` (the seed's configuration: its ``v1`` pool, loss and targets),
``lstm_dqn-sound`` and ``dqn-sound`` (Q-learning against the ``sound`` pool with the
auxiliary hand-strength loss, ``models/training/dqn.py``; the DQN also with double DQN
targets, mixed Monte Carlo targets and a replay memory of its last 50,000 hands),
``lstm_dqn-v2`` (the ``sound`` pool with the seed's loss), ``dqn-v2`` (the strength loss
with the seed's targets) and ``dqn-v3`` (double DQN targets without the Monte Carlo
mix), ``lstm_dqn-dqfd`` and ``dqn-dqfd`` (the Q-networks pre-trained on the same
demonstrations, ``models/training/dqn_dqfd.py``). ``acpc-train lstm_dqn|dqn`` rebuilds
each (``models/training/cli.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent, Policy, pot_size_raise_to, valid_or_call
from acpc_arena.agents.options import AgentOptions, options_from
from acpc_arena.models.checkpoints import FOLDER, CheckpointError, resolve_checkpoint
from acpc_arena.models.q_networks.checkpoint import default_device, load_network, weights_digest
from acpc_arena.models.q_networks.encoding import IMAGE_SIZE, observe
from acpc_arena.models.q_networks.history_encoding import encoding_of
from acpc_arena.models.q_networks.networks import HIDDEN, NUM_ACTIONS, QNetwork
from acpc_arena.models.q_networks.row_passes import forward_rows
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import RAISE, Action, ActionKind, State
from acpc_arena.protocol.wire import MatchState


@dataclass(frozen=True)
class QOptions(AgentOptions):
    checkpoint: Annotated[Path | None, "a Q-network checkpoint (.pt), or a shipped one's name"] = None
    threads: Annotated[int, "torch threads (1 suits one decision at a time)"] = 1


class QAgent(Agent):
    name = "q"
    network = "lstm_dqn"
    Options = QOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed)
        given = options_from(QOptions, options)
        torch.set_num_threads(given.threads or 1)  # one decision at a time: threads only contend
        self.path = resolve_checkpoint(given.checkpoint, ".pt") or FOLDER / f"{self.network}.pt"
        self.device = default_device()
        # cuDNN's TF32 convolutions round a row differently by batch size (measured on an H100); the
        # networks were trained in float32 anyway.
        torch.backends.cudnn.allow_tf32 = False
        try:
            self.net, self.meta, digest = _loaded(self.path, self.device)
        except CheckpointError as exc:
            raise ValueError(str(exc)) from None  # acpc-agent prints it as one line
        self.check_inputs(game)
        self._network_key = (self.network, digest, str(self.device))
        """What agents of the same network share: batches and the outputs kept (``_KNOWN``)."""
        self._empty = torch.zeros(2 * HIDDEN if self.net.recurrent else 0, device=self.device)
        """The memory before a hand's first decision (h and c side by side; none without an LSTM)."""

    def check_inputs(self, game: Game) -> None:
        """Keep the encoding the checkpoint's sidecar names (``models.q_networks.history_encoding``: the seed's
        planes when it names none); refuse (ValueError) a checkpoint whose planes are not what that encoding
        makes of ``game``."""
        self.encoding = encoding_of(self.meta, self.path)
        if self.meta["planes"] != self.encoding.planes(game):
            raise ValueError(
                f"{self.path} was trained on {self.meta['planes']} planes; its {self.encoding.name} encoding of this"
                f" game has {self.encoding.planes(game)}"
            )

    def act(self, view: MatchState) -> Action:
        return self.act_batch([view])[0]

    def batch_key(self) -> Hashable | None:
        """The same for agents that choose alike at any view: the same weights on the same device (a row's bits
        are the same alone or batched, ``models.q_networks.row_passes``)."""
        return self._network_key

    def act_batch(self, views: Sequence[MatchState]) -> list[Action]:
        """``act`` at each view (views of any hands, of this agent or of one with the same ``batch_key``)."""
        return [self._best_action(v.state, row) for v, row in zip(views, self.outputs(views), strict=True)]

    def policy(self, view: MatchState) -> Policy:
        return self.policies([view])[0]

    def policies(self, views: Sequence[MatchState]) -> list[Policy]:
        return [{action: 1.0} for action in self.act_batch(views)]

    @torch.no_grad()
    def outputs(self, views: Sequence[MatchState]) -> np.ndarray:
        """(views, 3) network outputs at each view's current decision: the network run one decision at a time
        over the viewer's decisions of the hand so far, from an empty memory.

        The output and memory after each sequence of observations are kept (``_KNOWN``, shared by the
        agents of one network), so a decision usually costs one step; the steps still to run go in one
        pass a round for all the views. Each row's bits are those of a pass of it alone (row passes)."""
        sequences = self._observations(views)
        known = _KNOWN.setdefault(self._network_key, {})
        if len(known) > KNOWN_PREFIXES:
            known.clear()
        done = []
        for sequence in sequences:
            steps = len(sequence)
            while steps and sequence[:steps].tobytes() not in known:
                steps -= 1
            done.append(steps)
        while behind := [i for i, sequence in enumerate(sequences) if done[i] < len(sequence)]:
            planes = self.encoding.images(self.game, np.stack([sequences[i][done[i]] for i in behind]))
            rows = torch.from_numpy(planes.reshape(len(behind), -1)).to(self.device)
            if self.net.recurrent:
                memory = [known[sequences[i][: done[i]].tobytes()][1] if done[i] else self._empty for i in behind]
                rows = torch.cat([rows, torch.stack(memory)], dim=1)
            after = forward_rows(self._step_rows, rows)
            for row, i in enumerate(behind):
                done[i] += 1
                known[sequences[i][: done[i]].tobytes()] = (after[row, :NUM_ACTIONS], after[row, NUM_ACTIONS:])
        return np.stack([known[sequence.tobytes()][0].cpu().numpy() for sequence in sequences])

    def _step_rows(self, rows: torch.Tensor) -> torch.Tensor:
        """``net.step`` over rows of a flattened image and (with an LSTM) the memory before it -> rows of Q
        and the memory after."""
        pixels = self.meta["planes"] * IMAGE_SIZE * IMAGE_SIZE
        batch = rows[:, :pixels].reshape(-1, self.meta["planes"], IMAGE_SIZE, IMAGE_SIZE)
        q, memory = self.net.step(batch, rows[:, pixels:] if self.net.recurrent else None)
        return q if memory is None else torch.cat([q, memory], dim=1)

    def _observations(self, views: Sequence[MatchState]) -> list[np.ndarray]:
        """Each view's (steps, fields) observations at its viewer's decisions so far, the current one last (only
        that one for a network without memory); replayed once for views of the same betting and board (and hole
        cards, where the encoding's fields depend on them beyond the first)."""
        replayed: dict[tuple[Any, ...], np.ndarray] = {}
        out = []
        if self.encoding.prefetch is not None:
            self.encoding.prefetch(self.game, views)
        for view in views:
            state = view.state
            key: tuple[Any, ...] = (
                view.viewer, tuple(tuple(actions) for actions in state.actions), tuple(state.visible_board())
            )  # fmt: skip
            if not self.encoding.hole_only_first:
                key += (tuple(state.hole_cards[view.viewer]),)
            if key not in replayed:
                observe_ = self.encoding.observe
                recurrent = self.net.recurrent
                replayed[key] = (
                    decision_observations(view, observe_) if recurrent else observe_(state, view.viewer)[None]
                )
            observations = replayed[key].copy()
            observations[:, : self.game.num_hole_cards] = state.hole_cards[view.viewer]  # the hole cards come first
            out.append(observations)
        return out

    def _best_action(self, state: State, q: np.ndarray) -> Action:
        """The legal action with the highest Q value (a raise sized as the module docstring says)."""
        legal = state.legal_actions()
        allowed = np.array([legal.can_fold, True, legal.can_raise])
        kind = int(np.argmax(np.where(allowed, q, -np.inf)))
        if kind == RAISE:
            size = pot_size_raise_to(state) if self.game.no_limit else 0
            return valid_or_call(state, Action(RAISE, size))
        return Action(ActionKind(kind))


_LOADED: dict[tuple[str, int, int, int, int, str], tuple[QNetwork, dict[str, Any], str]] = {}
"""``_loaded``'s networks, by checkpoint (its files' sizes and modification times) and device."""


def _loaded(path: Path, device: torch.device) -> tuple[QNetwork, dict[str, Any], str]:
    """``load_network(path, device)`` and the weights' digest; a network this process loaded already from the
    same unchanged files is the same object (the agents only evaluate it: the in-process runner builds an
    agent a match)."""
    path = path.with_suffix(".pt")
    try:
        weights, description = path.stat(), path.with_suffix(".json").stat()
    except OSError:
        net, meta = load_network(path, device)  # what is missing is told there
        return net, meta, weights_digest(net)
    full = (
        str(path.resolve()), weights.st_mtime_ns, weights.st_size, description.st_mtime_ns, description.st_size,
        str(device),
    )  # fmt: skip
    if full not in _LOADED:
        net, meta = load_network(path, device)
        if len(_LOADED) >= 4:
            del _LOADED[next(iter(_LOADED))]
        _LOADED[full] = (net, meta, weights_digest(net))
    return _LOADED[full]


KNOWN_PREFIXES = 20_000
"""Sequences of observations whose output and memory are kept (2 KB each), a network; all are dropped beyond."""
_KNOWN: dict[tuple[str, str, str], dict[bytes, tuple[torch.Tensor, torch.Tensor]]] = {}
"""``QAgent.outputs``' outputs and memories by network (its weights' digest) and device, then by the observations'
bytes."""


class LSTMDQNAgent(QAgent):
    name = "lstm_dqn"
    network = "lstm_dqn"


class DQNAgent(QAgent):
    name = "dqn"
    network = "dqn"


def decision_observations(view: MatchState, observe: Callable[[State, int], np.ndarray] = observe) -> np.ndarray:
    """(steps, fields) ``observe`` (an encoding's) of each of ``decision_states(view)``, taken as the replay
    passes them."""
    real, viewer = view.state, view.viewer
    replay = State(real.game, real.hand_id, [list(cards) for cards in real.hole_cards], list(real.board_cards))
    out = []
    for round_ in range(real.round + 1):
        for action in real.actions[round_]:
            if replay.current_player == viewer:
                out.append(observe(replay, viewer))
            replay.apply(action)
    out.append(observe(replay, viewer))
    return np.stack(out)


def decision_states(view: MatchState) -> list[State]:
    """The states of the hand at each of the viewer's decisions so far, the current one last, replayed
    from the view's cards (the LSTM's memory is a function of these)."""
    real = view.state
    replay = State(real.game, real.hand_id, [list(cards) for cards in real.hole_cards], list(real.board_cards))
    out = []
    for round_ in range(real.round + 1):
        for action in real.actions[round_]:
            if replay.current_player == view.viewer:
                out.append(replay.copy())
            replay.apply(action)
    out.append(replay)
    return out
