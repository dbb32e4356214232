"""A starting network for the evolution: the policy network fitted to a teacher's play (behaviour cloning).

Seed 001 evolves its networks from random weights over about 10^10 hands. At
this machine's scale (a few million hands) evolution from random weights finds
networks that lose to every style (the first shipped version did), so here the
evolution starts from a network that already plays sound poker: the table-2
network trained by gradient descent to reproduce the no-limit ``cfr`` agent
(``cfr-nl``, which beats every style in duplicate) from the network's own
inputs. This is a departure from the seed, chosen and documented; algorithm 1
then runs unchanged from there (``ensemble``).

Records: the teacher plays each style ``hands`` hands in-process (each deal of
the ACPC dealer's sequence for the seed twice, seats swapped), growing the
style's opponent-model tree from empty as the ensemble agent does in a match.
At each of the teacher's decisions the record keeps the network's inputs
(``step_features``), the legal outputs and the teacher's policy mapped onto the
10 outputs (``output_of``: a raise goes to the output of its opponent-model
bucket, a raise to the whole stack to all-in). The network is fitted by Adam on
the cross-entropy between the teacher's policy and the network's softmax over
the legal outputs; a held-out tenth of the records measures how often the
network's choice is the teacher's most likely action.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from acpc_arena.agents.base import Agent, valid_or_call
from acpc_arena.agents.registry import agent_class
from acpc_arena.models.ensemble.features import GAME_FEATURES, OPPONENT_FEATURES, STEPS, step_features
from acpc_arena.models.ensemble.network import (
    ALL_IN_OUTPUT,
    CALL_OUTPUT,
    FOLD_OUTPUT,
    NUM_OUTPUTS,
    NetConfig,
    Params,
    forward,
    init_population,
    legal_outputs,
)
from acpc_arena.models.ensemble.opponent_model import OpponentModel, raise_bucket, raise_fraction, shown_strength
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import FOLD, RAISE, Action, State
from acpc_arena.protocol.wire import MatchState

TEACHER = "cfr"


@dataclass
class Records:
    """The teacher's decisions: network inputs, legal outputs and the teacher's policy over the outputs."""

    opponent: np.ndarray
    """(N, 5, 4) opponent features."""
    game: np.ndarray
    """(N, 5, 6) game features."""
    legal: np.ndarray
    """(N, 10) legal outputs."""
    target: np.ndarray
    """(N, 10) the teacher's probability of each output."""

    def __len__(self) -> int:
        return len(self.target)

    @classmethod
    def concatenate(cls, parts: list[Records]) -> Records:
        return cls(
            *(np.concatenate([getattr(p, name) for p in parts]) for name in ("opponent", "game", "legal", "target"))
        )


def output_of(state: State, action: Action) -> int:
    """The network output that stands for ``action`` of the player to act in ``state``."""
    if action.kind == FOLD:
        return FOLD_OUTPUT
    if action.kind != RAISE:
        return CALL_OUTPUT
    if action.size >= state.legal_actions().max_raise_to:
        return ALL_IN_OUTPUT
    return 1 + raise_bucket(raise_fraction(state, action.size))


def teacher_records(game: Game, style: str, hands: int, seed: int) -> Records:
    """The teacher's decisions over ``hands`` hands against ``style`` (``hands // 2`` deals, both seats)."""
    opponent, features, legal, target = [], [], [], []
    teacher: Agent = agent_class(TEACHER)(game, seed=seed)
    player: Agent = agent_class(style)(game, seed=seed + 1)
    model = OpponentModel()
    for deal in deal_hands(game, seed, hands // 2):
        for seat in (0, 1):
            state = State(game, deal.hand_id, deal.hole_cards, deal.board_cards)
            while not state.finished:
                view = MatchState(state.current_player, state)
                if state.current_player != seat:
                    state.apply(valid_or_call(state, player.act(view)))
                    continue
                x_opponent, x_game, _ = step_features(state, seat, model)
                policy = np.zeros(NUM_OUTPUTS)
                for action, probability in teacher.policy(view).items():
                    policy[output_of(state, valid_or_call(state, action))] += probability
                opponent.append(x_opponent)
                features.append(x_game)
                legal.append(legal_outputs(state))
                target.append(policy / policy.sum())
                state.apply(valid_or_call(state, teacher.act(view)))
            model.observe(state, seat, shown_strength(state, seat))
            for position in (0, 1):
                (teacher if position == seat else player).end_hand(MatchState(position, state))
    return Records(
        np.array(opponent, dtype=np.float32).reshape(-1, STEPS, OPPONENT_FEATURES),
        np.array(features, dtype=np.float32).reshape(-1, STEPS, GAME_FEATURES),
        np.array(legal, dtype=bool).reshape(-1, NUM_OUTPUTS),
        np.array(target, dtype=np.float32).reshape(-1, NUM_OUTPUTS),
    )


def masked_log_softmax(scores: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(scores.masked_fill(~legal, -1e9), dim=-1)


@torch.no_grad()
def agreement(params: Params, config: NetConfig, records: Records) -> float:
    """Share of ``records`` where the network's most likely legal output is the teacher's most likely one."""
    scores = forward(params, config, torch.from_numpy(records.opponent)[None], torch.from_numpy(records.game)[None])[0]
    chosen = scores.masked_fill(~torch.from_numpy(records.legal), -torch.inf).argmax(dim=-1).numpy()
    return float((chosen == records.target.argmax(axis=1)).mean())


def fit(
    records: Records, config: NetConfig, epochs: int, seed: int, batch: int = 512, lr: float = 3e-3
) -> tuple[Params, dict[str, float]]:
    """A network (population axis of size 1) fitted to ``records``; and its training and held-out figures.

    Runs on one torch thread: the network is small, and a second thread only waits (on 2 busy cores, 40 times
    slower here)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _fit(records, config, epochs, seed, batch, lr)
    finally:
        torch.set_num_threads(threads)


def _fit(
    records: Records, config: NetConfig, epochs: int, seed: int, batch: int, lr: float
) -> tuple[Params, dict[str, float]]:
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(records), generator=generator).numpy()
    held = order[: max(1, len(records) // 10)]
    train = order[max(1, len(records) // 10) :]
    params = {k: t.clone().requires_grad_(True) for k, t in init_population(config, 1, generator).items()}
    optimiser = torch.optim.Adam(params.values(), lr=lr)
    tensors = [torch.from_numpy(a) for a in (records.opponent, records.game, records.legal, records.target)]
    loss = torch.zeros(())
    for _ in range(epochs):
        shuffled = train[torch.randperm(len(train), generator=generator).numpy()]
        for start in range(0, len(shuffled), batch):
            rows = torch.from_numpy(shuffled[start : start + batch])
            x_opponent, x_game, legal, target = (t[rows] for t in tensors)
            scores = forward(params, config, x_opponent[None], x_game[None])[0]
            loss = -(target * masked_log_softmax(scores, legal)).sum(dim=-1).mean()
            optimiser.zero_grad()
            torch.autograd.backward(loss)
            optimiser.step()
    fitted = {k: t.detach() for k, t in params.items()}
    held_out = Records(*(a[held] for a in (records.opponent, records.game, records.legal, records.target)))
    figures = {
        "records": float(len(records)),
        "final_batch_loss": float(loss.detach()),
        "held_out_agreement": agreement(fitted, config, held_out),
    }
    return fitted, figures
