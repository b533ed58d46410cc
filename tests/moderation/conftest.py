"""Fixtures for the moderation tests: players, staff clients, games that ended."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.models import User
from games import services
from games.models import Table
from tests.games.conftest import (
    communicator,
    four_players,
    make_user,
    receive,
    seat_all,
    session_cookie_for,
    started_table,
)

__all__ = [
    "communicator",
    "four_players",
    "make_user",
    "receive",
    "seat_all",
    "session_cookie_for",
    "started_table",
]

BACKEND = "accounts.backends.ActiveAccountBackend"


@pytest.fixture
def moderator(make_user: Callable[..., User]) -> User:
    return make_user("moderadora", is_staff=True, is_superuser=True)


@pytest.fixture
def admin_client(client: Client, moderator: User) -> Client:
    """Signed in as a superuser moderator."""
    client.force_login(moderator, backend=BACKEND)
    return client


def staff_with(make_user: Callable[..., User], *codenames: str, name: str = "ayudante") -> User:
    """A staff member (not a superuser) with just these permissions."""
    user = make_user(name, is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return User.objects.get(pk=user.pk)


def ended_table(players: list[User], status: str = Table.Status.FINISHED, **kwargs: Any) -> Table:
    """A table whose game has been played and is over (`terminada` or `cancelada`)."""
    table = started_table(players, **kwargs)
    if status == Table.Status.CANCELLED:
        services.cancel_game(table.pk, Table.CancelReason.ABANDONED)
    else:
        # As services leave a finished game: seats no longer live, the table over.
        table.seats.update(active=False)
        Table.objects.filter(pk=table.pk).update(
            status=Table.Status.FINISHED, phase="terminada", winner_team=0, scores=[40, 12]
        )
    table.refresh_from_db()
    return table


def action_post(client: Client, url: str, action: str, ids: list[int], **data: Any) -> Any:
    """Post an admin action from the change list (the first step: the form)."""
    return client.post(url, {"action": action, "_selected_action": ids, "index": 0, **data})


def confirm_post(client: Client, url: str, action: str, ids: list[int], **data: Any) -> Any:
    """Post an admin action's intermediate form back (the second step: apply)."""
    return client.post(url, {"action": action, "_selected_action": ids, "confirmar": "1", **data})
