"""The lobby's shared part, pushed instead of polled (docs/protocol.md, `/ws/sala/`).

What every visitor of the lobby sees alike — the public tables waiting and playing, and who is
online — is rendered here once per language and per change, by a beat task every
MUS_LOBBY_SECONDS, and pushed to the lobby sockets of that language: only the table cards that
changed, with the order of both lists. A browser that connects gets the whole of it from Redis,
without a database query. A card goes as data (mode, host, seats; ~150 bytes), and the page
builds it from the card's skeleton, which the same template renders once per page: the card as
HTML was ~1.1 KB to each viewer. What is the viewer's own (may they sit, their friends, the
forms' CSRF token) stays on their page: the cards are the same for everybody.

Before this, every open lobby asked for its fragment every 2 s: ~10 ms of daphne each time, so a
few hundred people idling in the lobby filled a core (issue #18).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable
from contextlib import suppress
from typing import Any

import redis
from channels.layers import get_channel_layer
from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Prefetch
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import ngettext

from games import hooks, labels
from games.models import Connection, Seat, Table

from . import presence, redis_clients
from .access import visible_to
from .errors import OUTAGES
from .groups import release_channel, send_group

log = logging.getLogger(__name__)

#: The most recent tables of each list the lobby shows: those waiting for players are what the
#: lobby is for; of the games in play, a screenful (each card goes to every viewer).
OPEN_LENGTH = 50
PLAYING_LENGTH = 20

#: How many people online the lobby names.
ONLINE_NAMED = 40

#: The channel-layer event of a lobby change (`GROUP`): its text for each language that changed.
UPDATE_EVENT = "lobby.update"


def languages() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def snapshot_key(language: str) -> str:
    """The lobby as a browser that connects now gets it (the message, as sent)."""
    return f"{settings.CACHES['default']['KEY_PREFIX']}:lobby:{language}"


def public_tables(status: str, limit: int) -> list[Table]:
    """The `limit` newest public tables in `status`, with their host and seated players. A
    rematch waiting for its four is nobody else's to sit at: listed once it plays."""
    tables = Table.objects.filter(visible_to(None), status=status)  # (what anybody may see)
    if status == Table.Status.OPEN:
        tables = tables.filter(rematch_of__isnull=True)
    return list(
        tables.select_related("host")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
        .order_by("-created_at")[:limit]
    )


def table_cards(*lists: list[Table]) -> list[list[dict[str, Any]]]:
    """Each table as its card shows it: seats in order, each seated person with their rating in
    the table's ladder (everybody's in one call), and how many are watching a game in play."""
    ratings = hooks.ratings(
        (seat.user_id, table.ratings_ladder)
        for tables in lists
        for table in tables
        for seat in table.seats.all()
        if not seat.user.is_bot
    )
    watching = onlookers(
        [table.pk for tables in lists for table in tables if table.status == Table.Status.PLAYING]
    )
    return [
        [_card(table, ratings, watching.get(table.pk, 0)) for table in tables] for tables in lists
    ]


def onlookers(table_ids: list[int]) -> dict[int, int]:
    """How many people signed in have a table's page open without a seat there, by table (one
    query; the sockets of visitors who are not signed in have no row, and are not counted)."""
    if not table_ids:
        return {}
    seated = Seat.objects.filter(table_id=OuterRef("table_id"), user_id=OuterRef("user_id"))
    rows = (
        Connection.objects.filter(table_id__in=table_ids)
        .exclude(Exists(seated))
        .values("table_id")
        .annotate(n=Count("user_id", distinct=True))
    )
    return {row["table_id"]: row["n"] for row in rows}


def _card(table: Table, ratings: Any, watching: int = 0) -> dict[str, Any]:
    seats: list[Seat | None] = [None, None, None, None]
    for seat in table.seats.all():
        seats[seat.seat] = seat
        seat.rating = ratings.get((seat.user_id, table.ratings_ladder))
    scores = [*(table.scores or []), 0, 0]
    return {
        "table": table,
        "seats": seats,
        "score": f"{scores[0]} – {scores[1]}",
        "watching": watching,
    }


def card_data(item: dict[str, Any]) -> dict[str, Any]:
    """A table's card as data, in the active language: what `_table_card.html` shows and what
    the lobby pushes (`static/js/lobby/live.js` fills the card's skeleton with it). A seat is
    [name, rating] or null; `playing` and `rated` are there only when true (every byte goes to
    every viewer)."""
    table = item["table"]
    card: dict[str, Any] = {
        "mode": str(table.get_mode_display()),
        "seats": [
            [labels.seat_label(seat), rating_text(seat.rating)] if seat else None
            for seat in item["seats"]
        ],
    }
    if not table.quick:  # quick play seated them: nobody hosted the table
        card["host"] = table.host.public_name
    if table.status == Table.Status.PLAYING:
        card["playing"] = True
    if table.rated:
        card["rated"] = True
    if item.get("watching"):
        card["watching"] = ngettext("%(n)d mirando", "%(n)d mirando", item["watching"]) % {
            "n": item["watching"]
        }
    return card


def rating_text(rating: Any) -> str:
    """A seat's rating as its card shows it: «1500», «1500?» while provisional, «» for none."""
    if rating is None:
        return ""
    return f"{rating.rating}{'?' if rating.provisional else ''}"


#: The skeleton's table: the page's script puts the real one in the links.
SKELETON_PK = 0

#: The card with every part a card may have, empty: rendered once in the page.
SKELETON = {
    "mode": "",
    "host": "",
    "seats": [["", ""]] * 4,
    "playing": True,
    "rated": True,
    "watching": "",
}


def page_context() -> dict[str, Any]:
    """`shared_context` with each card's data in the active language: the page's first view."""
    context = shared_context()
    for item in (*context["open_tables"], *context["playing_tables"]):
        item["card"] = card_data(item)
    return {
        **context,
        "card_skeleton": SKELETON,
        "card_skeleton_pk": SKELETON_PK,
        "online_skeleton": [{"username": SKELETON_PK, "public_name": ""}],
    }


def shared_context() -> dict[str, Any]:
    """What the lobby shows everybody alike (the page renders it too, for its first view)."""
    open_tables, playing = table_cards(
        public_tables(Table.Status.OPEN, OPEN_LENGTH),
        public_tables(Table.Status.PLAYING, PLAYING_LENGTH),
    )
    return {
        "open_tables": open_tables,
        "playing_tables": playing,
        "online": presence.online_players(limit=ONLINE_NAMED),
        "online_count": presence.online_count(),
    }


def render(context: dict[str, Any], language: str) -> dict[str, Any]:
    """The lobby in `language` as a whole message: every card's data by table id, the order of
    both lists, and the online part."""
    items = [*context["open_tables"], *context["playing_tables"]]
    with translation.override(language):
        cards = {str(item["table"].pk): card_data(item) for item in items}
        title = render_to_string("games/_lobby_online_title.html", context).strip()
    return {
        "type": "lobby",
        "open": [item["table"].pk for item in context["open_tables"]],
        "playing": [item["table"].pk for item in context["playing_tables"]],
        "cards": cards,
        # Scores and the number online change far more often than the rest: on their own.
        "scores": {
            str(item["table"].pk): item["score"]
            for item in items
            if item["table"].status == Table.Status.PLAYING
        },
        "online_title": title,
        # As data too: the list changes with every few arrivals and goes to every viewer.
        "online": [[player.username, player.public_name] for player in context["online"]],
    }


def changes(before: dict[str, Any] | None, now: dict[str, Any]) -> dict[str, Any] | None:
    """What a browser that has `before` needs to have `now`: the order of a list that changed
    (which also says which cards are gone), the cards that are new or changed, the scores that
    changed, the online parts that changed; None if nothing did."""
    if before is None:
        return {**now, "full": True}
    update: dict[str, Any] = {"type": "lobby"}
    for part in ("open", "playing", "online_title", "online"):
        if now[part] != before.get(part):
            update[part] = now[part]
    cards = {k: card for k, card in now["cards"].items() if before["cards"].get(k) != card}
    if cards:
        update["cards"] = cards
    # A card sent again comes without its score: its score comes with it.
    old_scores = before.get("scores", {})
    scores = {k: v for k, v in now["scores"].items() if k in cards or old_scores.get(k) != v}
    if scores:
        update["scores"] = scores
    return update if len(update) > 1 else None


#: At most this many cards new or changed per update. When many tables start at once (a
#: tournament round, a load test) every card of the lobby changes in a few seconds, and each goes
#: to every viewer: 100 tables starting sent each of 1,000 viewers ~90 KB in 6 s when a card was
#: HTML, and the live tables' p99 doubled. The rest follow in the next updates (MUS_LOBBY_SECONDS
#: apart). Twenty cards as data are ~3 KB.
MOST_CARDS = 20


def paced(before: dict[str, Any] | None, now: dict[str, Any]) -> dict[str, Any]:
    """`now` as this update may bring it: the first MOST_CARDS cards that are new or changed
    (waiting tables first, newest first); the others stay out of the lists until a later update
    brings them (a card shown out of date could offer a seat in a game already started)."""
    if before is None:
        return now
    order = [str(pk) for pk in (*now["open"], *now["playing"])]
    changed = [k for k in order if before["cards"].get(k) != now["cards"][k]]
    late = set(changed[MOST_CARDS:])
    if not late:
        return now
    return {
        **now,
        "open": [pk for pk in now["open"] if str(pk) not in late],
        "playing": [pk for pk in now["playing"] if str(pk) not in late],
        "cards": {k: card for k, card in now["cards"].items() if k not in late},
        "scores": {k: v for k, v in now["scores"].items() if k not in late},
    }


#: What changes all the time and can be a few seconds late: the games in play (which start and
#: end every few seconds on a busy site), their scores, who is online.
AMBIENT = frozenset({"type", "playing", "cards", "scores", "online_title", "online"})


def ambient_only(update: dict[str, Any], now: dict[str, Any]) -> bool:
    """An update that changes nothing of the tables waiting for players (what the lobby is for:
    a seat offered or taken goes at once): it can wait (MUS_LOBBY_AMBIENT_SECONDS)."""
    waiting = {str(pk) for pk in now["open"]}
    return set(update) <= AMBIENT and not waiting & set(update.get("cards", ()))


def publish(now_seconds: float | None = None) -> int:
    """Render the lobby in every language and push what changed since the last time, in one
    group message; returns how many languages changed. Run by beat every MUS_LOBBY_SECONDS
    (`games.push_lobby`).

    Games start and end every few seconds on a busy site, scores change with nearly every hand
    somewhere, the number online with every arrival, and each update is a frame to every viewer:
    an update of those alone waits until the last one pushed is MUS_LOBBY_AMBIENT_SECONDS old
    (the stored lobby keeps the old ones meanwhile, so the next update brings all of them)."""
    at = time.time() if now_seconds is None else now_seconds
    context = shared_context()
    store = redis_clients.client()
    texts: dict[str, str] = {}
    for language in languages():
        now = render(context, language)
        key = snapshot_key(language)
        stored = store.get(key)
        before = json.loads(stored) if stored else None
        # What is stored is what the viewers were sent: the cards held back are new next time.
        now = paced(before, now)
        update = changes(before, now)
        if update is None:
            continue
        if (
            before is not None
            and ambient_only(update, now)
            and at - float(before.get("at", 0)) < settings.MUS_LOBBY_AMBIENT_SECONDS
        ):
            continue
        version = int(before["v"]) + 1 if before else 1
        # The snapshot first: a socket that connects between the two gets the new lobby and
        # then this update, which changes nothing it does not have already.
        store.set(key, json.dumps({**now, "full": True, "v": version, "at": at}))
        texts[language] = json.dumps({**update, "v": version})
    if texts:
        send_group(GROUP, {"type": UPDATE_EVENT, "texts": texts})
    return len(texts)


# --------------------------------------------------------------------------------------------
# Each server process's viewers: one channel brings the lobby, the process hands it out.
# --------------------------------------------------------------------------------------------
#: The group of every process's relay (one channel each, not one per viewer).
GROUP = "lobby"

#: A lobby change reaches a process's viewers in batches over up to this long: a thousand
#: sends in a row held every table's moves in the process behind them (docs/performance.md).
SPREAD_SECONDS = 1.0
BATCH = 2

Send = Callable[[str], Awaitable[None]]


class _Relay:
    """This event loop's lobby viewers, by language, and the task that relays to them."""

    def __init__(self) -> None:
        self.viewers: dict[str, dict[str, Send]] = {language: {} for language in languages()}
        self.task: asyncio.Task[None] | None = None

    def watched(self) -> bool:
        return any(self.viewers.values())


_RELAYS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Relay] = weakref.WeakKeyDictionary()


def watch(key: str, language: str, send: Send) -> None:
    """From now on, `send` gets every lobby update in `language` (`key`: the socket's name)."""
    loop = asyncio.get_running_loop()
    relay = _RELAYS.get(loop)
    if relay is None:
        relay = _RELAYS[loop] = _Relay()
    relay.viewers[language][key] = send
    if relay.task is None or relay.task.done():
        relay.task = loop.create_task(_relay(relay))


def unwatch(key: str) -> None:
    """The socket `key` closed. The relay stops with the last viewer."""
    relay = _RELAYS.get(asyncio.get_running_loop())
    if relay is None:
        return
    for viewers in relay.viewers.values():
        viewers.pop(key, None)
    if not relay.watched() and relay.task is not None:
        relay.task.cancel()
        relay.task = None


async def _relay(relay: _Relay) -> None:
    layer = get_channel_layer()
    if layer is None:  # pragma: no cover - always configured
        return
    while relay.watched():
        channel = ""
        try:
            channel = await layer.new_channel("lobby.")
            await layer.group_add(GROUP, channel)
            while relay.watched():
                message = await layer.receive(channel)
                for language, text in message.get("texts", {}).items():
                    await _hand_out(list(relay.viewers.get(language, {}).values()), text)
        except OUTAGES:
            # Redis restarted: listen again in a moment; the viewers' pages see the gap in the
            # versions and reconnect for the whole lobby.
            log.warning("lobby relay: channel layer unavailable", exc_info=True)
            await asyncio.sleep(1)
        finally:
            # Stopped with the last viewer (often while handing out, not waiting in `receive`,
            # where channels_redis would forget the channel itself): no channel left behind in
            # the group, each later lobby change skipping it, one more per restart.
            if channel:
                with suppress(*OUTAGES):
                    await layer.group_discard(GROUP, channel)
                await release_channel(channel)


async def _hand_out(viewers: list[Send], text: str) -> None:
    batches = (len(viewers) + BATCH - 1) // BATCH
    pause = min(SPREAD_SECONDS, settings.MUS_LOBBY_SECONDS / 2) / max(1, batches)
    for start in range(0, len(viewers), BATCH):
        if start:
            await asyncio.sleep(pause)
        for send in viewers[start : start + BATCH]:
            try:
                await send(text)
            except Exception:
                log.debug("lobby: a viewer could not be sent to", exc_info=True)


async def snapshot(language: str) -> str | None:
    """The whole lobby in `language` as a connecting socket gets it, read on the event loop; None
    before the first push, or while Redis is down (the next push will bring it)."""
    try:
        text = await redis_clients.async_client().get(snapshot_key(language))
    except (*OUTAGES, redis.RedisError):
        log.warning("lobby snapshot unavailable")
        return None
    return text.decode() if text else None


def forget(languages_: Iterable[str] | None = None) -> None:
    """Drop the stored lobby (tests)."""
    store = redis_clients.client()
    for language in languages_ or languages():
        store.delete(snapshot_key(language))
