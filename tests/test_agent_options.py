"""Agent options: the dataclass fields as command-line options and as checked constructor keywords."""

from __future__ import annotations

import argparse
from dataclasses import FrozenInstanceError, dataclass
from pathlib import Path
from typing import Annotated, Literal, get_args

import pytest

from acpc_arena.agents.baselines import EquityAgent, RuleAgent
from acpc_arena.agents.ensemble import EnsembleOptions, StyleName
from acpc_arena.agents.options import AgentOptions, add_options, options_from, parsed_options
from acpc_arena.agents.registry import AGENTS, agent_class
from acpc_arena.agents.sparring.nolimit import SparShove
from acpc_arena.models.ensemble.checkpoint import STYLE_NAMES
from acpc_arena.protocol.game import load_game

LIMIT = load_game("holdem.limit.2p.reverse_blinds")


@dataclass(frozen=True)
class Sample(AgentOptions):
    rate: Annotated[float, "a rate"] = 0.5
    count: Annotated[int, "a count"] = 3
    loud: Annotated[bool, "be loud"] = False
    file: Annotated[Path | None, "a file"] = None
    side: Annotated[Literal["left", "right"], "a side"] = "left"
    colour: Annotated[Literal["red", "green", "blue"] | None, "a colour"] = None


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(prog="sample", exit_on_error=False)
    add_options(out, Sample)
    return out


def test_the_fields_are_options_with_their_defaults() -> None:
    assert vars(parser().parse_args([])) == {
        "rate": 0.5,
        "count": 3,
        "loud": False,
        "file": None,
        "side": "left",
        "colour": None,
    }


def test_each_type_is_read_as_its_option() -> None:
    args = ["--rate", "0.25", "--count", "7", "--loud", "--file", "x/y.pt", "--side", "right", "--colour", "blue"]
    assert vars(parser().parse_args(args)) == {
        "rate": 0.25,
        "count": 7,
        "loud": True,
        "file": Path("x/y.pt"),
        "side": "right",
        "colour": "blue",
    }


def test_the_help_lists_the_options_in_field_order() -> None:
    text = parser().format_help()
    flags = [
        "--rate RATE",
        "--count COUNT",
        "--loud",
        "--file FILE",
        "--side {left,right}",
        "--colour {red,green,blue}",
    ]
    positions = [text.index(f"  {flag}") for flag in flags]
    assert positions == sorted(positions)
    assert "a colour" in text


@pytest.mark.parametrize("args", [["--side", "up"], ["--count", "x"], ["--rate", "fast"]])
def test_argparse_refuses_bad_values(args: list[str]) -> None:
    with pytest.raises(argparse.ArgumentError):
        parser().parse_args(args)


def test_keywords_are_converted_as_their_arguments_would_be() -> None:
    built = options_from(Sample, {"rate": "0.75", "count": "4", "file": "cfr-ehs2", "colour": "red", "side": None})
    assert built == Sample(rate=0.75, count=4, file=Path("cfr-ehs2"), colour="red")


def test_no_keywords_give_the_defaults() -> None:
    assert options_from(Sample, {}) == Sample()


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"speed": 1}, r"^unknown option --speed \(the options: --rate, --count, --loud, --file, --side, --colour\)$"),
        ({"side": "up"}, r"^--side must be left or right, not 'up'$"),
        ({"colour": "pink"}, r"^--colour must be one of red, green, blue, not 'pink'$"),
        ({"count": "many"}, r"^--count must be int, not 'many'$"),
    ],
)
def test_bad_keywords_are_one_line_errors(keywords: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        options_from(Sample, keywords)


def test_a_commands_own_arguments_are_not_the_agents_options() -> None:
    command = parser()
    command.add_argument("--seed", type=int, default=None)
    command.add_argument("--name", default="me")
    parsed = command.parse_args(["--seed", "7", "--count", "4", "--side", "right"])
    assert parsed_options(Sample, parsed) == {
        "rate": 0.5,
        "count": 4,
        "loud": False,
        "file": None,
        "side": "right",
        "colour": None,
    }


def test_the_options_are_frozen() -> None:
    with pytest.raises(FrozenInstanceError):
        Sample().count = 4  # type: ignore[misc]


def test_an_agent_takes_its_options_as_keywords() -> None:
    agent = EquityAgent(LIMIT, seed=1, raise_at="0.8", call_at=0.5)
    assert (agent.raise_at, agent.call_at, agent.samples) == (0.8, 0.5, 1000)  # 1000: --samples' default
    rule = RuleAgent(LIMIT, seed=1, threshold=None)
    assert (rule.threshold, rule.samples) == (0.6, 400)  # None: the defaults of --threshold and --samples


def test_an_agent_refuses_an_option_it_does_not_have() -> None:
    with pytest.raises(ValueError, match=r"^unknown option --checkpoint \(the options: --threshold, --samples\)$"):
        RuleAgent(LIMIT, seed=1, checkpoint="cfr-ehs2")


@pytest.mark.parametrize(("name", "top"), [("spar_shove10", 0.1), ("spar_shove30", 0.3), ("spar_shove60", 0.6)])
def test_a_shover_shoves_the_share_it_is_named_for_unless_told(name: str, top: float) -> None:
    nolimit = load_game("holdem.nolimit.2p.reverse_blinds")
    shover = agent_class(name)
    assert issubclass(shover, SparShove)
    assert shover(nolimit, seed=1).top == top
    assert shover(nolimit, seed=1, top="0.5").top == 0.5


@pytest.mark.parametrize("name", ["call", "o1", "spar_tag"])
def test_an_agent_without_options_refuses_any(name: str) -> None:
    with pytest.raises((ValueError, TypeError), match=r"--depth|depth"):
        agent_class(name)(LIMIT, seed=1, depth=3)


def test_the_ensemble_styles_are_the_counter_networks() -> None:
    assert get_args(StyleName) == STYLE_NAMES
    assert EnsembleOptions().mode == "a_star"


DOCUMENTED: dict[str, dict[str, object]] = {
    "rule": {"threshold": 0.6, "samples": 400},
    "equity": {"raise_at": 0.65, "call_at": 0.45, "samples": 1000},
    "cfr": {
        "checkpoint": None,
        "argmax": False,
        "sample": False,
        "threshold": 0.0,
        "resolve_river": False,
        "resolve_iterations": 200,
    },
    "cfr_exploit": {
        "checkpoint": None,
        "risk": 20.0,
        "gift": 0.0,
        "evidence": 1.5,
        "fixed": False,
        "bluff": 0.0,
        "fold": 0.0,
        "press": 0.0,
    },
    "lstm_dqn": {"checkpoint": None, "threads": 1},
    "dqn": {"checkpoint": None, "threads": 1},
    "nfq": {"checkpoint": None, "threads": 1},
    "poker_cnn": {"checkpoint": None, "threads": 1, "sample": False},
    "ensemble": {
        "mode": "a_star",
        "style": None,
        "min_visits": 1,
        "checkpoint": None,
        "library": None,
        "threads": 1,
        "allin_guard": "on",
    },
    "spar_equity": {"raise_at": 0.65, "call_at": 0.40},
    **{f"spar_shove{top}": {"top": None} for top in (10, 30, 60)},  # None: the share the bot is named for
}
"""Each agent's options and defaults, as its page in docs/agents/ gives them (the order: ``--help``'s)."""


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_every_agent_declares_its_documented_options(name: str) -> None:
    cls = agent_class(name)
    options = argparse.ArgumentParser(prog=name)
    cls.add_arguments(options)
    parsed = vars(options.parse_args([]))
    assert list(parsed.items()) == list(DOCUMENTED.get(name, {}).items())
    assert list(vars(cls.Options()).items()) == list(DOCUMENTED.get(name, {}).items())
