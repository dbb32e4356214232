"""What defines a match, as the ACPC dealer's command line does: ``MatchConfig`` and its limits.

Light on purpose (the standard library alone): ``acpc-dealer`` checks its command line
with it before it loads the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acpc_arena.protocol.game import Game

UINT32_MAX = 2**32 - 1
MAX_TIMEOUT_MS = 2**63
"""The largest time limit (``--t_response``, ``--t_hand``, ``--t_per_hand``) ``acpc-dealer`` takes, in ms."""
DEFAULT_T_RESPONSE_MS = 600_000
DEFAULT_T_HAND_MS = 600_000
DEFAULT_T_PER_HAND_MS = 7_000
VERSION_MAJOR, VERSION_MINOR, VERSION_REVISION = 2, 0, 0


@dataclass(frozen=True)
class MatchConfig:
    """Everything that defines a match, as the ACPC dealer's command line does."""

    name: str
    game: Game
    game_file: str
    """The game as named on the command line (printed in the log header)."""
    hands: int
    seed: int
    players: tuple[str, ...]
    """Names by seat."""
    fixed_seats: bool = False
    max_invalid_actions: int = UINT32_MAX
    t_response_ms: int = DEFAULT_T_RESPONSE_MS
    t_hand_ms: int = DEFAULT_T_HAND_MS
    t_per_hand_ms: int = DEFAULT_T_PER_HAND_MS

    def header(self) -> str:
        """The four comment lines the ACPC dealer writes first (stderr and log)."""
        return (
            f"# name/game/hands/seed {self.name} {self.game_file} {self.hands} {self.seed}\n"
            f"#--t_response {self.t_response_ms}\n"
            f"#--t_hand {self.t_hand_ms}\n"
            f"#--t_per_hand {self.t_per_hand_ms}\n"
        )

    def seat_of_player(self, hand_id: int, player: int) -> int:
        """The seat playing position ``player`` in hand ``hand_id`` (the C ``playerToSeat``)."""
        shift = 0 if self.fixed_seats else hand_id
        return (player + shift) % self.game.num_players

    def player_of_seat(self, hand_id: int, seat: int) -> int:
        """The position of ``seat`` in hand ``hand_id`` (the C ``seatToPlayer``)."""
        shift = 0 if self.fixed_seats else hand_id
        return (seat - shift) % self.game.num_players
