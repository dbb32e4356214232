"""The page's routes: files of the served folders, the replayer's hands, results, live tables, the human seat.

Paths in requests are ids of the form ``ROOT/relative/path`` (``ROOT`` the index of a
served folder); anything that resolves outside its folder is refused. A log is read
with the project's log reader (this dealer's, the C dealer's and the competitions'
logs): its good hands, and its problems with their line numbers, where the reader
stopped included. The last log opened is kept in memory (up to ``MAX_LOG_HANDS``
hands) so that stepping through its hands reads it once.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import trio

from acpc_arena.agents.registry import AGENTS
from acpc_arena.dealer.web.http import HttpError, Request, Response, file_response, json_response
from acpc_arena.dealer.web.human import HumanGame
from acpc_arena.dealer.web.live import LiveBoard
from acpc_arena.dealer.web.tables import replay, summary
from acpc_arena.protocol.acpc_log import AcpcLogReader
from acpc_arena.protocol.game import SHIPPED_GAMES
from acpc_arena.protocol.wire import LogHand

MAX_LOG_HANDS = 20_000
LOG_SUFFIXES = (".log", ".log.gz", ".log.bz2")
RESULT_FILES = ("report.json", "crosstable.json")
MAX_DEPTH = 4
"""How deep below a served folder files are listed."""
HUMAN_AGENTS = sorted(name for name in AGENTS if name != "human")


class WebApp:
    """What the server answers; ``live`` is set when a run's matches are shown as they are played."""

    def __init__(self, roots: list[Path], out_dir: Path, live: LiveBoard | None = None) -> None:
        self.roots = [root.resolve() for root in roots]
        self.out_dir = out_dir
        self.live = live
        self.human: HumanGame | None = None
        self.nursery: trio.Nursery | None = None
        self._log_id = ""
        self._log: dict[str, Any] = {}
        self._hands: list[LogHand] = []
        self._static = resources.files("acpc_arena.dealer.web") / "static"

    async def handle(self, request: Request) -> Response:
        path = request.path
        if request.method == "GET":
            if path in ("/", "/index.html"):
                return self._static_file("index.html")
            if path.startswith("/static/"):
                return self._static_file(path.removeprefix("/static/"))
            if path.startswith("/files/"):
                return file_response(self._resolve(path.removeprefix("/files/")))
            getters = {
                "/api/files": self.files,
                "/api/log": self.log,
                "/api/hand": self.hand,
                "/api/result": self.result,
                "/api/live": self.live_board,
                "/api/play": self.play_state,
                "/api/options": self.options,
            }
            if path in getters:
                return json_response(getters[path](request))
            if path == "/api/live/events":
                if self.live is None:
                    raise HttpError(404, "no run is being played here")
                return Response(events=self.live.events())
        if request.method == "POST":
            if path == "/api/play":
                return json_response(await self.play_start(request))
            if path == "/api/play/act":
                return json_response(await self.play_act(request))
        raise HttpError(404, f"nothing at {request.method} {path}")

    def _static_file(self, name: str) -> Response:
        if "/" in name or name.startswith("."):
            raise HttpError(404, "no such file")
        resource = self._static / name
        if not resource.is_file():
            raise HttpError(404, f"no such file: {name}")
        return file_response(Path(str(resource)))

    # -- files of the served folders ------------------------------------------------

    def _resolve(self, file_id: str) -> Path:
        root_text, _, relative = file_id.partition("/")
        if not root_text.isdigit() or int(root_text) >= len(self.roots):
            raise HttpError(404, f"no such file: {file_id}")
        root = self.roots[int(root_text)]
        path = (root / relative).resolve() if relative else root
        if not path.is_relative_to(root if root.is_dir() else root.parent) or not path.is_file():
            raise HttpError(404, f"no such file: {file_id}")
        return path

    def files(self, request: Request) -> dict[str, Any]:
        """The logs, results and plots under the served folders (and the served files)."""
        found: dict[str, list[dict[str, Any]]] = {"logs": [], "results": [], "images": []}
        for index, root in enumerate(self.roots):
            for path in _walk(root):
                file_id = f"{index}/{path.relative_to(root)}" if root.is_dir() else f"{index}/"
                name = path.name
                kind = (
                    "logs" if name.endswith(LOG_SUFFIXES) else
                    "results" if name in RESULT_FILES else
                    "images" if name.endswith(".png") else None
                )  # fmt: skip
                if kind is not None:
                    found[kind].append({"id": file_id, "name": str(path.relative_to(root.parent)), "size": _size(path)})
        return {"roots": [str(root) for root in self.roots], **found, "live": self.live is not None}

    def result(self, request: Request) -> Any:
        path = self._resolve(request.query.get("f", ""))
        try:
            return {"name": path.name, "data": json.loads(path.read_text())}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HttpError(422, f"{path.name} could not be read: {exc}") from None

    # -- the replayer --------------------------------------------------------------------

    def _open_log(self, file_id: str) -> None:
        if file_id == self._log_id:
            return
        path = self._resolve(file_id)
        reader = AcpcLogReader(path)
        hands: list[LogHand] = []
        truncated = False
        for hand in reader:
            if len(hands) == MAX_LOG_HANDS:
                truncated = True
                break
            hands.append(hand)
        self._log_id, self._hands = file_id, hands
        self._log = {
            "id": file_id,
            "name": path.name,
            "game": reader.game_name,
            "hands": [summary(hand, i) for i, hand in enumerate(hands)],
            "problem_count": reader.problem_count,
            "problems": [str(problem) for problem in reader.problems[:50]],
            "truncated": truncated,
            "max_hands": MAX_LOG_HANDS,
        }

    def log(self, request: Request) -> dict[str, Any]:
        """A log's hands (one summary each) and its problems."""
        self._open_log(request.query.get("f", ""))
        return self._log

    def hand(self, request: Request) -> dict[str, Any]:
        """One hand of a log, step by step."""
        self._open_log(request.query.get("f", ""))
        text = request.query.get("i", "")
        if not text.isdigit() or int(text) >= len(self._hands):
            raise HttpError(404, f"no hand {text!r} in {self._log['name']}")
        hand = self._hands[int(text)]
        return {"index": int(text), "summary": summary(hand, int(text)), "steps": replay(hand)}

    # -- live tables ---------------------------------------------------------------------

    def live_board(self, request: Request) -> dict[str, Any]:
        if self.live is None:
            return {"version": 0, "matches": []}
        return self.live.to_json()

    # -- a person's seat -----------------------------------------------------------------

    def options(self, request: Request) -> dict[str, Any]:
        return {"agents": HUMAN_AGENTS, "games": list(SHIPPED_GAMES)}

    def play_state(self, request: Request) -> dict[str, Any]:
        if self.human is None:
            return {"version": 0, "table": None, "results": [], "message": "no game yet"}
        return self.human.seat.to_json()

    async def play_start(self, request: Request) -> dict[str, Any]:
        body = request.json()
        agent, game = body.get("agent"), body.get("game")
        hands, seed = body.get("hands", 100), body.get("seed", 1)
        if agent not in HUMAN_AGENTS:
            raise HttpError(400, f"unknown agent {agent!r}")
        if game not in SHIPPED_GAMES:
            raise HttpError(400, f"unknown game {game!r}")
        if not isinstance(hands, int) or not 1 <= hands <= 10_000 or not isinstance(seed, int) or seed < 0:
            raise HttpError(400, "hands must be 1 to 10000 and the seed a whole number")
        if self.human is not None and self.human.outcome is None:
            raise HttpError(409, "a game is already being played: finish it first")
        assert self.nursery is not None
        self.human = HumanGame(agent, game, hands, seed, self.out_dir)
        self.nursery.start_soon(self.human.run)
        return {"started": True, "folder": str(self.human.out_dir)}

    async def play_act(self, request: Request) -> dict[str, Any]:
        if self.human is None:
            raise HttpError(409, "no game is being played")
        action = request.json().get("action")
        if not isinstance(action, str):
            raise HttpError(400, "give the action as text: f, c, r or r<size>")
        try:
            await self.human.seat.choose(action)
        except ValueError as exc:
            raise HttpError(422, str(exc)) from None
        return self.human.seat.to_json()


def _walk(root: Path, depth: int = 0) -> list[Path]:
    if root.is_file():
        return [root]
    if depth > MAX_DEPTH:
        return []
    try:
        entries = sorted(root.iterdir())
    except OSError:
        return []
    found: list[Path] = []
    for entry in entries:
        if entry.is_dir() and not entry.name.startswith("."):
            found.extend(_walk(entry, depth + 1))
        elif entry.is_file():
            found.append(entry)
    return found


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
