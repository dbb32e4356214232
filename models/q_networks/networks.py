"""Seed 000's Q-networks over the 16x17x17 card image (section 4.1.3, table 4-1, figure 4-7).

- ``LSTMDQN``: conv 32@5x5 stride 2 -> conv 64@3x3 stride 2 -> conv 64@2x2 stride 1
  (ReLU, no pooling) -> LSTM 256 -> fully connected 256 (ReLU, dropout 0.5) ->
  Q(fold, call, raise). The LSTM runs over one hand's decisions; its memory starts
  empty at every hand.
- ``DQN``: the same without the LSTM (conv stack -> fully connected 256 -> Q).
- ``PokerCNN`` (seed 004): the same conv stack and fully connected 256 with a
  softmax over fold, call, raise (action probabilities, not Q values).

The Q-networks' weights start Gaussian (mean 0, standard deviation 0.01, biases 0), as the seed
says without giving the spread. The thesis mentions a softmax classifier at the
end; like the seed's own algorithm the outputs are used as Q values.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from acpc_arena.protocol.state import ActionKind

NUM_ACTIONS = len(ActionKind)
"""Q values of fold, call, raise (indexed by ``ActionKind``)."""
HIDDEN = 256


class ConvStack(nn.Module):
    """The three convolutions, flattened: (batch, planes, 17, 17) -> (batch, 256)."""

    def __init__(self, planes: int) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Conv2d(planes, 32, kernel_size=5, stride=2),
            nn.ReLU(),
            nn.Conv2d(32, 64, kernel_size=3, stride=2),
            nn.ReLU(),
            nn.Conv2d(64, 64, kernel_size=2, stride=1),
            nn.ReLU(),
            nn.Flatten(),
        )

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.layers(images)


def _gaussian_init(module: nn.Module, std: float = 0.01) -> None:
    for parameter in module.parameters():
        if parameter.is_meta:  # sizes only (a checkpoint's check): nothing to draw
            continue
        if parameter.dim() > 1:
            nn.init.normal_(parameter, 0.0, std)
        else:
            nn.init.zeros_(parameter)


class QNetwork(nn.Module):
    """Common interface: ``forward(images, memory, valid) -> (q, memory)`` over (batch, time, planes, 17, 17).

    ``valid`` (batch, time) marks the real steps of padded sequences: the convolutions
    run on those only (padding is most of a minibatch of hands of unequal length).
    """

    recurrent = False
    conv: ConvStack
    dropout: nn.Dropout
    out: nn.Linear

    def initial_memory(self, batch: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor] | None:
        return None

    def step(self, images: torch.Tensor, memory: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """One decision at a time, as the agents play: (batch, planes, 17, 17) images and the memory before
        them, (batch, 2 * 256) (h and c side by side; None without an LSTM) -> (Q (batch, 3), memory after)."""
        raise NotImplementedError

    def hidden(self, images: torch.Tensor, memory: Any = None, valid: torch.Tensor | None = None) -> tuple[Any, Any]:
        """``forward``'s last hidden layer, (batch, time, 256) after its ReLU and before the dropout, and the
        memory after (the Q-networks; ``q_values`` of it is ``forward``'s output)."""
        raise NotImplementedError

    def q_values(self, hidden: torch.Tensor) -> torch.Tensor:
        """Q(fold, call, raise) from ``hidden``'s output: the dropout, then the output layer."""
        return self.out(self.dropout(hidden))

    def features(self, images: torch.Tensor, valid: torch.Tensor | None) -> torch.Tensor:
        """(batch, time, 256) convolution features, zero at padded steps."""
        batch, steps = images.shape[:2]
        if valid is None:
            return self.conv(images.reshape(batch * steps, *images.shape[2:])).reshape(batch, steps, HIDDEN)
        features = images.new_zeros(batch, steps, HIDDEN)
        features[valid] = self.conv(images[valid])
        return features


class LSTMDQN(QNetwork):
    recurrent = True

    def __init__(self, planes: int = 16) -> None:
        super().__init__()
        self.conv = ConvStack(planes)
        self.lstm = nn.LSTM(HIDDEN, HIDDEN, batch_first=True)
        self.fc = nn.Linear(HIDDEN, HIDDEN)
        self.dropout = nn.Dropout(0.5)
        self.out = nn.Linear(HIDDEN, NUM_ACTIONS)
        _gaussian_init(self)

    def initial_memory(self, batch: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        zeros = torch.zeros(1, batch, HIDDEN, device=device)
        return zeros, zeros.clone()

    def forward(
        self,
        images: torch.Tensor,
        memory: tuple[torch.Tensor, torch.Tensor] | None = None,
        valid: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        hidden, memory = self.hidden(images, memory, valid)
        return self.q_values(hidden), memory

    def hidden(
        self,
        images: torch.Tensor,
        memory: tuple[torch.Tensor, torch.Tensor] | None = None,
        valid: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        features = self.features(images, valid)
        if memory is None:
            memory = self.initial_memory(images.shape[0], images.device)
        if features.shape[1] == 1:
            sequence, memory = self._one_step(features, memory)
        else:
            sequence, memory = self.lstm(features, memory)
        return torch.relu(self.fc(sequence)), memory

    def step(self, images: torch.Tensor, memory: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        if memory is None:
            memory = images.new_zeros(images.shape[0], 2 * HIDDEN)
        h, c = memory[:, :HIDDEN], memory[:, HIDDEN:]
        sequence, (h, c) = self._one_step(self.conv(images)[:, None], (h[None], c[None]))
        q = self.out(self.dropout(torch.relu(self.fc(sequence[:, 0]))))
        return q, torch.cat([h[0], c[0]], dim=1)

    def _one_step(
        self, features: torch.Tensor, memory: tuple[torch.Tensor, torch.Tensor]
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """``self.lstm`` over a single step, written out: a sixth of ``nn.LSTM``'s fixed cost per call on CPU."""
        h, c = memory[0][0], memory[1][0]
        weight_ih, weight_hh, bias_ih, bias_hh = self.lstm.all_weights[0]  # layer 0, typed (unlike weight_ih_l0)
        # F.linear (the product with its bias), not @: on an H100 a row of @'s product depends on the batch.
        gates = nn.functional.linear(features[:, 0], weight_ih, bias_ih) + nn.functional.linear(h, weight_hh, bias_hh)
        i, f, g, o = gates.chunk(4, dim=1)  # nn.LSTM's gate order
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h[:, None], (h[None], c[None])


class DQN(QNetwork):
    def __init__(self, planes: int = 16) -> None:
        super().__init__()
        self.conv = ConvStack(planes)
        self.fc = nn.Linear(HIDDEN, HIDDEN)
        self.dropout = nn.Dropout(0.5)
        self.out = nn.Linear(HIDDEN, NUM_ACTIONS)
        _gaussian_init(self)

    def forward(
        self, images: torch.Tensor, memory: None = None, valid: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, None]:
        hidden, _ = self.hidden(images, memory, valid)
        return self.q_values(hidden), None

    def hidden(
        self, images: torch.Tensor, memory: None = None, valid: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, None]:
        return torch.relu(self.fc(self.features(images, valid))), None

    def step(self, images: torch.Tensor, memory: torch.Tensor | None) -> tuple[torch.Tensor, None]:
        return self.out(self.dropout(torch.relu(self.fc(self.conv(images))))), None


class PokerCNN(QNetwork):
    """Seed 004's Poker-CNN: the conv stack -> fully connected 256 (ReLU) -> softmax(fold, call, raise).

    Kaiming (MSRA) initial weights, as the seed; the outputs are action probabilities
    (``models/training/poker_cnn.py`` trains them on ACPC logs).
    """

    def __init__(self, planes: int = 16) -> None:
        super().__init__()
        self.conv = ConvStack(planes)
        self.fc = nn.Linear(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, NUM_ACTIONS)
        for parameter in self.parameters():
            if parameter.is_meta:  # sizes only (a checkpoint's check): nothing to draw
                continue
            if parameter.dim() > 1:
                nn.init.kaiming_normal_(parameter, nonlinearity="relu")
            else:
                nn.init.zeros_(parameter)

    def forward(
        self, images: torch.Tensor, memory: None = None, valid: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, None]:
        return torch.softmax(self.logits(self.features(images, valid)), dim=-1), None

    def step(self, images: torch.Tensor, memory: torch.Tensor | None) -> tuple[torch.Tensor, None]:
        return torch.softmax(self.logits(self.conv(images)), dim=-1), None

    def logits(self, features: torch.Tensor) -> torch.Tensor:
        """The outputs before the softmax, from ``features`` (the conv stack's, last dimension 256)."""
        return self.out(torch.relu(self.fc(features)))


NETWORKS: dict[str, type[QNetwork]] = {"lstm_dqn": LSTMDQN, "dqn": DQN, "poker_cnn": PokerCNN}
