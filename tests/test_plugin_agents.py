"""Plugin agents: a bot in a file outside the repository (``path/file.py:Class``) and one installed from a
distribution's entry point (group ``acpc_arena.agents``) play wherever a shipped agent's name is taken.

The bot imports ``acpc_arena.agents.api`` alone. With ``--raise-prob 1`` it plays as the shipped ``raise``
(a raise where one is legal, else a call) and with ``--raise-prob 0`` as ``call``, so each command's figures
are checked against the same command run on the shipped agent: the same logs but for the player's name, the
same report, crosstable cell, LBR value and AIVAT estimate. A spec that names no agent is one line, status 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acpc_arena.agents.registry import agent_class
from acpc_arena.dealer.arena.api import play
from acpc_arena.dealer.benchmark_server.config import read_config
from acpc_arena.dealer.web.human import HumanGame, human_agents
from acpc_arena.protocol.files import InputError
from tests.helpers.processes import REPO, error_lines, program

GAME = "kuhn.limit.2p"
SEEDS = "1,2"
HANDS = 100

BOT = '''"""A bot written against the agent API alone: it raises with a set probability where it may, else calls."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, ClassVar

from acpc_arena.agents.api import (
    CALL_ACTION, LIMIT_RAISE_ACTION, Action, Agent, AgentOptions, Game, MatchState, Policy,
)


@dataclass(frozen=True)
class CoinOptions(AgentOptions):
    raise_prob: Annotated[float, "how often it raises where it may"] = 0.5


class CoinBot(Agent):
    name = "coinbot"
    default_game = "kuhn.limit.2p"
    Options = CoinOptions

    def __init__(self, game: Game, seed: int | None = None, **options: object) -> None:
        super().__init__(game, seed, **options)
        self.raise_prob = CoinOptions(**options).raise_prob
        self.rng = random.Random(seed)

    def policy(self, view: MatchState) -> Policy:
        if not view.state.legal_actions().can_raise or self.raise_prob <= 0:
            return {CALL_ACTION: 1.0}
        if self.raise_prob >= 1:
            return {LIMIT_RAISE_ACTION: 1.0}
        return {LIMIT_RAISE_ACTION: self.raise_prob, CALL_ACTION: 1 - self.raise_prob}

    def act(self, view: MatchState) -> Action:
        actions, weights = zip(*self.policy(view).items())
        return self.rng.choices(actions, weights)[0]


class Batched(Agent):
    """Calls, deciding the views of every copy waiting at once in one act_batch."""

    batches: ClassVar[list[int]] = []

    def batch_key(self) -> str:
        return "batched"

    def act_batch(self, views: Sequence[MatchState]) -> list[Action]:
        Batched.batches.append(len(views))
        return [CALL_ACTION for _ in views]

    def act(self, view: MatchState) -> Action:
        return CALL_ACTION

    def policy(self, view: MatchState) -> Policy:
        return {CALL_ACTION: 1.0}


class NotAnAgent:
    pass
'''

BROKEN = 'raise RuntimeError("broken on purpose")\n'

DISTRIBUTION = """[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "acpc-arena-test-plugin"
version = "0.1"

[project.entry-points."acpc_arena.agents"]
coinplug = "coinplug:CoinBot"
call = "coinplug:CoinBot"

[tool.setuptools]
py-modules = ["coinplug"]
"""
"""A distribution of the bot as the module ``coinplug``: the entry point ``coinplug``, and ``call``, which
takes a shipped agent's name (refused where ``call`` is named)."""


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder outside the repository holding ``bots/coinbot.py`` and ``bots/broken.py``; its parent is the
    folder the commands run in (so ``bots/coinbot.py:CoinBot`` is a relative path)."""
    folder = tmp_path_factory.mktemp("plugins")
    assert not folder.resolve().is_relative_to(REPO)
    (folder / "bots").mkdir()
    (folder / "bots" / "coinbot.py").write_text(BOT)
    (folder / "bots" / "broken.py").write_text(BROKEN)
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The distribution of ``DISTRIBUTION`` installed by the venv's pip into a folder of its own (put on
    ``PYTHONPATH`` by the commands that use it)."""
    project = tmp_path_factory.mktemp("distribution")
    (project / "pyproject.toml").write_text(DISTRIBUTION)
    (project / "coinplug.py").write_text(BOT)
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "--disable-pip-version-check", "--target", str(target), str(project)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    return target


def with_site(site: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


def run(cwd: Path, *command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [program(command[0]), *command[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=240
    )


def match(cwd: Path, out: Path, a: str, *more: str, env: dict[str, str] | None = None) -> dict[str, object]:
    """``acpc-match`` of ``a`` against ``rule``; its report."""
    done = run(
        cwd, "acpc-match", "--a", a, "--b", "rule", "--game", GAME, "--seeds", SEEDS, "--hands", str(HANDS),
        "--out", str(out), "--quiet", "--no-plots", *more, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads((out / "report.json").read_text())
    return report


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped ``raise`` against ``rule``, in process: the run the plugin's runs are compared with."""
    out = tmp_path_factory.mktemp("shipped") / "run"
    match(out.parent, out, "raise", "--in-process")
    return out


def same_run(plugin: Path, shipped: Path, name: str) -> None:
    """The two runs' logs are the same but for A's name, and their reports' figures too."""
    logs = sorted(path.name for path in shipped.glob("*.log"))
    assert logs == sorted(path.name for path in plugin.glob("*.log")) and len(logs) == 4
    for log in logs:
        assert (plugin / log).read_text().replace(f"a-{name}", "a-raise") == (shipped / log).read_text()
    mine, theirs = (json.loads((run / "report.json").read_text()) for run in (plugin, shipped))
    assert mine["a"] == f"a-{name}" and mine["b"] == "b-rule"
    for key in ("mbb_per_hand", "ci95", "duplicate", "per_seed", "hands_played"):
        assert mine[key] == theirs[key], key


@pytest.mark.parametrize("where", [(), ("--in-process",), ("--workers", "--concurrency", "2")])
def test_a_bot_in_a_file_plays_acpc_match_as_the_shipped_agent_it_copies(
    bots: Path, shipped: Path, tmp_path: Path, where: tuple[str, ...]
) -> None:
    """Over TCP (``acpc-agent`` given the spec, its path made absolute), in process, and in worker processes."""
    match(bots, tmp_path / "run", "bots/coinbot.py:CoinBot", "--a-args", "--raise-prob 1", *where)
    same_run(tmp_path / "run", shipped, "CoinBot")


@pytest.mark.slow  # make test-slow (~15 s): ray's start; test_tournament.py plays acpc-match on Ray in make test
def test_a_bot_in_a_file_plays_on_ray(bots: Path, shipped: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray")
    match(
        bots, tmp_path / "ray", "bots/coinbot.py:CoinBot", "--a-args", "--raise-prob 1", "--ray", "--concurrency", "2"
    )
    same_run(tmp_path / "ray", shipped, "CoinBot")


def test_its_aivat_is_the_shipped_agents_in_the_run_and_from_acpc_report(
    bots: Path, shipped: Path, tmp_path: Path
) -> None:
    """AIVAT knows the plugin's policy as it knows a shipped agent's: on by default in Kuhn, and recomputed
    from the logs by ``acpc-report --aivat PLAYER=SPEC``."""
    out = tmp_path / "aivat"
    mine = match(bots, out, "bots/coinbot.py:CoinBot", "--a-args", "--raise-prob 1", "--in-process")
    theirs = json.loads((shipped / "report.json").read_text())
    aivat: dict[str, object] = mine["aivat"]  # type: ignore[assignment]
    assert aivat["known"] == ["a-CoinBot", "b-rule"]
    assert (aivat["mbb_per_hand"], aivat["ci95"]) == (theirs["aivat"]["mbb_per_hand"], theirs["aivat"]["ci95"])
    given = ["--aivat", "a-CoinBot=bots/coinbot.py:CoinBot --raise-prob 1", "--aivat", "b-rule"]
    done = run(bots, "acpc-report", str(out), *given, "--json", str(tmp_path / "aivat.json"))
    assert done.returncode == 0, done.stderr
    again = json.loads((tmp_path / "aivat.json").read_text())["aivat"]
    assert again["mbb_per_hand"] == pytest.approx(aivat["mbb_per_hand"], abs=1e-9)
    assert again["ci95"] == pytest.approx(aivat["ci95"], abs=1e-9)


def test_a_bot_in_a_file_plays_a_tournament_named_after_its_class(bots: Path, shipped: Path, tmp_path: Path) -> None:
    out = tmp_path / "tournament"
    done = run(
        bots, "acpc-tournament", "--agents", "bots/coinbot.py:CoinBot", "--agent",
        "allin=bots/coinbot.py:CoinBot --raise-prob 1", "--agent", "rule", "--game", GAME, "--seeds", SEEDS,
        "--hands", str(HANDS), "--concurrency", "2", "--quiet", "--no-plots", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    settings = json.loads((out / "tournament.json").read_text())["entrants"]
    assert settings["CoinBot"]["agent"] == f"{bots / 'bots' / 'coinbot.py'}:CoinBot"
    cell = json.loads((out / "crosstable.json").read_text())["crosstable"]["allin"]["rule"]
    report = json.loads((shipped / "report.json").read_text())
    assert (cell["mbb_per_hand"], cell["ci95"]) == (report["mbb_per_hand"], report["ci95"])
    assert (out / "CoinBot-vs-allin").is_dir()


@pytest.mark.parametrize(("copied", "prob"), [("raise", "1"), ("call", "0")])
@pytest.mark.parametrize("how", [("--exact",), ("--hands", "200", "--seeds", "1,2")], ids=["exact", "played"])
def test_acpc_lbr_measures_a_bot_in_a_file_as_the_shipped_agent_it_copies(
    bots: Path, tmp_path: Path, copied: str, prob: str, how: tuple[str, ...]
) -> None:
    figures = ("game", "seeds", "deals", "hands", "mbb_per_hand", "ci95", "lbr_decisions", "lbr_chips_per_hand")
    results = []  # each run's figures (not its agent's name, nor its times)
    for agent in (["bots/coinbot.py:CoinBot", "--raise-prob", prob], [copied]):
        json_out = tmp_path / f"{agent[0].replace('/', '_')}.json"
        done = run(bots, "acpc-lbr", *agent, "--game", GAME, *how, "--quiet", "--json", str(json_out))
        assert done.returncode == 0, done.stderr
        result = json.loads(json_out.read_text())
        results.append({key: result[key] for key in (*figures, "exploitability_chips_per_hand") if key in result})
    assert results[0] == results[1] and ("mbb_per_hand" in results[0] or "lbr_chips_per_hand" in results[0])


def test_an_installed_entry_point_plays_by_its_name(site: Path, shipped: Path, tmp_path: Path) -> None:
    """Over TCP (the agent processes find the distribution as this run does) and in process."""
    env = with_site(site)
    for where in ((), ("--in-process",)):
        out = tmp_path / f"run{len(where)}"
        match(tmp_path, out, "coinplug", "--a-args", "--raise-prob 1", *where, env=env)
        same_run(out, shipped, "coinplug")


def test_in_process_play_batches_a_plugins_decisions(bots: Path) -> None:
    """``play`` with four matches at once: the plugin's ``act_batch`` decides several views together, and
    the run is ``call``'s."""
    spec = f"{bots / 'bots' / 'coinbot.py'}:Batched"
    batched = play((spec, "rule"), GAME, seeds=(1, 2), hands=HANDS, concurrency=4).to_json()
    plain = play(("call", "rule"), GAME, seeds=(1, 2), hands=HANDS, concurrency=4).to_json()
    for key in ("mbb_per_hand", "ci95", "duplicate", "per_seed"):
        assert batched[key] == plain[key], key
    sizes: list[int] = agent_class(spec).batches  # type: ignore[attr-defined]
    assert sum(sizes) > 0 and max(sizes) > 1


BAD_SPECS = {  # spec, what its one line says
    "missing file": ("bots/nope.py:CoinBot", "no file bots/nope.py"),
    "missing class": ("bots/coinbot.py:Nope", "has no 'Nope'"),
    "not an Agent": ("bots/coinbot.py:NotAnAgent", "is not a subclass of acpc_arena.agents.api.Agent"),
    "import error": ("bots/broken.py:Bot", "RuntimeError: broken on purpose"),
    "missing module": ("no_such_module_here:Bot", "no module named 'no_such_module_here'"),
    "name clash": ("call", "an installed entry point (coinplug:CoinBot) takes this shipped agent's name"),
    "no such name": ("nobody", "not a shipped agent"),
}
COMMANDS = {  # each command line, {spec} where the spec goes, {out} its output folder
    "acpc-match": ["acpc-match", "--a", "{spec}", "--b", "rule", "--game", GAME, "--hands", "10", "--out", "{out}"],
    "acpc-tournament": ["acpc-tournament", "--agents", "rule,{spec}", "--game", GAME, "--out", "{out}"],
    "acpc-lbr": ["acpc-lbr", "{spec}", "--game", GAME, "--exact", "--json", "{out}"],
    "acpc-web": ["acpc-web", "--port", "0", "--agent", "{spec}", "--out", "{out}"],
}


EVERY_COMMAND = ("missing file", "name clash")
"""The bad specs every command is given in ``make test``; the others are given to ``acpc-match`` there (one
resolver reads the spec for every command; ``test_play_refuses_a_spec_that_names_no_agent_in_one_line`` gives
them all to ``play``), and to every command in ``make test-slow``."""


def bad_spec_cases() -> list[object]:
    """(spec, cause, command) for each bad spec and command; marked slow beyond ``EVERY_COMMAND`` and ``acpc-match``."""
    return [
        pytest.param(
            spec,
            cause,
            command,
            id=f"{name}-{program_name}",
            marks=[] if name in EVERY_COMMAND or program_name == "acpc-match" else [pytest.mark.slow],
        )
        for name, (spec, cause) in BAD_SPECS.items()
        for program_name, command in COMMANDS.items()
    ]


@pytest.mark.parametrize(("spec", "cause", "command"), bad_spec_cases())
def test_a_spec_that_names_no_agent_is_one_line_and_status_2(
    bots: Path, site: Path, tmp_path: Path, command: list[str], spec: str, cause: str
) -> None:
    args = [part.format(spec=spec, out=tmp_path / "out") for part in command]
    done = run(bots, *args, env=with_site(site))
    assert done.returncode == 2, done.stderr
    assert not (tmp_path / "out").exists()
    (line,) = error_lines(done.stderr)
    assert f"agent {spec!r}: " in line and cause in line


NOT_INSTALLED = {name: bad for name, bad in BAD_SPECS.items() if name != "name clash"}
"""The bad specs but the clash, which needs the distribution installed in the process."""


@pytest.mark.parametrize(("spec", "cause"), NOT_INSTALLED.values(), ids=NOT_INSTALLED.keys())
def test_play_refuses_a_spec_that_names_no_agent_in_one_line(
    bots: Path, monkeypatch: pytest.MonkeyPatch, spec: str, cause: str
) -> None:
    monkeypatch.chdir(bots)
    with pytest.raises(ValueError, match=f"agent {spec!r}: ") as info:
        play((spec, "rule"), GAME, seeds=(1,), hands=10)
    assert cause in str(info.value) and "\n" not in str(info.value)


def test_the_benchmark_server_hosts_a_plugin_named_beside_its_config(bots: Path, tmp_path: Path) -> None:
    config = bots / "bots" / "bm.config"
    config.write_text(f"port 0\ngame {GAME} {{\nbot coin coinbot.py:CoinBot --raise-prob 1\nbot r rule\n}}\n")
    game = next(iter(read_config(config).games.values()))
    assert game.bots["coin"].agent == f"{bots / 'bots' / 'coinbot.py'}:CoinBot"
    assert game.bots["coin"].args == ("--raise-prob", "1") and game.bots["r"].agent == "rule"
    config.write_text(f"port 0\ngame {GAME} {{\nbot coin coinbot.py:Nope\n}}\n")
    with pytest.raises(InputError, match=r"bm.config, line 3: agent '/.*/coinbot.py:Nope': .* has no 'Nope'") as info:
        read_config(config)
    assert "\n" not in str(info.value)


def test_acpc_webs_seat_offers_the_installed_plugins_and_the_specs_given(tmp_path: Path) -> None:
    agents = human_agents(("/x/mybot.py:MyBot",))
    assert agents[-1] == "/x/mybot.py:MyBot" and "call" in agents and "human" not in agents
    game = HumanGame("/x/mybot.py:MyBot", GAME, 10, 1, tmp_path)
    assert game.out_dir.name.startswith("human-vs-MyBot-") and game.spec.b.name == "b-MyBot"
