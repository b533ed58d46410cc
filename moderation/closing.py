"""Closing an account (issue #35.1): by the player, from their settings, or by staff at the
player's request, from the admin; either way one entry in the audit log.

What closing does, in one transaction: the player leaves the quick-play queue, the table they sit
at that has not started (closing it if they host it), every pending invitation (to a table, to
play as a pair, to a tournament) and every pair of a tournament not started yet; their follows
and blocks go, and so do their data exports, an address not confirmed yet and the record of
their sign-ins; their email, names and password are erased, the
username becomes a tombstone (`accounts.names.tombstone`) while the old name stays claimed
(`NameClaim`), and the account is deactivated. Then every session ends and every socket closes
(`accounts.sockets`, as a ban does).

What stays: the games, their records, the chat lines and every rating, theirs and the others'
(a closed player's results are the history of three other players; `recompute_ratings --check`
agrees after a closure), the reports and the audit log. Every page names the player «Jugador
retirado» (`accounts.names.shown`).

Refused, with the reason, while the player is in a game in progress (they close the account once
it ends: abandoning it would cost their partner the game) or in a tournament under way.
"""

from __future__ import annotations

import logging

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import names
from accounts.models import Block, Follow, PendingEmail, User
from accounts.sessions import end_sessions
from accounts.sockets import recheck_sockets
from games import services
from games.models import Invitation, Table
from games.services import cancel_invitations
from tournaments.models import Pair, Tournament
from tournaments.services import registration

from .actions import ModerationError, leave_table, record
from .models import DataExport, ModerationAction

log = logging.getLogger(__name__)


def refusal(user: User) -> str | None:
    """Why `user`'s account cannot be closed right now, or None."""
    if user.closed_at is not None:
        return str(_("Esta cuenta ya está cerrada."))
    seat = services.live_seat_of(user)
    if seat is not None and seat.table.status == Table.Status.PLAYING and not seat.table.practice:
        return str(
            _(
                "Estás jugando una partida: termínala y cierra la cuenta después. Si la dejas a "
                "medias, tu pareja la pierde."
            )
        )
    running = (
        Pair.objects.filter(
            tournament__status=Tournament.Status.RUNNING,
            status__in=(Pair.Status.PLAYING,),
        )
        .filter(Q(first=user) | Q(second=user))
        .select_related("tournament")
        .first()
    )
    if running is not None:
        return str(
            _(
                "Juegas el torneo «%(name)s»: podrás cerrar la cuenta cuando termine o cuando tu "
                "pareja quede fuera."
            )
            % {"name": running.tournament.name}
        )
    return None


def close_account(user: User, *, moderator: User | None = None, reason: str = "") -> None:
    """Close `user`'s account (see the module's docstring); `moderator` is the staff member who
    did it at the player's request, None when the player did. Raises `ModerationError` with the
    reason when it cannot be done now (`refusal`)."""
    why = refusal(user)
    if why is not None:
        raise ModerationError(why)
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        why = refusal(user)  # again, under the lock: a game may have started meanwhile
        if why is not None:
            raise ModerationError(why)
        services.leave_queue(user)
        table_id, effect = _leave_table(user)
        invitations = cancel_invitations(
            Invitation.objects.filter(Q(sender=user) | Q(recipient=user))
        )
        tournaments = _leave_tournaments(user)
        Follow.objects.filter(Q(follower=user) | Q(followed=user)).delete()
        Block.objects.filter(Q(blocker=user) | Q(blocked=user)).delete()
        DataExport.objects.filter(user=user).delete()
        PendingEmail.objects.filter(user=user).delete()
        # The sign-ins' addresses and browsers (django-axes) go with the account.
        for model in (AccessLog, AccessAttempt, AccessFailureLog):
            model.objects.filter(username__iexact=user.username).delete()
        sessions = end_sessions(user)
        # The entry keeps the name the account had: staff may be asked about it later.
        record(
            moderator,
            ModerationAction.Kind.CLOSE_ACCOUNT,
            target=user,
            table=table_id,
            reason=(reason or "").strip(),
            by_player=moderator is None,
            sessions_ended=sessions,
            table_effect=effect,
            invitations_cancelled=invitations,
            tournaments_left=tournaments,
        )
        user.closed_at = timezone.now()
        user.username = names.tombstone(user.pk)
        user.display_name = ""
        user.email = ""
        user.first_name = ""
        user.last_name = ""
        user.password = make_password(None)
        user.is_active = False
        user.save()
        recheck_sockets(user.pk)


def _leave_table(user: User) -> tuple[int | None, str]:
    """Take the player away from the table they sit at that is not being played (or from their
    practice game, which is cancelled); return it and what happened."""

    def leave_practice(table: Table) -> str:
        # `refusal` let only a practice against bots through.
        services.leave_practice(user, table.pk)
        return "practica"

    return leave_table(user, leave_practice, _("Tu mesa no para de cambiar: inténtalo otra vez."))


def _leave_tournaments(user: User) -> list[int]:
    """Withdraw every pair (and pending invitation) of the player's in a tournament that has not
    started; return those tournaments."""
    left = []
    pairs = (
        Pair.objects.filter(
            tournament__status=Tournament.Status.REGISTRATION,
            status__in=(Pair.Status.INVITED, Pair.Status.REGISTERED),
        )
        .filter(Q(first=user) | Q(second=user))
        .values_list("tournament_id", flat=True)
    )
    for tournament_id in list(pairs):
        try:
            registration.withdraw(user, tournament_id)
        except services.ServiceError as exc:
            raise ModerationError(exc.message) from None
        left.append(tournament_id)
    return left
