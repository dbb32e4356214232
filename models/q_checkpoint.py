"""Q-network checkpoints: torch weights (``.pt``) and a JSON sidecar (config, hands, opponents, commit).

Weights are loaded with ``torch.load(weights_only=True)`` onto the GPU when there
is one and the CPU otherwise. A missing, damaged or mismatched checkpoint raises
``CheckpointError`` with the reason.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import torch

from acpc_arena.models.cfr.checkpoint import CheckpointError, git_commit
from acpc_arena.models.networks import NETWORKS, QNetwork

FORMAT = 1


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def save_network(path: str | Path, network: QNetwork, kind: str, planes: int, meta: dict[str, Any]) -> Path:
    path = Path(path).with_suffix(".pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {name: tensor.detach().cpu() for name, tensor in network.state_dict().items()}
    torch.save(state, path)
    sidecar = {
        "format": FORMAT,
        "kind": "q-network",
        "network": kind,
        "planes": planes,
        "git_commit": git_commit(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **meta,
    }
    path.with_suffix(".json").write_text(json.dumps(sidecar, indent=2) + "\n")
    return path


def load_network(path: str | Path, device: torch.device | None = None) -> tuple[QNetwork, dict[str, Any]]:
    """The network in evaluation mode on ``device`` (default: GPU if any), and its sidecar."""
    path = Path(path).with_suffix(".pt")
    device = device or default_device()
    try:
        meta = json.loads(path.with_suffix(".json").read_text())
    except FileNotFoundError:
        raise CheckpointError(f"{path.with_suffix('.json')}: no description beside the checkpoint") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{path.with_suffix('.json')}: unreadable description ({exc})") from None
    if meta.get("format") != FORMAT or meta.get("kind") != "q-network" or meta.get("network") not in NETWORKS:
        raise CheckpointError(f"{path.with_suffix('.json')}: not a Q-network checkpoint of format {FORMAT}")
    network = NETWORKS[meta["network"]](planes=int(meta["planes"]))
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
