"""Recording a demonstrator's play in shards that a stopped run picks up again (Poker-CNN's teacher, DQfD's
demonstrations for seed 000's networks and for NFQ).

Shard ``i`` is the demonstrator (``TEACHER``: the default limit ``cfr`` taking its most likely action) against
``PAIRINGS[i mod 5]`` on deal seed ``seed_base + i``, in position ``hand mod 2``; against itself both seats
are its decisions (``shard_hands``). ``play_recorded`` plays one hand and hands each recorded decision to
the caller, who keeps what its encoding needs.

A folder holds ``plan.json`` (what the shards are made of: a folder of another plan is refused),
``shards/NNNN.npz`` (each shard saved whole, under a temporary name first) and ``shards/seconds.json``
(each shard's seconds of play). ``record_shards`` plays the shards missing; the caller joins them and writes
its ``manifest.json`` with ``manifest_base``'s fields.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import torch

from acpc_arena.agents.base import Agent
from acpc_arena.models.checkpoints import git_commit
from acpc_arena.models.training.poker_cnn_data import build_agent
from acpc_arena.protocol.dealing import deal_hands
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import CALL_ACTION, Action, State
from acpc_arena.protocol.views import agent_view

TEACHER = ("cfr", "--argmax")
PAIRINGS = (("cfr", "--argmax"), ("cfr", "--sample"), ("random", ""), ("call", ""), ("raise", ""))
"""The demonstrator's opponents, (agent, options), one shard each in turn; the first is the demonstrator itself:
``cfr --sample`` plays other lines of the same equilibrium, ``random``, ``call`` and ``raise`` lines an
equilibrium never plays, as weak bots do. The sparring bots and ``equity``, on which agents are measured, are
not among them."""

Shard = TypeVar("Shard")


def shard_hands(
    game: Game, index: int, hands: int, seed_base: int
) -> Iterator[tuple[int, State, list[Agent], tuple[int, ...]]]:
    """Shard ``index``'s hands: (number, the dealt state, the agents by seat, the seats whose decisions are
    the demonstrator's). The two agents are built once a shard and keep their state across its hands."""
    opponent = PAIRINGS[index % len(PAIRINGS)]
    seed = seed_base + index
    teacher = build_agent(*TEACHER, game, seed * 100 + 1)
    other = build_agent(*opponent, game, seed * 100 + 2)
    for number, state in enumerate(deal_hands(game, seed, hands)):
        seat = number % 2  # the demonstrator's position in this hand
        agents = [other, teacher] if seat else [teacher, other]
        yield number, state, agents, (0, 1) if opponent == TEACHER else (seat,)


def play_recorded(
    state: State, agents: list[Agent], recorded: tuple[int, ...], seen: Callable[[State, int, Action], None]
) -> State:
    """Play one dealt hand between ``agents`` (by seat), calling ``seen(state, seat, action)`` at each decision
    of a seat in ``recorded`` before the action is applied; the finished state."""
    for p, agent in enumerate(agents):
        agent.begin_hand(agent_view(state, p, state.hole_cards[p]))
    while not state.finished:
        p = state.current_player
        action = agents[p].act(agent_view(state, p, state.hole_cards[p]))
        action = state.validate_action(action, try_fixing=True) or CALL_ACTION
        if p in recorded:
            seen(state, p, action)
        state.apply(action)
    for p, agent in enumerate(agents):
        agent.end_hand(agent_view(state, p, state.hole_cards[p]))
    return state


def record_shards(
    out: Path,
    plan: dict[str, Any],
    shards: int,
    play: Callable[[int], Shard],
    save: Callable[[Shard, Path], None],
    told: Callable[[Shard], str],
    log: Callable[[str], Any] = print,
) -> tuple[list[Path], dict[str, float]]:
    """Play shard ``i`` (``play(i)``) for every ``i`` below ``shards`` not saved yet, save it (``save``), and log
    ``told(shard)`` with its seconds. Returns the shards' paths in order and the seconds of each (by index)."""
    torch.set_num_threads(1)
    described = out / "plan.json"
    if described.exists() and json.loads(described.read_text()) != plan:
        raise ValueError(f"{out} holds shards of another plan (see {described}): delete it or give another --out")
    (out / "shards").mkdir(parents=True, exist_ok=True)
    described.write_text(json.dumps(plan, indent=2) + "\n")
    paths = [out / "shards" / f"{index:04d}.npz" for index in range(shards)]
    timings = out / "shards" / "seconds.json"
    seconds: dict[str, float] = json.loads(timings.read_text()) if timings.exists() else {}
    for index, path in enumerate(paths):
        if path.exists():
            continue
        start = time.perf_counter()
        shard = play(index)
        partial = path.with_suffix(".tmp.npz")
        save(shard, partial)
        partial.replace(path)
        seconds[str(index)] = round(time.perf_counter() - start, 2)
        timings.write_text(json.dumps(seconds) + "\n")
        log(f"{time.strftime('%H:%M:%S')} shard {index + 1}/{shards}: {told(shard)} ({seconds[str(index)]:.0f} s)")
    return paths, seconds


def manifest_base(
    plan: dict[str, Any], source: str, seed_base: int, shards: int, seconds: dict[str, float]
) -> dict[str, Any]:
    """The manifest's fields every recording has: the plan, where the data comes from, the deal seeds, the
    seconds of play, when and at which commit."""
    return plan | {
        "source": source,
        "shards": shards,
        "seeds": [seed_base, seed_base + shards - 1],
        "seconds": round(sum(seconds.get(str(index), 0.0) for index in range(shards))),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "git_commit": git_commit(),
    }


def recorder_main(
    module: str, doc: str, make: Callable[..., Shard], out: Path, shards: int, hands: int, argv: list[str] | None
) -> tuple[Shard, Path]:
    """A recorder's command line (``--out``, ``--shards``, ``--hands``, defaults given): ``make(out, shards, hands,
    log=...)``'s result and the folder; an error of the run or of its files is one line and exit status 1."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=doc.split("\n")[0])
    parser.add_argument("--out", type=Path, default=out, help=f"output folder (default {out})")
    parser.add_argument("--shards", type=int, default=shards, help=f"shards to play (default {shards})")
    parser.add_argument("--hands", type=int, default=hands, help=f"hands a shard (default {hands})")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return make(args.out, args.shards, args.hands, log=lambda text: print(text, flush=True)), args.out
    except (ValueError, OSError) as exc:
        sys.exit(f"error: {exc}")
