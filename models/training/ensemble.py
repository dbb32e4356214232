"""``make train AGENT=ensemble``: evolve the eight counter networks and the base network, build the library.

0. The starting network (``ensemble_imitation``): the policy network fitted to the
   no-limit ``cfr`` agent's play against the eight styles (``teacher_hands``
   hands each). Every evolution's first generation is this network and
   ``population - 1`` mutations of it (the first generation's mutation rate and
   strength). ``teacher_hands = 0`` starts from random weights instead, as the
   seed does. The clone is saved as ``ensemble-clone.pt`` (``ensemble --mode
   clone`` plays it: the ablation of evolution); ``--clone-only`` makes it alone.
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
(``ensemble_play``); the evaluation's deals change every generation. The nine
evolutions are independent (each has its own random streams, from the seed and
its index), so they run ``workers`` at a time in worker processes, or as Ray
tasks (``--ray``), with the same result however many run at once; the teacher's
records are gathered likewise, one job per style.

Scale (the paper: population 100, 300 generations, 10^4 duplicate deals, about
10^10 hands). The default (``DEFAULTS``): population 16, 40 generations, 400
duplicate deals per individual and opponent (counters), 200 per opponent
(base), 10,000 library hands and 10,000 teacher hands per style: 5.5 million
hands of evolution (the sidecar records the time the shipped run took). The
paper's recipe, same code: ``--teacher-hands 0 --population 100 --generations 300 --deals 1000 --base-deals 500
--library-hands 100000`` (about 6 x 10^8 hands: the play is Python-bound, so a
GPU does not shorten it, more cores do). Progress goes to
``ensemble-training.log`` beside the checkpoint; the fitness curves to
``ensemble-fitness.png``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from acpc_arena.agents.base import Agent
from acpc_arena.agents.registry import agent_class
from acpc_arena.dealer.arena.fanout import fan_out
from acpc_arena.models.checkpoints import FOLDER
from acpc_arena.models.ensemble.checkpoint import CLONE, NETWORKS, STYLE_NAMES, save_library, save_networks
from acpc_arena.models.ensemble.network import SHIPPED, NetConfig, Params, init_population
from acpc_arena.models.ensemble.opponent_model import OpponentModel
from acpc_arena.models.training.curves import plot_fitness_curves
from acpc_arena.models.training.ensemble_evolution import RATE, STRENGTH, fitness, mutate, next_generation
from acpc_arena.models.training.ensemble_imitation import Records, fit, teacher_records
from acpc_arena.models.training.ensemble_play import duplicate_deals, play
from acpc_arena.protocol.game import Game, load_game

GAME = "holdem.nolimit.2p.reverse_blinds"
CURRICULUM = (STYLE_NAMES[:4], STYLE_NAMES[4:], STYLE_NAMES)


@dataclass(frozen=True)
class EvolutionConfig:
    population: int = 16
    generations: int = 40
    deals: int = 400
    """Duplicate deals per individual and opponent for a counter network (each played twice)."""
    base_deals: int = 200
    """Duplicate deals per individual and opponent for the base network."""
    library_hands: int = 10000
    seed: int = 1
    teacher_hands: int = 10000
    """Hands the teacher plays against each style for the starting network; 0: random starting weights."""
    clone_epochs: int = 10


DEFAULTS = EvolutionConfig()


class Evolution:
    """Evolves one network and records what happened (fitness curve, hands, seconds)."""

    def __init__(self, config: EvolutionConfig, net: NetConfig, log: Path | None, index: int) -> None:
        self.config = config
        self.net = net
        self.game: Game = load_game(GAME)
        self.log_path = log
        self.rng = np.random.default_rng([config.seed, index])
        self.generator = torch.Generator().manual_seed(config.seed * 1000 + index)
        self.agents: dict[str, Agent] = {s: agent_class(s)(self.game, seed=config.seed) for s in STYLE_NAMES}
        self.hands = 0
        self.seconds = 0.0
        self.curve: list[dict[str, float]] = []

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

    def first_generation(self, start: Params | None) -> Params:
        """Random networks, or ``start`` and mutations of it at the first generation's rate and strength."""
        size = self.config.population
        if start is None:
            return init_population(self.net, size, self.generator)
        single = {name: t[0] for name, t in start.items()}
        members = [single] + [mutate(single, self.net, RATE[0], STRENGTH[0], self.rng) for _ in range(size - 1)]
        return {name: torch.stack([m[name] for m in members]) for name in single}

    def evolve(self, name: str, stages: tuple[tuple[str, ...], ...], deals: int, start: Params | None) -> Params:
        """The best individual (population axis of size 1) after the configured generations."""
        c = self.config
        population = self.first_generation(start)
        models = {s: OpponentModel() for s in STYLE_NAMES}
        best = 0
        for generation in range(c.generations):
            styles = stages[min(len(stages) - 1, generation * len(stages) // c.generations)]
            e = self.evaluate(population, styles, models, deals)
            f = fitness(e, self.game.big_blind)
            best = int(np.argmax(f))
            self.curve.append(
                {
                    "generation": generation + 1,
                    "best": float(f[best]),
                    "mean": float(f.mean()),
                    "best_mbb_per_hand": float(e[best].mean() / self.game.big_blind * 1000),
                    "first_mbb_per_hand": float(e[0].mean() / self.game.big_blind * 1000),
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


@dataclass(frozen=True)
class EvolveJob:
    """One network's evolution (and, for a counter, its library tree): a unit of work for a worker."""

    index: int
    """The network's place in ``NETWORKS``; it seeds the job's random streams."""
    config: EvolutionConfig
    net: NetConfig
    start: Params | None
    log: Path | None

    @property
    def name(self) -> str:
        return NETWORKS[self.index]


@dataclass
class EvolveResult:
    best: Params
    curve: list[dict[str, float]]
    hands: int
    seconds: float
    library: dict[str, Any] | None = field(default=None)
    """The counter's library tree (``OpponentModel.to_json``); None for the base network."""


def evolve_job(job: EvolveJob) -> EvolveResult:
    """Run ``job`` here (in a worker process or a Ray task)."""
    torch.set_num_threads(1)
    evolution = Evolution(job.config, job.net, job.log, job.index)
    if job.name == "base":
        best = evolution.evolve("base", CURRICULUM, job.config.base_deals, job.start)
        library = None
    else:
        best = evolution.evolve(job.name, ((job.name,),), job.config.deals, job.start)
        library = evolution.library_tree(best, job.name).to_json(min_visits=1)
    return EvolveResult(best, evolution.curve, evolution.hands, evolution.seconds, library)


def records_job(job: tuple[str, int, int]) -> Records:
    """The teacher's records against one style: (style, hands, seed)."""
    torch.set_num_threads(1)
    style, hands, seed = job
    return teacher_records(load_game(GAME), style, hands, seed)


def starting_network(
    config: EvolutionConfig, net: NetConfig, workers: int, ray_address: str | None
) -> tuple[Params | None, dict[str, float]]:
    """The cloned teacher (or None for random starts) and its figures."""
    if config.teacher_hands <= 0:
        return None, {}
    jobs = [(style, config.teacher_hands, config.seed * 1000 + i) for i, style in enumerate(STYLE_NAMES)]
    parts: list[Records | None] = [None] * len(jobs)
    for index, records in fan_out(records_job, jobs, workers, ray_address):
        parts[index] = records
    records = Records.concatenate([p for p in parts if p is not None])
    clone, figures = fit(records, net, config.clone_epochs, config.seed)
    return clone, figures


def save_clone(out: Path, clone: Params, net: NetConfig, config: EvolutionConfig, figures: dict[str, float]) -> Path:
    """Save the starting network as ``ensemble-clone.pt`` in ``out``."""
    meta = {
        "game": GAME,
        "start": "cfr (cfr-nl) cloned",
        "teacher_hands": config.teacher_hands,
        "clone_epochs": config.clone_epochs,
        "seed": config.seed,
        "clone": figures,
    }
    return save_networks(out / "ensemble-clone.pt", clone, net, meta, CLONE)


def train_clone(
    config: EvolutionConfig = DEFAULTS,
    net: NetConfig = SHIPPED,
    out: Path = FOLDER,
    workers: int = 2,
    ray_address: str | None = None,
) -> Path:
    """Only the starting network (the teacher cloned), saved as ``ensemble-clone.pt`` in ``out``: the same
    network ``train`` starts evolution from with the same ``config``."""
    if config.teacher_hands <= 0:
        raise ValueError("--clone-only needs teacher hands (--teacher-hands above 0)")
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    clone, figures = starting_network(config, net, workers, ray_address)
    assert clone is not None
    return save_clone(out, clone, net, config, figures)


def train(
    config: EvolutionConfig = DEFAULTS,
    net: NetConfig = SHIPPED,
    out: Path = FOLDER,
    workers: int = 2,
    ray_address: str | None = None,
) -> dict[str, Any]:
    """Evolve all nine networks, build the library, save checkpoint, sidecar, library and fitness plot in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    log = out / "ensemble-training.log"
    log.write_text("")
    started = time.perf_counter()
    start, clone_figures = starting_network(config, net, workers, ray_address)
    if start is not None:
        save_clone(out, start, net, config, clone_figures)
        with log.open("a") as f:
            f.write(f"starting network: the teacher cloned, {json.dumps(clone_figures)}\n")
    jobs = [EvolveJob(i, config, net, start, log) for i in range(len(NETWORKS))]
    results: dict[str, EvolveResult] = {}
    for index, result in fan_out(evolve_job, jobs, workers, ray_address):
        results[NETWORKS[index]] = result
    library = {s: OpponentModel.from_json(results[s].library or {}) for s in STYLE_NAMES}
    params = {k: torch.cat([results[n].best[k] for n in NETWORKS]) for k in results["base"].best}
    wall = time.perf_counter() - started
    hands = sum(r.hands for r in results.values())
    seconds = sum(r.seconds for r in results.values())
    curves = {name: results[name].curve for name in NETWORKS}
    meta = {
        "game": GAME,
        "evolution": asdict(config),
        "start": "cfr (cfr-nl) cloned" if start is not None else "random",
        "clone": clone_figures,
        "hands": hands,
        "play_seconds": round(seconds, 1),
        "hands_per_second": round(hands / max(seconds, 1e-9), 1),
        "workers": workers,
        "wall_seconds": round(wall, 1),
        "fitness": curves,
    }
    save_networks(out / "ensemble-networks.pt", params, net, meta)
    save_library(out / "ensemble-library.json", library, {"game": GAME, "hands_per_style": config.library_hands})
    plot_fitness_curves(curves, NETWORKS, out / "ensemble-fitness.png")
    with log.open("a") as f:
        f.write(f"saved in {out}: {hands} hands in {wall:.0f} s\n")
    return meta


def main_options(
    config: EvolutionConfig, out: str | None, workers: int, ray_address: str | None, clone_only: bool = False
) -> None:
    if clone_only:
        print(f"saved {train_clone(config, SHIPPED, Path(out) if out else FOLDER, workers, ray_address)}")
        return
    meta = train(config, SHIPPED, Path(out) if out else FOLDER, workers, ray_address)
    print(json.dumps({k: v for k, v in meta.items() if k != "fitness"}))
