"""Bot seats: filling tables, practice games, and bots taking their turns.

Bots act through the same service layer as people (`services.apply_action`), from a Celery task
that runs after a short, human-like pause. A bot only ever sees `engine.view` for its own seat.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Collection
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from . import engine, services
from .models import Seat, Table

BOT_NAMES = [
    "Lola", "Paco", "Maite", "Iñaki", "Carmen", "Andoni", "Pili", "Txema", "Rosario", "Mikel",
    "Begoña", "Fermín", "Amaia", "Julián", "Nerea", "Koldo",
]  # fmt: skip


def new_bots(count: int, seated: Collection[str] = ()) -> list[User]:
    """Fresh bot accounts (each bot sits at one table at a time, like everybody else), named
    differently from each other and from who already sits there: two «Bot Nerea» at one table
    would make the log of what was said ambiguous."""
    names = [n for n in BOT_NAMES if f"Bot {n}" not in seated]
    bots = []
    for name in secrets.SystemRandom().sample(names, count):
        user = User(username=f"bot-{secrets.token_hex(5)}", display_name=f"Bot {name}", is_bot=True)
        user.set_unusable_password()
        user.save()
        bots.append(user)
    return bots


def fill_with_bots(host: User, table_id: int) -> Table:
    with transaction.atomic():
        table = services._lock_for_host(
            host,
            table_id,
            not_host=_("Solo el anfitrión puede añadir bots."),
            started=_("La partida ya ha empezado."),
        )
        taken = set(table.seats.values_list("seat", flat=True))
        free = [s for s in range(4) if s not in taken]
        if not free:
            raise services.ServiceError("full", _("La mesa está completa."))
        seated = {u.display_name for u in User.objects.filter(seats__table=table)}
        for seat, bot in zip(free, new_bots(len(free), seated), strict=True):
            Seat.objects.create(table=table, seat=seat, user=bot)
        # Games with bots never count for the ladder.
        services._bump(table, rated=False)
    services._after_commit_table(table)
    return table


def start_practice(user: User, mode: str, rng: Any = None) -> Table:
    """You and a bot partner against two bots, dealt at once."""
    table = services.create_table(user, mode, private=True, rated=False, practice=True)
    with transaction.atomic():
        for seat, bot in zip((1, 2, 3), new_bots(3, {user.display_name}), strict=True):
            Seat.objects.create(table=table, seat=seat, user=bot)
    return services.start_game(user, table.pk, rng)


def leave_practice(user: User, table_id: int) -> bool:
    """End your practice game now (nobody else is waiting on it): it is cancelled, so you may
    start another at once instead of waiting for the reconnection window to run out."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or services.seat_number(table, user.pk) is None:
        raise services.ServiceError("not_seated", _("No estás sentado en esta mesa."))
    if not table.practice:
        raise services.ServiceError(
            "not_practice", _("Solo una práctica contra bots se puede dejar a medias.")
        )
    if not services.cancel_game(table_id, reason="practica"):
        raise services.ServiceError("over", _("La partida ya ha terminado."))
    return True


def bot_seats(table: Table) -> set[int]:
    return {row["seat"] for row in services.seat_rows(table) if row["is_bot"]}


def pending_bot_seat(game: engine.Game, bots: set[int], host_seat: int | None) -> int | None:
    """The first bot that may act now (the next deal counts only if the host is a bot)."""
    if not bots:
        return None
    if game.phase == "recuento":
        return host_seat if host_seat in bots else None
    return next((s for s in game.to_act() if s in bots), None)


def decide(game: engine.Game, seat: int, rng: random.Random | None = None) -> engine.Action:
    from .engine import bot

    return bot.decide(engine.view(game, seat), rng)


def play_bot_turn(table_id: int, version: int) -> bool:
    """One bot action if the table is still at `version` (so a duplicate task does nothing)."""
    table = services.load_table(table_id)
    if table is None or table.status != Table.Status.PLAYING or table.version != version:
        return False
    game = services.game_of(table)
    if game is None:
        return False
    seat = pending_bot_seat(game, bot_seats(table), services.seat_number(table, table.host_id))
    if seat is None:
        return False
    action = decide(game, seat)
    try:
        services.apply_action(table, action)
    except services.ServiceError:
        return False  # somebody else moved first; their change schedules the next bot turn
    return True


def schedule_bot_turn(table: Table, states: dict[str, dict[str, Any]]) -> None:
    """After a committed change: queue the next bot's turn, if a bot is to act."""
    if table.status != Table.Status.PLAYING:
        return
    seats = states["-"]["seats"]
    bots = {info["seat"] for info in seats if info and info["bot"]}
    if not bots:
        return
    game = services.game_of(table)
    if game is None or pending_bot_seat(game, bots, states["-"]["host_seat"]) is None:
        return
    from .tasks import bot_turn_task

    bot_turn_task.apply_async(
        args=[table.pk, table.version], countdown=settings.MUS_BOT_DELAY_MS / 1000
    )
