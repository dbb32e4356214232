"""The ensemble's checkpoint: nine networks in one weights-only torch file, a JSON sidecar, the feature library.

``ensemble-networks.pt`` holds every parameter stacked over the networks (the
population axis), in the order of ``NETWORKS``: the counters of O1 .. O8, then
the base network. ``ensemble-networks.json`` describes them (network sizes, the
training scale and its measurements, fitness curves, commit).
``ensemble-library.json`` is the feature library: the opponent-model tree of
each style as its counter network saw it. ``ensemble-clone.pt`` (+ ``.json``)
is the network evolution started from, the ``cfr-nl`` teacher cloned, kept for
the ablation ``ensemble --mode clone``. Weights load onto the GPU when there
is one. Anything missing, damaged or mismatched raises ``CheckpointError``
with the file and the reason; the described sizes are checked against sane
bounds and the weights file's size before the weights are read.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import torch

from acpc_arena.models.checkpoints import (
    FOLDER,
    CheckpointError,
    git_commit,
    read_json_object,
    read_sidecar,
    weights_size,
)
from acpc_arena.models.ensemble.network import NetConfig, Params, config_dict, shapes
from acpc_arena.models.ensemble.opponent_model import OpponentModel
from acpc_arena.models.q_networks.checkpoint import MAX_NETWORK_SIZE, default_device

FORMAT = 1
STYLE_NAMES = ("o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8")
NETWORKS = (*STYLE_NAMES, "base")
NETWORKS_PATH = FOLDER / "ensemble-networks.pt"
CLONE = ("clone",)
CLONE_PATH = FOLDER / "ensemble-clone.pt"
LIBRARY_PATH = FOLDER / "ensemble-library.json"


MAX_LAYERS = 64
"""The most LSTM layers a sidecar may describe (the paper's networks have 5)."""


def _size_fits(value: object, most: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= most


def _kind(names: tuple[str, ...]) -> str:
    return "ensemble-clone" if names == CLONE else "ensemble-networks"


def save_networks(
    path: str | Path, params: Params, config: NetConfig, meta: dict[str, Any], names: tuple[str, ...] = NETWORKS
) -> Path:
    """Save ``params`` (population axis first, one entry per name of ``names``) and their sidecar."""
    path = Path(path).with_suffix(".pt")
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({name: t.detach().cpu().contiguous() for name, t in params.items()}, path)
    sidecar = {
        "format": FORMAT,
        "kind": _kind(names),
        "networks": list(names),
        "config": config_dict(config),
        "git_commit": git_commit(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        **meta,
    }
    path.with_suffix(".json").write_text(json.dumps(sidecar, indent=1) + "\n")
    return path


def load_networks(
    path: str | Path = NETWORKS_PATH, device: torch.device | None = None, names: tuple[str, ...] = NETWORKS
) -> tuple[Params, NetConfig]:
    """The parameters of the networks ``names`` (population axis first, in that order) on ``device``: the
    nine of ``NETWORKS`` or the clone alone (``CLONE``)."""
    path = Path(path).with_suffix(".pt")
    device = device or default_device()
    meta = read_sidecar(path)
    kind_ok = meta.get("kind") == _kind(names) and meta.get("networks") == list(names)
    if meta.get("format") != FORMAT or not kind_ok:
        raise CheckpointError(f"{path.with_suffix('.json')}: not an {_kind(names)} checkpoint of format {FORMAT}")
    try:
        config = NetConfig(**meta["config"])
    except (KeyError, TypeError) as exc:
        raise CheckpointError(f"{path.with_suffix('.json')}: bad network sizes ({exc})") from None
    sizes = (config.opponent_hidden, config.game_hidden, config.mlp)
    if not (_size_fits(config.layers, MAX_LAYERS) and all(_size_fits(size, MAX_NETWORK_SIZE) for size in sizes)):
        raise CheckpointError(
            f"{path.with_suffix('.json')}: bad network sizes (layers 1..{MAX_LAYERS}, widths 1..{MAX_NETWORK_SIZE})"
        )
    needed = 4 * len(names) * sum(math.prod(shape) for shape in shapes(config).values())  # float32
    size = weights_size(path)
    if needed > size:
        raise CheckpointError(
            f"{path}: damaged checkpoint (the networks {path.with_suffix('.json').name} describes have "
            f"{needed:,} bytes of weights, the file {size:,})"
        )
    try:
        state = torch.load(path, map_location=device, weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such checkpoint") from None
    except Exception as exc:  # torch raises many kinds for a damaged file
        first_line = (str(exc).strip().splitlines() or [""])[0]  # torch's messages run over many lines
        raise CheckpointError(f"{path}: damaged checkpoint ({type(exc).__name__}: {first_line})") from None
    expected = {name: (len(names), *shape) for name, shape in shapes(config).items()}
    if not isinstance(state, dict) or {k: tuple(v.shape) for k, v in state.items()} != expected:
        raise CheckpointError(f"{path}: weights do not fit the described networks")
    return {name: t.float() for name, t in state.items()}, config


def save_library(path: str | Path, library: dict[str, OpponentModel], meta: dict[str, Any]) -> Path:
    path = Path(path)
    data = {"format": FORMAT, "kind": "ensemble-library", **meta}
    data["styles"] = {name: model.to_json(min_visits=2) for name, model in library.items()}
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    return path


def load_library(path: str | Path = LIBRARY_PATH) -> dict[str, OpponentModel]:
    """The opponent-model tree of each style O1 .. O8."""
    path = Path(path)
    data = read_json_object(path, "feature library")
    if data.get("format") != FORMAT or data.get("kind") != "ensemble-library":
        raise CheckpointError(f"{path}: not an ensemble feature library of format {FORMAT}")
    styles = data.get("styles")
    if not isinstance(styles, dict) or sorted(styles) != list(STYLE_NAMES):
        raise CheckpointError(f"{path}: the library must hold the styles {', '.join(STYLE_NAMES)}")
    try:
        return {name: OpponentModel.from_json(styles[name]) for name in STYLE_NAMES}
    except (ValueError, TypeError) as exc:
        raise CheckpointError(f"{path}: damaged feature library ({exc})") from None
