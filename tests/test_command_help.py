"""Every console script's ``--help`` and its answer to a bad option (the thirteen of ``[project.scripts]``):
plain text with one usage, the defaults shown, one line for an option error with a hint to the help, and
every option named on the command's page of the docs."""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from acpc_arena.protocol.commands import CommandParser
from tests.helpers.processes import REPO

SCRIPTS: dict[str, str] = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
PAGES = {"acpc-bm": "acpc-bm-server", "acpc-bm-user": "acpc-bm-server"}
"""The commands documented on another command's page (the benchmark server's)."""


def _main(script: str) -> Callable[[list[str]], None]:
    """The ``main`` a console script runs."""
    module, name = SCRIPTS[script].split(":")
    main: Callable[[list[str]], None] = getattr(importlib.import_module(module), name)
    return main


def _call(script: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``script``'s main on ``argv`` in this process: its exit status, standard output and error."""
    try:
        _main(script)(argv)
        status = 0
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    out, err = capsys.readouterr()
    return status, out, err


def _parsers(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> list[argparse.ArgumentParser]:
    """The parser ``script --help`` prints, and its subcommands' parsers."""
    printed: list[CommandParser] = []
    monkeypatch.setattr(CommandParser, "print_help", lambda self, file=None: printed.append(self))
    _call(script, ["--help"], capsys)
    assert len(printed) == 1, f"{script} --help printed no argparse help"
    return list(_with_subcommands(printed[0]))


def _with_subcommands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _with_subcommands(sub)


ARGPARSE_SCRIPTS = [script for script in SCRIPTS if script not in ("acpc-dealer", "acpc-bm")]
"""The commands whose help argparse writes (``acpc-dealer`` keeps the C dealer's command line, ``acpc-bm``
the C ``bm_run_matches``' positional one)."""


def test_the_thirteen_commands_are_all_here() -> None:
    assert len(SCRIPTS) == 13


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_is_plain_text_with_one_usage(script: str, capsys: pytest.CaptureFixture[str]) -> None:
    """No reStructuredText marks, one ``usage:`` and no second synopsis (a line starting with the
    command's name and its arguments)."""
    status, out, err = _call(script, ["--help"], capsys)
    assert status == 0 and err == ""
    assert "``" not in out
    assert out.lower().count("usage:") == 1 and out.startswith(f"usage: {script} ")
    assert not [line for line in out.splitlines() if line.strip().startswith(f"{script} ")]


@pytest.mark.parametrize("script", ARGPARSE_SCRIPTS)
def test_help_shows_every_default(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every option that has a value when it is not given says that value in its help."""
    for parser in _parsers(script, monkeypatch, capsys):
        formatter = parser._get_formatter()
        for action in parser._actions:
            given = action.default not in (None, False, "", [], argparse.SUPPRESS)
            if action.option_strings and given and action.help is not argparse.SUPPRESS:
                text = formatter._expand_help(action)
                assert "default" in text, f"{parser.prog} {action.option_strings[0]}: {text!r}"


def test_the_run_commands_help_says_what_a_bare_run_plays(capsys: pytest.CaptureFixture[str]) -> None:
    """A bare ``acpc-match --a cfr --b rule`` plays 3 seeds of 3000 hands (the issue's count); a bare
    tournament 2000 hands a match (its guide)."""
    match_help = " ".join(_call("acpc-match", ["--help"], capsys)[1].split())
    assert "deal seeds (default: 1,234,6666)" in match_help and "hands per match (default: 3000)" in match_help
    tournament_help = " ".join(_call("acpc-tournament", ["--help"], capsys)[1].split())
    assert "hands per match (default: 2000)" in tournament_help


@pytest.mark.parametrize("script", SCRIPTS)
def test_an_option_error_is_one_line_with_a_hint(
    script: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unknown option is told in one line naming the help, status 2 (``acpc-dealer``: the C dealer's
    ``ERROR:`` line and status 1)."""
    monkeypatch.chdir(tmp_path)
    status, out, err = _call(script, ["--no-such-option"], capsys)
    if script == "acpc-dealer":
        assert (status, out, err) == (1, "", "ERROR: unrecognized arguments: --no-such-option\n")
        return
    assert status == 2 and out == ""
    (line,) = err.splitlines()
    assert re.fullmatch(rf"{script}: error: .+ \(see {script} --help\)", line), line


def _named(option: str, text: str) -> bool:
    """Whether ``text`` names ``option`` (not only a longer option it starts)."""
    return re.search(rf"{re.escape(option)}(?![\w-])", text) is not None


def _page(script: str) -> Path:
    """The command's page in the docs (found wherever the docs keep it)."""
    name = PAGES.get(script, script)
    (page,) = [p for p in (REPO / "docs").rglob(f"{name}.md") if "_build" not in p.parts]
    return page


@pytest.mark.parametrize("script", ARGPARSE_SCRIPTS)
def test_every_option_is_on_its_page(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each option a command's parser takes (its subcommands' too; not the hidden old spellings) is named on
    the command's page."""
    text = _page(script).read_text()
    missing = [
        f"{parser.prog} {option}"
        for parser in _parsers(script, monkeypatch, capsys)
        for action in parser._actions
        if action.help is not argparse.SUPPRESS
        for option in action.option_strings
        if option.startswith("--") and option != "--help" and not _named(option, text)
    ]
    assert missing == []


def test_every_dealer_option_is_on_its_page(capsys: pytest.CaptureFixture[str]) -> None:
    """``acpc-dealer``'s options, as its help lists them, are named on its page."""
    _, out, _ = _call("acpc-dealer", ["--help"], capsys)
    options = re.findall(r"^ {2}(--?[a-zA-Z_-]+)", out, re.MULTILINE)
    assert "--t_response" in options and "--web-linger" in options
    text = _page("acpc-dealer").read_text()
    assert [option for option in options if not _named(option, text)] == []


OLD_SPELLINGS = {  # command, the old spelling's arguments, the option it stands for, the value parsed, the new name
    "tournament --workers": ("acpc-tournament", ["--agents", "call,raise", "--workers", "3"], "concurrency", 3),
    "train --workers": ("acpc-train", ["ensemble", "--workers", "3"], "concurrency", 3),
    "lbr --seed": ("acpc-lbr", ["cfr", "--seed", "5"], "seed", 5),
    "match --workers N": ("acpc-match", ["--a", "call", "--b", "call", "--workers", "3"], "workers", 3),
}


@pytest.mark.parametrize(("script", "argv", "dest", "value"), OLD_SPELLINGS.values(), ids=OLD_SPELLINGS.keys())
def test_an_old_spelling_is_still_taken_and_hidden(
    script: str,
    argv: list[str],
    dest: str,
    value: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The options renamed to one name a concept (``--concurrency``, ``--agent-seed``) still take their old
    spelling for a release, which the help no longer shows."""
    (parser,) = _parsers(script, monkeypatch, capsys)
    assert getattr(parser.parse_args(argv), dest) == value
    if script != "acpc-match":  # acpc-match's --workers is a flag of its own; an N after it the old spelling
        assert not _named(argv[-2], parser.format_help())


def test_the_dealer_takes_both_spellings_of_its_time_limits() -> None:
    """``acpc-dealer`` keeps the C dealer's ``--t_response`` and also takes ``--t-response``, as ``acpc-match``
    spells it (the same for ``--t_hand``, ``--t_per_hand`` and ``--start_timeout``)."""
    from acpc_arena.dealer.commands import dealer_options as dealer_cli

    base = ["m", "kuhn", "10", "1", "A", "B"]
    for c_name, name in [("t_response", "t-response"), ("t_hand", "t-hand"), ("t_per_hand", "t-per-hand")]:
        c_style = dealer_cli.parse_args([*base, f"--{c_name}", "1234"]).config
        hyphens = dealer_cli.parse_args([*base, f"--{name}", "1234"]).config
        assert getattr(c_style, f"{c_name}_ms") == getattr(hyphens, f"{c_name}_ms") == 1234
    assert dealer_cli.parse_args([*base, "--start-timeout", "99"]).start_timeout_ms == 99
    assert dealer_cli.parse_args([*base, "--start_timeout", "99"]).start_timeout_ms == 99


SEEDED = {
    "acpc-match": ["--a", "call", "--b", "call"],
    "acpc-tournament": ["--agents", "call,raise"],
    "acpc-lbr": ["cfr"],
}
"""The commands that take deal seeds, and the rest of a command line for them."""


@pytest.mark.parametrize(("script", "argv"), SEEDED.items(), ids=SEEDED.keys())
def test_a_seed_list_may_have_spaces(
    script: str, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--seeds "1, 234"`` (as a person writes a list) is the seeds 1 and 234."""
    (parser,) = _parsers(script, monkeypatch, capsys)
    assert parser.parse_args([*argv, "--seeds", "1, 234"]).seeds == (1, 234)


HEAVY = ("numpy", "trio", "prometheus_client", "matplotlib", "pokerkit", "torch")
"""What a command's --help goes without (make bench SECTIONS=startup)."""


@pytest.mark.parametrize("script", ["acpc-match", "acpc-tournament", "acpc-report", "acpc-dealer"])
def test_help_starts_without_the_heavy_dependencies(script: str) -> None:
    """``--help`` imports none of ``HEAVY``: they come with the library call a run makes."""
    module = SCRIPTS[script].split(":")[0]
    probe = (
        "import contextlib, io, sys\n"
        f"from {module} import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        f"print(sorted(name for name in {HEAVY!r} if name in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_a_plain_in_process_run_starts_without_prometheus(tmp_path: Path) -> None:
    """``acpc-match --in-process`` without ``--metrics-port`` or ``--metrics-push`` plays its matches, writes
    its report and never imports ``prometheus_client``: the metrics come only when asked for."""
    probe = (
        "import contextlib, io, sys\n"
        f"from {SCRIPTS['acpc-match'].split(':')[0]} import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--a', 'random', '--b', 'call', '--hands', '5', '--seeds', '1', '--in-process',\n"
        "          '--no-plots', '--quiet', '--out', 'run'])\n"
        "print('prometheus_client' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert (tmp_path / "run" / "report.json").is_file()
    assert result.stdout.strip() == "False"
