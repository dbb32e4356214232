"""Every shell command in the README and the docs runs as written.

Each fenced block of language ``sh`` is run as one bash script (``set -e``); each ``console``
block's ``$ `` lines are run one by one and what they print (standard output and error
together) must match the lines after them, where a line ``...`` stands for any lines and
``...`` inside a line for any text. They run in a scratch folder that holds links to the
repository's files (so ``make match`` and ``models/checkpoints/...`` work and nothing is
written into the repository), with ``.venv/bin`` first on ``PATH``.

An HTML comment on the line before a block changes how it is run, and only that:

- ``<!-- docs-test: replace "OLD" "NEW" ... -->`` runs it with those replacements (a
  smaller variant of a long run: fewer hands, fewer iterations); ``make test-slow`` (``-m
  slow``) also runs it as written, at full size, within ``full-timeout`` seconds (an hour
  unless a ``full-timeout S`` says otherwise), unless ``full-skip "why"`` says why not (days
  of training, say);
- ``<!-- docs-test: serves "URL" -->`` runs it until URL answers, then presses Ctrl-C
  (SIGINT to its process group) and expects exit status 130;
- ``<!-- docs-test: status N -->`` expects exit status N instead of 0;
- ``<!-- docs-test: timeout S -->`` gives it S seconds instead of 180;
- ``<!-- docs-test: skip "why" -->`` does not run it (a Docker engine, say);
- ``<!-- docs-test: slow "why" -->`` runs it (its small variant too) in ``make test-slow`` only (a
  retraining whose pieces other tests check, say).

The generated results pages (``docs/results/``) are not run: they show the commands of their
runs, which take hours (``make results`` plays them).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DEFAULT_TIMEOUT = 180.0
FULL_TIMEOUT = 3600.0
RUNNABLE = ("sh", "console")
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<language>[\w-]*)")
_DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:(?P<body>.*?)-->\s*$")
# Not linked into the scratch folder: outputs of earlier runs and the build.
_NOT_LINKED = {".git", "runs", "matches", "tournaments", ".pytest_cache", ".ruff_cache", ".hypothesis"}


@dataclass
class Block:
    path: Path
    line: int
    language: str
    text: str
    replacements: list[tuple[str, str]] = field(default_factory=list)
    skip: str | None = None
    slow: str | None = None
    full_skip: str | None = None
    full_timeout: float = FULL_TIMEOUT
    serves: str | None = None
    status: int = 0
    timeout: float = DEFAULT_TIMEOUT

    @property
    def name(self) -> str:
        shown = self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path
        return f"{shown}:{self.line}"

    def script(self) -> str:
        text = self.text
        for old, new in self.replacements:
            if old not in text:
                raise AssertionError(f"{self.name}: the replacement's text {old!r} is not in the block")
            text = text.replace(old, new)
        return text


def doc_files() -> list[Path]:
    docs = [p for p in sorted((REPO / "docs").rglob("*.md")) if not {"_build", "results"} & set(p.parts)]
    return [REPO / "README.md", *docs]


def _directive(block: Block, body: str) -> None:
    words = shlex.split(body)
    i = 0
    while i < len(words):
        word = words[i]
        if word == "replace":
            block.replacements.append((words[i + 1], words[i + 2]))
            i += 3
        elif word in ("skip", "slow", "serves", "status", "timeout", "full-skip", "full-timeout"):
            value = words[i + 1]
            if word == "skip":
                block.skip = value
            elif word == "slow":
                block.slow = value
            elif word == "full-skip":
                block.full_skip = value
            elif word == "full-timeout":
                block.full_timeout = float(value)
            elif word == "serves":
                block.serves = value
            elif word == "status":
                block.status = int(value)
            else:
                block.timeout = float(value)
            i += 2
        else:
            raise ValueError(f"{block.name}: unknown docs-test word {word!r}")


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with the directive of the line before each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        body = "\n".join(line[indent:] for line in lines[i + 1 : end])
        block = Block(path, i + 1, opening["language"], body + "\n")
        directive = _DIRECTIVE.match(lines[i - 1]) if i else None
        if directive:
            _directive(block, directive["body"])
        found.append(block)
        i = end + 1
    return found


def runnable_blocks() -> list[Block]:
    return [b for path in doc_files() for b in blocks_of(path) if b.language in RUNNABLE]


def full_size(block: Block) -> Block:
    """The block as written, without its replacements (``make test-slow``)."""
    return replace(block, replacements=[], timeout=block.full_timeout, skip=block.skip or block.full_skip)


def block_cases(blocks: list[Block] | None = None) -> list[Any]:
    """Each runnable block (of ``blocks``, default the docs') as the test runs it, and a block with replacements
    also at full size, marked slow."""
    blocks = runnable_blocks() if blocks is None else blocks
    cases = [pytest.param(block, id=block.name, marks=[pytest.mark.slow] if block.slow else []) for block in blocks]
    for block in blocks:
        if block.replacements:
            cases.append(pytest.param(full_size(block), id=f"{block.name}:full", marks=pytest.mark.slow))
    return cases


@pytest.fixture(scope="module")
def installed() -> None:
    """``make`` in the scratch folder must find ``.venv`` installed: an install from there would
    write the scratch folder's path into the environment's commands."""
    if subprocess.run(["make", "-q", ".venv/.installed-stamp"], cwd=REPO).returncode != 0:
        pytest.fail("the environment is older than pyproject.toml: run `make install` first")


@pytest.fixture
def scratch(tmp_path: Path, installed: None) -> Path:
    """A folder that looks like the repository (links to its files) where commands can write."""
    for entry in REPO.iterdir():
        if entry.name not in _NOT_LINKED:
            (tmp_path / entry.name).symlink_to(entry)
    return tmp_path


def _environment() -> dict[str, str]:
    """The reader's shell: ``.venv/bin`` first on the path, and no outer ``make`` (under ``make test``
    a ``make`` in a block would otherwise print its ``Entering directory`` lines)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"
    return env


def _kill_group(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _run(script: str, cwd: Path, timeout: float) -> tuple[int, str]:
    """Run a bash script in its own process group; its exit status and everything it printed."""
    # Background jobs a script starts (a dealer, an agent) are stopped when it ends.
    process = subprocess.Popen(
        ["bash", "-e", "-o", "pipefail", "-c", "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + script],
        cwd=cwd, env=_environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        out, _ = process.communicate()
        raise AssertionError(f"still running after {timeout:.0f} s; it printed:\n{out[-3000:]}") from None
    finally:
        _kill_group(process)
    return process.returncode, out


def _ctrl_c_as_at_a_terminal() -> None:
    """SIGINT handled by default in the server's process, as in a terminal, even where the tests were started
    in the background (which makes a shell ignore SIGINT, and its children inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _serve(block: Block, cwd: Path) -> None:
    """Run a server until its URL answers, press Ctrl-C, and expect one line and status 130."""
    assert block.serves is not None
    process = subprocess.Popen(
        ["bash", "-c", block.script()], cwd=cwd, env=_environment(), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True, preexec_fn=_ctrl_c_as_at_a_terminal,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + block.timeout
        while True:
            try:
                with urllib.request.urlopen(block.serves, timeout=5) as answer:
                    assert answer.status == 200
                break
            except (urllib.error.URLError, ConnectionError):
                if process.poll() is not None or time.monotonic() > deadline:
                    _kill_group(process)
                    out, _ = process.communicate()
                    raise AssertionError(f"{block.serves} never answered; the command printed:\n{out}") from None
                time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
        out, _ = process.communicate(timeout=30)
    finally:
        _kill_group(process)
    assert process.returncode == 130, out
    assert "Traceback" not in out, out


def _console_steps(text: str) -> list[tuple[str, list[str]]]:
    """The ``$ `` commands of a console block (with ``\\`` continuations) and the lines shown after each."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if not steps:
                raise AssertionError(f"console block: output before the first '$ ' command: {lines[i]!r}")
            steps[-1][1].append(lines[i])
            i += 1
            continue
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command + "\n" + lines[i]
        steps.append((command, []))
        i += 1
    return steps


def matches_output(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` fits ``expected``: a line ``...`` is any lines, ``...`` in a line any text."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head.strip() == "...":
        return any(matches_output(rest, actual[k:]) for k in range(len(actual) + 1))
    if not actual:
        return False
    pattern = ".*".join(re.escape(part) for part in head.rstrip().split("..."))
    return re.fullmatch(pattern, actual[0].rstrip()) is not None and matches_output(rest, actual[1:])


@pytest.mark.parametrize("block", block_cases())
def test_documented_commands_run_as_written(block: Block, scratch: Path) -> None:
    if block.skip:
        pytest.skip(block.skip)
    if block.serves:
        _serve(block, scratch)
        return
    if block.language == "sh":
        status, out = _run(block.script(), scratch, block.timeout)
        assert status == block.status, f"exit status {status}; it printed:\n{out[-3000:]}"
        return
    for command, shown in _console_steps(block.script()):
        status, out = _run(command, scratch, block.timeout)
        assert status == block.status, f"{command}: exit status {status}; it printed:\n{out[-3000:]}"
        if shown:
            printed = [line.rstrip() for line in out.rstrip("\n").splitlines()]
            assert matches_output([s.rstrip() for s in shown], printed), (
                f"{command} printed:\n" + "\n".join(printed) + "\n\nthe docs show:\n" + "\n".join(shown)
            )


_PORT = re.compile(r"(?:--port[ =]|--web[ =]|--metrics-port[ =]|127\.0\.0\.1[: ]|localhost:)(\d{4,5})\b")
_DEALER_PORTS = re.compile(r"(?:-p|--ports?)[ =](\d{4,5}(?:,\d{4,5})*)\b")


def block_ports(block: Block) -> set[int]:
    """The TCP ports a block's commands name (listen on or connect to)."""
    text = block.script()
    listed = [port for ports in _DEALER_PORTS.findall(text) for port in ports.split(",")]
    return {int(port) for port in [*_PORT.findall(text), *listed]}


def test_no_two_blocks_use_one_port() -> None:
    """The blocks run in parallel (``make test`` runs the suite on every core): each has ports of its own."""
    owner: dict[int, str] = {}
    for block in runnable_blocks():
        if block.skip:
            continue
        for port in block_ports(block):
            assert port not in owner, f"{block.name} and {owner[port]} both use port {port}"
            owner[port] = block.name


def test_ports_are_found_in_a_block() -> None:
    """The port finder, on a block written by hand."""
    text = (
        "acpc-dealer m kuhn 10 1 A B -p 18701,18702 &\nacpc-agent call 127.0.0.1 18701\n"
        "acpc-match --a cfr --b call --seeds 1,234 --hands 300 --web 18082 --metrics-port=19102\n"
        "curl -s http://127.0.0.1:19103/metrics\n"
    )
    block = Block(REPO / "x.md", 1, "sh", text)
    assert block_ports(block) == {18701, 18702, 18082, 19102, 19103}


def test_output_patterns() -> None:
    """The matching of shown output, on cases worked out by hand."""
    assert matches_output(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches_output(["a", "...", "b"], ["a", "b"])
    assert not matches_output(["a", "...", "d"], ["a", "b", "c"])
    assert matches_output(["6 matches, ... hands/s"], ["6 matches, 251.7 hands/s"])
    assert not matches_output(["6 matches"], ["6 matches", "extra"])
    assert not matches_output(["x+1"], ["xx1"])  # the text is literal apart from '...'


def test_directives_are_read(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        'text\n<!-- docs-test: replace "--hands 3000" "--hands 30" status 2 -->\n```sh\nacpc-match --hands 3000\n```\n'
        '<!-- docs-test: skip "needs a Docker engine" -->\n```sh\ndocker compose up\n```\n```python\nx\n```\n'
    )
    first, second, third = blocks_of(page)
    assert (first.line, first.language, first.replacements, first.status) == (
        3,
        "sh",
        [("--hands 3000", "--hands 30")],
        2,
    )
    assert second.skip == "needs a Docker engine" and third.language == "python"


def test_a_shrunk_block_also_runs_at_full_size_under_slow(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        '<!-- docs-test: replace "--hands 3000" "--hands 30" full-timeout 600 -->\n'
        "```sh\nacpc-match --hands 3000\n```\n"
        '<!-- docs-test: replace "--iterations 8000" "--iterations 5" full-skip "hours" -->\n'
        "```sh\nacpc-cfr solve --iterations 8000\n```\n"
    )
    shrunk, trained = blocks_of(page)
    assert shrunk.script() == "acpc-match --hands 30\n" and shrunk.timeout == DEFAULT_TIMEOUT
    full = full_size(shrunk)
    assert (full.script(), full.timeout, full.skip) == ("acpc-match --hands 3000\n", 600.0, None)
    assert full_size(trained).script() == "acpc-cfr solve --iterations 8000\n" and full_size(trained).skip == "hours"
    slow = [case for case in block_cases() if case.marks]
    assert slow and all([mark.name for mark in case.marks] == ["slow"] for case in slow)
    assert any(case.id.endswith(":full") for case in slow)


def test_a_block_said_slow_runs_under_slow_alone(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        '<!-- docs-test: replace "--hands 3000" "--hands 30" slow "a retraining" -->\n```sh\nmake train\n```\n'
        "```sh\nacpc-match\n```\n"
    )
    retrain, match = blocks_of(page)
    assert (retrain.slow, match.slow) == ("a retraining", None)
    cases = block_cases([retrain, match])
    assert [(case.id.rsplit("/", 1)[-1], [mark.name for mark in case.marks]) for case in cases] == [
        ("page.md:2", ["slow"]),
        ("page.md:5", []),
        ("page.md:2:full", ["slow"]),
    ]
