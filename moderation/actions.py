"""Moderator actions: ban, unban, mute, unmute, cancel a game, see a live game's cards, resolve
reports, recompute ladders; and on tournaments: cancel one, remove a pair, decide a game.

The admin (and anything else) calls these functions; each one applies the change through the
game service layer where tables are concerned and writes one `ModerationAction` to the audit log.
Recomputing the ladders is queued to a Celery worker; the entry gets its result later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import bot_accounts
from accounts.models import User
from accounts.sessions import end_sessions
from accounts.sockets import recheck_sockets
from games import services
from games.models import Table
from rankings.tasks import recompute_ratings_task
from tournaments import services as tournaments
from tournaments.models import Match, Pair, Tournament

from . import tasks
from .models import ModerationAction, Report

log = logging.getLogger(__name__)


class ModerationError(Exception):
    """A refused moderator request; `message` is for the moderator."""

    def __init__(self, message: Any) -> None:
        super().__init__(str(message))
        self.message = message


def record(
    moderator: User | None,
    kind: str,
    *,
    target: User | None = None,
    table: Any = None,
    report: Report | None = None,
    reason: str = "",
    until: datetime | None = None,
    **details: Any,
) -> ModerationAction:
    """Write one entry of the audit log."""
    return ModerationAction.objects.create(
        moderator=moderator,
        moderator_name=moderator.get_username() if moderator is not None else "",
        kind=kind,
        target=target,
        target_name=target.get_username() if target is not None else "",
        table_id=getattr(table, "pk", table),
        report=report,
        reason=reason,
        until=until,
        details=details,
    )


def _check_target(moderator: User | None, user: User) -> None:
    if moderator is not None and moderator.pk == user.pk:
        raise ModerationError(_("No puedes aplicarte una medida de moderación a ti mismo."))


# --------------------------------------------------------------------------------------------
# Bans.
# --------------------------------------------------------------------------------------------
def ban(
    moderator: User | None,
    user: User,
    reason: str,
    until: datetime | None = None,
    *,
    report: Report | None = None,
    since: datetime | None = None,
) -> ModerationAction:
    """Ban `user` (until `until`, or with no end).

    The player is logged out everywhere, cannot log in, leaves the quick-play queue (their bot
    accounts too; a partner who queued with them is told), leaves any table that has not started
    (closing it if they host it), their game in progress is cancelled (unrated, record kept) and
    every socket of theirs is closed, at whatever table.
    """
    reason = (reason or "").strip()
    if not reason:
        raise ModerationError(_("Una expulsión necesita un motivo."))
    now = timezone.now()
    if until is not None and until <= now:
        raise ModerationError(_("La fecha de fin de la expulsión ya ha pasado."))
    _check_target(moderator, user)
    with transaction.atomic():
        user.banned_at = since or now
        user.banned_until = until
        user.ban_reason = reason
        user.save(update_fields=["banned_at", "banned_until", "ban_reason"])
        sessions = end_sessions(user)
        bots = list(user.bot_accounts.all())
        # Out of quick play before anything seats them: a banned player (or their program)
        # left waiting would be matched, never come, and end the others' game as a no-show.
        for queued in (user, *bots):
            services.leave_queue(queued)
        table_id, effect = _leave_live_table(user)
        entry = record(
            moderator,
            ModerationAction.Kind.BAN,
            target=user,
            table=table_id,
            report=report,
            reason=reason,
            until=until,
            sessions_ended=sessions,
            table_effect=effect,
        )
        # After the table's own broadcast (registered first by the service), so the other
        # players' `cancelada` state goes out before the socket is closed.
        recheck_sockets(user.pk)
        # A banned player's programs stop with them (`accounts.bot_accounts`).
        for bot in bots:
            recheck_sockets(bot.pk)
    return entry


def revoke_bot_tokens(moderator: User | None, bot: User, reason: str = "") -> ModerationAction:
    """Revoke every token of a player's bot account: its sockets close (4401) and its requests
    get 401 until its owner makes a new one (to keep it out, ban it: `ban`)."""
    if not bot.is_bot_account:
        raise ModerationError(_("Solo las cuentas de bot de los jugadores tienen tokens."))
    with transaction.atomic():
        count = bot_accounts.revoke(bot.bot_tokens.all())
        return record(
            moderator,
            ModerationAction.Kind.REVOKE_TOKENS,
            target=bot,
            reason=(reason or "").strip(),
            tokens_revoked=count,
        )


def unban(
    moderator: User | None, user: User, reason: str = "", *, report: Report | None = None
) -> ModerationAction:
    with transaction.atomic():
        was = {"banned_at": user.banned_at, "banned_until": user.banned_until}
        user.banned_at = None
        user.banned_until = None
        user.ban_reason = ""
        user.save(update_fields=["banned_at", "banned_until", "ban_reason"])
        return record(
            moderator,
            ModerationAction.Kind.UNBAN,
            target=user,
            report=report,
            reason=(reason or "").strip(),
            previous={k: v.isoformat() if v else None for k, v in was.items()},
        )


def _leave_live_table(user: User) -> tuple[int | None, str]:
    """Take a banned player away from their live table; return it and what happened."""

    def cancel(table: Table) -> str:
        services.cancel_game(table.pk, Table.CancelReason.BANNED)
        return "cancelada"

    return leave_table(
        user, cancel, _("La mesa del jugador no para de cambiar: inténtalo otra vez.")
    )


def leave_table(user: User, in_play: Callable[[Table], str], busy: str) -> tuple[int | None, str]:
    """Take `user` away from the table they sit at, whatever it is doing; return it and what
    happened (`in_play` ends a game being played and says how). The table may change under us (a
    seat taken, the game started): look again, a few times, then give up with `busy`."""
    for _attempt in range(5):
        seat = services.live_seat_of(user)
        if seat is None:
            return None, ""
        table = seat.table
        try:
            if table.status == Table.Status.PLAYING:
                return table.pk, in_play(table)
            if table.status == Table.Status.OPEN:
                if table.host_id == user.pk:
                    services.close_table(services.SYSTEM, table.pk)
                    return table.pk, "cerrada"
                services.leave_seat(user, table.pk)
                return table.pk, "levantado"
            # A seat still marked live at an ended table: just let it go.
            seat.__class__.objects.filter(pk=seat.pk).update(active=False)
            return table.pk, ""
        except services.ServiceError as exc:
            log.info("%s: table %s changed (%s), retrying", user.pk, table.pk, exc.code)
    raise ModerationError(busy)


# --------------------------------------------------------------------------------------------
# Mutes.
# --------------------------------------------------------------------------------------------
def mute(
    moderator: User | None,
    user: User,
    reason: str,
    until: datetime | None = None,
    *,
    report: Report | None = None,
) -> ModerationAction:
    """Silence `user` in table chat (until `until`, or with no end)."""
    reason = (reason or "").strip()
    if not reason:
        raise ModerationError(_("Un silencio necesita un motivo."))
    if until is not None and until <= timezone.now():
        raise ModerationError(_("La fecha de fin del silencio ya ha pasado."))
    _check_target(moderator, user)
    with transaction.atomic():
        # `muted` is the flag with no end; a silence with an end date only sets `muted_until`.
        user.muted = until is None
        user.muted_until = until
        user.save(update_fields=["muted", "muted_until"])
        return record(
            moderator,
            ModerationAction.Kind.MUTE,
            target=user,
            report=report,
            reason=reason,
            until=until,
        )


def unmute(
    moderator: User | None, user: User, reason: str = "", *, report: Report | None = None
) -> ModerationAction:
    with transaction.atomic():
        user.muted = False
        user.muted_until = None
        user.save(update_fields=["muted", "muted_until"])
        return record(
            moderator,
            ModerationAction.Kind.UNMUTE,
            target=user,
            report=report,
            reason=(reason or "").strip(),
        )


# --------------------------------------------------------------------------------------------
# Games.
# --------------------------------------------------------------------------------------------
def cancel_game(moderator: User | None, table: Table, reason: str) -> ModerationAction:
    """Cancel a game in progress: unrated, record kept; the reason stays in the audit log and
    the table's moderator note, players are told a moderator cancelled it."""
    reason = (reason or "").strip()
    if not reason:
        raise ModerationError(_("Para cancelar una partida hace falta un motivo."))
    with transaction.atomic():
        if not services.cancel_game(table.pk, Table.CancelReason.MODERATOR, note=reason):
            raise ModerationError(_("La partida #%(id)s no está en juego.") % {"id": table.pk})
        return record(moderator, ModerationAction.Kind.CANCEL_GAME, table=table, reason=reason)


def reveal_hands(moderator: User, table: Table, reason: str) -> ModerationAction:
    """Let a superuser see the cards and the pile of a game in progress, with a reason.

    The admin hides them from every staff member until the game ends (staff may be playing);
    this is the logged exception, for a suspected cheat that cannot wait. A superuser seated at
    the table cannot look at it.
    """
    reason = (reason or "").strip()
    if not moderator.is_superuser:
        raise ModerationError(
            _("Solo un superusuario puede ver las cartas de una partida en juego.")
        )
    if not reason:
        raise ModerationError(
            _("Para ver las cartas de una partida en juego hace falta un motivo.")
        )
    if table.status != Table.Status.PLAYING:
        raise ModerationError(_("La partida #%(id)s no está en juego.") % {"id": table.pk})
    if services.seat_number(table, moderator.pk) is not None:
        raise ModerationError(_("No puedes ver las cartas de una partida en la que juegas."))
    hands = len((table.record or {}).get("hands") or [])
    return record(
        moderator,
        ModerationAction.Kind.REVEAL_HANDS,
        table=table,
        reason=reason,
        version=table.version,
        hand=hands,
    )


def recompute_ratings(moderator: User | None, reason: str = "") -> ModerationAction:
    """Have a Celery worker rebuild the Elo ladders (`rankings.recompute_ratings`).

    The audit-log entry is written first, with status `encargado`; the worker writes the result
    into it when it is done (`moderation.tasks`). If the task cannot be queued (the broker is
    down) the entry says so and the moderator is told.
    """
    entry = record(
        moderator,
        ModerationAction.Kind.RECOMPUTE,
        reason=(reason or "").strip(),
        status=tasks.QUEUED,
    )

    def enqueue() -> None:
        try:
            recompute_ratings_task.apply_async(
                link=tasks.record_recompute.s(entry.pk),
                link_error=tasks.record_recompute_failure.s(entry.pk),
            )
        except Exception as exc:
            log.exception("could not queue the ladder recompute of entry %s", entry.pk)
            tasks.finish_recompute(entry.pk, {"status": tasks.FAILED, "error": str(exc)[:500]})
            raise ModerationError(
                _("No se ha podido encargar el recálculo: %(error)s") % {"error": exc}
            ) from exc

    # After the entry is committed, so that the worker's callback finds it.
    transaction.on_commit(enqueue)
    entry.refresh_from_db()
    return entry


# --------------------------------------------------------------------------------------------
# Tournaments.
# --------------------------------------------------------------------------------------------
def _reason(reason: str, missing: Any) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ModerationError(missing)
    return reason


def cancel_tournament(
    moderator: User | None, tournament: Tournament, reason: str
) -> ModerationAction:
    """Cancel a tournament (its games in play are cancelled too); the reason shows on its page."""
    reason = _reason(reason, _("Para cancelar un torneo hace falta un motivo."))
    with transaction.atomic():
        try:
            tournaments.cancel(tournament.pk, reason)
        except services.ServiceError as exc:
            raise ModerationError(exc.message) from None
        return record(
            moderator,
            ModerationAction.Kind.CANCEL_TOURNAMENT,
            reason=reason,
            tournament=tournament.pk,
            tournament_name=tournament.name,
        )


def remove_pair(moderator: User | None, pair: Pair, reason: str) -> ModerationAction:
    """Take a pair out of its tournament: its game in progress is lost; it is paired no more.
    One entry in the audit log for each of its players."""
    reason = _reason(reason, _("Para descalificar una pareja hace falta un motivo."))
    with transaction.atomic():
        try:
            tournaments.remove_pair(pair.pk, reason)
        except services.ServiceError as exc:
            raise ModerationError(exc.message) from None
        details = {
            "tournament": pair.tournament_id,
            "tournament_name": pair.tournament.name,
            "pair": pair.pk,
        }
        record(
            moderator,
            ModerationAction.Kind.REMOVE_PAIR,
            target=pair.second,
            reason=reason,
            **details,
        )
        return record(
            moderator,
            ModerationAction.Kind.REMOVE_PAIR,
            target=pair.first,
            reason=reason,
            **details,
        )


def withdraw_tournament_invitation(
    moderator: User | None, pair: Pair, reason: str
) -> ModerationAction:
    """Take back a pending tournament invitation: the inviter (the entry's target) is the one
    acted on; the invited player is touched by nothing, and neither is disqualified."""
    reason = _reason(reason, _("Para retirar una invitación hace falta un motivo."))
    with transaction.atomic():
        try:
            tournaments.withdraw_invitation(pair.pk)
        except services.ServiceError as exc:
            raise ModerationError(exc.message) from None
        return record(
            moderator,
            ModerationAction.Kind.WITHDRAW_INVITATION,
            target=pair.first,
            reason=reason,
            tournament=pair.tournament_id,
            tournament_name=pair.tournament.name,
            pair=pair.pk,
            invited=pair.second.get_username(),
        )


#: Who wins a game the organisers decide: pair a (seats 0 and 2), pair b, or neither.
ADJUDICATE_WINNERS = ("a", "b", "ninguna")


def adjudicate(moderator: User | None, match: Match, winner: str, reason: str) -> ModerationAction:
    """Decide a tournament game: `winner` is one of `ADJUDICATE_WINNERS`. A game still in play
    is cancelled first."""
    reason = _reason(reason, _("Para decidir una partida hace falta un motivo."))
    if winner not in ADJUDICATE_WINNERS:
        raise ModerationError(_("Elige quién gana la partida."))
    winner_id = {"a": match.pair_a_id, "b": match.pair_b_id}.get(winner)
    if winner != "ninguna" and winner_id is None:
        raise ModerationError(_("En esa partida no hay pareja %(side)s.") % {"side": winner})
    with transaction.atomic():
        try:
            tournaments.adjudicate(match.pk, winner_id, reason)
        except services.ServiceError as exc:
            raise ModerationError(exc.message) from None
        return record(
            moderator,
            ModerationAction.Kind.ADJUDICATE,
            table=match.table_id,
            reason=reason,
            tournament=match.tournament_id,
            tournament_name=match.tournament.name,
            round=match.round,
            match=match.pk,
            winner_pair=winner_id,
        )


# --------------------------------------------------------------------------------------------
# Reports.
# --------------------------------------------------------------------------------------------
REPORT_BAN_DAYS = 7


def resolve_report(
    moderator: User | None, report: Report, resolution: str, note: str = ""
) -> ModerationAction:
    """Close an open report, applying the chosen measure to the reported player.

    `resolution` is a `Report.Resolution`: no action, mute (no end) or a 7-day ban.
    """
    note = (note or "").strip()
    with transaction.atomic():
        report = Report.objects.select_for_update().get(pk=report.pk)
        if report.status != Report.Status.OPEN:
            raise ModerationError(_("La denuncia #%(id)s ya está resuelta.") % {"id": report.pk})
        reported = report.reported
        reason = note or str(_("Denuncia #%(id)s: %(reason)s")) % {
            "id": report.pk,
            "reason": report.get_reason_display(),
        }
        if resolution == Report.Resolution.MUTED:
            mute(moderator, reported, reason, report=report)
        elif resolution == Report.Resolution.BANNED:
            until = timezone.now() + timedelta(days=REPORT_BAN_DAYS)
            longer = reported.is_banned and (
                reported.banned_until is None or reported.banned_until >= until
            )
            if not longer:  # a ban already in force that lasts longer is left as it is
                ban(moderator, reported, reason, until, report=report)
        elif resolution != Report.Resolution.NO_ACTION:
            raise ModerationError(_("Resolución desconocida."))
        report.status = Report.Status.RESOLVED
        report.resolution = resolution
        report.resolution_note = note
        report.resolved_by = moderator
        report.resolved_at = timezone.now()
        report.save(
            update_fields=["status", "resolution", "resolution_note", "resolved_by", "resolved_at"]
        )
        return record(
            moderator,
            ModerationAction.Kind.RESOLVE_REPORT,
            target=reported,
            table=report.table_id,
            report=report,
            reason=note,
            resolution=resolution,
        )
