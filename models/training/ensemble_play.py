"""Playing a population of policy networks against opponents in-process, many tables at a time.

Every individual plays every opponent on the same deals, each deal twice with
the seats swapped (duplicate): ``P x m x deals x 2`` tables are played at once
with the project's ``State`` engine, and at every step the decisions of all
the tables waiting for a network go through ``network.forward`` in one batch
(the population axis of the parameters, each table padded into its
individual's row).

The opponent-model tree of each opponent is shared by the whole population and
grown from every finished hand (the trees describe the opponent, and pooling
the population's hands gives usable features from the first generation on);
the caller keeps the trees from one generation to the next.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from acpc_arena.agents.base import Agent, valid_or_call
from acpc_arena.models.ensemble.features import GAME_FEATURES, OPPONENT_FEATURES, STEPS, step_features
from acpc_arena.models.ensemble.network import NetConfig, Params, forward, legal_outputs, output_action
from acpc_arena.models.ensemble.opponent_model import OpponentModel, shown_strength
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import State
from acpc_arena.protocol.wire import MatchState


@dataclass
class _Table:
    state: State
    member: int
    opponent: int
    seat: int
    """The network's position in this hand."""


def duplicate_deals(game: Game, seed: int, count: int) -> list[State]:
    """``count`` deals of the ACPC dealer's card sequence for ``seed``, each to be played twice."""
    return deal_hands(game, seed, count)


@torch.no_grad()
def play(
    params: Params,
    config: NetConfig,
    opponents: list[Agent],
    models: list[OpponentModel],
    deals: list[State],
) -> np.ndarray:
    """Mean winnings per hand (chips) of each individual against each opponent: shape (P, m)."""
    population = next(iter(params.values())).shape[0]
    winnings = np.zeros((population, len(opponents)))
    tables = [
        _Table(deal.copy(), member, j, seat)
        for member in range(population)
        for j in range(len(opponents))
        for deal in deals
        for seat in (0, 1)
    ]
    while tables:
        waiting: list[_Table] = []
        for table in tables:
            state = table.state
            while not state.finished and state.current_player != table.seat:
                action = opponents[table.opponent].act(MatchState(state.current_player, state))
                state.apply(valid_or_call(state, action))
            if state.finished:
                winnings[table.member, table.opponent] += state.value(table.seat)
                models[table.opponent].observe(state, table.seat, shown_strength(state, table.seat))
            else:
                waiting.append(table)
        if waiting:
            decide(params, config, waiting, models)
        tables = waiting
    return winnings / (2 * len(deals))


def decide(params: Params, config: NetConfig, tables: list[_Table], models: list[OpponentModel]) -> None:
    """One action at each of ``tables``, all of their networks' decisions in one batched pass."""
    population = next(iter(params.values())).shape[0]
    rows: list[list[int]] = [[] for _ in range(population)]
    for index, table in enumerate(tables):
        rows[table.member].append(index)
    width = max(len(r) for r in rows)
    opponent = np.zeros((population, width, STEPS, OPPONENT_FEATURES), dtype=np.float32)
    game = np.zeros((population, width, STEPS, GAME_FEATURES), dtype=np.float32)
    slot: dict[int, tuple[int, int]] = {}
    for member, indices in enumerate(rows):
        for column, index in enumerate(indices):
            table = tables[index]
            opponent[member, column], game[member, column], _ = step_features(
                table.state, table.seat, models[table.opponent]
            )
            slot[index] = (member, column)
    scores = forward(params, config, torch.from_numpy(opponent), torch.from_numpy(game)).numpy()
    for index, table in enumerate(tables):
        member, column = slot[index]
        legal = legal_outputs(table.state)
        output = int(np.argmax(np.where(legal, scores[member, column], -np.inf)))
        table.state.apply(output_action(table.state, output))
