"""Seed 001's policy network (table 2), written for a whole population at once.

Two LSTM branches read the last 5 steps of the hand (``features``): the 4
opponent features into one (hidden 200 in the paper), the 6 game features into
the other (hidden 300); their last hidden states, concatenated, go through an
MLP of two ReLU layers (300, 300) to 10 outputs.

Every parameter tensor carries a leading population axis ``P``: ``forward`` runs
P networks on P batches in one pass (``torch.bmm``), which is how the evolution
evaluates a whole generation and how the ``ensemble`` agent runs its nine
networks (eight counters and the base) for one decision.

The 10 outputs (the paper does not define them): 0 fold, 1 check/call, 2 .. 8 a
raise of ``RAISE_FRACTIONS[k]`` pots after calling on top of the call (one size
per raise bucket of the opponent model, about its middle), 9 all in. A
decision is the legal output with the highest score (fold is illegal with
nothing to call, raises when raising is not allowed); a raise size is clamped
into the legal range ``[min raise, stack]``, so the action is always valid.

Sizes: ``TABLE_2`` is the paper's network (5-layer LSTMs, hidden 200 and 300,
MLP 300-300: 4,944,010 weights each). The shipped networks use ``SHIPPED``
(1-layer LSTMs, hidden 16 and 24, MLP 32-32: 7,018 weights): evolution by
Gaussian mutation of 4.9 million weights per individual is far beyond what 2
CPU cores and an hour allow (the paper's population of 100 holds 494 million
weights, 2 GB, and a batched pass costs hundreds of times the small network's:
``make bench SECTIONS=ensemble`` measures both).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import torch

from acpc_arena.models.ensemble.features import GAME_FEATURES, OPPONENT_FEATURES
from acpc_arena.protocol.state import CALL_ACTION, FOLD_ACTION, RAISE, Action, State

NUM_OUTPUTS = 10
FOLD_OUTPUT, CALL_OUTPUT, ALL_IN_OUTPUT = 0, 1, 9
RAISE_FRACTIONS = (0.0625, 0.25, 0.5, 1.0, 1.5, 3.0, 6.0)
"""Raise outputs 2 .. 8: pots after calling, one inside each raise bucket 1 .. 7."""


@dataclass(frozen=True)
class NetConfig:
    layers: int = 1
    opponent_hidden: int = 16
    game_hidden: int = 24
    mlp: int = 32


TABLE_2 = NetConfig(layers=5, opponent_hidden=200, game_hidden=300, mlp=300)
SHIPPED = NetConfig()


def shapes(config: NetConfig) -> dict[str, tuple[int, ...]]:
    """Each parameter's shape without the population axis; the last axis is the unit (a segment)."""
    out: dict[str, tuple[int, ...]] = {}
    for branch, size, hidden in (
        ("opponent", OPPONENT_FEATURES, config.opponent_hidden),
        ("game", GAME_FEATURES, config.game_hidden),
    ):
        for layer in range(config.layers):
            inputs = size if layer == 0 else hidden
            out[f"{branch}.{layer}.w_ih"] = (inputs, 4 * hidden)
            out[f"{branch}.{layer}.w_hh"] = (hidden, 4 * hidden)
            out[f"{branch}.{layer}.b"] = (4 * hidden,)
    widths = [config.opponent_hidden + config.game_hidden, config.mlp, config.mlp, NUM_OUTPUTS]
    for i in range(3):
        out[f"mlp.{i}.w"] = (widths[i], widths[i + 1])
        out[f"mlp.{i}.b"] = (widths[i + 1],)
    return out


def init_scale(name: str, shape: tuple[int, ...], config: NetConfig) -> float:
    """The bound of the uniform initialisation: 1/sqrt(fan-in), as torch's LSTM and Linear layers."""
    if name.startswith("mlp."):
        fan_in = shapes(config)[name.rsplit(".", 1)[0] + ".w"][0]
    else:
        fan_in = config.opponent_hidden if name.startswith("opponent") else config.game_hidden
    return 1.0 / math.sqrt(fan_in)


Params = dict[str, torch.Tensor]


def init_population(config: NetConfig, size: int, generator: torch.Generator) -> Params:
    """``size`` networks, each tensor uniform in +-init_scale."""
    params = {}
    for name, shape in shapes(config).items():
        bound = init_scale(name, shape, config)
        params[name] = (torch.rand((size, *shape), generator=generator) * 2 - 1) * bound
    return params


def count_weights(config: NetConfig) -> int:
    return sum(math.prod(s) for s in shapes(config).values())


def _lstm(params: Params, branch: str, layers: int, x: torch.Tensor) -> torch.Tensor:
    """The last hidden state of the top layer; ``x`` is (P, B, T, features)."""
    population, batch, steps, _ = x.shape
    sequence = [x[:, :, t] for t in range(steps)]
    for layer in range(layers):
        w_ih = params[f"{branch}.{layer}.w_ih"]
        w_hh = params[f"{branch}.{layer}.w_hh"]
        b = params[f"{branch}.{layer}.b"][:, None, :]
        hidden = w_hh.shape[1]
        h = x.new_zeros((population, batch, hidden))
        c = x.new_zeros((population, batch, hidden))
        outputs = []
        for x_t in sequence:
            gates = torch.bmm(x_t, w_ih) + torch.bmm(h, w_hh) + b
            i, f, g, o = gates.chunk(4, dim=-1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outputs.append(h)
        sequence = outputs
    return sequence[-1]


def forward(params: Params, config: NetConfig, opponent: torch.Tensor, game: torch.Tensor) -> torch.Tensor:
    """Output scores (P, B, 10) of P networks on (P, B, 5, 4) opponent and (P, B, 5, 6) game features."""
    x = torch.cat(
        [_lstm(params, "opponent", config.layers, opponent), _lstm(params, "game", config.layers, game)], dim=-1
    )
    for i in range(3):
        x = torch.bmm(x, params[f"mlp.{i}.w"]) + params[f"mlp.{i}.b"][:, None, :]
        if i < 2:
            x = torch.relu(x)
    return x


def legal_outputs(state: State) -> np.ndarray:
    """Which of the 10 outputs the player to act may choose."""
    legal = state.legal_actions()
    mask = np.zeros(NUM_OUTPUTS, dtype=bool)
    mask[FOLD_OUTPUT] = legal.can_fold
    mask[CALL_OUTPUT] = True
    mask[2:] = legal.can_raise
    return mask


def probabilities(scores: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Softmax of the scores over the legal outputs (0 elsewhere); scores (..., 10)."""
    masked = np.where(legal, scores, -np.inf)
    e = np.exp(masked - masked.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def output_action(state: State, output: int) -> Action:
    """The valid action of output ``output`` for the player to act (raise sizes clamped to the legal range)."""
    legal = state.legal_actions()
    if output == FOLD_OUTPUT and legal.can_fold:
        return FOLD_ACTION
    if output <= CALL_OUTPUT or not legal.can_raise:
        return CALL_ACTION
    if not state.game.no_limit:
        return Action(RAISE, 0)
    if output == ALL_IN_OUTPUT:
        size = legal.max_raise_to
    else:
        to_call = state.max_spent - state.spent[state.current_player]
        size = state.max_spent + round(RAISE_FRACTIONS[output - 2] * (sum(state.spent) + to_call))
    return Action(RAISE, min(max(size, legal.min_raise_to), legal.max_raise_to))


def config_dict(config: NetConfig) -> dict[str, int]:
    return asdict(config)
