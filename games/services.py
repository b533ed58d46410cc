"""Every action on a table, in one place.

Views, the WebSocket consumer, Celery tasks and bots all call these functions. Each one loads the
table, applies the change (through the rules engine for game actions), saves it with a
compare-and-set on `Table.version` and, once the transaction commits, tells every connected
browser. A zero-row update means somebody else changed the table first: the caller is told so,
nothing is overwritten.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections import OrderedDict
from contextlib import nullcontext, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

import orjson
import psycopg
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from psycopg.types.json import Jsonb, set_json_loads

from accounts.models import User

from . import engine
from .models import Seat, Table

log = logging.getLogger(__name__)

MODES = ("4-reyes", "8-reyes")
# A lost compare-and-set is retried this often: enough for all four seats of a discard round
# arriving at the same moment (each round of retries lets at least one of them through).
ACT_ATTEMPTS = 6


class ServiceError(Exception):
    """A refused request: `code` is stable for clients, `message` is for people."""

    def __init__(self, code: str, message: Any) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return str(self.message)


# Player-facing messages for the engine's refusal codes (the engine speaks English and has no
# Django; here they become translatable Spanish-first text).
ENGINE_MESSAGES: dict[str, Any] = {
    "not_your_turn": _("No es tu turno."),
    "unknown_act": _("Esa acción no existe."),
    "bad_amount": _("Esa cantidad no vale aquí."),
    "game_over": _("La partida ya ha terminado."),
    "bad_cards": _("Esas cartas no valen para el descarte."),
    "malformed": _("Mensaje mal formado."),
    "no_raise_on_ordago": _("Con un órdago sobre la mesa solo cabe quiero o no quiero."),
}


def engine_error(exc: engine.IllegalAction) -> ServiceError:
    message = ENGINE_MESSAGES.get(exc.code, _("Esa jugada no está permitida ahora."))
    return ServiceError(exc.code, message)


def group_name(table_id: int) -> str:
    return f"table-{table_id}"


# Group messages are sent right away from synchronous callers (views, Celery tasks). A WebSocket
# consumer instead collects them while its synchronous call runs in a worker thread and sends
# them itself on its event loop: `async_to_sync` from a worker thread would queue each send
# behind everything else that loop is doing, and block the thread meanwhile.
_collect = threading.local()


class collect_group_messages:
    def __enter__(self) -> list[tuple[str, dict[str, Any]]]:
        self.previous = getattr(_collect, "messages", None)
        _collect.messages = []
        return _collect.messages

    def __exit__(self, *exc: object) -> None:
        _collect.messages = self.previous


def send_group(group: str, message: dict[str, Any]) -> None:
    bucket = getattr(_collect, "messages", None)
    if bucket is not None:
        bucket.append((group, message))
        return
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


# --------------------------------------------------------------------------------------------
# Loading games: the stored record is the truth; a small per-process cache keyed by version
# spares replaying it on every action.
# --------------------------------------------------------------------------------------------
_GAME_CACHE: OrderedDict[tuple[int, int], engine.Game] = OrderedDict()
_GAME_CACHE_SIZE = 2048


def game_of(table: Table) -> engine.Game | None:
    if table.record is None:
        return None
    key = (table.pk, table.version)
    game = _GAME_CACHE.get(key)
    if game is None:
        game = engine.replay(table.record)
        if table.phase == "cancelada" and game.phase != "cancelada":
            game = engine.cancel(game)
        _remember(key, game)
    else:
        # (evicted meanwhile by the other thread: the event loop and the sync thread share it)
        with suppress(KeyError):
            _GAME_CACHE.move_to_end(key)
    return game


def _remember(key: tuple[int, int], game: engine.Game) -> None:
    _GAME_CACHE[key] = game
    while len(_GAME_CACHE) > _GAME_CACHE_SIZE:
        _GAME_CACHE.popitem(last=False)


# --------------------------------------------------------------------------------------------
# The hot path reads a table, its seats and their players with one fixed statement: through the
# ORM the two queries of every action cost more CPU to build than PostgreSQL took to answer.
# --------------------------------------------------------------------------------------------
_TABLE_COLUMNS = [f.attname for f in Table._meta.concrete_fields]
_JSON_COLUMNS = [
    i for i, f in enumerate(Table._meta.concrete_fields) if f.get_internal_type() == "JSONField"
]


@cache
def _seats_sql() -> str:
    """The seats of table %s as one JSON list, ordered by seat (see `seats_info`)."""
    qn = connection.ops.quote_name
    return (
        "SELECT coalesce(json_agg(json_build_object("
        "'seat', s.seat, 'user_id', s.user_id, 'username', u.username, "
        "'display_name', u.display_name, 'is_bot', u.is_bot, 'connections', s.connections, "
        "'away_until', s.reconnect_deadline) ORDER BY s.seat), '[]'::json) "
        f"FROM {qn(Seat._meta.db_table)} s JOIN {qn(User._meta.db_table)} u ON u.id = s.user_id "
        "WHERE s.table_id = %s"
    )


@cache
def _load_sql() -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(f"t.{qn(Table._meta.get_field(c).column)}" for c in _TABLE_COLUMNS)
    seats = _seats_sql().replace("%s", "t.id")
    return f"SELECT {columns}, ({seats}) FROM {qn(Table._meta.db_table)} t WHERE t.id = %s"


def load_table(table_id: int) -> Table | None:
    """The table with `seat_rows` filled in, from one query; None if there is no such table."""
    with connection.cursor() as cursor:
        cursor.execute(_load_sql(), [table_id])
        row = cursor.fetchone()
    return _table_from_row(row)


def _table_from_row(row: tuple[Any, ...] | None) -> Table | None:
    if row is None:
        return None
    values = list(row[:-1])
    for i in _JSON_COLUMNS:  # jsonb arrives as text; JSONField would decode it the same way
        if isinstance(values[i], str):
            values[i] = orjson.loads(values[i])
    table = Table.from_db(DEFAULT_DB_ALIAS, _TABLE_COLUMNS, values)
    table.seat_rows = row[-1]
    return table


def seat_rows(table: Table) -> list[dict[str, Any]]:
    """The table's seats as `load_table` reads them (read now if the table came from the ORM)."""
    if table.seat_rows is not None:
        return table.seat_rows
    # Not kept on the instance: an ORM-loaded table may be refreshed after its seats change.
    with connection.cursor() as cursor:
        cursor.execute(_seats_sql(), [table.pk])
        return cursor.fetchone()[0]


# --------------------------------------------------------------------------------------------
# Lobby: creating tables, seats, starting.
# --------------------------------------------------------------------------------------------
def live_seat_of(user: User) -> Seat | None:
    return Seat.objects.select_related("table").filter(user=user, active=True).first()


def create_table(
    user: User,
    mode: str,
    *,
    private: bool = False,
    rated: bool = True,
    practice: bool = False,
    seat: int = 0,
) -> Table:
    """A new table with its host sitting at `seat` (a rematch keeps the seat they had)."""
    if mode not in MODES:
        raise ServiceError("unknown_mode", _("Modalidad desconocida."))
    if live_seat_of(user) is not None:
        raise ServiceError(
            "already_seated", _("Ya estás sentado en otra mesa. Levántate antes de crear una.")
        )
    try:
        with transaction.atomic():
            table = Table.objects.create(
                mode=mode,
                host=user,
                private=private,
                # Public tables always count for the ladder; a private one only if the host says.
                rated=(rated if private else True) and not practice,
                practice=practice,
            )
            Seat.objects.create(table=table, seat=seat, user=user)
    except IntegrityError:
        raise ServiceError(
            "already_seated", _("Ya estás sentado en otra mesa. Levántate antes de crear una.")
        ) from None
    return table


def can_see(table: Table, user: User, token: str | None = None) -> bool:
    """Private tables are visible only to those seated there or holding the invite token."""
    if not table.private:
        return True
    if user.is_authenticated and (
        table.host_id == user.pk or seat_number(table, user.pk) is not None
    ):
        return True
    return bool(token) and secrets.compare_digest(str(token), table.invite_token)


def _lock_open_table(table_id: int) -> Table:
    try:
        table = Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise ServiceError("no_table", _("Esa mesa no existe.")) from None
    return table


def _lock_for_host(host: User, table_id: int, *, not_host: Any, started: Any) -> Table:
    """Lock a table for a host-only change before the start; the messages say what was refused."""
    table = _lock_open_table(table_id)
    if table.host_id != host.pk:
        raise ServiceError("not_host", not_host)
    if table.status != Table.Status.OPEN:
        raise ServiceError("started", started)
    return table


def _bump(table: Table, **fields: Any) -> None:
    """Compare-and-set save of a table change; a lost race is reported, never overwritten.

    Every action goes through here, so the statement is built once per set of fields and kept:
    building it with the ORM cost more CPU (about 1 ms) than PostgreSQL took to run it.
    """
    sql, params = _bump_statement(table, fields)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        _bumped(table, fields, cursor.rowcount)


def _bump_statement(table: Table, fields: dict[str, Any]) -> tuple[str, list[Any]]:
    names = tuple(sorted(fields))
    params = [
        # The record (the whole game so far) is written on every move: orjson encodes it in a
        # fraction of the time Django's JSONField takes with the json module.
        Jsonb(fields[name], dumps=dumps)
        if name in _JSON_FIELDS and fields[name] is not None
        else _FIELDS[name].get_db_prep_save(fields[name], connection)
        for name in names
    ]
    return _update_sql(names), [*params, table.pk, table.version]


def dumps(value: Any) -> str:
    """JSON text of `value` with orjson (what the hot path encodes: states and records)."""
    return orjson.dumps(value).decode()


def _bumped(table: Table, fields: dict[str, Any], updated: int) -> None:
    if updated != 1:
        raise ServiceError("conflict", _("La mesa acaba de cambiar. Inténtalo otra vez."))
    table.version += 1
    for key, value in fields.items():
        setattr(table, key, value)


_FIELDS = {f.attname: f for f in Table._meta.concrete_fields}
_JSON_FIELDS = {
    f.attname for f in Table._meta.concrete_fields if f.get_internal_type() == "JSONField"
}


@cache
def _update_sql(names: tuple[str, ...]) -> str:
    qn = connection.ops.quote_name
    sets = "".join(f", {qn(_FIELDS[n].column)} = %s" for n in names)
    return (
        f"UPDATE {qn(Table._meta.db_table)} SET {qn('version')} = {qn('version')} + 1{sets} "
        f"WHERE {qn('id')} = %s AND {qn('version')} = %s"
    )


def take_seat(user: User, table_id: int, seat: int, token: str | None = None) -> Table:
    if seat not in (0, 1, 2, 3):
        raise ServiceError("bad_seat", _("Ese asiento no existe."))
    with transaction.atomic():
        table = _lock_open_table(table_id)
        if not can_see(table, user, token):
            raise ServiceError("private", _("Esta mesa es privada: necesitas la invitación."))
        if table.status != Table.Status.OPEN:
            raise ServiceError("started", _("La partida ya ha empezado o la mesa está cerrada."))
        seats = {s.seat: s for s in table.seats.all()}
        mine = next((s for s in seats.values() if s.user_id == user.pk), None)
        if seat in seats and seats[seat].user_id != user.pk:
            if len(seats) == 4 and mine is None:
                raise ServiceError("full", _("La mesa está completa."))
            raise ServiceError("taken", _("Ese asiento ya está ocupado."))
        if mine is not None and mine.seat == seat:
            return table
        if mine is None:
            elsewhere = live_seat_of(user)
            if elsewhere is not None:
                raise ServiceError(
                    "already_seated",
                    _("Ya estás sentado en otra mesa. Levántate de ella antes de cambiar."),
                )
        try:
            with transaction.atomic():
                if mine is not None:
                    Seat.objects.filter(pk=mine.pk).update(seat=seat)
                else:
                    Seat.objects.create(table=table, seat=seat, user=user)
        except IntegrityError:
            raise ServiceError("taken", _("Ese asiento acaba de ocuparse.")) from None
        _bump(table)
    _after_commit_table(table)
    return table


def leave_seat(user: User, table_id: int) -> Table:
    with transaction.atomic():
        table = _lock_open_table(table_id)
        if table.status != Table.Status.OPEN:
            raise ServiceError(
                "started", _("La partida ya ha empezado: no puedes levantarte ahora.")
            )
        deleted, _unused = Seat.objects.filter(table=table, user=user).delete()
        if not deleted:
            raise ServiceError("not_seated", _("No estás sentado en esta mesa."))
        if table.host_id == user.pk:
            # A host who leaves hands the table to the next seated player, or closes it.
            nxt = table.seats.order_by("joined_at").first()
            if nxt is None:
                _bump(table, status=Table.Status.CLOSED, phase="cerrada")
            else:
                _bump(table, host_id=nxt.user_id)
        else:
            _bump(table)
    _after_commit_table(table)
    return table


def kick(host: User, table_id: int, seat: int) -> Table:
    with transaction.atomic():
        table = _lock_for_host(
            host,
            table_id,
            not_host=_("Solo el anfitrión puede hacer eso."),
            started=_("La partida ya ha empezado."),
        )
        target = table.seats.filter(seat=seat).first()
        if target is None:
            raise ServiceError("empty_seat", _("Ese asiento está libre."))
        if target.user_id == host.pk:
            raise ServiceError("kick_self", _("No puedes echarte a ti mismo: levántate."))
        target.delete()
        _bump(table)
    _after_commit_table(table)
    return table


def close_table(host: User, table_id: int) -> Table:
    with transaction.atomic():
        table = _lock_for_host(
            host,
            table_id,
            not_host=_("Solo el anfitrión puede cerrar la mesa."),
            started=_("La partida ya ha empezado: no se puede cerrar."),
        )
        table.seats.all().delete()
        _bump(table, status=Table.Status.CLOSED, phase="cerrada")
    _after_commit_table(table)
    return table


def start_game(host: User, table_id: int, rng: Any = None) -> Table:
    with transaction.atomic():
        table = _lock_for_host(
            host,
            table_id,
            not_host=_("Solo el anfitrión puede empezar la partida."),
            started=_("La partida ya ha empezado o la mesa está cerrada."),
        )
        if table.seats.count() != 4:
            raise ServiceError("not_full", _("Hacen falta cuatro jugadores para empezar."))
        # RULES.md §3.2: the first mano is drawn by lot.
        first_mano = (rng or secrets.SystemRandom()).randrange(4)
        game = engine.new_game(table.mode, first_mano, rng)
        now = timezone.now()
        _save_game(
            table,
            game,
            status=Table.Status.PLAYING,
            started_at=now,
        )
    _after_commit_table(table, schedule=True)
    return table


def rematch(user: User, table_id: int) -> Table:
    """Another game with the same four, asked for from a finished table.

    The first player to ask opens a table like this one (mode, privacy, ladder) sitting where
    they sat, so partners stay partners; each other player who asks sits in their own seat
    there (or any free one, if a stranger took it at a public table). The fourth to arrive
    starts it: everybody there has asked for it.
    """
    with transaction.atomic():
        old = _lock_open_table(table_id)
        if old.status != Table.Status.FINISHED:
            raise ServiceError("not_over", _("La revancha se pide cuando la partida ha terminado."))
        if old.practice:
            raise ServiceError("practice", _("Para otra práctica, usa «Practicar otra vez»."))
        seat = seat_number(old, user.pk)
        if seat is None:
            raise ServiceError(
                "not_player", _("Solo quienes jugaron esta partida pueden pedir la revancha.")
            )
        new = Table.objects.select_for_update().filter(pk=old.rematch_id).first()
        if new is not None and new.seats.filter(user=user).exists():
            return new  # asked twice (two tabs, a double click): already there
        if new is None or new.status == Table.Status.CLOSED:
            new = create_table(user, old.mode, private=old.private, rated=old.rated, seat=seat)
            _bump(old, rematch_id=new.pk)
            return new
        if new.status != Table.Status.OPEN:
            raise ServiceError("started", _("La revancha ya ha empezado sin ti."))
        taken = set(new.seats.values_list("seat", flat=True))
        free = [seat] if seat not in taken else [s for s in range(4) if s not in taken]
        if not free:
            raise ServiceError("full", _("La mesa está completa."))
        take_seat(user, new.pk, free[0], new.invite_token)
        if len(taken) == 3:
            host = User.objects.get(pk=new.host_id)
            return start_game(host, new.pk)
    return new


# --------------------------------------------------------------------------------------------
# Playing.
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    table_id: int
    version: int
    phase: str


def _deadline_for(game: engine.Game) -> datetime | None:
    if game.phase in ("terminada", "cancelada"):
        return None
    return timezone.now() + timedelta(seconds=settings.MUS_TURN_SECONDS)


def step_key(game: engine.Game | None) -> tuple[Any, ...] | None:
    """What a player's decision depends on, besides whose turn it is (`engine.step_key`).

    Inside one simultaneous step (a discard round, a team's vote) the others' choices do not change
    what a player may do, so an action sent against an earlier version of the same step is still
    meant for this situation and is accepted; anything else (a new lance, a raise, a new hand)
    starts a new step.
    """
    return None if game is None else engine.step_key(game)


def _game_fields(
    table: Table, game: engine.Game, previous: engine.Game | None = None, **extra: Any
) -> dict[str, Any]:
    """The table columns that store `game` (which follows `previous` at this table)."""
    fields: dict[str, Any] = {
        "record": engine.export_record(game),
        "phase": game.phase,
        "scores": list(game.scores),
        "winner_team": game.winner,
        "ended_by": game.ended_by or "",
        "deadline": _deadline_for(game),
    }
    if game.phase == "terminada":
        fields["status"] = Table.Status.FINISHED
        fields["finished_at"] = timezone.now()
    if step_key(previous) != step_key(game):
        fields["step_version"] = table.version + 1
    fields.update(extra)
    return fields


def _save_game(
    table: Table, game: engine.Game, previous: engine.Game | None = None, **extra: Any
) -> None:
    """Compare-and-set the new game state into the table row."""
    fields = _game_fields(table, game, previous, **extra)
    _bump(table, **fields)
    _remember((table.pk, table.version), game)
    if fields.get("status") in (Table.Status.FINISHED, Table.Status.CANCELLED):
        Seat.objects.filter(table=table).update(active=False)
        if fields["status"] == Table.Status.FINISHED:
            transaction.on_commit(lambda: _game_finished(table.pk))


def seat_number(table: Table, user_id: int | None) -> int | None:
    """The seat `user_id` holds at `table`, or None."""
    if user_id is None:
        return None
    return next((row["seat"] for row in seat_rows(table) if row["user_id"] == user_id), None)


def _seat_of(table: Table, user: User) -> int:
    seat = seat_number(table, user.pk)
    if seat is None:
        raise ServiceError("not_seated", _("No estás sentado en esta mesa."))
    return seat


def act(user: User, table_id: int, version: Any, payload: dict[str, Any]) -> Outcome:
    """Apply one player's action (the `action` WebSocket message) to their table.

    `version` is the `v` of the state the player acted on. It may be older than the table's if
    only other players' simultaneous choices came in since (same step, see `step_key`); then the
    action still applies. A compare-and-set lost to such a choice is retried, so simultaneous
    discards and votes never bounce; a lost race for the same decision gets an error.
    """
    for attempt in range(ACT_ATTEMPTS):
        table, move = _prepare(load_table(table_id), user, version, payload)
        try:
            return apply_action(table, move)
        except ServiceError as exc:
            if exc.code != "conflict" or attempt == ACT_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _prepare(
    table: Table | None, user: User, version: Any, payload: dict[str, Any]
) -> tuple[Table, engine.Action]:
    """Check a player's action against the table as just read; the engine checks the rest."""
    if type(version) is not int:
        raise ServiceError("bad_version", _("Falta la versión del estado («v») o no es un número."))
    if table is None:
        raise ServiceError("no_table", _("Esa mesa no existe."))
    seat = _seat_of(table, user)
    if table.status != Table.Status.PLAYING:
        if table.status == Table.Status.OPEN:
            raise ServiceError("not_started", _("La partida aún no ha empezado."))
        raise ServiceError("game_over", _("La partida ya ha terminado."))
    if not table.step_version <= version <= table.version:
        raise ServiceError(
            "stale", _("Tu pantalla no estaba al día: aquí tienes el estado actual.")
        )
    if payload.get("act") == "repartir" and table.host_id != user.pk:
        raise ServiceError("not_host", _("Solo el anfitrión reparte la siguiente mano."))
    try:
        return table, engine.Action.from_dict(payload, seat=seat)
    except engine.IllegalAction as exc:
        raise engine_error(exc) from None


def _advance(table: Table, move: engine.Action) -> tuple[engine.Game, engine.Game]:
    """The game before and after `move` (the engine's refusal becomes a ServiceError)."""
    game = game_of(table)
    if game is None:
        raise ServiceError("not_started", _("La partida aún no ha empezado."))
    try:
        return game, engine.apply(game, move)
    except engine.IllegalAction as exc:
        raise engine_error(exc) from None


def apply_action(table: Table, action: engine.Action) -> Outcome:
    game, new_game = _advance(table, action)
    # A move is one UPDATE, which commits by itself; only the end of a game writes more rows
    # (the seats), so only then is there a transaction. Under load each round trip costs the
    # sync thread a wait for the GIL as well (docs/performance.md).
    with transaction.atomic() if new_game.phase == "terminada" else nullcontext():
        _save_game(table, new_game, game)
    _after_commit_table(table, schedule=True)
    return Outcome(table.pk, table.version, new_game.phase)


# --------------------------------------------------------------------------------------------
# The same move on the event loop. Channels runs all database work of a daphne process in one
# thread; under load every socket's move queued behind it, and after each query the thread waited
# for the GIL held by the busy event loop (docs/performance.md). A move that writes one row needs
# only `_prepare`, `_advance` and `_game_fields` above plus two statements, so the consumer runs
# it here with an async connection; the end of a game and tables with bots (more rows, Celery)
# take the synchronous `act`.
# --------------------------------------------------------------------------------------------
_AsyncKey = tuple[asyncio.AbstractEventLoop, int]
_ASYNC_DB: dict[_AsyncKey, psycopg.AsyncConnection[Any]] = {}
_ASYNC_DB_LOCKS: dict[_AsyncKey, asyncio.Lock] = {}


def _async_key(table_id: int) -> _AsyncKey:
    # A few connections per event loop, a table always on the same one: one connection made
    # every move of the process wait for all the others at PostgreSQL.
    return asyncio.get_running_loop(), table_id % settings.MUS_ASYNC_DB_CONNECTIONS


async def _async_db(key: _AsyncKey) -> psycopg.AsyncConnection[Any]:
    """The connection for `key`, opened on first use."""
    conn = _ASYNC_DB.get(key)
    if conn is not None and not conn.closed:
        return conn
    async with _ASYNC_DB_LOCKS.setdefault(key, asyncio.Lock()):
        conn = _ASYNC_DB.get(key)
        if conn is None or conn.closed:
            db = connection.settings_dict
            conn = await psycopg.AsyncConnection.connect(
                dbname=db["NAME"],
                user=db["USER"] or None,
                password=db["PASSWORD"] or None,
                host=db["HOST"] or None,
                port=db["PORT"] or None,
                autocommit=True,
                options="-c TimeZone=UTC",  # as Django's connections (USE_TZ)
            )
            set_json_loads(orjson.loads, conn)  # the record and the seats, on every move
            _ASYNC_DB[key] = conn
    return conn


def close_async_connections() -> None:
    """Close every event loop's connections (tests: each test has its own loop)."""
    for conn in list(_ASYNC_DB.values()):
        conn.pgconn.finish()  # synchronous: the connection's loop may be gone already
    _ASYNC_DB.clear()
    _ASYNC_DB_LOCKS.clear()


async def act_async(user: User, table_id: int, version: Any, payload: dict[str, Any]) -> bool:
    """`act` without leaving the event loop; False when the move needs the synchronous `act`.

    Raises ServiceError exactly like `act` (the checks are the same functions).
    """
    try:
        key = _async_key(table_id)
        db = await _async_db(key)
        for attempt in range(ACT_ATTEMPTS):
            async with db.cursor() as cursor:
                await cursor.execute(_load_sql(), [table_id])
                table, move = _prepare(
                    _table_from_row(await cursor.fetchone()), user, version, payload
                )
            if any(row["is_bot"] for row in seat_rows(table)):
                return False
            game, new_game = _advance(table, move)
            if new_game.phase == "terminada":
                return False
            fields = _game_fields(table, new_game, game)
            sql, params = _bump_statement(table, fields)
            async with db.cursor() as cursor:
                await cursor.execute(sql, params)
                try:
                    _bumped(table, fields, cursor.rowcount)
                except ServiceError as exc:
                    if exc.code != "conflict" or attempt == ACT_ATTEMPTS - 1:
                        raise
                    continue
            _remember((table.pk, table.version), new_game)
            layer = get_channel_layer()
            if layer is not None:
                common, yours = _state_parts(table, _ALL_KEYS)
                await layer.group_send(group_name(table.pk), _state_message(common, yours))
            return True
    except psycopg.OperationalError:
        # The connection broke (a database restart): reopen it next time; this move takes the
        # synchronous path, which reports a database that is really down the usual way.
        log.warning("async database connection lost", exc_info=True)
        conn = _ASYNC_DB.pop(_async_key(table_id), None)
        if conn is not None:
            conn.pgconn.finish()
        return False
    raise AssertionError("unreachable")  # pragma: no cover


def play_defaults(table_id: int, version: int | None = None, *, force: bool = False) -> int:
    """The turn clock ran out: play RULES.md §8.2's safe default for every seat still to act.

    Guarded by the version (a task for an old turn does nothing) and by the stored deadline
    (a task that runs early does nothing), so running it twice is harmless. Seats whose player is
    away have their clock stopped (§8.3) and are skipped.
    """
    table = load_table(table_id)
    if table is None or table.status != Table.Status.PLAYING:
        return 0
    if version is not None and table.version != version:
        return 0
    if not force and (table.deadline is None or table.deadline > timezone.now()):
        return 0
    game = first = game_of(table)
    if game is None:
        return 0
    away = {row["seat"] for row in seat_rows(table) if row["away_until"] is not None}
    played = 0
    if game.phase == "recuento":
        host_seat = seat_number(table, table.host_id)
        seats = [0 if host_seat is None else host_seat]
    else:
        seats = [s for s in game.to_act() if s not in away]
    from .bots import bot_seats, decide

    bots = bot_seats(table)
    for seat in seats:
        action = decide(game, seat) if seat in bots else engine.default_action(game, seat)
        if action is None:
            continue
        try:
            game = engine.apply(game, action)
        except engine.IllegalAction:  # pragma: no cover - default_action is always legal
            log.exception("default action refused on table %s", table_id)
            continue
        played += 1
    if played:
        try:
            with transaction.atomic():
                _save_game(table, game, first)
        except ServiceError:
            return 0  # somebody acted at the last moment: their action wins
        _after_commit_table(table, schedule=True)
    return played


def cancel_game(table_id: int, reason: str = "") -> bool:
    """Cancel a game in progress: unrated, record kept, everybody back to the lobby."""
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None or table.status != Table.Status.PLAYING:
            return False
        game = game_of(table)
        cancelled = engine.cancel(game) if game is not None else None
        fields: dict[str, Any] = {
            "status": Table.Status.CANCELLED,
            "phase": "cancelada",
            "cancel_reason": reason,
            "finished_at": timezone.now(),
            "deadline": None,
        }
        if cancelled is not None:
            fields["record"] = engine.export_record(cancelled)
        _bump(table, **fields)
        if cancelled is not None:
            _remember((table.pk, table.version), cancelled)
        Seat.objects.filter(table=table).update(active=False)
    _after_commit_table(table)
    return True


# --------------------------------------------------------------------------------------------
# Presence (RULES.md §8.3).
# --------------------------------------------------------------------------------------------
def player_connected(table_id: int, user: User) -> None:
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
        broadcast(table_id)  # the others see the seat connected again


def player_disconnected(table_id: int, user: User) -> None:
    """Uncount a socket; when a player of a game in play has none left, open the reconnection
    window (the beat sweep cancels the game if it runs out: tasks.sweep_deadlines)."""
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
    return cancel_game(table_id, reason="abandono")


# --------------------------------------------------------------------------------------------
# What each browser sees.
# --------------------------------------------------------------------------------------------
def seats_info(table: Table) -> list[dict[str, Any] | None]:
    seats: list[dict[str, Any] | None] = [None, None, None, None]
    for row in seat_rows(table):
        seats[row["seat"]] = {
            "seat": row["seat"],
            "team": row["seat"] % 2,
            "name": row["display_name"] or row["username"],  # User.public_name
            "username": row["username"],
            "bot": row["is_bot"],
            "host": row["user_id"] == table.host_id,
            "connected": row["connections"] > 0 or row["is_bot"],
            "away_until": row["away_until"],
        }
    return seats


_ALL_KEYS = ("0", "1", "2", "3", "-")


def build_states(table: Table, keys: tuple[str, ...] = _ALL_KEYS) -> dict[str, dict[str, Any]]:
    """The `state` message for every seat ("0".."3") and for onlookers ("-"), or only `keys`."""
    common, yours = _state_parts(table, keys)
    return {key: {**common, "you": yours[key]} for key in keys}


def _state_parts(
    table: Table, keys: tuple[str, ...]
) -> tuple[dict[str, Any], dict[str, dict[str, Any] | None]]:
    """What every audience sees (the state without "you"), and each key's own "you".

    Apart from "you" (a seat's cards and legal actions) the five states of a move are the same:
    built once and, in `_state_message`, encoded to JSON once (docs/performance.md).
    """
    game = game_of(table)
    seats = seats_info(table)
    host_seat = next((s["seat"] for s in seats if s and s["host"]), None)
    base: dict[str, Any] = {
        "type": "state",
        "v": table.version,
        "table": table.pk,
        "mode": table.mode,
        "status": table.status,
        "private": table.private,
        "rated": table.rated,
        "seats": seats,
        "host_seat": host_seat,
        "deadline": table.deadline.isoformat().replace("+00:00", "Z") if table.deadline else None,
        "turn_seconds": settings.MUS_TURN_SECONDS,
        # The server's clock, so browsers with a wrong clock still count deadlines down right.
        "now": timezone.now().isoformat().replace("+00:00", "Z"),
        "record_url": (
            reverse("game_record", args=[table.pk])
            if table.status in (Table.Status.FINISHED, Table.Status.CANCELLED) and table.record
            else None
        ),
        "cancel_reason": table.cancel_reason or None,
    }
    yours: dict[str, dict[str, Any] | None] = {}
    if game is None:
        common = {
            **base,
            "phase": table.phase,
            "mano": None,
            "scores": table.scores or [0, 0],
            "winner": None,
            "lance": None,
            "to_act": [],
        }
        for key in keys:
            yours[key] = None if key == "-" else {"seat": int(key), "cards": [], "legal": []}
        return common, yours
    common = engine.view(game, None)
    del common["you"]
    common.update(base)
    if table.phase == "cancelada":
        common["phase"] = "cancelada"
    cancelled = common["phase"] == "cancelada"
    if cancelled:
        common["to_act"] = []
    for key in keys:
        if key == "-":
            yours[key] = None
            continue
        you = engine.seat_view(game, int(key))
        if cancelled:
            you["legal"] = []
        elif common["phase"] == "recuento":
            you["legal"] = [{"act": "repartir"}] if you["seat"] == host_seat else []
        yours[key] = you
    return common, yours


def state_for(table: Table, user: User | None) -> dict[str, Any]:
    seat = seat_number(table, user.pk) if user is not None and user.is_authenticated else None
    key = "-" if seat is None else str(seat)
    return build_states(table, (key,))[key]


def broadcast(table: Table | int) -> dict[str, dict[str, Any]] | None:
    """Send every seat its own `state`; returns the states sent."""
    if not isinstance(table, Table):
        table = load_table(table)
        if table is None:
            return None
    common, yours = _state_parts(table, _ALL_KEYS)
    send_group(group_name(table.pk), _state_message(common, yours))
    return {key: {**common, "you": you} for key, you in yours.items()}


def _state_message(
    common: dict[str, Any], yours: dict[str, dict[str, Any] | None]
) -> dict[str, Any]:
    """The group message of a new state: what all see, encoded once, and each seat's "you".

    Every consumer sends `state_text(message, its key)`, so the JSON of the shared part is made
    once per move, not once per audience, and the channel layer carries it once.
    """
    seat_of = {info["username"]: str(info["seat"]) for info in common["seats"] if info}
    return {
        "type": "table.state",
        "common": dumps(common)[:-1],  # without the closing brace: "you" goes last
        "yours": {key: dumps(you) for key, you in yours.items()},
        "seat_of": seat_of,
    }


def state_text(message: dict[str, Any], key: str) -> str:
    """The JSON text of the state `message` (from `_state_message`) for seat `key` or "-"."""
    return f'{message["common"]},"you":{message["yours"][key]}}}'


def _after_commit_table(table: Table | int, *, schedule: bool = False) -> None:
    """Once the change is committed: tell every browser, then queue the next bot's turn.

    Works from the in-memory table the change just saved, so the commit costs no extra reads.
    """

    def run() -> None:
        states = broadcast(table)
        # No task per turn for the clock: Celery beat's sweep (`games.sweep_deadlines`, every
        # MUS_SWEEP_SECONDS) plays overdue turns. One task per action cost more CPU than the
        # action itself under load (docs/performance.md).
        if schedule and states is not None and isinstance(table, Table):
            from .bots import schedule_bot_turn

            schedule_bot_turn(table, states)

    transaction.on_commit(run)


def _game_finished(table_id: int) -> None:
    from .signals import game_finished

    game_finished.send(sender=Table, table_id=table_id)
