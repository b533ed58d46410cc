"""A table's life before and after its game: create, sit, stand, kick, close, start, rematch."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.models import User

from ..models import Connection, Mode, Seat, Table
from . import connections, fairplay, finish, kicks, play, withdrawals
from .access import SYSTEM, Actor, check_manages, check_may_sit_at, check_standing, no_bot_accounts
from .errors import SeatsRefused, ServiceError, not_seated, unique_or
from .state import after_commit
from .storage import compare_and_set, live_seat_of, lock_table, seat_number

SEATS = range(4)


def _already_seated() -> ServiceError:
    return ServiceError(
        "already_seated", _("Ya estás sentado en otra mesa. Levántate antes de crear una.")
    )


def create_table(
    user: User,
    mode: str,
    *,
    private: bool = False,
    rated: bool = True,
    practice: bool = False,
    quick: bool = False,
    seat: int = 0,
    bots_allowed: bool = False,
) -> Table:
    """A new table with its host sitting at `seat` (a rematch keeps the seat they had); `quick`
    for quick play's tables; `bots_allowed` for one where players' bot accounts may sit, which
    never counts for the ladder."""
    if mode not in Mode.values:
        raise ServiceError("unknown_mode", _("Modalidad desconocida."))
    if not practice:  # bots mind nobody's past: a suspended player may still practise
        check_standing(user)
    if user.is_bot_account and not (quick and bots_allowed):  # (the bots' quick play seats them)
        raise no_bot_accounts()
    if live_seat_of(user) is not None:
        raise _already_seated()
    with unique_or(_already_seated()):
        table = Table.objects.create(
            mode=mode,
            host=user,
            private=private,
            # Public tables always count for the ladder; a private one only if the host says.
            rated=(rated if private else True) and not practice and not bots_allowed,
            practice=practice,
            quick=quick,
            bots_allowed=bots_allowed,
        )
        _new_seat(table, seat, user)
    return table


def _new_seat(table: Table, seat: int, user: User) -> Seat:
    """`user` sits at `seat`: with the sockets they already have open there (watching before
    sitting), or away from now if none (docs/rules.md §8.3, `free_away_seats`)."""
    sockets = Connection.objects.filter(table=table, user=user).count()
    return Seat.objects.create(
        table=table,
        seat=seat,
        user=user,
        connections=sockets,
        disconnected_at=None if sockets else timezone.now(),
    )


def lock_open_table(table_id: int, *, started: Any) -> Table:
    """Lock a table for a change before its start; `started` says why it is refused after."""
    table = lock_table(table_id)
    if table.status != Table.Status.OPEN:
        raise ServiceError("started", started)
    return table


#: What a host's change before the start says when refused: to an actor who does not manage the
#: table, and once the game has started or the table is closed.
MANAGING: dict[str, tuple[Any, Any]] = {
    "kick": (_("Solo el anfitrión puede hacer eso."), _("La partida ya ha empezado.")),
    "close": (
        _("Solo el anfitrión puede cerrar la mesa."),
        _("La partida ya ha empezado: no se puede cerrar."),
    ),
    "start": (
        _("Solo el anfitrión puede empezar la partida."),
        _("La partida ya ha empezado o la mesa está cerrada."),
    ),
    "bots": (_("Solo el anfitrión puede añadir bots."), _("La partida ya ha empezado.")),
}


def lock_to_manage(acting_user: Actor, table_id: int, change: str) -> Table:
    """Lock a table for a `change` (a key of `MANAGING`) before the start that only its host, or
    the site, makes (`access.check_manages`)."""
    not_host, started = MANAGING[change]
    table = lock_table(table_id)
    check_manages(acting_user, table, not_host)
    if table.status != Table.Status.OPEN:
        raise ServiceError("started", started)
    return table


def take_seat(user: User, table_id: int, seat: int, token: str | None = None) -> Table:
    if seat not in SEATS:
        raise ServiceError("bad_seat", _("Ese asiento no existe."))
    with transaction.atomic():
        table = lock_table(table_id)
        check_may_sit_at(user, table, token)
        _check_reserved(table, user, seat)
        check_standing(user)
        seats = {s.seat: s for s in table.seats.all()}
        mine = next((s for s in seats.values() if s.user_id == user.pk), None)
        if seat in seats and seats[seat].user_id != user.pk:
            if len(seats) == 4 and mine is None:
                raise ServiceError("full", _("La mesa está completa."))
            raise ServiceError("taken", _("Ese asiento ya está ocupado."))
        if mine is not None and mine.seat == seat:
            return table
        if mine is None and live_seat_of(user) is not None:
            raise ServiceError(
                "already_seated",
                _("Ya estás sentado en otra mesa. Levántate de ella antes de cambiar."),
            )
        with unique_or(ServiceError("taken", _("Ese asiento acaba de ocuparse."))):
            if mine is not None:
                Seat.objects.filter(pk=mine.pk).update(seat=seat)
            else:
                _new_seat(table, seat, user)
        compare_and_set(table)
    after_commit(table)
    return table


def _check_reserved(table: Table, user: User, seat: int) -> None:
    """A rematch belongs to the four players of the finished game, each in their own seat
    (docs/rules.md §8.5)."""
    old = Table.objects.filter(rematch=table).first()
    if old is None:
        return
    theirs = old.seats.filter(user=user).values_list("seat", flat=True).first()
    if theirs is None:
        raise ServiceError(
            "reserved", _("Esta mesa es la revancha de otra partida: solo para sus jugadores.")
        )
    if theirs != seat:
        raise ServiceError("reserved", _("En la revancha cada cual se sienta en su sitio."))


def leave_seat(user: User, table_id: int) -> Table:
    with transaction.atomic():
        table = lock_open_table(
            table_id, started=_("La partida ya ha empezado: no puedes levantarte ahora.")
        )
        deleted, _unused = Seat.objects.filter(table=table, user=user).delete()
        if not deleted:
            raise not_seated()
        _seat_left(table, user.pk)
    after_commit(table)
    return table


def _seat_left(table: Table, user_id: int) -> None:
    """After `user_id`'s seat at `table` (locked, open) is gone: the table invitations they sent
    to it go with it."""
    withdrawals.to_table_from(user_id, table.pk)
    if table.host_id == user_id:
        # A host who leaves hands the table to the next person seated there; with nobody
        # left but bots, nobody could start or close it, so it closes.
        nxt = table.seats.filter(user__is_bot=False).order_by("joined_at").first()
        if nxt is None:
            _close(table)
        else:
            compare_and_set(table, host_id=nxt.user_id)
    else:
        compare_and_set(table)


def free_away_seats() -> int:
    """Free the seats of tables that have not started whose player has been away (no socket
    there) for MUS_RECONNECT_SECONDS, as if they had stood up (docs/rules.md §8.3): a closed
    tab holds neither a seat nor the host's start. Returns how many (the clock's sweep)."""
    limit = timezone.now() - timedelta(seconds=settings.MUS_RECONNECT_SECONDS)
    away = Seat.objects.filter(
        table__status=Table.Status.OPEN,
        user__is_bot=False,
        connections=0,
        disconnected_at__lte=limit,
    ).values_list("table_id", "user_id")
    freed = 0
    for table_id, user_id in away[:500]:
        with transaction.atomic():
            table = lock_table(table_id)
            if table.status != Table.Status.OPEN:
                continue
            # (counted again under the lock: a player who came back meanwhile keeps the seat)
            gone = Seat.objects.filter(
                table=table, user_id=user_id, connections=0, disconnected_at__lte=limit
            ).delete()[0]
            if not gone:
                continue
            _seat_left(table, user_id)
        after_commit(table)
        freed += 1
    return freed


def _close(table: Table) -> None:
    table.seats.all().delete()
    compare_and_set(table, status=Table.Status.CLOSED)


def kick(acting_user: Actor, table_id: int, seat: int) -> Table:
    with transaction.atomic():
        table = lock_to_manage(acting_user, table_id, "kick")
        target = table.seats.filter(seat=seat).first()
        if target is None:
            raise ServiceError("empty_seat", _("Ese asiento está libre."))
        if target.user_id == acting_user.pk:
            raise ServiceError("kick_self", _("No puedes echarte a ti mismo: levántate."))
        target.delete()
        kicks.record(table, target.user_id)
        # A kicked guest's invitations to this table would seat their friends all the same.
        withdrawals.to_table_from(target.user_id, table.pk)
        compare_and_set(table)
    after_commit(table)
    return table


def close_table(acting_user: Actor, table_id: int) -> Table:
    with transaction.atomic():
        table = lock_to_manage(acting_user, table_id, "close")
        _close(table)
    after_commit(table)
    return table


def start_game(
    acting_user: Actor, table_id: int, rng: Any = None, *, by_hand: bool = True
) -> Table:
    """Deal the first hand at the host's table (docs/rules.md §8.3). Pressed by the host
    (`by_hand`), it starts only with all four players there (refused `players_away`, naming
    them); started by the site for its players (`SYSTEM`: quick play, a rematch, a practice), at
    once, a seat whose player has not come yet waiting for them from now."""
    with transaction.atomic():
        table = lock_to_manage(acting_user, table_id, "start")
        if table.seats.count() != 4:
            raise ServiceError("not_full", _("Hacen falta cuatro jugadores para empezar."))
        away = connections.away_before_start(table) if by_hand else []
        if away:
            raise _players_away([seat.user.public_name for seat in away])
        connections.mark_absent(table)
        fairplay.check_at_start(table)
        play.start(table, rng)
    return table


def _players_away(names: list[str]) -> ServiceError:
    return ServiceError(
        "players_away",
        lazy(_away_text, str)(names),
    )


def _away_text(names: list[str]) -> str:
    return ngettext(
        "No se puede empezar: %(names)s no está en la mesa (tiene que tenerla abierta).",
        "No se puede empezar: %(names)s no están en la mesa (tienen que tenerla abierta).",
        len(names),
    ) % {"names": ", ".join(names)}


def seat_four(players: Sequence[User], mode: str, rng: Any = None, *, bots: bool = False) -> Table:
    """Quick play's table: `players[i]` at seat i (0+2 and 1+3 are partners), public and rated,
    dealt at once. It is made the way four people would make it by hand (the first creates it,
    the others sit), so every rule of sitting applies, then the site deals it (`SYSTEM`: not as
    the first of the four); all or nothing: a refusal leaves no table behind. The bots' quick
    play (`bots`: four players' bot accounts) makes a table that admits them, which counts for
    the bots ladder instead."""
    if len(players) != 4:
        raise ServiceError("not_full", _("Hacen falta cuatro jugadores para empezar."))
    with transaction.atomic():
        table = create_table(players[0], mode, quick=True, bots_allowed=bots)
        for seat, user in enumerate(players[1:], start=1):
            take_seat(user, table.pk, seat)
        return start_game(SYSTEM, table.pk, rng, by_hand=False)


def start_arranged(
    players: Sequence[User], mode: str, *, turn_seconds: int | None = None, rng: Any = None
) -> Table:
    """A table set up for four players by somebody else (a tournament's round): `players[i]` at
    seat i (0+2 and 1+3 are partners), public, rated, dealt at once.

    The rules of sitting and starting apply as if the four had sat down and started it
    themselves: a banned or suspended player, or one playing another game, is refused
    (`SeatsRefused` names every refused seat, and nothing is changed); the seats of those who
    have no socket open wait for them from now (docs/rules.md §8.3); the pairs' limit may make it
    unrated. A player waiting at a table that has not started is taken from it, and a practice
    of theirs is ended, as if they had left them. The checks higher apps add
    (`hooks.check_may_sit`) are for the players' own choices and are not run: this table is
    what they hold the players for.
    """
    if mode not in Mode.values:
        raise ServiceError("unknown_mode", _("Modalidad desconocida."))
    if len(players) != 4 or len({p.pk for p in players}) != 4:
        raise ServiceError("not_full", _("Hacen falta cuatro jugadores para empezar."))
    refused: dict[int, ServiceError] = {}
    waiting: list[tuple[User, Seat]] = []
    for seat, user in enumerate(players):
        try:
            live = _check_arranged(user)
        except ServiceError as exc:
            refused[seat] = exc
        else:
            waiting += [(user, live)] if live is not None else []
    if refused:
        raise SeatsRefused(refused)
    for user, live in waiting:
        _make_room(user, live)
    try:
        with transaction.atomic():
            table = Table.objects.create(mode=mode, host=players[0], turn_seconds=turn_seconds)
            Seat.objects.bulk_create(
                [Seat(table=table, seat=seat, user=user) for seat, user in enumerate(players)]
            )
            connections.mark_absent(table)
            fairplay.check_at_start(table)
            play.start(table, rng)
    except IntegrityError:
        # Somebody sat down somewhere meanwhile (one live table per player): say who.
        busy = {seat: _busy() for seat, user in enumerate(players) if live_seat_of(user)}
        raise SeatsRefused(busy or {0: _busy()}) from None
    return table


def _busy() -> ServiceError:
    return ServiceError("already_seated", _("Está jugando otra partida."))


def _check_arranged(user: User) -> Seat | None:
    """Refuse a player who may not be seated at a table now (and change nothing); the seat they
    hold at a table that has not started or at a practice, which they will leave."""
    if not user.may_play:
        raise ServiceError("banned", _("Esta cuenta no puede jugar."))
    check_standing(user, higher=False)
    seat = live_seat_of(user)
    if seat is not None and seat.table.status == Table.Status.PLAYING and not seat.table.practice:
        raise _busy()
    return seat


def _make_room(user: User, seat: Seat) -> None:
    """Take `user` from the table that has not started where they hold `seat`, or end their
    practice there."""
    if seat.table.status == Table.Status.OPEN:
        leave_seat(user, seat.table_id)
    elif seat.table.practice:
        finish.cancel_game(seat.table_id, Table.CancelReason.PRACTICE_LEFT)


def rematch(user: User, table_id: int) -> Table:
    """Another game with the same four, asked for from a finished table.

    The first player to ask opens a table like this one (mode, ladder) sitting where they sat,
    so partners stay partners; each other player who asks sits in their own seat there, which
    nobody else may take (docs/rules.md §8.5). The fourth to arrive starts it: everybody there has
    asked for it. A rematch not all four ask for closes by itself (`close_stale_rematches`).
    """
    with transaction.atomic():
        old = lock_table(table_id)
        if old.status != Table.Status.FINISHED:
            raise ServiceError("not_over", _("La revancha se pide cuando la partida ha terminado."))
        if old.practice:
            raise ServiceError("practice", _("Para otra práctica, usa «Practicar otra vez»."))
        if old.seats.filter(user__is_bot=False).count() <= 1:
            raise ServiceError(
                "bots", _("Solo jugaste con bots: para otra partida, usa «Practicar otra vez».")
            )
        seat = seat_number(old, user.pk)
        if seat is None:
            raise ServiceError(
                "not_player", _("Solo quienes jugaron esta partida pueden pedir la revancha.")
            )
        new = Table.objects.select_for_update().filter(pk=old.rematch_id).first()
        if new is not None and new.seats.filter(user=user).exists():
            return new  # asked twice (two tabs, a double click): already there
        if new is None or new.status == Table.Status.CLOSED:
            # As public to watch as the game before (its seats are the four's all the same:
            # `_check_reserved`, and the lobby never offers them). Rated if the host chose so,
            # whatever the pairs' limit did to the last game (it is checked again when the
            # rematch starts).
            rated = old.rated or old.unrated_reason == Table.UnratedReason.PAIR_LIMIT
            new = create_table(user, old.mode, private=old.private, rated=rated, seat=seat)
            compare_and_set(old, rematch_id=new.pk)
            return new
        if new.status != Table.Status.OPEN:
            raise ServiceError("started", _("La revancha ya ha empezado sin ti."))
        taken = set(new.seats.values_list("seat", flat=True))
        take_seat(user, new.pk, seat, new.invite_token)
        if len(taken) == 3:  # the fourth has asked: the site deals it, for all four
            return start_game(SYSTEM, new.pk, by_hand=False)
    return new


def close_stale_rematches() -> int:
    """Close the rematches that not all four asked for in time; returns how many."""
    limit = timezone.now() - timedelta(seconds=settings.MUS_REMATCH_SECONDS)
    stale = Table.objects.filter(
        status=Table.Status.OPEN, rematch_of__isnull=False, created_at__lt=limit
    ).values_list("pk", flat=True)
    closed = 0
    for table_id in stale:
        with transaction.atomic():
            table = lock_table(table_id)
            if table.status != Table.Status.OPEN:
                continue
            _close(table)
        after_commit(table)
        closed += 1
    return closed
