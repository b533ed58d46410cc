"""The player socket's side of the service layer (`/ws/jugador/`, `games.player_consumer`): what
a page gets when it opens (and a quick play table's page, its state), and the queue page holding
its player's place in quick play."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import override

from ..models import Mode, QueuedPlayer, Table
from . import connections, invitations, presence, queue
from .live import in_worker, keep_beating
from .state import state_for
from .storage import live_seat_of


@dataclass(frozen=True, slots=True)
class Welcome:
    """What a page's socket gets when it opens: the invitations waiting for an answer, and on
    the queue page where its player stands (`queue`: waiting in `mode`, or already seated)."""

    language: str
    messages: list[dict[str, Any]]
    mode: str | None


def _iso(moment: Any) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def table_page_state(table: Table, user: Any) -> dict[str, Any]:
    """The state the table's page carries (`/mesas/<id>/`): `state_for`, but without the cards
    (and actions) of a player quick play seated who has not come to the table yet; the first
    state of their table's socket brings them. Until they come, «Cancelar» is only a dodge
    (`queue.dodge`): with the hand on the page, a player could read it and dodge a bad one."""
    state = state_for(table, user)
    you = state.get("you")
    if you and you["cards"] and queue.not_come_yet(table, user):
        state = {**state, "you": {**you, "cards": [], "legal": []}}
    return state


def queue_state(user: Any) -> dict[str, Any]:
    """Where the player stands in quick play, as the queue page is told (docs/protocol.md)."""
    queued = QueuedPlayer.objects.filter(user=user).select_related("entry").first()
    if queued is not None:
        entry = queued.entry
        partners = [p for p in entry.players.select_related("user") if p.user_id != user.pk]
        return {
            "type": "queue",
            "mode": entry.mode,
            "mode_name": str(Mode(entry.mode).label),
            "waiting": queue.waiting(entry.mode),
            "since": _iso(entry.joined_at),
            "now": _iso(timezone.now()),
            "partner": partners[0].user.public_name if partners else None,
            "bots_after": queue.BOTS_AFTER_SECONDS,
        }
    seat = live_seat_of(user)
    if seat is not None and seat.table.status == Table.Status.PLAYING:
        url = reverse("games:table", args=[seat.table_id])
        return {"type": "matched", "table": seat.table_id, "url": url}
    return {"type": "left", "code": "not_queued", "message": str(_("No estás en la cola."))}


def _welcome(user: Any, channel: str, queue_page: bool) -> Welcome:
    presence.touch(user.pk)
    language = getattr(user, "language", "") or "es"
    with override(language):
        pending = [invitations.message(i) for i in invitations.pending_for(user.pk)]
        messages: list[dict[str, Any]] = [{"type": "invitations", "items": pending}]
        mode = None
        if queue_page:
            queue.socket_opened(user.pk, channel, connections.PROCESS)
            state = queue_state(user)
            messages.append(state)
            mode = state.get("mode")
    return Welcome(language, messages, mode)


async def join(user: Any, channel: str, queue_page: bool) -> Welcome:
    keep_beating()  # the queue sockets of a process that stops beating are dropped
    return await in_worker(_welcome, user, channel, queue_page)


async def leave(channel: str) -> None:
    await in_worker(queue.socket_closed, channel)


async def heartbeat(user: Any) -> None:
    await in_worker(presence.touch, user.pk)
