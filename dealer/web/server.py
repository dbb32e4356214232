"""``acpc-web``'s server: the pages of a ``WebApp`` (``app``) for the folders and logs given, bound at once
and served in this process's trio run until cancelled or Ctrl-C."""

from __future__ import annotations

from pathlib import Path

import trio

from acpc_arena.dealer.observers.page_process import bind
from acpc_arena.dealer.web.app import WebApp
from acpc_arena.dealer.web.http import guard_for, serve


class WebServer:
    """The pages of ``app`` on ``host:port``: bound at once, served in this process's trio run."""

    def __init__(self, app: WebApp, host: str, port: int) -> None:
        self.app = app
        self.host = host
        self.sock = bind(host, port)
        self.port = self.sock.getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    async def serve(self) -> None:
        """Serve until cancelled; a person's games run in the same nursery."""
        async with trio.open_nursery() as nursery:
            self.app.nursery = nursery
            await serve(self.app.handle, self.sock, guard_for(self.host, self.port))

    def serve_for(self, seconds: float) -> None:
        """Serve ``seconds`` (``math.inf``: until Ctrl-C, whose KeyboardInterrupt is raised) in a trio run
        of its own."""

        async def serve_then_stop() -> None:
            with trio.move_on_after(seconds):
                await self.serve()

        trio.run(serve_then_stop)


def web_app(paths: list[Path], out_dir: Path, agents: tuple[str, ...] = ()) -> WebApp:
    """The app for ``paths`` and ``out_dir`` (created; served after the paths unless it lies in one), its seat
    offering ``agents`` (specs) too."""
    out_dir.mkdir(parents=True, exist_ok=True)
    inside = any(out_dir.resolve().is_relative_to(p.resolve()) for p in paths if p.is_dir())
    roots = list(paths) if inside else [*paths, out_dir]
    return WebApp(roots, out_dir, agents=agents)
