"""What each browser sees: the `state` message per audience (docs/protocol.md), and telling every
socket at a table once a change is committed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts import names
from accounts.models import User

from .. import engine
from ..clock import TurnClock
from ..models import Table
from .clock import clock_of
from .groups import group_name, send_group
from .storage import dumps, game_of, load_table, seat_number, seat_rows
from .turns import to_act

#: The audiences of a table: its four seats and everybody else ("-").
ALL_KEYS = ("0", "1", "2", "3", "-")
ONLOOKER = "-"


def audience(table: Table, user: Any) -> str:
    """The key of the state `user` gets at `table`: their seat, or the onlookers'."""
    seat = seat_number(table, user.pk) if user is not None and user.is_authenticated else None
    return ONLOOKER if seat is None else str(seat)


def _iso(moment: Any) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def seats_info(table: Table, clock: TurnClock, now: datetime) -> list[dict[str, Any] | None]:
    seats: list[dict[str, Any] | None] = [None, None, None, None]
    for row in seat_rows(table):
        seats[row["seat"]] = {
            "seat": row["seat"],
            "team": row["seat"] % 2,
            "name": names.shown(row["username"], row["display_name"]),  # User.public_name
            "username": row["username"],
            "bot": row["is_bot"],
            # A bot's level (`principiante`, `normal`, `fuerte`); null for a person.
            "bot_level": (row["bot_level"] or None) if row["is_bot"] else None,
            # A player's own bot account (docs/bot-api.md): its owner's name; null otherwise.
            "bot_of": row.get("bot_of"),
            "host": row["user_id"] == table.host_id,
            "connected": row["connections"] > 0 or row["is_bot"],
            "away_until": row["away_until"],
            "away_budget": None if row["is_bot"] else clock.away_budget(row["seat"], now),
        }
    return seats


def state_parts(
    table: Table, keys: tuple[str, ...] = ALL_KEYS
) -> tuple[dict[str, Any], dict[str, dict[str, Any] | None]]:
    """What every audience sees (the state without "you"), and each key's own "you".

    Apart from "you" (a seat's cards and legal actions) the five states of a move are the same:
    built once and, in `state_message`, encoded to JSON once (docs/performance.md).
    """
    game = game_of(table)
    phase = table.public_phase if game is None or table.is_over else game.phase
    acting = [] if game is None or phase == "cancelada" else to_act(table, game)
    clock = clock_of(table, acting)
    now = timezone.now()
    seats = seats_info(table, clock, now)
    deadline = clock.shown_deadline
    base: dict[str, Any] = {
        "type": "state",
        "v": table.version,
        "table": table.pk,
        "mode": table.mode,
        "status": table.status,
        "private": table.private,
        "rated": table.rated,
        "seats": seats,
        "host_seat": next((s["seat"] for s in seats if s and s["host"]), None),
        "deadline": _iso(deadline) if deadline else None,
        "turn_seconds": clock.turn_seconds,
        # The whole length of the clock counting down: the recuento's, or a turn.
        "clock_seconds": clock.step_seconds(phase == "recuento"),
        # The server's clock, so browsers with a wrong clock still count deadlines down right.
        "now": _iso(now),
        "record_url": (
            reverse("game_record", args=[table.pk]) if table.is_over and table.record else None
        ),
        "cancel_reason": table.cancel_reason or None,
        "abandoned_seat": table.abandoned_seat,
        # At the recuento: who has pressed «Seguir» (docs/rules.md §8.2).
        "ready": table.ready_seats,
        "recuento_seconds": clock.recuento_seconds,
    }
    yours: dict[str, dict[str, Any] | None] = {}
    if game is None:
        common = {
            **base,
            "phase": table.public_phase,
            "mano": None,
            "scores": table.scores or [0, 0],
            "winner": None,
            "lance": None,
            "to_act": [],
        }
        for key in keys:
            yours[key] = None if key == ONLOOKER else {"seat": int(key), "cards": [], "legal": []}
        return common, yours
    common = engine.view(game, None)
    del common["you"]
    common.update(base)
    common["phase"] = phase
    common["to_act"] = acting
    for key in keys:
        if key == ONLOOKER:
            yours[key] = None
            continue
        you = engine.seat_view(game, int(key))
        if you["seat"] not in acting:
            you["legal"] = []
        yours[key] = you
    return common, yours


def build_states(table: Table, keys: tuple[str, ...] = ALL_KEYS) -> dict[str, dict[str, Any]]:
    """The `state` message for every seat ("0".."3") and for onlookers ("-"), or only `keys`."""
    common, yours = state_parts(table, keys)
    return {key: {**common, "you": yours[key]} for key in keys}


def state_for(table: Table, user: User | None) -> dict[str, Any]:
    key = audience(table, user)
    return build_states(table, (key,))[key]


def table_message(table: Table, *, skip: str | None = None) -> dict[str, Any]:
    """The group message of `table`'s current state: what all see, encoded once, and each seat's
    "you".

    Every consumer sends `state_text(message, its key)`, so the JSON of the shared part is made
    once per move, not once per audience, and the channel layer carries it once. Sockets find
    their seat by user id (`seat_of`): seats change before the start, and so may a username.
    The socket named by `skip` (one that is being welcomed with its own fresh state) ignores it.
    """
    common, yours = state_parts(table)
    return {
        "type": "table.state",
        "common": dumps(common)[:-1],  # without the closing brace: "you" goes last
        "yours": {key: dumps(you) for key, you in yours.items()},
        "seat_of": {str(row["user_id"]): str(row["seat"]) for row in seat_rows(table)},
        "skip": skip,
    }


def state_text(message: dict[str, Any], key: str) -> str:
    """The JSON text of the state `message` (from `state_message`) for seat `key` or "-"."""
    return f'{message["common"]},"you":{message["yours"][key]}}}'


def broadcast(table: Table | int, *, skip: str | None = None) -> None:
    """Send every socket at the table its own `state` (but the socket named `skip`)."""
    if not isinstance(table, Table):
        table = load_table(table)
        if table is None:
            return
    send_group(group_name(table.pk), table_message(table, skip=skip))


def after_commit(table: Table) -> None:
    """Once the change is committed, tell every browser. Works from the in-memory table the
    change just saved, so the commit costs no extra reads."""
    transaction.on_commit(lambda: broadcast(table))
