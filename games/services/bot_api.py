"""What players' bot accounts do through the bot API (docs/bot-api.md): be admitted by a token
(with its rate limits), find the tables that admit them, sit and stand, answer challenges, wait
in their quick play (`bot_queue`). Playing is the table socket's, the same messages and rules as
a person's.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from accounts import bot_accounts
from accounts.models import BotToken, User

from ..models import Table
from ..socket_codes import CLOSE_NOT_LOGGED_IN, CLOSE_RATE_LIMITED
from . import bot_queue, invitations, ratelimit, tables
from .errors import ServiceError
from .storage import live_seat_of, seat_number, seat_rows

MINUTE = 60


def bad_token() -> ServiceError:
    return ServiceError(
        "bad_token", _("Token no válido: desconocido, revocado o caducado, o no es de un bot.")
    )


def admit_request(raw: str) -> BotToken:
    """The token of an HTTP request to the API, counted against its rate; refused with
    `bad_token` or `rate_limited`."""
    token = bot_accounts.authenticate(raw)
    if token is None:
        raise bad_token()
    if not ratelimit.within_rate(
        "bot-request", token.pk, settings.BOT_API_REQUESTS_PER_MINUTE, MINUTE
    ):
        raise ServiceError("rate_limited", _("Demasiadas peticiones: espera un poco."))
    return token


def admit_socket(raw: str) -> tuple[BotToken | None, int | None]:
    """The token of a WebSocket handshake and None, or None and the close code to refuse it
    with (an unusable token; too many sockets opened this minute)."""
    token = bot_accounts.authenticate(raw)
    if token is None:
        return None, CLOSE_NOT_LOGGED_IN
    if not ratelimit.within_rate(
        "bot-socket", token.pk, settings.BOT_API_CONNECTIONS_PER_MINUTE, MINUTE
    ):
        return None, CLOSE_RATE_LIMITED
    return token, None


def _table_info(table: Table) -> dict[str, Any]:
    rows = seat_rows(table)
    return {
        "id": table.pk,
        "mode": table.mode,
        "private": table.private,
        "status": table.status,
        "free_seats": sorted(set(tables.SEATS) - {row["seat"] for row in rows}),
        "socket": f"/ws/mesas/{table.pk}/",
    }


def whoami(bot: User) -> dict[str, Any]:
    seat = live_seat_of(bot)
    return {
        "username": bot.username,
        "name": bot.public_name,
        "bot_of": bot.bot_owner.public_name if bot.bot_owner else None,
        "table": None if seat is None else {**_table_info(seat.table), "seat": seat.seat},
    }


def open_tables(limit: int = 50) -> list[dict[str, Any]]:
    """The public tables waiting for players that admit bot accounts, oldest first."""
    found = Table.objects.filter(
        status=Table.Status.OPEN, bots_allowed=True, private=False
    ).order_by("pk")[:limit]
    return [info for info in map(_table_info, found) if info["free_seats"]]


def sit(
    bot: User, table_id: int, seat: Any = None, invitation: str | None = None
) -> dict[str, Any]:
    """Sit `bot` at a table that admits bot accounts: at `seat`, or the first free one; a
    private table with its invitation token."""
    if seat is None or seat == "":
        table = Table.objects.filter(pk=table_id).first()
        free = [] if table is None else _table_info(table)["free_seats"]
        seat = free[0] if free else 0
    try:
        number = int(seat)
    except (TypeError, ValueError):
        raise ServiceError("bad_seat", _("Ese asiento no existe.")) from None
    table = tables.take_seat(bot, table_id, number, invitation or None)
    return {**_table_info(table), "seat": number}


def stand(bot: User, table_id: int) -> None:
    tables.leave_seat(bot, table_id)


def pending_challenges(bot: User) -> list[dict[str, Any]]:
    """The challenges (table invitations) waiting for the bot's answer, oldest first."""
    return [
        {
            "id": invitation.pk,
            "table": invitation.table_id,
            "mode": invitation.mode,
            "seat": invitation.seat,
            "from": {
                "name": invitation.sender.public_name,
                "username": invitation.sender.username,
            },
            "expires": invitation.expires_at.isoformat().replace("+00:00", "Z"),
        }
        for invitation in invitations.pending_for(bot.pk)
    ]


def accept(bot: User, invitation_id: int) -> dict[str, Any]:
    """Accept a challenge: the bot sits at its table, in the seat it was challenged to."""
    _url, table = invitations.accept(bot, invitation_id)
    if table is None:  # (only table invitations reach a bot account)
        raise ServiceError("no_table", _("Esa mesa no existe."))
    return {**_table_info(table), "seat": seat_number(table, bot.pk)}


def decline(bot: User, invitation_id: int) -> None:
    invitations.decline(bot, invitation_id)


def quick_play(bot: User) -> dict[str, Any]:
    """The bot's quick play: `queued` (how its wait goes, its place held by this asking) and
    `table` (where it sits now, as `whoami` says: where quick play seated it)."""
    waiting = bot_queue.status(bot)
    return {"queued": waiting is not None, **(waiting or {}), "table": whoami(bot)["table"]}


def join_quick_play(bot: User, mode: Any) -> dict[str, Any]:
    bot_queue.join(bot, mode if isinstance(mode, str) else "")
    return quick_play(bot)
