"""The turn bucket table of the ``ehs2-exact`` abstraction (``models/cfr/turn_table.py``).

The expected values are independent of the table: the boards up to suits counted by
Burnside's lemma and checked orbit by orbit with the 24 suit permutations written
here, and the turn keys computed exactly for the board itself (``hands_turn_ehs2``,
bucketed as the abstraction does) rather than looked up on the board's
representative. Building the whole table takes minutes: the tests build the rows of
a few boards into a table whose other rows send every key to the exact computation.
"""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from acpc_arena.models.cfr import hand_strength as hs
from acpc_arena.models.cfr import turn_table as tt
from acpc_arena.models.cfr.abstraction import ExactStrengthBuckets, Worlds
from acpc_arena.models.cfr.checkpoint import load_policy
from acpc_arena.models.checkpoints import checkpoint_path

PERMUTATIONS = list(itertools.permutations(range(4)))


def suit_image(cards: tuple[int, ...], permutation: tuple[int, ...]) -> tuple[int, ...]:
    """The cards with their suits permuted (card = 4 * rank + suit), sorted."""
    return tuple(sorted(4 * (card // 4) + permutation[card % 4] for card in cards))


def burnside_orbits(size: int) -> int:
    """Boards of ``size`` cards up to suits: the mean over the 24 permutations of the boards each fixes. A board
    fixed by a permutation is a union of its cycles on the cards: each cycle of suits, once for each of 13 ranks."""
    total = 0
    for permutation in PERMUTATIONS:
        cycles, seen = [], set()
        for suit in range(4):
            length = 0
            while suit not in seen:
                seen.add(suit)
                suit, length = permutation[suit], length + 1
            if length:
                cycles += [length] * 13
        ways = [1] + [0] * size  # ways[k]: the unions of cycles holding k cards
        for length in cycles:
            ways = [ways[k] + (ways[k - length] if k >= length else 0) for k in range(size + 1)]
        total += ways[size]
    assert total % 24 == 0
    return total // 24


def test_the_turn_boards_up_to_suits_are_counted_by_burnside() -> None:
    assert burnside_orbits(3) == len(hs.canonical_flops()) == 1755
    assert burnside_orbits(4) == len(tt.canonical_turns())


def test_each_turn_board_lies_in_the_orbit_of_exactly_one_representative() -> None:
    representatives = tt.canonical_turns()
    covered: set[tuple[int, ...]] = set()
    for board in representatives:
        orbit = {suit_image(board, permutation) for permutation in PERMUTATIONS}
        assert board == min(orbit)  # the smallest sorted image
        assert not orbit & covered  # no two representatives in one orbit
        covered |= orbit
    assert covered == set(itertools.combinations(range(52), 4))


def test_a_board_maps_onto_its_representative_by_a_suit_permutation() -> None:
    rng = np.random.default_rng(3)
    representatives = set(tt.canonical_turns())
    for _ in range(300):
        board = tuple(sorted(rng.permutation(52)[:4].tolist()))
        representative, mapping = hs.canonical_board(np.array(board))
        assert representative == min(suit_image(board, permutation) for permutation in PERMUTATIONS)
        assert representative in representatives
        suits = {card % 4: int(mapping[card]) % 4 for card in range(52)}
        assert sorted(suits.values()) == [0, 1, 2, 3]
        assert mapping.tolist() == [4 * (card // 4) + suits[card % 4] for card in range(52)]
        assert tuple(sorted(mapping[list(board)].tolist())) == representative


@cache
def shipped() -> ExactStrengthBuckets:
    abstraction = load_policy(checkpoint_path("cfr-ehs2-exact")).abstraction
    assert isinstance(abstraction, ExactStrengthBuckets)
    return abstraction


def exact_turn_buckets(board: np.ndarray, holes: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The turn bucket of each hole computed on the board itself."""
    return np.searchsorted(edges, hs.hands_turn_ehs2(holes, board), side="right")


def random_boards(count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.permutation(52)[:4].astype(np.uint8) for _ in range(count)]


def small_table(tmp_path: Path, boards: list[np.ndarray], edges: np.ndarray) -> Path:
    """A table holding the rows of the representatives of ``boards`` (the others every entry ambiguous)."""
    path = tmp_path / "turn.npy"
    tt.build_table(edges, path, boards=[hs.canonical_board(board)[0] for board in boards])
    return path


def test_the_tables_rows_are_the_buckets_computed_on_each_board_itself(tmp_path: Path) -> None:
    edges = shipped().edges[1]
    boards = random_boards(6, 21)
    table = tt.load_table(small_table(tmp_path, boards, edges))
    looked_up = ambiguous = 0
    for board in boards:
        hands = np.flatnonzero(hs.board_mask(board[None])[0])
        assert len(hands) == 1128
        every = hs.turn_ehs2(board)
        assert (hs.hands_turn_ehs2(hs.HANDS[hands], board) == every[hands]).all()  # the same bits
        expected = exact_turn_buckets(board, hs.HANDS[hands], edges)
        found = table.buckets(board, hands)
        sure = found != tt.AMBIGUOUS
        assert (found[sure] == expected[sure]).all()
        looked_up, ambiguous = looked_up + int(sure.sum()), ambiguous + int((~sure).sum())
    assert ambiguous < looked_up / 100


def abstraction_with(turn_edges: np.ndarray, table: Path | None) -> ExactStrengthBuckets:
    """The shipped abstraction with ``turn_edges``, its turn table in ``table`` (None: none)."""
    edges = shipped().edges
    abstraction = ExactStrengthBuckets(shipped().game, shipped().buckets, [edges[0], turn_edges, edges[2]],
                                       shipped().flop_buckets)  # fmt: skip
    abstraction.turn_table_file = None if table is None else tt.TurnTableFile(table)
    return abstraction


def turn_keys(abstraction: ExactStrengthBuckets, holes: np.ndarray, boards: np.ndarray) -> np.ndarray:
    return abstraction.keys(Worlds(holes[:, None, :], boards, np.ones(len(holes))), 0, 2)


def test_a_value_on_an_edge_is_ambiguous_and_its_key_is_computed(tmp_path: Path) -> None:
    """Edges placed exactly on values of hands of the board: the table cannot know on which side the board's
    own sum lands (its rivers come in another order on the representative), so those keys are computed."""
    board = random_boards(1, 22)[0]
    values = hs.turn_ehs2(board)
    hands = np.flatnonzero(hs.board_mask(board[None])[0])
    distinct = np.unique(values[hands])
    edges = distinct[np.linspace(0, len(distinct) - 1, len(shipped().edges[1])).astype(int)]
    assert len(np.unique(edges)) == len(edges)
    path = small_table(tmp_path, [board], edges)
    found = tt.load_table(path).buckets(board, hands)
    on_edge = np.isin(values[hands], edges)
    assert on_edge.any() and (found[on_edge] == tt.AMBIGUOUS).all()
    holes = hs.HANDS[hands]
    for count in (5, len(hands)):  # a few holdings, and more than BATCH_FROM (local best response)
        keys = turn_keys(abstraction_with(edges, path), holes[:count], np.tile(board, (count, 1)))
        assert (keys == exact_turn_buckets(board, holes[:count], edges)).all()


def test_the_keys_are_the_same_with_and_without_the_table(tmp_path: Path) -> None:
    """Sampled deals, one holding at a time as the agent asks, and every holding of a board at once as local
    best response asks; the table's rows are the boards' own, so its lookups are used."""
    edges = shipped().edges[1]
    rng = np.random.default_rng(23)
    deals = [rng.permutation(52)[:6].astype(np.uint8) for _ in range(12)]
    path = small_table(tmp_path, [deal[2:] for deal in deals], edges)
    with_table, without = abstraction_with(edges, path), abstraction_with(edges, None)
    table = tt.load_table(path)
    looked_up = 0
    for deal in deals:
        hole, board = deal[:2][None, :], deal[2:][None, :]
        assert turn_keys(with_table, hole, board) == turn_keys(without, hole, board)
        looked_up += int(table.buckets(deal[2:], hs.HAND_INDEX[deal[0], deal[1]][None])[0] != tt.AMBIGUOUS)
    assert looked_up >= 10
    board = deals[0][2:]
    hands = np.flatnonzero(hs.board_mask(board[None])[0])
    many = np.tile(board, (len(hands), 1))
    assert (turn_keys(with_table, hs.HANDS[hands], many) == turn_keys(without, hs.HANDS[hands], many)).all()


def test_a_damaged_table_is_refused_and_the_keys_are_computed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edges = shipped().edges[1]
    board = random_boards(1, 24)[0]
    path = small_table(tmp_path, [board], edges)
    sound = path.read_bytes()
    hole = np.array([[c for c in range(52) if c not in board][:2]], dtype=np.uint8)
    expected = exact_turn_buckets(board, hole, edges)
    row = hs.canonical_board(board)[0]
    flipped = bytearray(sound)
    flipped[len(sound) - 1326 * (len(tt.canonical_turns()) + 1 - tt.canonical_turns().index(row))] ^= 1
    for damaged, message in (
        (sound[: len(sound) // 2], "is damaged"),  # truncated
        (bytes(flipped), "fails its digest"),  # an entry of the board's row changed
        (sound[:-1326], "is damaged"),  # a row short
    ):
        path.write_bytes(damaged)
        with pytest.raises(tt.TurnTableError, match=message):
            tt.load_table(path)
        abstraction = abstraction_with(edges, path)
        assert turn_keys(abstraction, hole, board[None, :]) == expected
        assert message in capsys.readouterr().err
        assert abstraction.turn_table_file is not None and abstraction.turn_table_file.table() is None


def test_a_table_built_while_the_abstraction_is_in_use_is_taken_up(tmp_path: Path) -> None:
    edges = shipped().edges[1]
    board = random_boards(1, 25)[0]
    abstraction = abstraction_with(edges, tmp_path / "turn.npy")
    assert abstraction.turn_table_file is not None and abstraction.turn_table_file.table() is None
    small_table(tmp_path, [board], edges)
    assert isinstance(abstraction.turn_table_file.table(), tt.TurnTable)


def test_the_tables_file_is_named_by_its_code_and_edges(tmp_path: Path) -> None:
    edges = shipped().edges[1]
    moved = edges.copy()
    moved[0] = np.nextafter(moved[0], 1.0)
    assert tt.table_path(edges, tmp_path).parent == tmp_path
    assert tt.table_path(edges, tmp_path) == tt.table_path(edges.copy(), tmp_path)
    assert tt.table_path(edges, tmp_path) != tt.table_path(moved, tmp_path)
    shipped_file = shipped().turn_table_file
    assert shipped_file is not None and shipped_file.path == tt.table_path(edges)


def test_damaged_representatives_on_disk_are_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACPC_ARENA_CACHE", str(tmp_path))
    expected = hs.canonical_boards(4)
    assert tt.canonical_turns.__wrapped__() == expected  # computed, and kept in the cache folder
    (kept,) = tmp_path.glob("turn-boards-*.npy")
    boards = np.load(kept)
    for damaged in (boards[::-1], boards[:-1], np.where(boards == 5, 6, boards), (boards + 1) % 52):
        np.save(kept, np.ascontiguousarray(damaged))
        assert tt.canonical_turns.__wrapped__() == expected


def test_the_command_keeps_a_sound_table_and_builds_a_damaged_one_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``acpc-cfr turn-table``, its table's file and its build made small (the rows of one board)."""
    from acpc_arena.models.training import cfr_cli

    board = hs.canonical_board(random_boards(1, 26)[0])[0]
    path = tmp_path / "turn.npy"
    monkeypatch.setattr(cfr_cli, "table_path", lambda edges: path)
    monkeypatch.setattr(cfr_cli, "build_table", lambda edges, to, **how: tt.build_table(edges, to, boards=[board]))
    assert cfr_cli.run(["turn-table", "--processes", "1"]) == 0
    assert f"turn table of cfr-ehs2-exact: {path} (16,432 boards" in capsys.readouterr().out
    built = path.read_bytes()
    assert cfr_cli.run(["turn-table"]) == 0
    assert capsys.readouterr().out == f"turn table of cfr-ehs2-exact: {path} (up to date)\n"
    path.write_bytes(built[:-1])
    assert cfr_cli.run(["turn-table", "--processes", "1"]) == 0
    out, err = capsys.readouterr()
    assert "is damaged" in err and "building it again" in err and f"{path} (16,432 boards" in out
    assert path.read_bytes() == built
    assert cfr_cli.run(["turn-table", "cfr-improved"]) == 2
    assert "has the improved abstraction: a turn table is for ehs2-exact-F-T-R" in capsys.readouterr().err


def test_a_holding_on_the_board_is_refused_with_the_table(tmp_path: Path) -> None:
    edges = shipped().edges[1]
    board = random_boards(1, 27)[0]
    path = small_table(tmp_path, [board], edges)
    hole = np.array([[board[0], next(c for c in range(52) if c not in board)]], dtype=np.uint8)
    assert tt.load_table(path).buckets(board, hs.HAND_INDEX[hole[:, 0], hole[:, 1]]) == tt.AMBIGUOUS
    abstraction = abstraction_with(edges, path)
    with pytest.raises(ValueError, match="holds one of the board"):
        turn_keys(abstraction, hole, board[None, :])
