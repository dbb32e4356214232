"""``acpc-train --from-sidecar NAME|FILE``: train again what a checkpoint's JSON sidecar recorded.

The sidecar beside each checkpoint holds the settings and the seed of the run that
made it. This reads them: ``cfr_arguments`` gives a CFR checkpoint's (``acpc-cfr``'s
solvers, any game; ``acpc-train`` runs them) and ``recorded_config`` a network's
(``network_runs.rebuild_network`` trains ``lstm_dqn``, ``dqn`` and ``nfq`` again). A setting
the sidecar does not record takes the value that meant "off" when it was added (no
strength loss, no double targets, no Monte Carlo mix), as the code of that run had it.
On the same code and the same number of threads the rebuilt weights equal the shipped
ones bit for bit. ``NAME`` is a checkpoint of ``models/checkpoints/`` (``cfr-improved``),
whose sidecar every installation has, its weights or not.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from acpc_arena.models import checkpoints
from acpc_arena.models.checkpoints import CheckpointError, read_json_object

CFR_SAVE_EVERY = {"pcs-dcfr": 50}
"""Iterations between the saves of a CFR run (its state too for ``pcs-dcfr``: a killed rebuild goes on from
there); 100 for the other sampled algorithms, none for exact ones."""

ABSENT_MEANS = {"strength_weight": 0.0, "double": False, "monte_carlo_mix": 0.0}
"""Q-network settings added after the first checkpoints: what a sidecar without them trained with."""


def sidecar_of(given: str) -> Path:
    """The sidecar ``given`` names: a shipped checkpoint's name, a ``.json`` file, or a checkpoint file (its
    ``.json`` beside it)."""
    path = Path(given)
    if path.name == given and not path.suffix and not path.exists():
        return checkpoints.FOLDER / f"{given}.json"
    return path.with_suffix(".json")


def read_recorded(path: Path) -> dict[str, Any]:
    """The sidecar at ``path``; ``ValueError`` (one line naming it) when it is missing or unreadable."""
    try:
        return read_json_object(path, "checkpoint description", missing="no such checkpoint description")
    except CheckpointError as exc:
        raise ValueError(str(exc)) from None


def cfr_arguments(recorded: dict[str, Any]) -> dict[str, Any]:
    """``models.training.cfr.train``'s keyword arguments (without ``out``) of the run ``recorded`` describes."""
    algorithm = recorded["algorithm"]
    history = recorded.get("exploitability_history") or recorded.get("sampled_exploitability_history") or []
    betting = recorded.get("betting")
    sampled = algorithm.startswith("mc")
    return {
        "game_name": recorded["game_name"],
        "algorithm": algorithm,
        "iterations": int(recorded["iterations"]),
        "abstraction_name": recorded["abstraction"],
        "deals": int(recorded.get("deals_per_iteration", 32)),
        "seed": int(recorded.get("seed", 0)),
        "every": int(history[0][0]) if history else 0,
        "save_every": CFR_SAVE_EVERY.get(algorithm, 100 if sampled else 0),
        "bets": "/".join(",".join(repr(float(f)) for f in sizes) for sizes in betting["fractions"])
        if betting
        else None,
        "raise_cap": int(betting["raise_cap"]) if betting else None,
        "check_deals": int(recorded.get("sampled_exploitability_deals", 2000)),
        "pool": int(recorded.get("pool", 0)),
    }


def recorded_config(
    cls: Any, recorded: dict[str, Any], pools: dict[str, tuple[tuple[str, float], ...]], where: Path
) -> Any:
    """``cls`` (a frozen training dataclass) with the recorded settings; the pool named after its opponents."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(recorded) - known)
    if unknown:
        raise ValueError(f"{where}: settings this version of acpc-train does not know: {', '.join(unknown)}")
    settings = dict(recorded)
    opponents = tuple((str(name), float(weight)) for name, weight in settings.get("opponents", ()))
    if opponents:
        settings["opponents"] = opponents
        if "pool" not in settings:
            settings["pool"] = next((name for name, pool in pools.items() if pool == opponents), "custom")
    defaults = {name: value for name, value in ABSENT_MEANS.items() if name in known}
    return replace(cls(), **{**defaults, **settings})
