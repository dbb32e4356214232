"""Every shipped network's pass gives a row the same bits alone and in a batch of any size, at any place in it
(``models.q_networks.row_passes``): an action decided alone (over TCP) is the one decided in a batch (in process).

The expected values are the same network's outputs for each row passed alone; those are checked against the
network called on that row by itself (to rounding: another shape may take another kernel)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from acpc_arena.agents.dqn import DQNAgent, LSTMDQNAgent, QAgent
from acpc_arena.agents.nfq import NFQAgent
from acpc_arena.agents.poker_cnn import PokerCNNAgent
from acpc_arena.models.q_networks.row_passes import ROWS, WHOLE_VECTORS, Pass, forward_rows
from acpc_arena.protocol.dealing import deal_hand
from acpc_arena.protocol.game import load_game
from acpc_arena.protocol.rng import MT19937
from acpc_arena.protocol.state import CALL_ACTION, LIMIT_RAISE_ACTION
from acpc_arena.protocol.wire import MatchState

LIMIT = load_game("holdem.limit.2p.reverse_blinds")
COUNT = 40
SIZES = (2, 3, 5, 7, ROWS, ROWS + 1, 13, 2 * ROWS, 33, COUNT)


def _views() -> list[MatchState]:
    """``COUNT`` views of dealt hands at every round, raised and called in turn."""
    views: list[MatchState] = []
    deal = MT19937(9)
    hand = 0
    while len(views) < COUNT:
        state = deal_hand(LIMIT, hand, deal)
        hand += 1
        while not state.finished and len(views) < COUNT:
            views.append(MatchState(state.current_player, state.copy()))
            state.apply(LIMIT_RAISE_ACTION if state.legal_actions().can_raise and len(views) % 3 else CALL_ACTION)
    return views


def _q_rows(agent: QAgent, views: list[MatchState]) -> torch.Tensor:
    """Rows of the Q-network's step: each view's card image (its checkpoint's encoding) and (with an LSTM) a
    memory of the size of one."""
    observations = np.stack([agent.encoding.observe(v.state, v.viewer) for v in views])
    pixels = torch.from_numpy(agent.encoding.images(LIMIT, observations).reshape(len(views), -1))
    memory = torch.randn(len(views), 2 * 256 if agent.net.recurrent else 0, generator=torch.Generator().manual_seed(3))
    return torch.cat([pixels, torch.tanh(memory)], dim=1)


def _network(name: str) -> tuple[Pass, torch.Tensor, int]:
    """The shipped network's pass as its agent runs it, ``COUNT`` rows of real inputs, and its pass size."""
    views = _views()
    if name == "nfq":
        nfq = NFQAgent(LIMIT)
        return nfq.net, torch.from_numpy(np.stack([nfq.state_vector(v) for v in views])), WHOLE_VECTORS
    agent = {"lstm_dqn": LSTMDQNAgent, "dqn": DQNAgent, "poker_cnn": PokerCNNAgent}[name](LIMIT)
    return agent._step_rows, _q_rows(agent, views), ROWS


@pytest.mark.parametrize("name", ["lstm_dqn", "dqn", "poker_cnn", "nfq"])
@torch.no_grad()
def test_a_row_has_the_same_bits_alone_and_in_batches_of_every_size(name: str) -> None:
    run, rows, size = _network(name)
    alone = torch.cat([forward_rows(run, rows[i : i + 1], size) for i in range(COUNT)])
    by_itself = torch.cat([run(rows[i : i + 1]) for i in range(COUNT)])
    # another pass size sums in another order: float32 rounding apart (the default networks' logits reach some
    # tens), not the same bits
    torch.testing.assert_close(alone, by_itself, rtol=1e-4, atol=1e-5)
    assert len({tuple(row.tolist()) for row in alone}) > COUNT // 2  # the rows differ: a real test of places
    for batch in SIZES:
        for start in range(0, COUNT - batch + 1, max(1, (COUNT - batch) // 4)):
            picked = torch.arange(start, start + batch)
            assert torch.equal(forward_rows(run, rows[picked], size), alone[picked]), (batch, start)
            flipped = picked.flip(0)  # each row at another place, among other rows
            assert torch.equal(forward_rows(run, rows[flipped], size), alone[flipped]), (batch, start)
