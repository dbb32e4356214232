"""What a match keeps seat by seat, for ``engine.MatchEngine``: each seat's time and invalid actions
(``Budget``, the C dealer's ``ErrorInfo``), the order of the seats in each rotation (``SeatTables``) and
the ``VERSION`` line each player sends first (``version_line``)."""

from __future__ import annotations

from acpc_arena.dealer.server.lines import SeatError, SeatFailure
from acpc_arena.dealer.server.match import MatchConfig, MatchObserver, WarningKind
from acpc_arena.dealer.server.match_config import VERSION_MAJOR, VERSION_MINOR
from acpc_arena.protocol.wire import VERSION_PREFIX


class Budget:
    """Time and invalid-action accounting per seat (the C dealer's ``ErrorInfo``)."""

    def __init__(self, config: MatchConfig) -> None:
        n = config.game.num_players
        self.max_response = config.t_response_ms / 1000
        self.max_hand = config.t_hand_ms / 1000
        self.max_match = config.t_per_hand_ms * config.hands / 1000
        self.max_invalid = config.max_invalid_actions
        self.hand_used = [0.0] * n
        self.match_used = [0.0] * n
        self.invalid = [0] * n
        self.fixed = [0] * n

    def new_hand(self) -> None:
        hand_used = self.hand_used
        for seat in range(len(hand_used)):
            hand_used[seat] = 0.0

    def seconds_left(self, seat: int) -> float:
        hand, match = self.max_hand - self.hand_used[seat], self.max_match - self.match_used[seat]
        shortest = hand if hand < match else match
        return shortest if shortest < self.max_response else self.max_response

    def charge(self, seat: int, seconds: float) -> None:
        """Add a response's time; raises SeatError when a limit is passed."""
        if seconds < 0.0:  # wall clocks (transaction files) can step back
            seconds = 0.0
        hand_used = self.hand_used[seat] + seconds
        match_used = self.match_used[seat] + seconds
        self.hand_used[seat] = hand_used
        self.match_used[seat] = match_used
        if seconds > self.max_response or hand_used > self.max_hand or match_used > self.max_match:
            raise SeatError(seat, "ran out of time", SeatFailure.TIMEOUT)

    def count_invalid(self, seat: int) -> None:
        self.invalid[seat] += 1
        if self.invalid[seat] > self.max_invalid:
            raise SeatError(seat, f"made more than {self.max_invalid} invalid actions", SeatFailure.INVALID_ACTIONS)


class SeatTables:
    """Each seat rotation's order of seats, computed once per match."""

    def __init__(self, config: MatchConfig) -> None:
        n = config.game.num_players
        self.num_players = n
        self.fixed = config.fixed_seats
        self.orders: list[list[tuple[int, int]]] = []
        """By rotation: (seat, the position it views) seat by seat."""
        self.seats: list[list[int]] = []
        """By rotation: the seat of each position."""
        self.acting_first: list[list[list[tuple[int, int]]]] = []
        """By rotation and position: the same pairs with that position's seat first (the others in seat order)."""
        self.names: list[list[str]] = []
        """By rotation: the name of each position's player (the log's order)."""
        for rotation in range(1 if self.fixed else n):
            order = [(seat, config.player_of_seat(rotation, seat)) for seat in range(n)]
            self.orders.append(order)
            self.seats.append([config.seat_of_player(rotation, position) for position in range(n)])
            self.names.append([config.players[seat] for seat in self.seats[-1]])
            self.acting_first.append([sorted(order, key=lambda pair: pair[1] != position) for position in range(n)])

    def rotation(self, hand_id: int) -> int:
        return 0 if self.fixed else hand_id % self.num_players


def version_line(seat: int, raw: bytes, observer: MatchObserver) -> bool:
    """Check a line a player sent before the match: False for a comment line (read the next), True for an
    accepted ``VERSION:2.x.y`` (a newer minor version is a warning); raises SeatError otherwise."""
    line = raw.decode("latin-1")
    if line.startswith(("#", ";")):
        return False
    text = line.rstrip("\r\n")
    parts = text[len(VERSION_PREFIX) :].split(".") if text.startswith(VERSION_PREFIX) else []
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):  # "²".isdigit() too
        raise SeatError(seat, f"invalid version string {text!r}", SeatFailure.VERSION)
    major, minor = int(parts[0]), int(parts[1])
    if major != VERSION_MAJOR:
        raise SeatError(
            seat,
            f"speaks protocol {text[8:]}, this server speaks {VERSION_MAJOR}.{VERSION_MINOR}.0",
            SeatFailure.VERSION,
        )
    if minor > VERSION_MINOR:
        observer.warning(seat, WarningKind.VERSION, f"this server is currently using version 2.0.0, player sent {text}")
    return True
