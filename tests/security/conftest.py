"""Fixtures for the security tests (the table tests' factories and socket helpers)."""

from tests.games.conftest import (
    communicator,
    four_players,
    make_user,
    receive,
    receive_state,
    seat_all,
    session_cookie_for,
    started_table,
)

__all__ = [
    "communicator",
    "four_players",
    "make_user",
    "receive",
    "receive_state",
    "seat_all",
    "session_cookie_for",
    "started_table",
]

BACKEND = "accounts.backends.ActiveAccountBackend"
