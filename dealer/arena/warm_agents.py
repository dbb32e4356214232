"""A run's warm agent process (``agents.warm``): the neural agents' matches played by children it forks.

Starting ``acpc-agent`` for a neural agent costs about a second of processor time, nearly all of it
torch's import. ``WarmAgents`` starts one ``acpc-agent --warm`` for a run, which
imports those agents once; each match's agent is then a child it forks, run with the command line a
process of its own would get (``Contestant.command_line``), so it answers as that process would.
``WarmChild`` stands for such a child as ``trio.Process`` stands for a process: ``wait``,
``returncode`` and ``kill``.

Requests go to the warm process through a pipe, written at once (a few hundred bytes each: far
below what a pipe holds while the warm process is still importing); its replies are read by
``read_replies``, which runs shielded so that an interrupted run still learns how its agents ended.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypeAlias

import trio

from acpc_arena.dealer.arena.contestants import AgentCannotPlay, Contestant
from acpc_arena.protocol.commands import FAILED

WARM_AGENTS = frozenset({"lstm_dqn", "dqn", "nfq", "poker_cnn", "ensemble"})
"""The shipped agents whose matches a warm process's children play: those whose start is mostly torch's
import (a plugin, a command or an external bot is started as before)."""
CLOSE_GRACE_S = 10.0
"""How long the warm process has to leave once its requests have ended, before it is killed."""


def is_warm_spec(spec: str | None) -> bool:
    """Whether a warm process plays the agent ``spec`` names over TCP (a neural agent; Linux: it forks)."""
    return sys.platform == "linux" and spec in WARM_AGENTS


def plays_warm(contestant: Contestant) -> bool:
    """Whether a warm process plays ``contestant``'s matches over TCP."""
    return is_warm_spec(contestant.agent) and contestant.command is None and not contestant.external


def warm_specs(contestants: Sequence[Contestant]) -> list[str]:
    """The agent specs among ``contestants`` that a warm process plays."""
    return sorted({str(c.agent) for c in contestants if plays_warm(c)})


class WarmChild:
    """One match's agent, a child of the warm process."""

    def __init__(self, warm: WarmAgents, ident: int, err_path: Path) -> None:
        self._warm = warm
        self.ident = ident
        self.err_path = err_path
        self.returncode: int | None = None
        """Its exit status once it has ended (``-SIGNAL`` for a signal), as ``trio.Process`` gives it."""
        self._ended = trio.Event()

    async def wait(self) -> int:
        await self._ended.wait()
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            self._warm.send({"kill": self.ident})

    def ended(self, status: int) -> None:
        if self.returncode is None:
            self.returncode = status
            self._ended.set()


AgentProcess: TypeAlias = "trio.Process | WarmChild"
"""A seat's started bot: a process of its own, or a warm process's child."""


class WarmAgents:
    """The warm process of a run and its children."""

    def __init__(self, process: trio.Process, requests: int, err_path: Path, specs: Sequence[str]) -> None:
        self._process = process
        self._requests: int | None = requests
        """The write end of the warm process's standard input (None once closed)."""
        self._err_path = err_path
        self._children: dict[int, WarmChild] = {}
        self.specs = frozenset(specs)

    @classmethod
    async def start(cls, specs: Sequence[str], err_path: Path) -> WarmAgents:
        """The warm process for the agents ``specs``, its standard error appended to ``err_path``."""
        read, write = os.pipe()
        try:
            with open(err_path, "ab") as err:
                process = await trio.lowlevel.open_process(
                    [str(Path(sys.executable).parent / "acpc-agent"), "--warm", *specs],
                    stdin=read,
                    stdout=subprocess.PIPE,
                    stderr=err,
                    start_new_session=True,  # as the agents' own processes: a Ctrl-C reaches the runner alone
                )
        except BaseException:
            os.close(write)
            raise
        finally:
            os.close(read)
        return cls(process, write, err_path, specs)

    def plays(self, contestant: Contestant) -> bool:
        """Whether ``contestant``'s matches are played by children of this warm process."""
        return contestant.agent in self.specs and plays_warm(contestant)

    async def check(self, contestant: Contestant, game_path: Path, game_file: str, err_path: Path) -> None:
        """Build ``contestant``'s agent for the game in a child (``acpc-agent --build``), as ``check_agent`` builds
        it in the runner (whose process then needs no torch); ``AgentCannotPlay`` with the child's reason."""
        status = await self.start_match(contestant.build_line(game_path), err_path).wait()
        lines = err_path.read_text(errors="replace").strip().splitlines() if err_path.exists() else []
        if status != 0:
            reason = lines[-1] if lines else f"exit status {status}"
            reason = reason.removeprefix("ERROR: ").removeprefix("acpc-agent: error: ")
            raise AgentCannotPlay(contestant, game_file, reason.removesuffix(" (see acpc-agent --help)"))
        if not lines:
            with contextlib.suppress(OSError):
                err_path.unlink()

    def start_match(self, argv: Sequence[str], err_path: Path) -> WarmChild:
        """A child that runs ``acpc-agent ARGV`` (``argv`` without the program), its output to ``err_path``."""
        child = WarmChild(self, len(self._children), err_path)
        self._children[child.ident] = child
        if not self.send({"id": child.ident, "argv": list(argv), "err": str(err_path)}):
            self._orphaned(child, FAILED)
        return child

    def send(self, message: dict[str, object]) -> bool:
        """Write one request; False where the warm process no longer reads them."""
        if self._requests is None:
            return False
        try:
            os.write(self._requests, (json.dumps(message) + "\n").encode())
        except BrokenPipeError:
            return False
        return True

    async def read_replies(self) -> None:
        """Tell each child's end as the warm process reports it, until it exits (shielded: see the module)."""
        with trio.CancelScope(shield=True):
            assert self._process.stdout is not None
            pending = b""
            async for chunk in self._process.stdout:
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    reply = json.loads(line)
                    self._children[reply["id"]].ended(reply["status"])
            status = await self._process.wait()
            for child in self._children.values():  # a warm process that died leaves no word of its children
                if child.returncode is None:
                    self._orphaned(child, status or FAILED)

    def _orphaned(self, child: WarmChild, status: int) -> None:
        """``child`` ended with ``status`` as the warm process has: told at the end of its standard error."""
        with contextlib.suppress(OSError), open(child.err_path, "a") as err:
            print(f"ERROR: the warm agent process has ended (its standard error: {self._err_path})", file=err)
        child.ended(status)

    async def aclose(self) -> None:
        """End the requests (and any child still running: the runner has reaped those it started) and
        wait for the warm process to leave."""
        for child in self._children.values():
            child.kill()
        if self._requests is not None:
            os.close(self._requests)
            self._requests = None
        with trio.move_on_after(CLOSE_GRACE_S):
            await self._process.wait()
        if self._process.returncode is None:
            self._process.kill()
            await self._process.wait()
        with contextlib.suppress(OSError):
            if self._process.returncode == 0 and self._err_path.stat().st_size == 0:  # nothing to tell
                self._err_path.unlink()
