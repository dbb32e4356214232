"""The page's routes: files of the served folders, the replayer's hands, results, live tables, the human seat.

Paths in requests are ids of the form ``ROOT/relative/path`` (``ROOT`` the index of a
served folder; a served log is ``ROOT/`` alone). A path is refused (404) unless it is a
regular file inside its folder once links are followed: ``..``, empty or hidden parts
(``.name``), backslashes and NUL bytes are refused before the file system is asked.
A served folder's files go out as what they are to a reader (logs and text as plain
text, results as JSON, plots as PNG; anything else as bytes to save), never as a page
that runs. Logs are read within a budget (``logs``).

The person's seat (``/api/play``) is played by the page that started the game: it is
given a token then, which every later request about the game must carry in the
``X-Play-Token`` header; a live run's pages have no seat (``play=False``).
"""

from __future__ import annotations

import hmac
import json
import secrets
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from acpc_arena.dealer.web.http import (
    HttpError,
    Request,
    Response,
    file_response,
    json_response,
    resource_response,
    whole_number,
)
from acpc_arena.dealer.web.live import LiveBoard
from acpc_arena.dealer.web.logs import LogShelf
from acpc_arena.protocol.game import SHIPPED_GAMES

if TYPE_CHECKING:  # a live run's pages have no seat: the agents and the runner are imported only to play
    from acpc_arena.dealer.web.human import HumanGame

LOG_SUFFIXES = (".log", ".log.gz", ".log.bz2")
RESULT_FILES = ("report.json", "crosstable.json")
TEXT_SUFFIXES = (".log", ".txt", ".err", ".tlog", ".csv", ".md")
MAX_DEPTH = 4
"""How deep below a served folder files are listed."""
MAX_LISTED = 10_000
"""How many files of a served folder are looked at for the lists."""
MAX_RESULT_BYTES = 16 * 1024 * 1024
TOKEN_HEADER = "x-play-token"


def content_type(name: str) -> str:
    """What a served folder's file is sent as: text, JSON, PNG, or bytes to save (never HTML or SVG)."""
    if name.endswith(".png"):
        return "image/png"
    if name.endswith(".json"):
        return "application/json"
    if name.endswith(TEXT_SUFFIXES):
        return "text/plain; charset=utf-8"
    return "application/octet-stream"


class WebApp:
    """What the server answers; ``live`` is set when a run's matches are shown as they are played,
    ``play`` when a person may play a bot from the page."""

    def __init__(
        self,
        roots: list[Path],
        out_dir: Path,
        live: LiveBoard | None = None,
        play: bool = True,
        agents: tuple[str, ...] = (),
    ) -> None:
        self.roots = [root.resolve() for root in roots]
        self.out_dir = out_dir
        self.agents = agents
        """The specs a person may play besides the shipped agents and installed plugins (``acpc-web --agent``)."""
        self.live = live
        self.play = play
        self.human: HumanGame | None = None
        self.token: str | None = None
        """The secret of the page that started the game being played."""
        self.nursery: trio.Nursery | None = None
        self.shelf = LogShelf()
        self._static = resources.files("acpc_arena.dealer.web") / "static"

    async def handle(self, request: Request) -> Response:
        path = request.path
        if request.method == "GET":
            if path in ("/", "/index.html"):
                return self._static_file("index.html")
            if path.startswith("/static/"):
                return self._static_file(path.removeprefix("/static/"))
            if path.startswith("/files/"):
                found = self._resolve(path.removeprefix("/files/"))
                return file_response(found, content_type(found.name))
            if path == "/api/log":
                file_id = request.query.get("f", "")
                return Response(body=await self.shelf.log(file_id, self._resolve(file_id)))
            if path == "/api/hand":
                file_id = request.query.get("f", "")
                hand = await self.shelf.hand(file_id, self._resolve(file_id), request.query.get("i", ""))
                return json_response(hand)
            if path == "/api/live":
                return Response(body=self.live.json_bytes() if self.live else b'{"version":0,"matches":[]}')
            getters = {
                "/api/files": self.files,
                "/api/result": self.result,
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
        if "/" in name or "\\" in name or name.startswith("."):
            raise HttpError(404, "no such file")
        resource = self._static / name
        if not resource.is_file():
            raise HttpError(404, f"no such file: {name}")
        return resource_response(resource.read_bytes(), name)

    # -- files of the served folders ------------------------------------------------

    def _resolve(self, file_id: str) -> Path:
        """The served file ``file_id`` names; ``HttpError`` 404 for anything else."""
        missing = HttpError(404, f"no such file: {file_id!r}")
        root_text, _, relative = file_id.partition("/")
        root_index = whole_number(root_text)
        if root_index is None or root_index >= len(self.roots):
            raise missing
        root = self.roots[root_index]
        parts = relative.split("/")
        if root.is_file():  # a log given alone is served alone
            if relative:
                raise missing
            return root
        if any(not part or part.startswith(".") or "\\" in part or "\x00" in part for part in parts):
            raise missing
        try:
            path = root.joinpath(*parts).resolve(strict=True)
            inside = path.is_relative_to(root) and path.is_file()
        except (OSError, ValueError, RuntimeError):  # no such file, a NUL, a loop of links
            raise missing from None
        if not inside:
            raise missing
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
        if _size(path) > MAX_RESULT_BYTES:
            raise HttpError(413, f"{path.name} is over {MAX_RESULT_BYTES // 2**20} MiB: not a report this page shows")
        try:
            return {"name": path.name, "data": json.loads(path.read_text())}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise HttpError(422, f"{path.name} could not be read: {exc}") from None

    # -- a person's seat -----------------------------------------------------------------

    def _no_seat(self) -> None:
        if not self.play:
            raise HttpError(404, "no seat to play on a run's live pages: acpc-web serves one")

    def _check_token(self, request: Request) -> None:
        given = request.headers.get(TOKEN_HEADER, "")
        if self.token is None or not hmac.compare_digest(given.encode(), self.token.encode()):
            raise HttpError(403, "this game belongs to the page that started it (its token is missing or wrong)")

    def options(self, request: Request) -> dict[str, Any]:
        if not self.play:
            return {"agents": [], "games": [], "play": False}
        from acpc_arena.dealer.web.human import human_agents  # the agents: only pages with a seat load them

        return {"agents": human_agents(self.agents), "games": list(SHIPPED_GAMES), "play": True}

    def play_state(self, request: Request) -> dict[str, Any]:
        self._no_seat()
        if self.human is None:
            return {"version": 0, "table": None, "results": [], "message": "no game yet"}
        self._check_token(request)
        return self.human.seat.to_json()

    async def play_start(self, request: Request) -> dict[str, Any]:
        self._no_seat()
        from acpc_arena.dealer.web.human import HumanGame, human_agents  # the agents, as above

        body = request.json()
        if not isinstance(body, dict):
            raise HttpError(400, "give the game as a JSON object")
        agent, game = body.get("agent"), body.get("game")
        hands, seed = body.get("hands", 100), body.get("seed", 1)
        if agent not in human_agents(self.agents):
            raise HttpError(400, f"unknown agent {agent!r}")
        if game not in SHIPPED_GAMES:
            raise HttpError(400, f"unknown game {game!r}")
        if not isinstance(hands, int) or not 1 <= hands <= 10_000 or not isinstance(seed, int) or seed < 0:
            raise HttpError(400, "hands must be 1 to 10000 and the seed a whole number")
        if self.human is not None and self.human.outcome is None:
            raise HttpError(409, "a game is already being played: finish it first")
        assert self.nursery is not None
        self.human = HumanGame(agent, game, hands, seed, self.out_dir)
        self.token = secrets.token_urlsafe(32)
        self.nursery.start_soon(self.human.run)
        return {"started": True, "folder": str(self.human.out_dir), "token": self.token}

    async def play_act(self, request: Request) -> dict[str, Any]:
        self._no_seat()
        if self.human is None:
            raise HttpError(409, "no game is being played")
        self._check_token(request)
        body = request.json()
        action = body.get("action") if isinstance(body, dict) else None
        if not isinstance(action, str):
            raise HttpError(400, "give the action as text: f, c, r or r<size>")
        try:
            await self.human.seat.choose(action)
        except ValueError as exc:
            raise HttpError(422, str(exc)) from None
        return self.human.seat.to_json()


def _walk(root: Path) -> list[Path]:
    """The files under ``root`` (``root`` itself if a file), ``MAX_DEPTH`` folders deep and ``MAX_LISTED`` at
    most; hidden names and links that lead out of ``root`` are left out."""
    if root.is_file():
        return [root]
    found: list[Path] = []
    folders = [(root, 0)]
    while folders and len(found) < MAX_LISTED:
        folder, depth = folders.pop(0)
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for entry in entries[:MAX_LISTED]:
            if entry.name.startswith("."):
                continue
            try:
                if not entry.resolve().is_relative_to(root):
                    continue
                if entry.is_dir():
                    if depth < MAX_DEPTH:
                        folders.append((entry, depth + 1))
                elif entry.is_file():
                    found.append(entry)
            except (OSError, RuntimeError):
                continue
    return sorted(found[:MAX_LISTED])


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
