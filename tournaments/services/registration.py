"""Registering a pair, and checking in.

Every change locks the tournament's row first, so two requests about the same tournament (two
invitations of one player, an acceptance racing a withdrawal, the start) happen one after the
other, and the checks below see each other's results. Refusals are `ServiceError`s with a code
for clients and a message for people (docs/protocol.md lists them).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from accounts import relations
from accounts.models import User
from accounts.names import isolate
from games import services
from games.models import Table
from games.services import ServiceError, check_invitation_rate

from ..models import Pair, Tournament
from . import notify


def lock(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise ServiceError("no_tournament", _("Ese torneo no existe."))
    return tournament


def pair_of(tournament: Tournament, user: Any, statuses: Any = Pair.LIVE) -> Pair | None:
    """The pair `user` is in at `tournament` (one that still counts, by default)."""
    if not getattr(user, "is_authenticated", True):
        return None
    return (
        Pair.objects.select_related("first", "second")
        .filter(tournament=tournament, status__in=statuses)
        .filter(Q(first=user) | Q(second=user))
        .first()
    )


def registered_count(tournament: Tournament) -> int:
    return tournament.pairs.filter(status=Pair.Status.REGISTERED).count()


def _started(tournament: Tournament, now: datetime) -> bool:
    return tournament.status != Tournament.Status.REGISTRATION or now >= tournament.starts_at


def _check_open(tournament: Tournament) -> None:
    now = timezone.now()
    if _started(tournament, now):
        raise ServiceError("started", _("El torneo ya ha empezado."))
    if now > tournament.registration_deadline:
        raise ServiceError("closed", _("La inscripción de este torneo está cerrada."))


def _check_room(tournament: Tournament) -> None:
    if registered_count(tournament) >= tournament.max_pairs:
        raise ServiceError("full", _("El torneo está completo."))


def _check_not_removed(tournament: Tournament, user: User) -> None:
    """A player the organisers disqualified from a tournament does not come back into it."""
    if pair_of(tournament, user, (Pair.Status.REMOVED,)) is not None:
        raise ServiceError(
            "removed",
            _("%(name)s está descalificado de este torneo.") % {"name": user.public_name},
        )


def _check_partner(tournament: Tournament, partner: User) -> None:
    name = partner.public_name
    if not partner.may_play:
        raise ServiceError(
            "partner_banned", _("%(name)s está expulsado y no puede jugar.") % {"name": name}
        )
    if services.suspended_until(partner) is not None:
        raise ServiceError(
            "partner_suspended",
            _("%(name)s está suspendido por abandonar partidas y no puede inscribirse ahora.")
            % {"name": name},
        )
    if pair_of(tournament, partner) is not None:
        raise ServiceError(
            "partner_registered",
            _("%(name)s ya está inscrito en este torneo con otra pareja.") % {"name": name},
        )


def _check_free(tournament: Tournament, user: User, *, checking_in: bool = False) -> None:
    """`user` is in no other tournament played at the same time (`Tournament.overlaps`): in
    the second, their pair would lose every game it was not there for. At check-in, only the
    tournaments they checked in for count (one registered in two before this rule may still
    play one of them)."""
    now = timezone.now()
    mine = (
        Q(first=user, first_checked_in_at__isnull=False)
        | Q(second=user, second_checked_in_at__isnull=False)
        if checking_in
        else Q(first=user) | Q(second=user)
    )
    pairs = (
        Pair.objects.filter(
            status__in=(Pair.Status.REGISTERED, Pair.Status.PLAYING),
            tournament__status__in=(Tournament.Status.REGISTRATION, Tournament.Status.RUNNING),
        )
        .filter(mine)
        .exclude(tournament=tournament)
        .select_related("tournament")
    )
    for pair in pairs:
        other = pair.tournament
        if tournament.overlaps(other, now):
            starts = formats.date_format(timezone.localtime(other.starts_at), "DATETIME_FORMAT")
            raise ServiceError(
                "overlap",
                _(
                    "%(name)s ya juega el torneo «%(other)s» (empieza el %(starts)s), que "
                    "coincide con este: nadie puede jugar dos torneos a la vez."
                )
                % {"name": isolate(user.public_name), "other": other.name, "starts": starts},
            )


def find_player(username: Any) -> User | None:
    """The player called `username` (in any case, as log-in finds them), if they can play."""
    name = str(username or "").strip()
    if not name:
        return None
    found = list(User.objects.filter(username__iexact=name, is_bot=False)[:2])
    exact = [u for u in found if u.username == name]
    if exact:
        return exact[0]
    return found[0] if len(found) == 1 else None


def invite(user: User, tournament_id: int, partner_name: Any) -> Pair:
    """`user` registers with the player called `partner_name`, who has to accept.

    An invitation `user` received themselves holds them to nothing: registering with somebody
    else declines it. Invitations count against the same rate limit as the games' ones
    (`games.services.check_invitation_rate`) and never cross a block.
    """
    with transaction.atomic():
        tournament = lock(tournament_id)
        _check_open(tournament)
        services.check_may_sit(user)  # (suspended for abandoning: games' rule)
        own = pair_of(tournament, user)
        received = own if own is not None and _is_invitation_to(own, user) else None
        if own is not None and received is None:
            raise ServiceError("already_registered", _("Ya estás inscrito en este torneo."))
        _check_not_removed(tournament, user)
        partner = find_player(partner_name)
        if partner is None:
            raise ServiceError("no_player", _("No hay ningún jugador con ese nombre de usuario."))
        if partner.pk == user.pk:
            raise ServiceError("self", _("No puedes ser tu propia pareja: invita a otro jugador."))
        _check_not_blocked(user, partner)
        _check_partner(tournament, partner)
        _check_not_removed(tournament, partner)
        _check_room(tournament)
        _check_free(tournament, user)
        _check_free(tournament, partner)
        check_invitation_rate(user)
        if received is not None:
            _answer(received, Pair.Status.DECLINED)
        pair = Pair.objects.create(tournament=tournament, first=user, second=partner)
        notify.invited(pair)
    return pair


def _is_invitation_to(pair: Pair, user: User) -> bool:
    return pair.status == Pair.Status.INVITED and pair.second_id == user.pk


def _check_not_blocked(user: User, other: User) -> None:
    if relations.blocked_either_way(user.pk, other.pk):
        raise ServiceError("blocked", _("No puedes invitar a este jugador."))


def _answer(pair: Pair, status: str) -> None:
    """Settle an invitation with the partner's answer; the inviter hears it."""
    pair.status = status
    pair.answered_at = timezone.now()
    pair.save(update_fields=["status", "answered_at"])
    notify.answered(pair)


def withdraw_blocked(sender: object, blocker_id: int, blocked_id: int, **kwargs: object) -> None:
    """`accounts.relations.blocked`: the tournament invitations pending between the two end
    (taken back, for the pages and the inviter alike), whichever of them invited."""
    Pair.objects.filter(status=Pair.Status.INVITED).filter(
        Q(first_id=blocker_id, second_id=blocked_id) | Q(first_id=blocked_id, second_id=blocker_id)
    ).update(status=Pair.Status.WITHDRAWN)


def _invitation(tournament: Tournament, user: User) -> Pair:
    pair = pair_of(tournament, user, (Pair.Status.INVITED,))
    if pair is None or pair.second_id != user.pk:
        raise ServiceError("no_invitation", _("No tienes ninguna invitación en este torneo."))
    return pair


def accept(user: User, tournament_id: int) -> Pair:
    """The invited partner accepts: the pair is registered."""
    with transaction.atomic():
        tournament = lock(tournament_id)
        _check_open(tournament)
        pair = _invitation(tournament, user)
        services.check_may_sit(user)
        if not pair.first.may_play:
            raise ServiceError(
                "partner_banned",
                _("%(name)s está expulsado y no puede jugar.") % {"name": pair.first.public_name},
            )
        _check_not_blocked(user, pair.first)
        _check_room(tournament)
        _check_free(tournament, user)
        _check_free(tournament, pair.first)
        _answer(pair, Pair.Status.REGISTERED)
    return pair


def decline(user: User, tournament_id: int) -> Pair:
    """The invited partner says no."""
    with transaction.atomic():
        tournament = lock(tournament_id)
        pair = _invitation(tournament, user)
        _answer(pair, Pair.Status.DECLINED)
    return pair


def withdraw(user: User, tournament_id: int) -> Pair:
    """Either player takes the pair out (or the inviter takes back the invitation), before the
    start."""
    with transaction.atomic():
        tournament = lock(tournament_id)
        if _started(tournament, timezone.now()):
            raise ServiceError("started", _("El torneo ya ha empezado: ya no puedes retirarte."))
        pair = pair_of(tournament, user)
        if pair is None:
            raise ServiceError("not_registered", _("No estás inscrito en este torneo."))
        pair.status = Pair.Status.WITHDRAWN
        pair.save(update_fields=["status"])
    return pair


def check_in(user: User, tournament_id: int, player: Any = None) -> Pair:
    """«Estoy»: `user` says they are here to play. Only for oneself (`player`, a username, if
    given, must be theirs), in the window before the start, by a registered pair."""
    if player is not None and str(player).strip().lower() != user.username.lower():
        raise ServiceError(
            "not_yours",
            _("Solo puedes confirmar por ti: tu pareja pulsa «Estoy» desde su cuenta."),
        )
    with transaction.atomic():
        tournament = lock(tournament_id)
        now = timezone.now()
        if _started(tournament, now):
            raise ServiceError("started", _("El torneo ya ha empezado."))
        if now < tournament.checkin_opens_at:
            opens = formats.time_format(timezone.localtime(tournament.checkin_opens_at))
            raise ServiceError(
                "checkin_not_open",
                _("La confirmación se abre a las %(time)s.") % {"time": opens},
            )
        pair = pair_of(tournament, user)
        if pair is None:
            raise ServiceError("not_registered", _("No estás inscrito en este torneo."))
        if pair.status != Pair.Status.REGISTERED:
            raise ServiceError("not_accepted", _("Tu pareja aún no ha aceptado la invitación."))
        _check_free(tournament, user, checking_in=True)
        seat = services.live_seat_of(user)
        if seat is not None and not seat.table.practice and seat.table.status == Table.Status.OPEN:
            raise ServiceError(
                "seated",
                _("Levántate de tu mesa antes de confirmar: la mesa del torneo te llega sola."),
            )
        field = "first_checked_in_at" if pair.first_id == user.pk else "second_checked_in_at"
        if getattr(pair, field) is None:
            setattr(pair, field, now)
            pair.save(update_fields=[field])
    return pair


def committed(user: Any) -> bool:
    """Whether `user` has checked in for a tournament that has not ended, in a pair still in it:
    their tournament table will come to them, so they may not sit elsewhere meanwhile."""
    return (
        Pair.objects.filter(
            tournament__status__in=(Tournament.Status.REGISTRATION, Tournament.Status.RUNNING),
            status__in=(Pair.Status.REGISTERED, Pair.Status.PLAYING),
        )
        .filter(
            Q(first=user, first_checked_in_at__isnull=False)
            | Q(second=user, second_checked_in_at__isnull=False)
        )
        .exists()
    )


def check_may_sit(user: Any) -> None:
    """`games.hooks.check_may_sit`: a player who is playing a tournament waits for its tables."""
    if getattr(user, "is_authenticated", False) and committed(user):
        raise ServiceError(
            "in_tournament",
            _(
                "Estás jugando un torneo: tu mesa del torneo se abre sola. Mientras tanto "
                "puedes practicar contra bots."
            ),
        )
