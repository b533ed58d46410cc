"""Who may see a table, its game page and its record: one rule for every page and socket.

Public tables are open to everybody. A private table (practice included) is open to staff, to its
host, to whoever has sat at it, and to whoever holds its invitation (kept in their session once
they followed the link).
"""

from __future__ import annotations

import secrets
from collections.abc import MutableMapping
from typing import Any

from ..models import Table
from .storage import seat_number

Session = MutableMapping[str, Any]


def _key(table_id: int) -> str:
    return f"invite-{table_id}"


def remember_invitation(session: Session, table: Table) -> None:
    """The session's owner followed `table`'s invitation (or opened the table)."""
    session[_key(table.pk)] = table.invite_token


def invitation(session: Session | None, table_id: int) -> str | None:
    """The invitation token the session holds for that table, if any."""
    return None if session is None else session.get(_key(table_id))


def can_view(table: Table, user: Any, token: str | None = None) -> bool:
    if not table.private:
        return True
    if (
        user is not None
        and user.is_authenticated
        and (user.is_staff or table.host_id == user.pk or seat_number(table, user.pk) is not None)
    ):
        return True
    return bool(token) and secrets.compare_digest(str(token), table.invite_token)


def can_view_in(table: Table, user: Any, session: Session | None) -> bool:
    """`can_view` for a request's or a socket's session (read only when the player needs an
    invitation: a seated player's socket costs no session query)."""
    return can_view(table, user) or can_view(table, user, invitation(session, table.pk))
