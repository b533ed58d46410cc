"""Whose turn it is, in the platform's terms: the engine's `to_act`, except at the recuento, where
the players still to press «Seguir» are (docs/rules.md §8.2); and who plays a seat's turn when its
person does not (a bot's decision, or the clock's safe default).
"""

from __future__ import annotations

import random
from typing import Any

from celery import current_app

from .. import engine
from ..engine import bot
from ..models import DEFAULT_BOT_LEVEL, Table
from .storage import seat_rows

#: The Celery task that plays one bot turn (games.tasks.bot_turn_task), sent by name: the tasks
#: module calls into this package, not the other way round.
BOT_TURN_TASK = "games.bot_turn"


def to_act(table: Table, game: engine.Game) -> list[int]:
    """The seats that may act now, as every browser is told. At the recuento: the people at the
    table who have not pressed «Seguir» yet; bots and players who are away hold nobody up."""
    if game.phase == "recuento":
        return [
            row["seat"]
            for row in seat_rows(table)
            if not row["is_bot"]
            and row["away_until"] is None
            and row["seat"] not in table.ready_seats
        ]
    return game.to_act()


def bot_seats(table: Table) -> set[int]:
    return {row["seat"] for row in seat_rows(table) if row["is_bot"]}


def decide(
    game: engine.Game,
    seat: int,
    rng: random.Random | None = None,
    level: str = DEFAULT_BOT_LEVEL,
) -> engine.Action:
    """A bot's action for `seat` playing at `level`, from what that seat may see."""
    return bot.decide(engine.view(game, seat, recall=True), rng, level=level)


def pending_bot_seat(table: Table, game: engine.Game) -> int | None:
    """The first bot that may act now."""
    bots = bot_seats(table)
    return next((s for s in to_act(table, game) if s in bots), None) if bots else None


def schedule_bot_turn(table: Table, game: engine.Game | None, delay_ms: int) -> None:
    """After a committed change: queue the next bot's turn, if a bot is to act."""
    if table.status != Table.Status.PLAYING or game is None:
        return
    if pending_bot_seat(table, game) is None:
        return
    args: list[Any] = [table.pk, table.version]
    current_app.send_task(BOT_TURN_TASK, args=args, countdown=delay_ms / 1000)
