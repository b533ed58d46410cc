"""Sockets coming and going: who may join a table, the connection count of each seat, and the
reconnection window of a player who has none left (RULES.md §8.3)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from ..models import Seat, Table
from . import presence
from .access import Session, can_view_in
from .errors import ServiceError, no_table
from .play import cancel_game
from .state import audience, broadcast
from .storage import load_table


@dataclass(frozen=True, slots=True)
class Entry:
    """What a socket that may join a table needs: its audience and the language of its messages."""

    key: str
    language: str


def join(table_id: int, user: Any, session: Session | None, socket: str | None = None) -> Entry:
    """May `user` watch or play at the table? If so, count the connection (presence).

    Refused (`ServiceError`) for an anonymous visitor (`login`), and for a table that does not
    exist or is not theirs to see (`no_table`: a private table does not reveal that it exists).
    The others are told the player is here; `socket` (the joining one) is not.
    """
    if user is None or not user.is_authenticated:
        raise ServiceError("login", _("Entra con tu cuenta para sentarte a una mesa."))
    table = load_table(table_id)
    if table is None or not can_view_in(table, user, session):
        raise no_table()
    player_connected(table_id, user, socket)
    presence.touch(user.pk)
    return Entry(audience(table, user), getattr(user, "language", "") or "es")


def player_connected(table_id: int, user: User, socket: str | None = None) -> None:
    """Count a socket of a seated player; the first one (or a return) is shown to the others."""
    with connection.cursor() as cursor:
        cursor.execute(_connect_sql(), [table_id, user.pk])
        row = cursor.fetchone()
    if row is None:  # an onlooker
        return
    first, was_away = row
    if was_away:
        # The seat's clock was stopped while its player was away: give the turn a fresh clock.
        Table.objects.filter(
            pk=table_id, status=Table.Status.PLAYING, deadline__lt=timezone.now()
        ).update(deadline=timezone.now() + timedelta(seconds=settings.MUS_TURN_SECONDS))
    if was_away or first:
        broadcast(table_id, skip=socket)  # the others see the seat connected again


def player_disconnected(table_id: int, user: User) -> None:
    """Uncount a socket; when a player of a game in play has none left, open the reconnection
    window (the beat sweep cancels the game if it runs out: `cancel_if_abandoned`)."""
    now = timezone.now()
    deadline = now + timedelta(seconds=settings.MUS_RECONNECT_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute(_disconnect_sql(), [Table.Status.PLAYING, table_id, user.pk, now, deadline])
        row = cursor.fetchone()
    if row is not None and row[0]:
        broadcast(table_id)


# Connections come and go in storms (a restart, a game ending at many tables): each is one
# statement rather than the four or five ORM queries it took, each of which cost more CPU to build
# than PostgreSQL took to answer (docs/performance.md).
@cache
def _connect_sql() -> str:
    seat = connection.ops.quote_name(Seat._meta.db_table)
    return (
        f"WITH old AS (SELECT id, connections, reconnect_deadline FROM {seat} "
        "WHERE table_id = %s AND user_id = %s FOR UPDATE) "
        f"UPDATE {seat} s SET connections = s.connections + 1, disconnected_at = NULL, "
        "reconnect_deadline = NULL FROM old WHERE s.id = old.id "
        "RETURNING old.connections = 0, old.reconnect_deadline IS NOT NULL"
    )


@cache
def _disconnect_sql() -> str:
    qn = connection.ops.quote_name
    seat, table = qn(Seat._meta.db_table), qn(Table._meta.db_table)
    # `away`: this was the player's last socket, the game is in play and no window is open yet.
    return (
        f"WITH old AS (SELECT s.id, s.connections = 1 AND t.status = %s "
        "AND s.reconnect_deadline IS NULL AS away "
        f"FROM {seat} s JOIN {table} t ON t.id = s.table_id "
        "WHERE s.table_id = %s AND s.user_id = %s AND s.connections > 0 FOR UPDATE OF s) "
        f"UPDATE {seat} s SET connections = s.connections - 1, "
        "disconnected_at = CASE WHEN old.away THEN %s ELSE s.disconnected_at END, "
        "reconnect_deadline = CASE WHEN old.away THEN %s ELSE s.reconnect_deadline END "
        "FROM old WHERE s.id = old.id RETURNING old.away"
    )


def cancel_if_abandoned(table_id: int) -> bool:
    """Cancel the game when a seat's reconnection window has run out."""
    overdue = Seat.objects.filter(
        table_id=table_id,
        table__status=Table.Status.PLAYING,
        reconnect_deadline__lte=timezone.now(),
        connections=0,
    ).exists()
    if not overdue:
        return False
    return cancel_game(table_id, Table.CancelReason.ABANDONED)
