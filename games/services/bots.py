"""Bot seats: filling tables, practice games, and bots taking their turns.

Bots act through the same move pipeline as people (`pipeline.commit`), from a Celery task that runs
after a short, human-like pause (`turns.schedule_bot_turn`). A bot only ever sees `engine.view`
for its own seat.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Sequence
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from accounts import bots as accounts_bots
from accounts.models import User

from ..models import DEFAULT_BOT_LEVEL, BotLevel, Seat, Table
from . import finish, play, tables
from .access import SYSTEM, Actor
from .errors import ServiceError, not_seated
from .state import after_commit
from .storage import compare_and_set, game_of, load_table, seat_number, seat_rows
from .turns import decide, pending_bot_seat


def bot_accounts(count: int, seated: Collection[str] = ()) -> list[User]:
    """`count` bots from the fixed pool (`accounts.bots`), named differently from each other
    and from who already sits there (two «Bot Nerea», or a «Bot Maite» beside Maite, at one
    table would make the log of what was said ambiguous: `accounts.bots.clashes`).

    The pool is one account per name, made by a migration and found by its `is_bot` flag (a
    player who took a bot's username before names were reserved is never seated for one). A
    bot sits at many tables at once (its seats are never `active`), so games create no
    accounts; a pool found short (a database emptied by hand) is made whole first.
    """
    found = list(User.objects.filter(is_bot=True, display_name__in=_POOL))
    if len({u.display_name for u in found}) < len(_POOL):
        accounts_bots.pool(User)
        found = list(User.objects.filter(is_bot=True, display_name__in=_POOL))
    free = {u.display_name: u for u in found if not accounts_bots.clashes(u.display_name, seated)}
    return secrets.SystemRandom().sample(sorted(free.values(), key=lambda u: u.pk), count)


_POOL = frozenset(accounts_bots.display_name(name) for name in accounts_bots.BOT_NAMES)


def bot_level(level: str | None) -> str:
    """The bot level asked for: one of `BotLevel` (none asked for, or blank: `normal`).

    Refused with `unknown_level` before anything changes: a level the engine does not play must
    never reach a seat (its turns would fail at every move).
    """
    if level is None or level == "":
        return DEFAULT_BOT_LEVEL
    if level not in BotLevel.values:
        raise ServiceError(
            "unknown_level",
            _("Ese nivel de bot no existe: elige principiante, normal o fuerte."),
        )
    return level


def seat_bots(
    table: Table, seats: Collection[int], seated: Collection[str], level: str = DEFAULT_BOT_LEVEL
) -> None:
    for seat, bot in zip(seats, bot_accounts(len(seats), seated), strict=True):
        Seat.objects.create(table=table, seat=seat, user=bot, active=False, bot_level=level)


def fill_with_bots(acting_user: Actor, table_id: int, level: str | None = None) -> Table:
    """The host (or the site, for quick play) fills the empty seats with bots of `level`
    (`bot_level`)."""
    level = bot_level(level)
    with transaction.atomic():
        table = tables.lock_to_manage(acting_user, table_id, "bots")
        taken = set(table.seats.values_list("seat", flat=True))
        free = [s for s in tables.SEATS if s not in taken]
        if not free:
            raise ServiceError("full", _("La mesa está completa."))
        seated = {u.public_name for u in User.objects.filter(seats__table=table)}
        seat_bots(table, free, seated, level)
        # Games with bots never count for the ladder.
        compare_and_set(table, rated=False)
    after_commit(table)
    return table


def start_practice(user: User, mode: str, rng: Any = None, level: str | None = None) -> Table:
    """You and a bot partner against two bots of `level`, dealt at once (all or nothing: a
    failure leaves no hidden table behind with the player sitting at it)."""
    level = bot_level(level)
    with transaction.atomic():
        table = tables.create_table(user, mode, private=True, rated=False, practice=True)
        seat_bots(table, (1, 2, 3), {user.public_name}, level)
        return tables.start_game(SYSTEM, table.pk, rng, by_hand=False)


def start_with_bots(players: Sequence[User], mode: str, rng: Any = None) -> Table:
    """Quick play's «Completar con bots»: the player (and the partner they came with, opposite)
    and bots in the other seats, dealt at once; unrated, like every game with bots. Made as a
    host would make it by hand, so every rule of sitting applies."""
    with transaction.atomic():
        table = tables.create_table(players[0], mode, quick=True)
        for user in players[1:2]:
            tables.take_seat(user, table.pk, 2)
        fill_with_bots(SYSTEM, table.pk)
        return tables.start_game(SYSTEM, table.pk, rng, by_hand=False)


def leave_practice(user: User, table_id: int) -> bool:
    """End your practice game now (nobody else is waiting on it): it is cancelled, so you may
    start another at once instead of waiting for the reconnection window to run out."""
    table = load_table(table_id)
    if table is None or seat_number(table, user.pk) is None:
        raise not_seated()
    if not table.practice:
        raise ServiceError(
            "not_practice", _("Solo una práctica contra bots se puede dejar a medias.")
        )
    if not finish.cancel_game(table_id, Table.CancelReason.PRACTICE_LEFT):
        raise ServiceError("over", _("La partida ya ha terminado."))
    return True


def play_bot_turn(table_id: int, version: int) -> bool:
    """One bot action if the table is still at `version` (so a duplicate task does nothing)."""
    table = load_table(table_id)
    if table is None or table.status != Table.Status.PLAYING or table.version != version:
        return False
    game = game_of(table)
    seat = None if game is None else pending_bot_seat(table, game)
    if game is None or seat is None:
        return False
    level = next((row["bot_level"] for row in seat_rows(table) if row["seat"] == seat), "")
    try:
        play.apply_action(table, decide(game, seat, level=level or DEFAULT_BOT_LEVEL))
    except ServiceError:
        return False  # somebody else moved first; their change schedules the next bot turn
    return True
