"""Exceptions the engine raises."""

from __future__ import annotations


class IllegalAction(Exception):
    """An action that the rules do not allow now; the game it was tried on is unchanged.

    ``code`` is a stable snake_case machine code (the web layer sends it to the client);
    ``message`` is an English sentence a player can read, and ``str(e) == message``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message


class RecordError(ValueError):
    """A game record that is malformed or contains an illegal action.

    ``hand_index`` and ``action_index`` are 1-based as in docs/game-record.md (0 when the problem is
    not inside a hand, or not at an action); the message reads e.g.
    ``hand 3 action 12: seat 1 cannot act now``.
    """

    def __init__(self, hand_index: int, action_index: int, reason: str) -> None:
        self.hand_index = hand_index
        self.action_index = action_index
        self.reason = reason
        if hand_index and action_index:
            where = f"hand {hand_index} action {action_index}: "
        elif hand_index:
            where = f"hand {hand_index}: "
        else:
            where = "record: "
        super().__init__(where + reason)
