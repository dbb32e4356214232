"""Every reader of outside files bounds what it takes in (protocol/files.py and its users).

Hostile files, each through the real command as a subprocess where a user meets it: numbers
of 5,000 digits in a game file, a log header and a hand number (``acpc-dealer``,
``acpc-report``); gzip bombs of newlines and of one long line (made here with gzip at level 9),
whose reading must stay within 50 MB of memory over the command's own and a generous time; a
FIFO given as a log; the same log named twice; two logs of one name exported to PHH; checkpoint
sidecars describing absurd networks or holding absurd numbers.

Expected values are worked out here by hand: the line a number sits on is counted in the
text written, a bomb's refusal line from the default limits (256 MiB decompressed, each
newline byte one line; 64 KiB in a line), hand counts from the log text, network sizes from
the layer shapes.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pokerkit import HandHistory

from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import InputError, atomic_writer, read_json, read_lines, write_atomic
from acpc_arena.protocol.game import load_game, parse_game
from tests.helpers.processes import REPO, error_lines, measured, program, run_in_process, spawn

DATA = REPO / "tests" / "data"
COMPETITION = DATA / "competition_2017_nolimit.log"
MATCH_LOG = DATA / "acpc_match_limit" / "seed7-a1.log"
CHECKPOINTS = REPO / "models" / "checkpoints"
FIVE_THOUSAND = "9" * 5000
MB = 1024 * 1024

KUHN = """\
GAMEDEF
limit
numPlayers = 2
numRounds = 1
blind = 1 1
raiseSize = 1
numSuits = 1
numRanks = 3
numHoleCards = 1
numBoardCards = 0
END GAMEDEF
"""


def run(*command: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=timeout, cwd=cwd)


# -- numbers of 5,000 digits -------------------------------------------------------


def test_a_game_number_of_5000_digits_is_refused_by_the_dealer_in_one_line(tmp_path: Path) -> None:
    game = tmp_path / "big.game"
    game.write_text(KUHN.replace("blind = 1 1", f"blind = {FIVE_THOUSAND} 1"))  # line 5 of the file
    done = run(program("acpc-dealer"), "m", str(game), "10", "1", "a", "b", cwd=tmp_path)
    assert done.returncode == 1  # the C dealer's status for a game it cannot read
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"ERROR: could not read game {game}: {game}, line 5: blind: ")
    assert "out of range" in line and len(line) < 300
    assert "Traceback" not in done.stderr


def test_a_game_number_of_5000_digits_is_refused_by_acpc_report_in_one_line(tmp_path: Path) -> None:
    game = tmp_path / "big.game"
    game.write_text(KUHN.replace("raiseSize = 1", f"raiseSize = -{FIVE_THOUSAND}"))  # line 6
    done = run(program("acpc-report"), "--game", str(game), str(MATCH_LOG), cwd=tmp_path)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert f"{game}, line 6: raisesize: " in line and "out of range" in line


@pytest.mark.parametrize(
    ("number", "accepted"),
    [("2147483647", True), ("-2147483648", True), ("000000000002147483647", True), ("2147483648", False),
     ("-2147483649", False), ("99999999999", False), (FIVE_THOUSAND, False)],
)  # fmt: skip
def test_game_numbers_are_read_into_32_bits_as_game_c_reads_them(number: str, accepted: bool) -> None:
    # game.c reads stacks, blinds and raise sizes with sscanf("%" SCNd32): int32_t, -2**31 .. 2**31 - 1.
    text = KUHN.replace("blind = 1 1", "blind = 1 1\nstack = 2147483647 2147483647").replace(
        "raiseSize = 1", f"raiseSize = {number}"
    )
    if accepted:
        assert parse_game(text.replace("limit\n", "nolimit\n", 1), "k.game").no_limit
    else:
        with pytest.raises(ProtocolError, match=r"^k\.game, line 7: raisesize: .* is out of range"):
            parse_game(text, "k.game")


def match_log_with(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    """A copy of the acpc-match log with the first ``old`` replaced; and the line it is on (counted here)."""
    text = MATCH_LOG.read_text()
    assert old in text
    line = text[: text.index(old)].count("\n") + 1
    path = tmp_path / "m.log"
    path.write_text(text.replace(old, new, 1))
    return path, line


def test_a_header_number_of_5000_digits_is_refused_by_acpc_report_in_one_line(tmp_path: Path) -> None:
    header = MATCH_LOG.read_text().splitlines()[0]  # "# name/game/hands/seed NAME GAME HANDS SEED"
    hands = header.split()[4]
    log, line = match_log_with(tmp_path, f" {hands} ", f" {FIVE_THOUSAND} ")
    assert line == 1
    done = run(program("acpc-report"), str(log), cwd=tmp_path)
    assert done.returncode == 2
    (message,) = done.stderr.splitlines()
    assert message.startswith(f"acpc-report: {log}: the header's hands and seed must be at most 20 digits")
    # --player reads the hands all the same, the header set aside with a problem on its line
    done = run(program("acpc-report"), "--player", "a-rule", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"acpc-report: {log}, line 1: the header's hands and seed must be at most 20 digits" in done.stderr


def test_a_hand_number_of_5000_digits_is_refused_naming_its_line(tmp_path: Path) -> None:
    log, line = match_log_with(tmp_path, "STATE:3:", f"STATE:{FIVE_THOUSAND}:")
    done = run(program("acpc-report"), str(log), cwd=tmp_path)
    assert done.returncode == 2
    (message,) = done.stderr.splitlines()
    assert message.startswith(f"acpc-report: {log}, line {line}: a hand number of 5000 digits")
    assert len(message) < 300
    done = run(program("acpc-report"), "--player", "a-rule", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"acpc-report: {log}, line {line}: a hand number of 5000 digits" in done.stderr


# -- gzip bombs ------------------------------------------------------------------------


def gzip_bomb(path: Path, unit: bytes, gib: int) -> Path:
    """``gib`` GiB of ``unit`` over and over, compressed by gzip at level 9 (64 MiB members, concatenated)."""
    member = gzip.compress(unit * (64 * MB // len(unit)), compresslevel=9)
    path.write_bytes(member * (16 * gib))
    return path


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bombs")
    return {
        "newlines": gzip_bomb(folder / "newlines.log.gz", b"\n", 3),
        "long-line": gzip_bomb(folder / "long-line.log.gz", b"x", 1),
        "comments": gzip_bomb(folder / "comments.log.gz", b"#\n", 1),
    }


@pytest.fixture(scope="module")
def report_baseline() -> int:
    """The peak memory of ``acpc-report --player`` on a small good log: what the command takes itself."""
    result = measured(program("acpc-report"), "--player", "Slumbot_2pn_2017", str(COMPETITION))
    assert result["code"] == 0, result["err"]
    return int(result["peak"])


def expected_refusal(bomb: str, limit: int) -> tuple[str, str]:
    """Where and why a reader refuses ``bomb`` under a limit of ``limit`` bytes decompressed (worked out from
    the bombs' contents)."""
    too_long = f"more than {limit:,} bytes, decompressed"
    return {
        "newlines": (f"line {limit + 1}", too_long),  # each byte of the newline bomb is one line
        "long-line": ("line 1", "more than 65,536 bytes in one line"),
        "comments": (f"line {limit // 2 + 1}", too_long),  # two bytes a line
    }[bomb]


DEFAULT_LOG_LIMIT = 256 * MB
"""``ACPC_ARENA_MAX_LOG_BYTES``'s default (docs/reference/limits.md)."""
LIMITS = [
    pytest.param(16 * MB, id="16MiB"),
    pytest.param(None, id="default", marks=pytest.mark.slow),  # 268 million lines read: about a minute
]
"""The decompressed sizes the bombs are read under: a small limit set by its variable, and the default."""


def limit_environment(limit: int | None) -> dict[str, str]:
    return {} if limit is None else {"ACPC_ARENA_MAX_LOG_BYTES": str(limit)}


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("bomb", ["newlines", "long-line", "comments"])
def test_a_gzip_bomb_is_refused_within_50_mb_and_seconds(
    bombs: dict[str, Path], report_baseline: int, bomb: str, limit: int | None
) -> None:
    path = bombs[bomb]
    assert path.stat().st_size < 4 * MB
    where, what = expected_refusal(bomb, limit or DEFAULT_LOG_LIMIT)
    for mode in ([], ["--player", "Alice"]):
        result = measured(program("acpc-report"), *mode, str(path), env=limit_environment(limit))
        assert result["code"] == 2, result["err"]
        lines = result["err"].splitlines()
        assert lines[0].startswith(f"acpc-report: {path}, {where}: "), lines
        assert what in lines[0]
        if not mode:
            assert len(lines) == 1
        assert result["peak"] - report_baseline <= 50 * MB, (result["peak"], report_baseline)
        assert result["wall"] < 60


@pytest.mark.parametrize("limit", LIMITS)
def test_the_reader_alone_stays_under_50_mb_on_a_bomb(bombs: dict[str, Path], limit: int | None) -> None:
    script = (
        "import sys\nfrom acpc_arena.protocol.files import InputError, read_lines\n"
        "try:\n    sum(1 for _ in read_lines(sys.argv[1], rb'#'))\nexcept InputError as exc:\n    print(exc)\n"
    )
    for bomb, path in bombs.items():
        result = measured(sys.executable, "-c", script, str(path), env=limit_environment(limit))
        assert result["code"] == 0, result["err"]
        assert expected_refusal(bomb, limit or DEFAULT_LOG_LIMIT)[1] in result["out"]
        assert result["peak"] <= 50 * MB and result["wall"] < 30, (bomb, result)


def test_a_limit_can_be_raised_by_its_environment_variable(tmp_path: Path) -> None:
    path = tmp_path / "long.log"
    path.write_bytes(b"x" * 100_000 + b"\n" + b"y\n")
    with pytest.raises(InputError, match=r"long\.log, line 1: more than 65,536 bytes in one line"):
        list(read_lines(path))
    os.environ["ACPC_ARENA_MAX_LINE_BYTES"] = "200000"
    try:
        assert [(n, len(line)) for n, line in read_lines(path)] == [(1, 100_001), (2, 2)]
        os.environ["ACPC_ARENA_MAX_LINE_BYTES"] = "lots"
        with pytest.raises(InputError, match=r"^ACPC_ARENA_MAX_LINE_BYTES: must be a positive whole number"):
            list(read_lines(path))
    finally:
        del os.environ["ACPC_ARENA_MAX_LINE_BYTES"]


def test_lines_are_numbered_across_chunks_blank_and_passed_over_lines_counted(tmp_path: Path) -> None:
    path = tmp_path / "m.log"
    blanks = b"\n" * (3 * MB)  # three chunks' worth
    path.write_bytes(b"# a comment\nA\n" + blanks + b"  \t\r\n#x\n;y\nB\n" + b"#" * (2 * MB) + b"\nC")
    # A on line 2, then 3 Mi blank lines, the white-space line, "#x", ";y": B on line 2 + 3 Mi + 4
    got = list(read_lines(path, rb"#|;"))
    assert got == [(2, b"A\n"), (3 * MB + 6, b"B\n"), (3 * MB + 8, b"C")]
    assert list(itertools.islice(read_lines(path), 2)) == [(1, b"# a comment\n"), (2, b"A\n")]
    with pytest.raises(InputError, match=rf"line {3 * MB + 7}: more than 65,536 bytes in one line"):
        list(read_lines(path))  # the long comment line, not passed over, is a line like any other


# -- special files -------------------------------------------------------------------


def test_a_fifo_is_refused_promptly_by_acpc_report_and_the_readers(tmp_path: Path) -> None:
    fifo = tmp_path / "m.log"
    os.mkfifo(fifo)
    done = run(program("acpc-report"), "--player", "x", str(fifo), cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert f"{fifo}: a FIFO, not a regular file" in line
    script = textwrap.dedent(
        f"""\
        from acpc_arena.protocol.acpc_log import AcpcLogReader
        from acpc_arena.protocol.errors import ProtocolError
        from acpc_arena.protocol.files import read_json
        from acpc_arena.protocol.game import load_game
        reader = AcpcLogReader({str(fifo)!r})
        print(list(reader), reader.problems[0].reason)
        for read in (load_game, read_json):
            try:
                read({str(fifo)!r})
            except ProtocolError as exc:
                print(exc)
        """
    )
    done = run(sys.executable, "-c", script, timeout=60)  # the old readers waited for a writer for ever
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[] a FIFO, not a regular file: refused",
        f"{fifo}: a FIFO, not a regular file: refused",
        f"{fifo}: a FIFO, not a regular file: refused",
    ]


def test_a_folder_without_logs_is_refused(tmp_path: Path) -> None:
    """A folder stands for the logs in it (a run's folder, ``test_report``); one without any is refused."""
    (tmp_path / "sub.log").mkdir()  # a folder, though named as a log: not one of the logs
    done = run(program("acpc-report"), str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert f"no ACPC logs (.log, .log.gz, .log.bz2) in the folder {tmp_path}" in line


# -- the same log twice; PHH names ---------------------------------------------------


def test_the_same_log_named_four_ways_is_counted_once(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "m.log"
    shutil.copy(MATCH_LOG, log)
    (tmp_path / "link.log").symlink_to(log)
    hands = sum(1 for line in MATCH_LOG.read_text().splitlines() if line.startswith("STATE"))
    names = [str(log), "logs/m.log", "logs/../logs/m.log", "link.log"]
    for mode in ([], ["--player", "a-rule"]):
        out = tmp_path / "report.json"
        done = run(program("acpc-report"), *mode, *names, "--json", str(out), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert json.loads(out.read_text())["hands_played"] == hands
        said = [line for line in done.stderr.splitlines() if "counted once" in line]
        assert said == [f"acpc-report: {name} is the same file as {log}: counted once" for name in names[1:]]


def test_two_logs_of_one_name_get_a_phh_file_each_and_none_is_replaced_silently(tmp_path: Path) -> None:
    lines = COMPETITION.read_text().splitlines()
    states = [line for line in lines if line.startswith("STATE")]
    x, y = tmp_path / "x", tmp_path / "y"
    x.mkdir()
    y.mkdir()
    (x / "m.log").write_text("\n".join(lines) + "\n")
    (y / "m.log").write_text("\n".join(states[:3]) + "\n")
    out = tmp_path / "phh"
    done = run(program("acpc-report"), "--phh", str(out), "x/m.log", "y/m.log", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in out.iterdir()) == ["x-m.phhs", "y-m.phhs"]
    for name, expected in (("x-m.phhs", states), ("y-m.phhs", states[:3])):
        with open(out / name, "rb") as file:
            numbers = [history.hand for history in HandHistory.load_all(file)]
        assert numbers == [int(line.split(":")[1]) for line in expected]
    again = run(program("acpc-report"), "--phh", str(out), "y/m.log", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout == f"y/m.log: 3 hands written to {out / 'm.phhs'}\n"  # alone, its plain name
    again = run(program("acpc-report"), "--phh", str(out), "x/m.log", "y/m.log", cwd=tmp_path)
    assert again.stdout.count("(it replaces the file there before)") == 2


# -- JSON and checkpoint sidecars -----------------------------------------------------


def test_a_json_number_of_5000_digits_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text('{\n  "a": 1,\n  "b": ' + FIVE_THOUSAND + "\n}\n")
    with pytest.raises(InputError, match=r"report\.json, line 3: a number of 5000 characters, more than 100$"):
        read_json(path)
    path.write_text('{"a": ' + "1" * 100 + ".5e-3}")
    with pytest.raises(InputError, match=r"line 1: a number of 105 characters"):
        read_json(path)
    path.write_text('{"a": [' + ", ".join(["12345678901234567890"] * 3) + "]}")
    assert read_json(path) == {"a": [12345678901234567890] * 3}


def test_a_json_file_past_its_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + "0," * (1024 * 1024) + "0]")  # 2 MiB + 2 bytes
    with pytest.raises(InputError, match=r"big\.json: more than 2,097,152 bytes of JSON"):
        read_json(path)


def agent_with_checkpoint(
    tmp_path: Path, agent: str, name: str, change: dict[str, Any], *, measure: bool = True
) -> dict[str, Any]:
    """``acpc-agent AGENT`` with a copy of the shipped checkpoint ``name`` whose sidecar has ``change``
    applied (nested keys as ``"a.b"``), measured as a process (else run in this one, without "peak"); it fails
    before it connects (port 9 is closed)."""
    weights = CHECKPOINTS / name
    copy = tmp_path / weights.name
    shutil.copy(weights, copy)
    meta = json.loads(weights.with_suffix(".json").read_text())
    for key, value in change.items():
        *outer, last = key.split(".")
        target = meta
        for part in outer:
            target = target[part]
        target[last] = value
    copy.with_suffix(".json").write_text(json.dumps(meta))
    game = "holdem.nolimit.2p.reverse_blinds" if agent == "ensemble" else "holdem.limit.2p.reverse_blinds"
    args = (agent, "127.0.0.1", "9", "--game", game, "--checkpoint", str(copy))
    if measure:
        return measured(program("acpc-agent"), *args)
    done = run_in_process("acpc-agent", *args)
    return {"code": done.returncode, "err": done.stderr}


def test_a_sidecar_of_an_absurd_network_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    baseline = agent_with_checkpoint(tmp_path, "nfq", "nfq.pt", {})
    assert "connection" in baseline["err"].lower() or "connect" in baseline["err"].lower(), baseline["err"]
    huge = agent_with_checkpoint(tmp_path, "nfq", "nfq.pt", {"arguments.hidden": 10**7})
    assert huge["code"] == 2
    assert huge["err"].splitlines() == [
        f"ERROR: nfq: {tmp_path / 'nfq.json'}: the network's sizes "
        '{"inputs": 42, "hidden": 10000000} must be whole numbers 1..65536'
    ]
    assert huge["peak"] - baseline["peak"] <= 50 * MB  # the old loader took 1.7 GB for the hidden layer
    # Within the bounds, but more weights than the file holds: hidden 60000 over 42 inputs and 3 outputs
    # is (42 * 60000 + 60000 + 60000 * 3 + 3) * 4 bytes.
    wide = agent_with_checkpoint(tmp_path, "nfq", "nfq.pt", {"arguments.hidden": 60000}, measure=False)
    size = (CHECKPOINTS / "nfq.pt").stat().st_size
    assert wide["err"].splitlines() == [
        f"ERROR: nfq: {tmp_path / 'nfq.pt'}: damaged checkpoint (the nfq network nfq.json describes has "
        f"11,040,012 bytes of weights, the file {size:,})"
    ]


def test_an_ensemble_sidecar_of_absurd_sizes_is_refused(tmp_path: Path) -> None:
    huge = agent_with_checkpoint(tmp_path, "ensemble", "ensemble-networks.pt", {"config.layers": 10**9}, measure=False)
    assert huge["code"] == 2 and "bad network sizes (layers 1..64, widths 1..65536)" in huge["err"]
    wide = agent_with_checkpoint(tmp_path, "ensemble", "ensemble-networks.pt", {"config.mlp": 60000}, measure=False)
    assert wide["code"] == 2 and "damaged checkpoint (the networks ensemble-networks.json describes" in wide["err"]


def test_a_sidecar_number_of_5000_digits_is_refused_in_one_line(tmp_path: Path) -> None:
    npz = tmp_path / "cfr-leduc.npz"
    shutil.copy(CHECKPOINTS / "cfr-leduc.npz", npz)
    text = (CHECKPOINTS / "cfr-leduc.json").read_text()
    assert '"iterations": ' in text
    line = text[: text.index('"iterations": ')].count("\n") + 1
    npz.with_suffix(".json").write_text(text.replace('"iterations": ', f'"iterations": {FIVE_THOUSAND}, "was": ', 1))
    done = run(program("acpc-agent"), "cfr", "127.0.0.1", "9", "--game", "leduc", "--checkpoint", str(npz))
    assert done.returncode == 2
    (message,) = done.stderr.splitlines()
    assert message.startswith(
        f"ERROR: cfr: {npz.with_suffix('.json')}, line {line}: unreadable description "
        "(a number of 5000 characters, more than 100)"
    )


def test_a_cfr_strategy_past_the_checkpoint_limit_is_refused_from_its_header(tmp_path: Path) -> None:
    # cfr-leduc's table: 936 rows ("infosets" in its sidecar) of 3 actions, 22,464 bytes as float64
    meta = json.loads((CHECKPOINTS / "cfr-leduc.json").read_text())
    assert meta["infosets"] == 936
    done = subprocess.run(
        [program("acpc-agent"), "cfr", "127.0.0.1", "9", "--game", "leduc"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "ACPC_ARENA_MAX_CHECKPOINT_BYTES": "20000"},
    )  # fmt: skip
    assert done.returncode == 2
    assert "a strategy table of shape (936, 3): more than 20,000 bytes of weights" in done.stderr


def test_game_definitions_past_1_mib_are_refused_before_they_are_read(tmp_path: Path) -> None:
    path = tmp_path / "padded.game"
    path.write_text(KUHN + "#" * (1024 * 1024))
    with pytest.raises(ProtocolError, match=r"padded\.game: more than 1,048,576 bytes in a game definition"):
        load_game(path)
    path.write_text(KUHN + "#" * 1000)
    assert load_game(path).num_ranks == 3


def test_a_file_written_whole_keeps_its_links_and_leaves_special_files_in_place(tmp_path: Path) -> None:
    target, link = tmp_path / "report.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = spawn(["cat", str(fifo)], stdout=subprocess.PIPE)
    write_atomic(fifo, "through the FIFO")
    assert reader.communicate(timeout=30)[0] == b"through the FIFO"
    assert fifo.is_fifo()
    with pytest.raises(KeyboardInterrupt), atomic_writer(target) as file:
        file.write(b"half")
        raise KeyboardInterrupt
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == [
        "link.json",
        "out.fifo",
        "report.json",
    ]


def test_a_header_naming_a_3_gb_game_file_does_not_read_it(tmp_path: Path, report_baseline: int) -> None:
    huge = tmp_path / "huge.game"
    with open(huge, "wb") as file:
        file.truncate(3 * 1024 * MB)  # sparse: 3 GiB that take no disk
    lines = [line for line in COMPETITION.read_text().splitlines() if not line.startswith("# name/")]
    log = tmp_path / "m.log"
    log.write_text("\n".join([f"# name/game/hands/seed m {huge} 7 1", *lines]) + "\n")
    result = measured(program("acpc-report"), "--player", "Slumbot_2pn_2017", str(log))
    assert result["code"] == 0, result["err"]  # the game inferred from the hands instead
    assert result["peak"] - report_baseline <= 50 * MB and result["wall"] < 60
    with pytest.raises(ProtocolError, match=r"huge\.game: more than 1,048,576 bytes in a game definition"):
        load_game(huge)
