"""A bot whose every action is invalid (``:x``) is told: the dealer plays each as a call, as the C dealer does,
and ``acpc-match`` counts them per player in its summary and ``report.json`` (the web view's Results page shows
them: ``test_web_browser``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.agents import INVALID_BOT
from tests.helpers.processes import program


@pytest.mark.parametrize("where", [[], ["--workers", "--concurrency", "2"]], ids=["here", "workers"])
def test_invalid_actions_are_counted_per_player(tmp_path: Path, where: list[str]) -> None:
    """Kuhn poker, 10 hands a match, the bot against ``call``: the bot's calls (its invalid actions) and
    ``call``'s close every hand at ``cc``, one decision each, so the bot made 10 invalid actions a match, 20
    over the seed's two matches, and ``call`` none."""
    run = tmp_path / "run"
    done = subprocess.run(
        [program("acpc-match"), "--a", "xbot", "--a-cmd", f"{sys.executable} -c '{INVALID_BOT}' {{host}} {{port}}",
         "--b", "call", "--seeds", "1", "--hands", "10", "--game", "kuhn", "--quiet", "--no-plots", "--out", str(run),
         *where],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    bettings = [
        line.split(":")[2]
        for log in sorted(run.glob("*.log"))
        for line in log.read_text().splitlines()
        if line.startswith("STATE:")
    ]
    assert bettings.count("cc") == 20  # every hand of both matches, as the docstring reckons
    assert (
        "a-xbot: 20 invalid actions played as a call, 0 no-limit raises resized into range (the dealer's fixes, as "
        "the C dealer's; report.json: changed_actions)"
    ) in done.stdout.splitlines()
    assert "b-call:" not in done.stdout
    report = json.loads((run / "report.json").read_text())
    assert report["changed_actions"] == {"a-xbot": {"invalid": 20, "fixed": 0}, "b-call": {"invalid": 0, "fixed": 0}}
