"""No command writes over one of its inputs: an output option that names an input (the same file by another
name or a hard link counts) is refused in one line, the input left byte for byte as it was (issue 58)."""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import pytest

from acpc_arena.protocol.game import resolve_game_path

LOG = Path(__file__).parent / "fixtures" / "c_dealer" / "kuhn.limit.2p.log"
GAME = "holdem.limit.2p.reverse_blinds"

# (entry point module, arguments; {log}, {game}, {json}, {config} name the inputs written in tmp_path,
# {link} a hard link to the log, {linkdir} a folder holding the log's PHH name as a link to it)
OUT = ["--out", "{game}"]
TOURNAMENT = "acpc_arena.dealer.commands.tournament"
REPORT = "acpc_arena.dealer.commands.report"
CASES = {
    "report --json": (REPORT, ["{log}", "--json", "{log}"]),
    "report --json (a hard link)": (REPORT, ["{log}", "--json", "{link}"]),
    "report --json (the game)": (REPORT, ["{log}", "--game", "{game}", "--json", "{game}"]),
    "report --plots": (REPORT, ["{log}", "--plots", "{log}"]),
    "report --phh": (REPORT, ["{log}", "--phh", "{log}"]),
    "report --phh (a PHH file)": (REPORT, ["{log}", "--phh", "{linkdir}"]),
    "report --player --json": (REPORT, ["{log}", "--player", "Alice", "--json", "{log}"]),
    "lbr --json": ("acpc_arena.dealer.commands.lbr", ["random", "--game", "{game}", "--json", "{game}"]),
    "cfr solve --out": ("acpc_arena.models.training.cfr_cli", ["solve", "--game", "{game}", "--out", "{game}"]),
    "cfr curve --out": ("acpc_arena.models.training.cfr_cli", ["curve", "{json}", "--out", "{json}"]),
    "train --out (the sidecar)": ("acpc_arena.models.training.cli", ["--from-sidecar", "{json}", "--out", "{json}"]),
    "train --out (the data)": ("acpc_arena.models.training.cli", ["poker_cnn", "--data", "{json}", "--out", "{json}"]),
    "match --out": ("acpc_arena.dealer.commands.match", ["--a", "random", "--b", "call", "--game", "{game}", *OUT]),
    "tournament --out": (TOURNAMENT, ["--agents", "random,call", "--game", "{game}", *OUT]),
    "web --out": ("acpc_arena.dealer.commands.web", ["{log}", "--out", "{log}"]),
    "bm-server --db": ("acpc_arena.dealer.commands.bm_server", ["{config}", "--db", "{config}"]),
    "bm-server --logs": ("acpc_arena.dealer.commands.bm_server", ["{config}", "--logs", "{config}"]),
}  # fmt: skip


def inputs(folder: Path) -> dict[str, Path]:
    """The input files of ``CASES`` written in ``folder``."""
    files = {
        "log": folder / "g.log",
        "game": folder / "g.game",
        "json": folder / "g.json",
        "config": folder / "bm.config",
    }
    shutil.copyfile(LOG, files["log"])
    shutil.copyfile(resolve_game_path(GAME), files["game"])
    files["json"].write_text('{"iterations": [1, 2], "exploitability": [3, 2]}\n')
    files["config"].write_text(f"port 0\ngame {GAME}.game {{\n  bot random random\n}}\nuser neil test\n")
    files["link"] = folder / "link.log"
    os.link(files["log"], files["link"])
    (folder / "phh").mkdir()
    files["linkdir"] = folder / "phh"
    os.link(files["log"], folder / "phh" / "g.phhs")
    return files


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_output_naming_an_input_is_refused_in_one_line_and_the_input_is_kept(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module, args = CASES[case]
    files = inputs(tmp_path)
    before = {name: path.read_bytes() for name, path in files.items() if path.is_file()}
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        importlib.import_module(module).main([arg.format(**files) for arg in args])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "refused, it would be written over" in err, err
    assert {name: path.read_bytes() for name, path in files.items() if path.is_file()} == before


def test_the_dealer_refuses_a_match_name_whose_log_is_its_game_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``acpc-dealer m m.log ...``: the log ``m.log`` would be the game file; refused with the C dealer's usage
    status, 1 (``acpc-dealer`` keeps it for every usage error)."""
    from acpc_arena.dealer.commands.dealer import main

    game = tmp_path / "m.log"
    shutil.copyfile(resolve_game_path(GAME), game)
    before = game.read_bytes()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as ended:
        main(["m", "m.log", "10", "1", "a", "b"])
    assert ended.value.code == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "refused, it would be written over" in err, err
    assert game.read_bytes() == before
