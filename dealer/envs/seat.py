"""What a seat sees and does in either environment: ``SeatView``.

A seat's observation (``encoding``), its info (the ``MATCHSTATE`` line, the hand, its position,
its invalid actions so far), and its action index made the engine's ``Action`` under the
environment's rule for illegal actions (``actions``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from gymnasium import logger, spaces

from acpc_arena.dealer.envs.actions import ActionSet
from acpc_arena.dealer.envs.encoding import Encoding
from acpc_arena.dealer.envs.table import Table, check_choice
from acpc_arena.protocol.state import Action
from acpc_arena.protocol.wire import format_state

RENDER_MODES = ("ansi", "human")
"""``ansi``: ``render()`` returns the hand as the log shows it (every card); ``human``: prints it."""

IllegalActions = Literal["error", "fix"]
"""What an illegal action does: raise ``IllegalActionError``, or be played as a call and counted, as the dealer
plays a bot's invalid reply."""

Observation = dict[str, Any]
"""``observation`` (the array, ``float32``), ``action_mask`` (``int8``), and, if asked, ``match_state`` (the line)."""


class SeatView:
    """The observations, infos and actions of ``table``'s seats (see the module's docstring)."""

    def __init__(
        self,
        table: Table,
        raise_fractions: Sequence[float] | None,
        illegal_actions: IllegalActions,
        line_in_observation: bool,
        render_mode: str | None,
    ) -> None:
        check_choice("illegal_actions", illegal_actions, ("error", "fix"))
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.render_mode = render_mode
        self.table = table
        self.actions = ActionSet(table.game, raise_fractions)
        self.encoding = Encoding(table.game)
        self.illegal_actions = illegal_actions
        self.line_in_observation = line_in_observation

    def action_space(self) -> spaces.Discrete:
        return spaces.Discrete(self.actions.size)

    def observation_space(self) -> spaces.Dict:
        return self.encoding.space(self.actions.size, self.line_in_observation)

    def observe(self, seat: int) -> Observation:
        """``seat``'s observation of the hand in play (a new array each call)."""
        table = self.table
        state = table.state
        position = table.position(seat)
        acting = not state.finished and state.current_player == position
        out: Observation = {
            "observation": self.encoding.encode(state, position),
            "action_mask": self.actions.mask(state, acting),
        }
        if self.line_in_observation:
            out["match_state"] = table.line(seat)
        return out

    def info(self, seat: int) -> dict[str, object]:
        """``seat``'s info: ``match_state`` (the line the dealer sends it now), ``hand`` (the hand's number),
        ``position`` (its position in the hand), ``invalid_actions`` (its invalid actions so far)."""
        table = self.table
        return {
            "match_state": table.line(seat),
            "hand": table.state.hand_id,
            "position": table.position(seat),
            "invalid_actions": table.invalid_actions(seat),
        }

    def play(self, seat: int, action: object) -> None:
        """The acting ``seat``'s action index ``action``: played, or IllegalActionError (see ``IllegalActions``)."""
        actions, table = self.actions, self.table
        index = actions.index(action)
        state = table.state
        if self.illegal_actions == "error" and not actions.is_legal(state, index):
            raise actions.illegal(state, index, table.line(seat))
        chosen: Action = actions.action(state, index)
        table.play(chosen)

    def render(self) -> str | None:
        """The hand as the log shows it (every card), returned (``ansi``) or printed (``human``)."""
        if self.render_mode is None:
            logger.warn("render() was called without a render_mode ('ansi' or 'human')")
            return None
        text = format_state(self.table.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text
