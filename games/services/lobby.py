"""The lobby's shared part, pushed instead of polled (docs/protocol.md, `/ws/sala/`).

What every visitor of the lobby sees alike — the public tables waiting and playing, and who is
online — is rendered here once per language and per change, by a beat task every
MUS_LOBBY_SECONDS, and pushed to the lobby sockets of that language: only the table cards that
changed, with the order of both lists. A browser that connects gets the whole of it from Redis,
without a database query. What is the viewer's own (may they sit, their friends, the forms'
CSRF token) stays on their page: the cards are the same for everybody.

Before this, every open lobby asked for its fragment every 2 s: ~10 ms of daphne each time, so a
few hundred people idling in the lobby filled a core (issue #18).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

import redis
from django.conf import settings
from django.db.models import Prefetch
from django.template.loader import render_to_string
from django.utils import translation

from games import hooks
from games.models import Seat, Table

from . import presence
from .errors import OUTAGES
from .groups import send_group

log = logging.getLogger(__name__)

#: The most recent tables of each list the lobby shows.
LIST_LENGTH = 50

#: How many people online the lobby names.
ONLINE_NAMED = 40

#: The channel-layer event a lobby socket relays (`LobbyConsumer.lobby_update`).
UPDATE_EVENT = "lobby.update"


def languages() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def group(language: str) -> str:
    """The lobby sockets of one language."""
    return f"lobby-{language}"


def snapshot_key(language: str) -> str:
    """The lobby as a browser that connects now gets it (the message, as sent)."""
    return f"{settings.CACHES['default']['KEY_PREFIX']}:lobby:{language}"


def public_tables(status: str) -> list[Table]:
    """The newest public tables in `status`, with their host and seated players."""
    return list(
        Table.objects.filter(status=status, private=False)
        .select_related("host")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
        .order_by("-created_at")[:LIST_LENGTH]
    )


def table_cards(*lists: list[Table]) -> list[list[dict[str, Any]]]:
    """Each table as its card shows it: seats in order, each seated person with their rating in
    the table's mode (everybody's in one call)."""
    ratings = hooks.ratings(
        (seat.user_id, table.mode)
        for tables in lists
        for table in tables
        for seat in table.seats.all()
        if not seat.user.is_bot
    )
    return [[_card(table, ratings) for table in tables] for tables in lists]


def _card(table: Table, ratings: Any) -> dict[str, Any]:
    seats: list[Seat | None] = [None, None, None, None]
    for seat in table.seats.all():
        seats[seat.seat] = seat
        seat.rating = ratings.get((seat.user_id, table.mode))
    return {"table": table, "seats": seats, "taken": sum(1 for s in seats if s)}


def shared_context() -> dict[str, Any]:
    """What the lobby shows everybody alike (the page renders it too, for its first view)."""
    open_tables, playing = table_cards(
        public_tables(Table.Status.OPEN), public_tables(Table.Status.PLAYING)
    )
    return {
        "open_tables": open_tables,
        "playing_tables": playing,
        "online": presence.online_players(limit=ONLINE_NAMED),
        "online_count": presence.online_count(),
    }


def render(context: dict[str, Any], language: str) -> dict[str, Any]:
    """The lobby in `language` as a whole message: every card by table id, the order of both
    lists, and the online part."""
    with translation.override(language):
        cards = {
            str(item["table"].pk): render_to_string("games/_table_card.html", {"item": item})
            for item in [*context["open_tables"], *context["playing_tables"]]
        }
        online = render_to_string("games/_lobby_online.html", context)
    return {
        "type": "lobby",
        "open": [item["table"].pk for item in context["open_tables"]],
        "playing": [item["table"].pk for item in context["playing_tables"]],
        "cards": cards,
        "online": online,
    }


def changes(before: dict[str, Any] | None, now: dict[str, Any]) -> dict[str, Any] | None:
    """What a browser that has `before` needs to have `now`: the cards that are new or changed
    (the lists' order says which are gone), the online part if it changed; None if nothing did."""
    if before is None:
        return {**now, "full": True}
    cards = {k: html for k, html in now["cards"].items() if before["cards"].get(k) != html}
    update: dict[str, Any] = {"type": "lobby", "open": now["open"], "playing": now["playing"]}
    if cards:
        update["cards"] = cards
    if now["online"] != before["online"]:
        update["online"] = now["online"]
    if (
        not cards
        and "online" not in update
        and (now["open"], now["playing"])
        == (
            before["open"],
            before["playing"],
        )
    ):
        return None
    return update


def publish() -> int:
    """Render the lobby in every language and push what changed since the last time; returns
    how many languages changed. Run by beat every MUS_LOBBY_SECONDS (`games.push_lobby`)."""
    context = shared_context()
    store = presence.client()
    pushed = 0
    for language in languages():
        now = render(context, language)
        key = snapshot_key(language)
        stored = store.get(key)
        before = json.loads(stored) if stored else None
        version = int(before["v"]) + 1 if before else 1
        update = changes(before, now)
        if update is None:
            continue
        # The snapshot first: a socket that connects between the two gets the new lobby and
        # then this update, which changes nothing it does not have already.
        store.set(key, json.dumps({**now, "full": True, "v": version}))
        update["v"] = version
        send_group(group(language), {"type": UPDATE_EVENT, "text": json.dumps(update)})
        pushed += 1
    return pushed


async def snapshot(language: str) -> str | None:
    """The whole lobby in `language` as a connecting socket gets it, read on the event loop; None
    before the first push, or while Redis is down (the next push will bring it)."""
    try:
        text = await presence.async_client().get(snapshot_key(language))
    except (*OUTAGES, redis.RedisError):
        log.warning("lobby snapshot unavailable")
        return None
    return text.decode() if text else None


def forget(languages_: Iterable[str] | None = None) -> None:
    """Drop the stored lobby (tests)."""
    store = presence.client()
    for language in languages_ or languages():
        store.delete(snapshot_key(language))
