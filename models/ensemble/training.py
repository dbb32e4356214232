"""``make train AGENT=ensemble``: evolve the eight counter networks and the base network, build the library.

1. One counter network per style O1 .. O8 (A_tar): algorithm 1 against that
   style alone.
2. The base network (A_base), the paper's three-stage curriculum: the first
   third of the generations against O1 .. O4, the second against O5 .. O8, the
   last against all eight.
3. The feature library: each counter network plays ``library_hands`` hands
   (duplicate deals) against its style; the opponent-model tree grown from
   empty over those hands is stored.

Each evaluation plays every individual against every opponent of the stage on
the same ``deals`` deals twice (seats swapped), all tables in-process at once
(``play``); the evaluation's deals change every generation.

Scale (the paper: population 100, 300 generations, 10^4 duplicate deals, about
10^10 hands). The default (``DEFAULTS``): population 16, 16 generations, 60
duplicate deals per individual and opponent (counters), 24 per opponent (base),
2,000 library hands: about 340,000 hands, about 20 minutes on one core of this
shared machine (300 to 800 hands a second depending on its load). The paper's
recipe, same code: ``--population 100 --generations 300 --deals 1000
--base-deals 500 --library-hands 100000`` (about 6 x 10^8 hands: two weeks of
one core at 500 hands a second; the play is Python-bound, so a GPU does not
shorten it, more cores would with one process per network). Progress goes to ``ensemble-training.log`` beside the
checkpoint; the fitness curves to ``ensemble-fitness.png``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent
from acpc_arena.agents.registry import agent_class
from acpc_arena.models.checkpoints import FOLDER
from acpc_arena.models.ensemble.checkpoint import NETWORKS, STYLE_NAMES, save_library, save_networks
from acpc_arena.models.ensemble.evolution import fitness, next_generation
from acpc_arena.models.ensemble.network import SHIPPED, NetConfig, Params, init_population
from acpc_arena.models.ensemble.opponent_model import OpponentModel
from acpc_arena.models.ensemble.play import duplicate_deals, play
from acpc_arena.protocol.game import Game, load_game

GAME = "holdem.nolimit.2p.reverse_blinds"
CURRICULUM = (STYLE_NAMES[:4], STYLE_NAMES[4:], STYLE_NAMES)


@dataclass(frozen=True)
class EvolutionConfig:
    population: int = 16
    generations: int = 16
    deals: int = 60
    """Duplicate deals per individual and opponent for a counter network (each played twice)."""
    base_deals: int = 24
    """Duplicate deals per individual and opponent for the base network."""
    library_hands: int = 2000
    seed: int = 1


DEFAULTS = EvolutionConfig()


class Evolution:
    """Evolves networks and records what happened (fitness curves, hands, seconds)."""

    def __init__(self, config: EvolutionConfig, net: NetConfig, log: Path | None) -> None:
        self.config = config
        self.net = net
        self.game: Game = load_game(GAME)
        self.log_path = log
        self.rng = np.random.default_rng(config.seed)
        self.generator = torch.Generator().manual_seed(config.seed)
        self.agents: dict[str, Agent] = {s: agent_class(s)(self.game, seed=config.seed) for s in STYLE_NAMES}
        self.hands = 0
        self.seconds = 0.0
        self.curves: dict[str, list[dict[str, float]]] = {}

    def log(self, text: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {text}"
        print(line, flush=True)
        if self.log_path is not None:
            with self.log_path.open("a") as f:
                f.write(line + "\n")

    def evaluate(
        self, params: Params, styles: tuple[str, ...], models: dict[str, OpponentModel], deals: int
    ) -> np.ndarray:
        seed = int(self.rng.integers(1 << 31))
        started = time.perf_counter()
        e = play(
            params,
            self.net,
            [self.agents[s] for s in styles],
            [models[s] for s in styles],
            duplicate_deals(self.game, seed, deals),
        )
        self.seconds += time.perf_counter() - started
        self.hands += e.size * 2 * deals
        return e

    def evolve(self, name: str, stages: tuple[tuple[str, ...], ...], deals: int) -> Params:
        """The best individual (population axis of size 1) after the configured generations."""
        c = self.config
        population = init_population(self.net, c.population, self.generator)
        models = {s: OpponentModel() for s in STYLE_NAMES}
        curve: list[dict[str, float]] = self.curves.setdefault(name, [])
        best = 0
        for generation in range(c.generations):
            styles = stages[min(len(stages) - 1, generation * len(stages) // c.generations)]
            e = self.evaluate(population, styles, models, deals)
            f = fitness(e, self.game.big_blind)
            best = int(np.argmax(f))
            curve.append(
                {
                    "generation": generation + 1,
                    "best": float(f[best]),
                    "mean": float(f.mean()),
                    "best_mbb_per_hand": float(e[best].mean() / self.game.big_blind * 1000),
                }
            )
            self.log(
                f"{name} gen {generation + 1}/{c.generations} vs {','.join(styles)}: fitness best {f[best]:.3f} "
                f"mean {f.mean():.3f}, best {e[best].mean() / self.game.big_blind * 1000:.0f} mbb/h; "
                f"{self.hands} hands, {self.hands / max(self.seconds, 1e-9):.0f} hands/s"
            )
            if generation + 1 < c.generations:
                population = next_generation(population, f, self.net, generation, c.generations, self.rng)
        return {k: t[best : best + 1] for k, t in population.items()}

    def library_tree(self, counter: Params, style: str) -> OpponentModel:
        model = OpponentModel()
        deals = self.config.library_hands // 2
        e = self.evaluate(counter, (style,), {style: model}, deals)
        self.log(f"library {style}: {2 * deals} hands, counter {e[0, 0] / self.game.big_blind * 1000:.0f} mbb/h")
        return model


def plot_curves(curves: dict[str, list[dict[str, float]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(3, 3, figsize=(12, 9), sharex=True)
    for ax, name in zip(axes.flat, NETWORKS, strict=True):
        points = curves.get(name, [])
        ax.plot([p["generation"] for p in points], [p["best"] for p in points], label="best")
        ax.plot([p["generation"] for p in points], [p["mean"] for p in points], label="mean")
        ax.set_title(f"A_tar {name.upper()}" if name != "base" else "A_base (curriculum)")
        ax.grid(alpha=0.3)
    axes.flat[0].legend()
    for ax in axes[-1]:
        ax.set_xlabel("generation")
    for ax in axes[:, 0]:
        ax.set_ylabel("fitness f(i)")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def train(config: EvolutionConfig = DEFAULTS, net: NetConfig = SHIPPED, out: Path = FOLDER) -> dict[str, Any]:
    """Evolve all nine networks, build the library, save checkpoint, sidecar, library and fitness plot in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    log = out / "ensemble-training.log"
    log.write_text("")
    evolution = Evolution(config, net, log)
    started = time.perf_counter()
    best: dict[str, Params] = {}
    for style in STYLE_NAMES:
        best[style] = evolution.evolve(style, ((style,),), config.deals)
    best["base"] = evolution.evolve("base", CURRICULUM, config.base_deals)
    library = {style: evolution.library_tree(best[style], style) for style in STYLE_NAMES}
    params = {k: torch.cat([best[n][k] for n in NETWORKS]) for k in best["base"]}
    wall = time.perf_counter() - started
    meta = {
        "game": GAME,
        "evolution": asdict(config),
        "hands": evolution.hands,
        "play_seconds": round(evolution.seconds, 1),
        "hands_per_second": round(evolution.hands / max(evolution.seconds, 1e-9), 1),
        "wall_seconds": round(wall, 1),
        "fitness": evolution.curves,
    }
    save_networks(out / "ensemble-networks.pt", params, net, meta)
    save_library(out / "ensemble-library.json", library, {"game": GAME, "hands_per_style": config.library_hands})
    plot_curves(evolution.curves, out / "ensemble-fitness.png")
    evolution.log(f"saved in {out}: {evolution.hands} hands in {wall:.0f} s")
    return meta


def main_options(
    population: int, generations: int, deals: int, base_deals: int, library_hands: int, seed: int, out: str | None
) -> None:
    config = EvolutionConfig(population, generations, deals, base_deals, library_hands, seed)
    meta = train(config, SHIPPED, Path(out) if out else FOLDER)
    print(json.dumps({k: v for k, v in meta.items() if k != "fitness"}))
