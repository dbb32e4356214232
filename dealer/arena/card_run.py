"""``acpc-eval``'s run as one library call (``run_card``): the bot and its references checked, the card's
folder locked and checked as a tournament's (``tournament_folder``), the matches not yet played played as
jobs (``fanout``), each pair scored (``card_scoring``), LBR measured where the bot gives its policy, and
the card written (``report.json``, ``report.md``, the plots) and summed up on one screen.

LBR is measured by the function the command passes (``LbrMeasure``, ``dealer.lbr.evaluation.evaluate``:
the arena does not import LBR), on the card's seeds, each deal in both positions, the bot seeded with
``LBR_AGENT_SEED`` (``acpc-lbr --agent-seed``); its figures are kept in ``lbr.json`` with the settings
they were made with, and used again by a resumed card.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tqdm import tqdm

from acpc_arena.agents.base import Agent, has_policy
from acpc_arena.agents.registry import AGENTS, agent_class
from acpc_arena.dealer.arena.allin import AllinValues
from acpc_arena.dealer.arena.card_plan import PRESETS, Gauntlet, bot_name, gauntlet
from acpc_arena.dealer.arena.card_scoring import PairFigures, score_pair
from acpc_arena.dealer.arena.contestants import build_agent
from acpc_arena.dealer.arena.fanout import JobResult, MatchJob, run_jobs
from acpc_arena.dealer.arena.options import DEFAULT_GAME
from acpc_arena.dealer.arena.report_card import ReportCard
from acpc_arena.dealer.arena.tournament import Entrant
from acpc_arena.dealer.arena.tournament_folder import pending_jobs, run_locked
from acpc_arena.protocol.commands import FAILED, USAGE, Interrupted, shows_progress
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import read_json, write_atomic
from acpc_arena.protocol.game import Game, load_game, resolve_game_path

LBR_AGENT_SEED = 1
"""The seed of the bot's own random choices against LBR."""


class LbrOutcome(Protocol):
    """What the card reads of LBR's result (``dealer.lbr.evaluation.Result``)."""

    def as_dict(self) -> dict[str, object]: ...


LbrMeasure = Callable[[Callable[[], Agent], Game, Sequence[int], int, None, Callable[[int, int], None]], LbrOutcome]
"""LBR against the agents a function builds: ``evaluate(make_agent, game, seeds, hands, None, progress)``."""


@dataclass(frozen=True)
class CardRequest:
    """What ``acpc-eval``'s command line asks for."""

    agent: str | None
    """The bot's agent spec, or None for a TCP bot."""
    args: tuple[str, ...]
    """The agent's options."""
    cmd: str | None
    """A TCP bot's command line (``{host}``, ``{port}``)."""
    name: str | None
    game: str | None
    preset: str
    references: tuple[str, ...] | None
    seeds: tuple[int, ...] | None
    hands: int | None
    lbr_hands: int | None
    out: Path | None
    concurrency: int
    plots: bool
    quiet: bool


def run_card(request: CardRequest, measure_lbr: LbrMeasure) -> int:
    """Play what the card still misses, score it and write it; returns the exit status."""
    try:
        card = plan(request)
    except (ProtocolError, ValueError) as exc:
        print(f"acpc-eval: {exc}", file=sys.stderr)
        return USAGE
    return run_locked("acpc-eval", card, card.game_file, lambda: _run_locked(request, card, measure_lbr))


def plan(request: CardRequest) -> Gauntlet:
    """The card's matches; ValueError or ProtocolError (one line) for a bad spec, game or reference."""
    preset = PRESETS[request.preset]
    game_file = request.game or (agent_class(request.agent).default_game if request.agent else DEFAULT_GAME)
    game = load_game(game_file)
    references = request.references or _gauntlet(request, game, preset.references)
    for reference in references:
        if reference not in AGENTS or reference == "human":
            raise ValueError(f"reference {reference!r}: not a shipped agent that plays alone (see acpc-agent --list)")
    name = request.name or bot_name(request.agent, request.cmd, references)
    if request.agent is not None:
        bot = Entrant(name, agent=request.agent, args=request.args)
    else:
        bot = Entrant(name, command=request.cmd)
    entrants = (bot, *(Entrant(reference, agent=reference) for reference in references))
    return Gauntlet(
        entrants=entrants, game_file=game_file, game=game, game_path=resolve_game_path(game_file).resolve(),
        seeds=request.seeds or preset.seeds, hands=request.hands or preset.hands,
        out_dir=request.out or Path("cards") / f"{name}-{preset.name}", concurrency=request.concurrency,
        in_process=True, bot=name,
    )  # fmt: skip


def _gauntlet(request: CardRequest, game: Game, count: int | None) -> tuple[str, ...]:
    """The game's first ``count`` references (``card_plan.gauntlet``), the bot's own agent left out (a bot
    without options against itself, the same class: its duplicate result is 0 by construction)."""
    full = gauntlet(game)
    if request.agent is not None and not request.args:
        own = agent_class(request.agent)
        full = tuple(reference for reference in full if agent_class(reference) is not own)
    return full if count is None else full[:count]


def _run_locked(request: CardRequest, card: Gauntlet, measure_lbr: LbrMeasure) -> int:
    """Check the folder, play, score, measure and write; the folder's lock is held."""
    try:
        jobs, set_aside = pending_jobs(card)
    except (ProtocolError, ValueError, UnicodeDecodeError) as exc:
        print(f"acpc-eval: {exc}", file=sys.stderr)
        return USAGE
    except OSError as exc:
        print(f"acpc-eval: cannot use the output folder {card.out_dir}: {exc.strerror or exc}", file=sys.stderr)
        return USAGE
    for line in set_aside:
        print(line.replace("acpc-tournament:", "acpc-eval:"), file=sys.stderr)
    total = len(card.pairs()) * 2 * len(card.seeds)
    print(
        f"acpc-eval: {card.bot} against {len(card.pairs())} references, {total} matches ({total - len(jobs)} already "
        f"played in {card.out_dir}); playing {len(jobs)} on {card.concurrency} worker processes",
        file=sys.stderr,
    )
    quiet = not shows_progress(request.quiet)
    failures = _play(card, jobs, quiet)
    pairs = _score(card, quiet)
    lbr, notes = _lbr(request, card, measure_lbr, quiet)
    return _write(request, card, pairs, lbr, notes, failures)


def _play(card: Gauntlet, jobs: list[MatchJob], quiet: bool) -> list[str]:
    """Play the jobs with a progress bar; returns a line for each match that failed."""
    failures: list[str] = []
    bar = tqdm(total=len(jobs) * card.hands, unit="hand", disable=quiet, file=sys.stderr, dynamic_ncols=True)
    bar.set_description(f"0/{len(jobs)} matches")
    finished = [0]

    def done(job: MatchJob, result: JobResult) -> None:
        finished[0] += 1
        bar.update(result.log_text.count("\nSTATE:") if result.log_text else 0)
        bar.set_description(f"{finished[0]}/{len(jobs)} matches")
        if result.error is not None:
            failures.append(f"acpc-eval: match {job.spec.out_dir.name}/{job.match.name} failed: {result.error}")

    try:
        run_jobs(jobs, card.concurrency, done, None)
    except KeyboardInterrupt:
        raise Interrupted(
            f"the played matches are kept in {card.out_dir}; run the same command again to play the rest"
        ) from None
    finally:
        bar.close()
    return failures


def _score(card: Gauntlet, quiet: bool) -> list[PairFigures]:
    """Each pair's figures (``card_scoring.score_pair``), with AIVAT's progress."""
    allin = AllinValues()  # the pairs deal the same cards: an all-in hand is often met again
    pairs = []
    bar = tqdm(unit="hand", desc="scoring (AIVAT)", disable=quiet, file=sys.stderr, dynamic_ncols=True)
    try:
        for first, second in card.pairs():
            figures = score_pair(card.run_spec(first, second), second.name, allin, bar.update)
            if figures is not None:
                pairs.append(figures)
    except KeyboardInterrupt:
        raise Interrupted(f"the matches are kept in {card.out_dir}; run the same command again to score them") from None
    finally:
        bar.close()
    return pairs


def _lbr(
    request: CardRequest, card: Gauntlet, measure: LbrMeasure, quiet: bool
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """LBR's figures (kept in ``lbr.json``, or measured) and the notes on what the card lacks."""
    notes: dict[str, str] = {}
    if request.agent is None:
        reason = "a bot over TCP does not give its policy; LBR needs Agent.policy (name it as an agent spec)"
        return None, {"lbr": reason, "aivat": "AIVAT knows the references' policies only (the bot plays over TCP)"}
    if not has_policy(agent_class(request.agent)):
        reason = f"{request.agent} has no policy method (Agent.policy): LBR needs it"
        return None, {"lbr": reason, "aivat": "AIVAT knows the references' policies only (the bot has no Agent.policy)"}
    hands = request.lbr_hands or PRESETS[request.preset].lbr_hands
    settings = {"seeds": list(card.seeds), "hands": hands, "agent_seed": LBR_AGENT_SEED}
    path = card.out_dir / "lbr.json"
    try:
        kept = read_json(path)
        if kept.get("settings") == settings:
            return kept["result"], notes
    except (OSError, ValueError, AttributeError):
        pass
    contestant = card.bot_entrant().contestant("a")
    bar = tqdm(total=len(card.seeds) * hands, unit="deal", desc="LBR", disable=quiet, file=sys.stderr)

    def progress(done: int, total: int) -> None:
        bar.update(done - bar.n)

    try:
        outcome = measure(
            lambda: build_agent(contestant, card.game, LBR_AGENT_SEED), card.game, card.seeds, hands, None, progress
        )
    except KeyboardInterrupt:
        raise Interrupted(
            f"the matches are kept in {card.out_dir}; run the same command again to measure LBR"
        ) from None
    finally:
        bar.close()
    result = {**outcome.as_dict(), "agent_seed": LBR_AGENT_SEED}
    write_atomic(path, json.dumps({"settings": settings, "result": result}, indent=2) + "\n")
    return result, notes


def _write(
    request: CardRequest,
    card: Gauntlet,
    pairs: list[PairFigures],
    lbr: dict[str, Any] | None,
    notes: dict[str, str],
    failures: list[str],
) -> int:
    """Write ``report.json``, ``report.md`` and the plots, print the summary; returns the exit status."""
    spec = request.agent or request.cmd or ""
    report = ReportCard(
        bot=card.bot, spec=" ".join([spec, *request.args]), game=card.game_file, preset=request.preset,
        seeds=card.seeds, hands=card.hands, pairs=pairs, references=tuple(e.name for e in card.references()),
        lbr=lbr, notes=notes, big_blind=card.game.big_blind,
    )  # fmt: skip
    problems = []
    plots = request.plots
    if plots:
        try:
            from acpc_arena.dealer.arena.card_plots import plot_card  # matplotlib: the [plots] extra, maybe missing

            plot_card(report, card.out_dir)
        except ModuleNotFoundError as exc:
            plots = False
            problems.append(f"acpc-eval: no plots: {exc.name} is not installed (pip install 'acpc-arena[plots]')")
        except OSError as exc:
            plots = False
            problems.append(f"acpc-eval: could not write a plot: {exc.strerror or exc}")
    texts = {"report.json": json.dumps(report.to_json(), indent=2) + "\n", "report.md": report.markdown(plots)}
    for name, text in texts.items():
        try:
            write_atomic(card.out_dir / name, text)
        except OSError as exc:
            problems.append(f"acpc-eval: could not write {card.out_dir / name}: {exc.strerror or exc}")
    print("\n".join(report.summary()))
    print(f"\ncard in {card.out_dir} (report.json, report.md{', plots' if plots else ''})")
    for text in [*failures, *problems]:
        print(text, file=sys.stderr)
    return FAILED if failures or problems else 0
