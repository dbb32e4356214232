"""Q-network checkpoints: torch weights (``.pt``) and a JSON sidecar (config, hands, opponents, commit).

The sidecar names the network class (``network``) and the arguments that build it
(``planes`` for seed 000's networks, ``arguments`` for others such as NFQ's, which
load through ``load_module`` with their own table of classes).

Weights are loaded with ``torch.load(weights_only=True)`` onto the GPU when there
is one and the CPU otherwise. A missing, damaged or mismatched checkpoint raises
``CheckpointError`` with the reason; so does a sidecar whose sizes are past
``MAX_NETWORK_SIZE`` or describe more weights than the weights file holds, before
any network is built.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import torch
from torch import nn

from acpc_arena.models.checkpoints import CheckpointError, git_commit, read_sidecar, weights_size
from acpc_arena.models.q_networks.networks import NETWORKS, QNetwork

FORMAT = 1
M = TypeVar("M", bound=nn.Module)


MAX_NETWORK_SIZE = 1 << 16
"""The largest size a sidecar may give a network (``planes``, ``inputs``, ``hidden``); the shipped are under 100."""


def _size_fits(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_NETWORK_SIZE


def _shown(arguments: object) -> str:
    text = json.dumps(arguments)
    return text if len(text) <= 80 else text[:77] + "..."


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def save_network(
    path: str | Path,
    network: nn.Module,
    kind: str,
    planes: int | None,
    meta: dict[str, Any],
    arguments: dict[str, Any] | None = None,
) -> Path:
    """Save the weights and the sidecar; ``planes`` or ``arguments`` are what rebuild ``kind``."""
    path = Path(path).with_suffix(".pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {name: tensor.detach().cpu() for name, tensor in network.state_dict().items()}
    torch.save(state, path)
    sidecar = {
        "format": FORMAT,
        "kind": "q-network",
        "network": kind,
        **({"planes": planes} if planes is not None else {}),
        **({"arguments": arguments} if arguments is not None else {}),
        "git_commit": git_commit(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **meta,
    }
    path.with_suffix(".json").write_text(json.dumps(sidecar, indent=2) + "\n")
    return path


def weights_digest(module: nn.Module) -> str:
    """A digest of ``module``'s weights: the same for networks that compute the same function."""
    digest = hashlib.sha1()
    for name, tensor in module.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


def load_network(path: str | Path, device: torch.device | None = None) -> tuple[QNetwork, dict[str, Any]]:
    """The network in evaluation mode on ``device`` (default: GPU if any), and its sidecar."""
    return load_module(path, NETWORKS, device)


def load_module(
    path: str | Path, networks: Mapping[str, Callable[..., M]], device: torch.device | None = None
) -> tuple[M, dict[str, Any]]:
    """``load_network`` for the classes of ``networks`` (by the sidecar's ``network`` name)."""
    path = Path(path).with_suffix(".pt")
    device = device or default_device()
    meta = read_sidecar(path)
    if meta.get("format") != FORMAT or meta.get("kind") != "q-network" or meta.get("network") not in networks:
        raise CheckpointError(f"{path.with_suffix('.json')}: not a Q-network checkpoint of format {FORMAT}")
    described = path.with_suffix(".json")
    arguments = meta["arguments"] if "arguments" in meta else {"planes": meta.get("planes")}
    if not isinstance(arguments, dict) or not all(_size_fits(value) for value in arguments.values()):
        raise CheckpointError(
            f"{described}: the network's sizes {_shown(arguments)} must be whole numbers 1..{MAX_NETWORK_SIZE}"
        )
    build = networks[meta["network"]]
    try:
        with torch.device("meta"):  # the sizes only: no memory taken, no weights drawn
            network = build(**arguments)
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise CheckpointError(f"{described}: cannot build a {meta['network']} network ({exc})") from None
    needed = sum(t.numel() * t.element_size() for t in network.state_dict().values())
    size = weights_size(path)
    if needed > size:
        raise CheckpointError(
            f"{path}: damaged checkpoint (the {meta['network']} network {described.name} describes has "
            f"{needed:,} bytes of weights, the file {size:,})"
        )
    # Memory for the weights, left as it is: the checkpoint's then fill every tensor (the networks hold none
    # outside their state dict, and a missing one fails the strict load below).
    network = network.to_empty(device=device)
    try:
        state = torch.load(path, map_location=device, weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such checkpoint") from None
    except Exception as exc:  # torch raises many kinds for a damaged file
        raise CheckpointError(f"{path}: damaged checkpoint ({type(exc).__name__}: {exc})") from None
    try:
        network.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as exc:
        raise CheckpointError(f"{path}: weights do not fit a {meta['network']} network ({exc})") from None
    return network.to(device).eval(), meta
