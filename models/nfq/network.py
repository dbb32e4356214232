"""NFQ's Q-network and its online Q(lambda) update with eligibility traces on every parameter.

``NFQNetwork``: inputs -> one hidden tanh layer -> one tanh output per action (fold,
call, raise), so every Q value lies in (-1, 1) as the seed's rewards do once scaled.

``EligibilityTraces`` keeps one trace per parameter for each of many tables (hands
played at once). For a table at its step t, with the gradient of the taken action's
Q value g_t = grad_w Q(s_t, a_t):

    z <- lambda * z + g_t                                   (``accumulate``)
    w <- w + alpha * delta * z, delta = target - Q(s_t, a_t)   (``apply``, summed over tables)

as seed 003 writes it (accumulating traces; gamma = 1 inside a hand makes this the
textbook gamma * lambda decay). Traces are emptied when a hand ends (``reset``), and not
cut after exploratory actions (Peng's variant, as seed 003 reads). ``q_gradients`` gives
the per-table gradients in closed form (the network is small; no autograd needed).
"""

from __future__ import annotations

import torch
from torch import nn

from acpc_arena.models.q_networks.networks import NUM_ACTIONS


class NFQNetwork(nn.Module):
    """Q(s, .) = tanh(V tanh(W s + theta_hidden) + theta_out): the seed's three-layer BP network."""

    def __init__(self, inputs: int, hidden: int) -> None:
        super().__init__()
        self.inputs, self.width = inputs, hidden
        self.hidden = nn.Linear(inputs, hidden)
        self.out = nn.Linear(hidden, NUM_ACTIONS)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.out(torch.tanh(self.hidden(x))))


@torch.no_grad()
def q_gradients(net: NFQNetwork, x: torch.Tensor, actions: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """(Q(s_i, a_i) (B,), [dQ/dW (B,H,I), dQ/dtheta_hidden (B,H), dQ/dV (B,3,H), dQ/dtheta_out (B,3)]) for
    each row of ``x`` (B, I) and its action ``actions`` (B,), in the order of ``net.parameters()``."""
    h = torch.tanh(net.hidden(x))
    q = torch.tanh(net.out(h))
    rows = torch.arange(len(x))
    q_taken = q[rows, actions]
    slope = 1.0 - q_taken**2  # tanh' at the output
    d_out = torch.zeros_like(q)
    d_out[rows, actions] = slope
    d_v = d_out[:, :, None] * h[:, None, :]
    d_pre = slope[:, None] * net.out.weight[actions] * (1.0 - h**2)  # through V's row of the action and tanh'
    d_w = d_pre[:, :, None] * x[:, None, :]
    return q_taken, [d_w, d_pre, d_v, d_out]


class EligibilityTraces:
    """One accumulating trace per parameter and table (see the module docstring)."""

    def __init__(self, net: NFQNetwork, tables: int) -> None:
        self.net = net
        self.z = [torch.zeros((tables, *p.shape), dtype=p.dtype) for p in net.parameters()]

    def reset(self, rows: torch.Tensor) -> None:
        for z in self.z:
            z[rows] = 0.0

    def accumulate(self, rows: torch.Tensor, gradients: list[torch.Tensor], lam: float) -> None:
        """z <- lambda * z + gradient for each of ``rows`` (table indices)."""
        for z, g in zip(self.z, gradients, strict=True):
            z[rows] = lam * z[rows] + g

    @torch.no_grad()
    def apply(self, rows: torch.Tensor, delta: torch.Tensor, alpha: float) -> None:
        """w <- w + alpha * sum over ``rows`` of delta_i * z_i."""
        for p, z in zip(self.net.parameters(), self.z, strict=True):
            p.add_(alpha * torch.tensordot(delta.to(z.dtype), z[rows], dims=1))
