"""A finished run's AIVAT as the page keeps it: the task (``Task``), its figures or the one line saying why
it has none (``RunAivat``), and their cache ``<log>.aivat.json`` beside the log, valid while the log is
unchanged. The page reads the caches (``load_cache``) and never loads AIVAT itself: its AIVAT process
(``run_aivat``) computes what is not cached."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from acpc_arena.protocol.acpc_log import log_stamp
from acpc_arena.protocol.files import write_atomic

CACHE_SUFFIX = ".aivat.json"
CACHE_VERSION = 1


@dataclass(frozen=True)
class Task:
    """A run's AIVAT to compute: its log, the user's player, the hosted bot's player and its agent."""

    log: str
    player: str
    """The user's name in the log (``a-USER``)."""
    known: str
    """The hosted bot's name in the log (``b-BOT``)."""
    agent: str
    args: tuple[str, ...] = ()

    @staticmethod
    def from_json(data: dict[str, Any]) -> Task:
        return Task(str(data["log"]), str(data["player"]), str(data["known"]), str(data["agent"]),
                    tuple(str(arg) for arg in data["args"]))  # fmt: skip


@dataclass(frozen=True)
class RunAivat:
    """A run's AIVAT: the user's values summed in chips (count, sum, sum of squares), or why it has none."""

    hands: int = 0
    total: float = 0.0
    squares: float = 0.0
    big_blind: int = 0
    seconds: float = 0.0
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> RunAivat:
        reason = data.get("reason")
        return RunAivat(int(data["hands"]), float(data["total"]), float(data["squares"]), int(data["big_blind"]),
                        float(data["seconds"]), None if reason is None else str(reason))  # fmt: skip


def cache_path(log: str | Path) -> Path:
    return Path(f"{log}{CACHE_SUFFIX}")


def _log_stamp(log: str | Path) -> list[int]:
    return list(log_stamp(log))


def load_cache(task: Task) -> RunAivat | None:
    """The run's cached AIVAT, or None where there is none for the log as it is now (no file, a damaged
    one, or one written for another version of the log)."""
    try:
        data = json.loads(cache_path(task.log).read_bytes())
        if data.get("version") != CACHE_VERSION or data.get("log_stamp") != _log_stamp(task.log):
            return None
        return RunAivat.from_json(data["aivat"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save_cache(task: Task, result: RunAivat) -> None:
    """Write the run's AIVAT beside its log (a cache that cannot be written: nothing)."""
    try:
        data = {"version": CACHE_VERSION, "log_stamp": _log_stamp(task.log), "task": asdict(task),
                "aivat": result.to_json()}  # fmt: skip
        write_atomic(cache_path(task.log), json.dumps(data) + "\n")
    except OSError:
        pass
