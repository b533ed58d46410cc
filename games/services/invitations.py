"""Inviting a friend to your table, or to play quick play as your partner.

An invitation reaches the friend on whatever page of the site they are (`notify`), with a chime;
they accept or decline it, or it expires after `EXPIRES_SECONDS` (Celery beat's sweep says so to
both). Only a player you follow can be invited, never across a block (either way), at most
`RATE_COUNT` invitations a minute and one waiting at a time for each friend. A block cancels the
invitations pending between the two (`withdrawals`), and so does leaving the table (or being
kicked from it) for the invitations to it; accepting checks both again.

Accepting goes through the same services as doing it by hand: a table invitation takes the seat
opposite the inviter, as their partner, or else the first free seat (`tables.take_seat`, with the table's invitation for a private one); a partner
invitation puts both in quick play's queue as a pair (`queue.join`), and the inviter's page is
sent to the queue.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import relations
from accounts.models import User
from accounts.names import isolate

from ..models import Invitation, Mode, Seat, Table
from . import queue, ratelimit, tables, withdrawals
from .errors import ServiceError, unique_or
from .groups import batched
from .notify import tell
from .storage import live_seat_of

EXPIRES_SECONDS = 60
#: Invitations a player may send in `RATE_SECONDS`.
RATE_COUNT = 5
RATE_SECONDS = 60


def _recipient(sender: User, recipient: User | None) -> User:
    if recipient is None or not recipient.may_play:
        raise ServiceError("no_player", _("Ese jugador no existe o no puede jugar."))
    if recipient.pk == sender.pk:
        raise ServiceError("self", _("No puedes invitarte a ti mismo."))
    if recipient.is_bot or recipient.is_bot_account:
        # (a player's bot is challenged from its profile instead: `challenge`)
        raise ServiceError("bot", _("Los bots no reciben invitaciones."))
    if relations.blocked_either_way(sender.pk, recipient.pk):
        raise ServiceError("blocked", _("No puedes invitar a este jugador."))
    if not relations.follows(sender.pk, recipient.pk):
        raise ServiceError("not_friend", _("Sigue a este jugador para poder invitarle."))
    if live_seat_of(recipient) is not None:
        raise ServiceError(
            "busy",
            _("%(name)s ya está sentado en una mesa.") % {"name": isolate(recipient.public_name)},
        )
    return recipient


def check_rate(sender: User) -> None:
    """Count one more invitation by `sender` (of any kind: a table, quick play, a tournament),
    refused with `invitation_rate` past `RATE_COUNT` in `RATE_SECONDS`."""
    if not ratelimit.within_rate("invitation", sender.pk, RATE_COUNT, RATE_SECONDS):
        raise ServiceError(
            "invitation_rate", _("Demasiadas invitaciones seguidas: espera un minuto.")
        )


@batched
def send(sender: User, recipient: User | None, kind: str, mode: str = "") -> Invitation:
    """`sender` invites `recipient` to their table (`Invitation.Kind.TABLE`: the open table
    they sit at) or to play quick play of `mode` as their partner (`Invitation.Kind.PAIR`)."""
    recipient = _recipient(sender, recipient)
    table: Table | None = None
    if kind == Invitation.Kind.TABLE:
        seat = live_seat_of(sender)
        if seat is None or seat.table.status != Table.Status.OPEN:
            raise ServiceError(
                "no_table", _("Siéntate en una mesa que aún no ha empezado para invitar a ella.")
            )
        table = seat.table
        if table.seats.count() == 4:
            raise ServiceError("full", _("La mesa está completa."))
        mode = table.mode
    elif kind == Invitation.Kind.PAIR:
        if mode not in Mode.values:
            raise ServiceError("unknown_mode", _("Modalidad desconocida."))
        queue.check_may_queue(sender)
    else:
        raise ServiceError("bad_kind", _("Esa invitación no existe."))
    if Invitation.objects.filter(
        sender=sender, recipient=recipient, status=Invitation.Status.PENDING
    ).exists():
        raise _already_invited()
    check_rate(sender)
    with unique_or(_already_invited()):
        invitation = Invitation.objects.create(
            sender=sender,
            recipient=recipient,
            kind=kind,
            table=table,
            mode=mode,
            expires_at=timezone.now() + timedelta(seconds=EXPIRES_SECONDS),
        )
    invitation.sender = sender
    tell(recipient, message(invitation))
    return invitation


@batched
def challenge(sender: User, bot: User | None, mode: str, *, as_partner: bool = False) -> Invitation:
    """«Retar»: `sender` challenges a player's bot account to a game of `mode`, as their partner
    or as a rival (docs/bot-api.md). At the open table the sender sits at, which must admit bot
    accounts, or at a new private one that does, with the sender as host. No follow is needed,
    but blocks (with the bot or its owner, either way) and the invitations' rate apply; the bot
    sees it in its API's list and has `BOT_CHALLENGE_SECONDS` to accept."""
    if bot is None or not bot.is_bot_account or not bot.may_play:
        raise ServiceError(
            "not_bot_account", _("Solo se puede retar a la cuenta de bot de un jugador.")
        )
    if sender.is_bot or sender.is_bot_account:
        raise ServiceError("bot", _("Un bot no reta a nadie."))
    if any(relations.blocked_either_way(sender.pk, who) for who in (bot.pk, bot.bot_owner_id)):
        raise ServiceError("blocked", _("No puedes retar a este bot."))
    if live_seat_of(bot) is not None:
        raise ServiceError(
            "busy", _("%(name)s ya está sentado en una mesa.") % {"name": isolate(bot.public_name)}
        )
    if Invitation.objects.filter(
        sender=sender, recipient=bot, status=Invitation.Status.PENDING
    ).exists():
        raise ServiceError("already_invited", _("Ya le has invitado: espera a que conteste."))
    check_rate(sender)
    mine = live_seat_of(sender)
    if mine is None:
        table = tables.create_table(sender, mode, private=True, bots_allowed=True)
        seat = 0
    elif mine.table.status != Table.Status.OPEN or not mine.table.bots_allowed:
        raise ServiceError(
            "no_bot_accounts",
            _("Tu mesa no admite bots de jugadores: levántate o crea una que los admita."),
        )
    else:
        table, seat = mine.table, mine.seat
    taken = set(table.seats.values_list("seat", flat=True))
    wanted = [(seat + 2) % 4] if as_partner else [(seat + 1) % 4, (seat + 3) % 4]
    free = [s for s in wanted if s not in taken]
    if not free:
        raise ServiceError("taken", _("Ese asiento ya está ocupado."))
    invitation = Invitation.objects.create(
        sender=sender,
        recipient=bot,
        kind=Invitation.Kind.TABLE,
        table=table,
        mode=table.mode,
        seat=free[0],
        expires_at=timezone.now() + timedelta(seconds=settings.BOT_CHALLENGE_SECONDS),
    )
    invitation.sender = sender
    return invitation


def message(invitation: Invitation) -> dict[str, Any]:
    """The `invitation` message its recipient's pages get (docs/protocol.md)."""
    sender = invitation.sender
    return {
        "type": "invitation",
        "id": invitation.pk,
        "kind": invitation.kind,
        "mode": invitation.mode,
        "mode_name": str(Mode(invitation.mode).label),
        "table": invitation.table_id,
        "from": {"name": sender.public_name, "username": sender.username},
        "expires": invitation.expires_at.isoformat().replace("+00:00", "Z"),
        "accept_url": reverse("quick:accept", args=[invitation.pk]),
        "decline_url": reverse("quick:decline", args=[invitation.pk]),
    }


def pending_for(user_id: int) -> list[Invitation]:
    """The invitations `user_id` may still answer, oldest first."""
    return list(
        Invitation.objects.filter(
            recipient_id=user_id,
            status=Invitation.Status.PENDING,
            expires_at__gt=timezone.now(),
        )
        .select_related("sender")
        .order_by("created_at")
    )


def _lock(user: User, invitation_id: int) -> Invitation:
    """The recipient's pending invitation, locked; refused if it is not theirs to answer."""
    invitation = (
        Invitation.objects.select_for_update(of=("self",))
        .filter(pk=invitation_id, recipient=user)
        .select_related("sender", "table")
        .first()
    )
    if invitation is None:
        raise ServiceError("no_invitation", _("Esa invitación no existe."))
    if invitation.status == Invitation.Status.PENDING and invitation.expires_at <= timezone.now():
        _close(invitation, Invitation.Status.EXPIRED)
    if invitation.status == Invitation.Status.EXPIRED:
        raise ServiceError("expired", _("La invitación ha caducado."))
    if invitation.status != Invitation.Status.PENDING:
        raise ServiceError("answered", _("Ya has contestado a esa invitación."))
    return invitation


_ANSWERS = {
    Invitation.Status.ACCEPTED: _("%(name)s ha aceptado tu invitación."),
    Invitation.Status.DECLINED: _("%(name)s ha rechazado tu invitación."),
    Invitation.Status.EXPIRED: _("%(name)s no ha contestado a tu invitación."),
}


def _close(invitation: Invitation, status: str, url: str | None = None) -> None:
    """Settle the invitation; the sender hears the answer, the recipient's pages drop it."""
    Invitation.objects.filter(pk=invitation.pk).update(status=status)
    invitation.status = status
    recipient = invitation.recipient
    answer = {"type": "invitation_answer", "id": invitation.pk, "status": status, "url": url}
    tell(
        invitation.sender,
        answer,
        lambda: _ANSWERS[status] % {"name": isolate(recipient.public_name)},
    )
    tell(recipient, {"type": "invitation_closed", "id": invitation.pk, "status": status})


@batched
def decline(user: User, invitation_id: int) -> Invitation:
    with transaction.atomic():
        invitation = _lock(user, invitation_id)
        _close(invitation, Invitation.Status.DECLINED)
    return invitation


@batched
def accept(user: User, invitation_id: int) -> tuple[str, Table | None]:
    """Accept an invitation. Returns where the recipient goes now (the table, or the queue), and
    the table they sat at (its invitation is theirs now, for a private one).

    An invitation that no longer holds (a block between the two, a table its sender no longer
    sits at: both cancel it when they happen, this is for the race) is cancelled and refused.
    """
    with transaction.atomic():
        invitation = _lock(user, invitation_id)
        refusal = _void(invitation)
        if refusal is None:
            return _accept(user, invitation)
        withdrawals.cancel(Invitation.objects.filter(pk=invitation.pk))
    raise refusal


def _void(invitation: Invitation) -> ServiceError | None:
    """Why a pending invitation no longer holds, if it does not."""
    if relations.blocked_either_way(invitation.sender_id, invitation.recipient_id):
        return ServiceError("blocked", _("Esta invitación ya no vale."))
    if (
        invitation.kind == Invitation.Kind.TABLE
        and not Seat.objects.filter(table_id=invitation.table_id, user_id=invitation.sender_id)
        .exclude(table__status=Table.Status.CLOSED)
        .exists()
    ):
        return ServiceError(
            "sender_left",
            _("%(name)s ya no está en esa mesa: la invitación ya no vale.")
            % {"name": isolate(invitation.sender.public_name)},
        )
    return None


def _accept(user: User, invitation: Invitation) -> tuple[str, Table | None]:
    if invitation.kind == Invitation.Kind.TABLE:
        table = _sit(user, invitation)
        _close(invitation, Invitation.Status.ACCEPTED)
        return table.get_absolute_url(), table
    queue.check_may_queue(user)
    if queue.refusal(invitation.sender) is not None:
        raise ServiceError(
            "partner_unavailable",
            _("%(name)s ya no puede jugar ahora.")
            % {"name": isolate(invitation.sender.public_name)},
        )
    # The inviter first: they lead the pair into the queue (their place is kept).
    table = queue.join(invitation.sender, invitation.mode, partner=user)
    url = table.get_absolute_url() if table else reverse("quick:queue")
    _close(invitation, Invitation.Status.ACCEPTED, url)
    return url, table


def _sit(user: User, invitation: Invitation) -> Table:
    table = invitation.table
    if table is None:
        raise ServiceError("no_table", _("Esa mesa no existe."))
    taken = dict(table.seats.values_list("seat", "user_id"))
    # You invite a friend to play with you: opposite you when that seat is free (a pair sits
    # face to face), else the first free one.
    mine = next((s for s, user_id in taken.items() if user_id == invitation.sender_id), None)
    partner = None if mine is None else (mine + 2) % 4
    free = next((s for s in (partner, *tables.SEATS) if s is not None and s not in taken), None)
    if free is None:
        raise ServiceError("full", _("La mesa está completa."))
    if invitation.seat is not None:
        free = invitation.seat  # a challenge's seat (`tables.take_seat` refuses it if taken)
    queue.leave(user)  # a table chosen instead of waiting for one
    return tables.take_seat(user, table.pk, free, table.invite_token)


@batched
def expire() -> int:
    """Expire the invitations nobody answered in time (Celery beat's sweep); how many."""
    stale = Invitation.objects.filter(
        status=Invitation.Status.PENDING, expires_at__lte=timezone.now()
    ).select_related("sender", "recipient")
    expired = 0
    for invitation in stale:
        with transaction.atomic():
            # Locked: an answer at the same moment wins, or waits and finds it expired.
            still = Invitation.objects.select_for_update().filter(
                pk=invitation.pk, status=Invitation.Status.PENDING
            )
            if still.first() is not None:
                _close(invitation, Invitation.Status.EXPIRED)
                expired += 1
    return expired


def _already_invited() -> ServiceError:
    return ServiceError("already_invited", _("Ya le has invitado: espera a que conteste."))
