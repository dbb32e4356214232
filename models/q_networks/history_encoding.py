"""The Q-networks' encodings (``lstm_dqn``, ``dqn``, ``poker_cnn``): the seed's 16 planes, or those and the
betting history and position, or those and the hand's strength.

A checkpoint's sidecar names its encoding (``encoding``; a sidecar without one is
``seed``), and the agent and the trainers build that encoding's planes:

- ``seed``: ``models.q_networks.encoding`` (seed 000's 16 planes of 17x17: cards,
  round, pot, the opponent's last raise this round).
- ``history``: those planes, then one plane per position in the hand, all ones
  for the viewer's (heads-up limit hold'em: position 0 is the big blind, who acts
  first after the pre-flop), then for each betting round two planes, every cell
  the number of raises the viewer made in that round, then the number the other
  players made. 16 + 2 + 2 x 4 = 26 planes for heads-up hold'em.
- ``strength``: the ``history`` planes, then a plane of the viewer's E[HS] and one of
  its E[HS^2] on the board seen, every cell the value (``models.nfq.features.hand_strength``:
  the same estimates as ``nfq``'s features). 28 planes for heads-up hold'em.

In heads-up limit poker a round's betting is a check or not, then raises taking
turns, then a call or a fold, so the position and each player's raises in each
round give the whole betting sequence, which the teacher's strategy depends on;
the seed's planes show only the pot and the opponent's last raise.

The observation (the few numbers an image is made from, as ``encoding.observe``)
is ``encoding.observe``'s fields, then the viewer's position, then the raises of
the viewer and of the others in each round, then (``strength``) E[HS] and E[HS^2] in
parts of ``STRENGTH_SCALE``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from acpc_arena.models.hand_strength.classes import hand_class
from acpc_arena.models.nfq.features import OPPONENTS, RUNOUTS, is_holdem_deck, preflop_table
from acpc_arena.models.q_networks.encoding import IMAGE_SIZE, images, num_planes, observe
from acpc_arena.protocol.equity import strength_moments
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import RAISE, State
from acpc_arena.protocol.wire import MatchState


def seed_fields(game: Game) -> int:
    """Fields of ``encoding.observe``: hole cards, board cards, round, pot, last raise."""
    return game.num_hole_cards + game.total_board_cards + 3


def history_fields(game: Game) -> int:
    """Fields of ``observe_history``: ``encoding.observe``'s, the viewer's position, two per round."""
    return seed_fields(game) + 1 + 2 * game.num_rounds


def history_planes(game: Game) -> int:
    return num_planes(game) + game.num_players + 2 * game.num_rounds


def observe_history(state: State, viewer: int) -> np.ndarray:
    """``encoding.observe``'s fields, the viewer's position, then per round the raises of the viewer and of the
    others (int16)."""
    raises = []
    for round_ in range(state.game.num_rounds):
        own = others = 0
        for action, player in zip(state.actions[round_], state.acting_players[round_], strict=True):
            if action.kind == RAISE:
                if player == viewer:
                    own += 1
                else:
                    others += 1
        raises += [own, others]
    return np.concatenate([observe(state, viewer), np.array([viewer, *raises], dtype=np.int16)])


def history_images(game: Game, observations: np.ndarray) -> np.ndarray:
    """(N, ``history_planes``, 17, 17) float32 images of (N, fields) observations from ``observe_history``."""
    observations = np.asarray(observations, dtype=np.int64)
    base = seed_fields(game)
    n, players = len(observations), game.num_players
    extra = np.zeros((n, players + 2 * game.num_rounds, IMAGE_SIZE, IMAGE_SIZE), dtype=np.float32)
    extra[np.arange(n), observations[:, base]] = 1.0
    extra[:, players:] = observations[:, base + 1 :, None, None]
    return np.concatenate([images(game, observations[:, :base]), extra], axis=1)


STRENGTH_SCALE = 10_000
"""``observe_strength`` keeps E[HS] and E[HS^2] as whole numbers of this many parts (int16 observations)."""


def strength_fields(game: Game) -> int:
    """Fields of ``observe_strength``: ``observe_history``'s, then E[HS] and E[HS^2]."""
    return history_fields(game) + 2


def strength_planes(game: Game) -> int:
    return history_planes(game) + 2


KNOWN_MOMENTS = 1 << 16
"""(hole, board) pairs whose strength ``_MOMENTS`` keeps before it starts again."""
_MOMENTS: dict[tuple[Game, tuple[int, ...], tuple[int, ...]], tuple[int, int]] = {}
"""``observe_strength``'s E[HS] and E[HS^2] (parts of ``STRENGTH_SCALE``) by game, hole cards and board."""


def _moments(game: Game, hole: tuple[int, ...], board: tuple[int, ...]) -> tuple[int, int]:
    key = (game, hole, board)
    if key not in _MOMENTS:
        prefetch_strength(game, [(hole, board)])
    return _MOMENTS[key]


def prefetch_strength(game: Game, pairs: Sequence[tuple[tuple[int, ...], tuple[int, ...]]]) -> None:
    """Compute the strength of the (hole cards, board) ``pairs`` not known yet, many at a time, for
    ``observe_strength`` to find (each the same numbers as computed alone: ``strength_moments`` rows are
    independent)."""
    missing = list(dict.fromkeys(pair for pair in pairs if (game, *pair) not in _MOMENTS))
    if not missing:
        return
    if len(_MOMENTS) + len(missing) > KNOWN_MOMENTS:
        _MOMENTS.clear()
    k = game.num_hole_cards
    rows = np.full((len(missing), k + game.total_board_cards), -1, dtype=np.int64)
    for i, (hole, board) in enumerate(missing):
        rows[i, :k], rows[i, k : k + len(board)] = hole, board
    for (hole, board), (mean, square) in zip(missing, _strength_rows(game, rows).tolist(), strict=True):
        _MOMENTS[game, hole, board] = round(mean * STRENGTH_SCALE), round(square * STRENGTH_SCALE)


def prefetch_view_strength(game: Game, views: Sequence[MatchState]) -> None:
    """``prefetch_strength`` of each view's viewer's hole cards on the board of every round so far (an LSTM's
    observations go back to the hand's first decision)."""
    pairs = []
    for view in views:
        state = view.state
        hole, board = tuple(state.hole_cards[view.viewer]), state.board_cards
        pairs += [(hole, tuple(board[: game.board_start[r + 1]])) for r in range(state.round + 1)]
    prefetch_strength(game, pairs)


def observe_strength(state: State, viewer: int) -> np.ndarray:
    """``observe_history``'s fields, then the viewer's E[HS] and E[HS^2] with the board seen so far
    (``models.nfq.features.hand_strength``, in parts of ``STRENGTH_SCALE``)."""
    hole, board = tuple(state.hole_cards[viewer]), tuple(state.visible_board())
    return np.concatenate([observe_history(state, viewer), np.array(_moments(state.game, hole, board), np.int16)])


def strength_images(game: Game, observations: np.ndarray) -> np.ndarray:
    """(N, ``strength_planes``, 17, 17) float32 images of (N, fields) observations from ``observe_strength``:
    ``history_images``' planes, then a plane of E[HS] and one of E[HS^2], every cell the value."""
    observations = np.asarray(observations)
    base = history_fields(game)
    moments = observations[:, base : base + 2].astype(np.float32) / STRENGTH_SCALE
    extra = np.broadcast_to(moments[:, :, None, None], (len(observations), 2, IMAGE_SIZE, IMAGE_SIZE))
    return np.concatenate([history_images(game, observations[:, :base]), extra], axis=1)


def strength_columns(game: Game, observations: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """(..., 2) E[HS] and E[HS^2] fields of ``observe_history`` observations (..., fields) where ``valid``, as
    ``observe_strength`` adds them (zero elsewhere; the strengths computed many rows at a time, each row's
    the same as alone): a recording of the history encoding made a strength one."""
    out = np.zeros((*observations.shape[:-1], 2), dtype=np.int64)
    rows = observations[valid][:, : game.num_hole_cards + game.total_board_cards].astype(np.int64)
    out[valid] = np.rint(_strength_rows(game, rows) * STRENGTH_SCALE).astype(np.int64)
    return out.astype(np.int16)


def _strength_rows(game: Game, rows: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """(N, 2) ``hand_strength`` of each row of (N, hole + board) cards, -1 for the board's cards not seen: the
    rows grouped by the cards seen and computed ``chunk`` at a time (the numbers of a row alone)."""
    k, b = game.num_hole_cards, game.total_board_cards
    moments = np.zeros((len(rows), 2))
    seen = (rows[:, k:] >= 0).sum(axis=1)
    for count in np.unique(seen):
        chosen = np.flatnonzero(seen == count)
        if count == 0 and is_holdem_deck(game) and b:
            table = preflop_table(game)
            moments[chosen] = table[[hand_class(hole) for hole in rows[chosen, :k].tolist()]]
            continue
        for part in np.array_split(chosen, max(1, len(chosen) // chunk)):
            holes, boards = rows[part, :k].astype(np.uint8), rows[part, k : k + count].astype(np.uint8)
            mean, square = strength_moments(game.deck, holes, boards, b, RUNOUTS, OPPONENTS)
            moments[part] = np.stack([mean, square], axis=1)
    return moments


@dataclass(frozen=True)
class Encoding:
    """How a checkpoint's network sees a view: its planes, observation and images."""

    name: str
    planes: Callable[[Game], int]
    fields: Callable[[Game], int]
    """Numbers in one observation."""
    observe: Callable[[State, int], np.ndarray]
    images: Callable[[Game, np.ndarray], np.ndarray]
    hole_only_first: bool = True
    """Whether the hole cards show only in the observation's first fields (another viewer's hole cards make
    the same observation with those fields changed); not where the hand's strength is a field."""
    prefetch: Callable[[Game, Sequence[MatchState]], None] | None = None
    """Work for the observations of many views done at once ahead of ``observe`` (the same observations)."""


ENCODINGS = {
    "seed": Encoding("seed", num_planes, seed_fields, observe, images),
    "history": Encoding("history", history_planes, history_fields, observe_history, history_images),
    "strength": Encoding(
        "strength", strength_planes, strength_fields, observe_strength, strength_images, False, prefetch_view_strength
    ),
}


def encoding_of(meta: dict[str, object], path: object = "the checkpoint") -> Encoding:
    """The encoding a checkpoint's sidecar ``meta`` names (``seed`` when it names none); ``ValueError`` naming
    ``path`` for an unknown one."""
    name = meta.get("encoding", "seed")
    if name not in ENCODINGS:
        raise ValueError(f"{path}: unknown encoding {name!r} (known: {', '.join(ENCODINGS)})")
    return ENCODINGS[str(name)]
