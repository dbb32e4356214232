"""Exporting ACPC logs to the Poker Hand History format (PHH) through pokerkit's notation module.

Each hand is replayed in pokerkit's own state machine, action by action, and written
with ``pokerkit.HandHistory.from_game_state(...).dumps()``; one ``.phhs`` file per log
holds its hands as ``[1]``, ``[2]``, ... sections, as ``HandHistory.dumps_all`` writes
them (written a hand at a time here, so a log of millions of hands takes constant
memory, into a temporary file renamed into place at the end), and
``HandHistory.load_all`` reads them back. Two logs of the same name in different
folders get files of different names (``phh_paths``).

How ACPC maps onto PHH:

- Hold'em only (pokerkit's ``FT`` fixed-limit and ``NT`` no-limit Texas hold'em): two
  hole cards, boards 3, 1, 1, blinds only, limit raises one size on the first two rounds
  and another on the last two, and the usual order of play (heads-up: the big blind is
  position 0 and acts first after the flop; more players: position 0 is the small blind
  and acts first after the flop, the player after the big blind first before it).
- PHH player ``p<k>`` is ACPC position ``k - 1``; ``players`` are the log's names in
  position order, ``hand`` its hand number, ``event`` the header's match name (a name's
  bytes that are not UTF-8 written ``\\xff``, as TOML text must be valid Unicode: ``phh_text``).
- Blinds: PHH lists them from the small blind, and pokerkit gives heads-up players the
  blinds in reverse (player 0 the second entry); so the heads-up ACPC ``blind = 100 50``
  (position 0 the big blind) is ``blinds_or_straddles = [50, 100]``, and the 3-player
  ``blind = 50 100 0`` stays ``[50, 100, 0]``. The replay checks that pokerkit's player
  to act is the ACPC one at every action.
- No-limit raise sizes: ACPC raises to a total over the whole hand, PHH (``cbr``) to a
  total over the betting round; the difference is what each player had put in before
  the round. ``min_bet`` is the big blind.
- Stacks: the game's stacks (``20000``); limit games have none in ACPC (``2**31 - 1``,
  unbounded, which is written).
- ``finishing_stacks`` are the starting stacks plus the log's values, after checking
  that pokerkit's replay gives the same; ``_acpc_log`` and ``_acpc_line`` (user fields)
  say where the hand came from.

Known differences (none changes a logged hand's payoffs): pokerkit caps fixed-limit
betting at four bets and raises per round where the ACPC limit games allow three raises
before the flop; a pot split into an odd number of chips gives pokerkit's odd chip to
one winner where the ACPC dealer gives each a fraction (``7.5``), so the finishing
stacks of such a hand are pokerkit's, within one chip of the log.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import NamedTuple

from pokerkit import Automation, FixedLimitTexasHoldem, HandHistory, Mode, NoLimitTexasHoldem, Poker
from pokerkit import State as PokerkitState

from acpc_arena.dealer.server.logfiles import unicode_text
from acpc_arena.protocol.acpc_log import AcpcLogReader, Problem
from acpc_arena.protocol.cards import CARD_STRINGS
from acpc_arena.protocol.errors import ProtocolError
from acpc_arena.protocol.files import atomic_writer
from acpc_arena.protocol.game import Game
from acpc_arena.protocol.state import FOLD, RAISE, State
from acpc_arena.protocol.wire import LogHand

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
"""What pokerkit does by itself; dealing (a burnt card is unknown, ``??``), betting and showing come from the log."""
SECTION_GAP = "\n\n"
"""Between two hands of a ``.phhs`` file, as ``HandHistory.dumps_all`` joins them."""


class PhhGame(NamedTuple):
    """An ACPC hold'em game as pokerkit plays it."""

    game: Poker
    starting_stacks: list[int]


def phh_game(game: Game) -> PhhGame:
    """pokerkit's game for an ACPC game; ``ProtocolError`` if PHH cannot express it."""
    n = game.num_players
    if (game.num_rounds, game.num_hole_cards, game.num_board_cards) != (4, 2, (0, 3, 1, 1)) or (
        game.num_suits,
        game.num_ranks,
    ) != (4, 13):
        raise ProtocolError("PHH export covers Texas hold'em games only (4 rounds, 2 hole cards, boards 3 1 1)")
    big = game.blind.index(max(game.blind))
    if n == 2:
        expected_first = (1 - big, big, big, big)
        blinds = [game.blind[1], game.blind[0]]  # pokerkit gives heads-up player i the entry (not i)
    else:
        expected_first = ((big + 1) % n, 0, 0, 0)
        blinds = list(game.blind)
        if big != 1 or any(game.blind[2:]) or game.blind[0] > game.blind[1]:
            raise ProtocolError("PHH export needs the blinds on positions 0 (small) and 1 (big)")
    if n == 2 and big != 0:
        raise ProtocolError("PHH export needs the heads-up big blind on position 0 (reverse blinds)")
    if game.first_player != expected_first:
        raise ProtocolError("PHH export needs the usual order of play (see dealer/arena/phh.py)")
    if game.no_limit:
        poker: Poker = NoLimitTexasHoldem(AUTOMATIONS, False, 0, blinds, max(game.blind), mode=Mode.CASH_GAME)
    else:
        small, _, large, _ = game.raise_size
        if game.raise_size != (small, small, large, large):
            raise ProtocolError("PHH fixed-limit hold'em needs one raise size for rounds 1-2 and one for rounds 3-4")
        poker = FixedLimitTexasHoldem(AUTOMATIONS, False, 0, blinds, small, large, mode=Mode.CASH_GAME)
    return PhhGame(poker, list(game.stack))


def _cards(cards: list[int]) -> str:
    return "".join(CARD_STRINGS[c] for c in cards)


def _show_hands(state: PokerkitState) -> None:
    """Every hand at a showdown is shown, as in the ACPC log."""
    while state.showdown_index is not None:
        state.show_or_muck_hole_cards(True)


def replay(hand: LogHand, phh: PhhGame) -> PokerkitState:
    """The log's hand played out in pokerkit: cards dealt, actions taken, hands shown."""
    acpc = hand.state
    game = acpc.game
    state = phh.game(phh.starting_stacks, game.num_players)
    for cards in acpc.hole_cards:
        state.deal_hole(_cards(cards))
    replayed = State(game, acpc.hand_id)
    for round_ in range(acpc.round + 1):
        if round_:
            _show_hands(state)  # all in before the board is out: pokerkit shows the hands first
            start, end = game.board_start[round_], game.board_start[round_ + 1]
            state.burn_card("??")
            state.deal_board(_cards(acpc.board_cards[start:end]))
        # pokerkit's bets count from the start of the round, the blinds included
        round_start = replayed.max_spent if round_ else 0
        for action, player in zip(acpc.actions[round_], acpc.acting_players[round_], strict=True):
            if state.actor_index != player:
                raise ProtocolError(f"pokerkit has player {state.actor_index} to act where ACPC has {player}")
            if action.kind == FOLD:
                state.fold()
            elif action.kind == RAISE:
                state.complete_bet_or_raise_to(action.size - round_start if game.no_limit else None)
            else:
                state.check_or_call()
            replayed.apply(action)
    _show_hands(state)
    if state.status:
        raise ProtocolError("pokerkit's hand is not over where the log's is")
    return state


def phh_text(text: str) -> str:
    """A name as pokerkit can write it, in a TOML literal string: valid Unicode (``unicode_text``: a byte
    that is not UTF-8 as ``\\xff``), and where three ``'`` follow each other, which no literal string
    holds, each ``'`` written ``\\x27``."""
    shown = unicode_text(text)
    return shown.replace("'", "\\x27") if "'''" in shown else shown


def hand_history(hand: LogHand, phh: PhhGame, event: str | None = None) -> HandHistory:
    """The PHH of a logged hand; ``ProtocolError`` if pokerkit's payoffs are not the log's."""
    try:
        state = replay(hand, phh)
    except ValueError as exc:  # pokerkit refuses an action (ProtocolError is a ValueError too)
        raise ProtocolError(f"pokerkit cannot replay the hand: {exc}") from None
    payoffs = [final - start for final, start in zip(state.stacks, state.starting_stacks, strict=True)]
    if not all(abs(p - v) < 1 or math.isclose(p, v) for p, v in zip(payoffs, hand.values, strict=True)):
        shown = "|".join(map(str, payoffs))
        raise ProtocolError(f"pokerkit's payoffs {shown} are not the log's values")
    return HandHistory.from_game_state(
        phh.game,
        state,
        hand=hand.state.hand_id,
        players=[phh_text(name) for name in hand.names],
        event=None if event is None else phh_text(event),
        finishing_stacks=list(state.stacks),
        _acpc_log=Path(hand.path).name,
        _acpc_line=hand.line,
    )


class Export(NamedTuple):
    """What exporting one log wrote."""

    log: Path
    phh: Path | None
    """None when nothing was written (the game cannot be expressed, or no hands)."""
    hands: int
    problems: int


def phh_path(log: Path, out_dir: Path) -> Path:
    """``OUT_DIR/<log name without .log, .gz, .bz2>.phhs``."""
    name = log.name
    for suffix in (".gz", ".bz2", ".log"):
        name = name.removesuffix(suffix)
    return out_dir / f"{name}.phhs"


def phh_paths(logs: list[Path], out_dir: Path) -> list[Path]:
    """One PHH file per log, none shared: ``phh_path``'s, or where logs would share it, that name
    after the log's folder (``x/m.log`` and ``y/m.log``: ``x-m.phhs`` and ``y-m.phhs``), then
    numbered in the order given (``-2``, ``-3``) if that is still shared."""
    names = [phh_path(log, out_dir).name for log in logs]
    shared = Counter(names)
    taken: set[str] = set()
    paths = []
    for log, name in zip(logs, names, strict=True):
        if shared[name] > 1:
            name = f"{log.resolve().parent.name}-{name}"
        stem, number = name.removesuffix(".phhs"), 1
        while name in taken:
            number += 1
            name = f"{stem}-{number}.phhs"
        taken.add(name)
        paths.append(out_dir / name)
    return paths


def export_log(
    log: Path,
    out_dir: Path,
    game: Game | None = None,
    on_problem: Callable[[Problem], None] | None = None,
    target: Path | None = None,
) -> Export:
    """Write the good hands of ``log`` to ``target`` (default ``phh_path(log, out_dir)``), whole or
    not at all (through a temporary file beside it); bad lines and hands PHH cannot hold are passed
    to ``on_problem`` and skipped. Raises ``OSError`` if the file cannot be written."""
    reader = AcpcLogReader(log, game, on_problem)
    target = target or phh_path(log, out_dir)
    phh: PhhGame | None = None
    written = 0
    with ExitStack() as stack:
        file = None
        for hand in reader:
            if phh is None:
                assert reader.game is not None
                try:
                    phh = phh_game(reader.game)
                except ProtocolError as exc:
                    reader.problem(0, f"not exported: {exc}")
                    break
            event = reader.header.name if reader.header else None
            try:
                text = hand_history(hand, phh, event).dumps()
            except ProtocolError as exc:
                reader.problem(hand.line, str(exc))
                continue
            if file is None:
                target.parent.mkdir(parents=True, exist_ok=True)
                file = stack.enter_context(atomic_writer(target))
            written += 1
            file.write(f"{SECTION_GAP if written > 1 else ''}[{written}]\n{text}".encode())
        if file is not None:
            file.write(b"\n")
    return Export(log, target if written else None, written, reader.problem_count)
