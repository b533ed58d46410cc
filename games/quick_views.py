"""Quick play's pages (`/jugar/`) and invitations (`/invitaciones/`): form posts that call
`games.services.queue` and `games.services.invitations`, then go where the player should be."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import relations
from accounts.models import User
from accounts.names import isolate

from . import services
from .models import Mode, QueuedPlayer, Seat, Table
from .services import invitations, player_live, presence, queue


@login_required
def queue_page(request: HttpRequest) -> HttpResponse:
    """GET: the queue page while the player waits (its socket holds their place). POST
    («Jugar ya», `mode`): join the queue, or go straight to the table if it filled at once."""
    if request.method == "POST":
        try:
            table = queue.join(request.user, request.POST.get("mode", ""))
        except services.ServiceError as exc:
            messages.error(request, exc.message)
            return redirect("lobby")
        return redirect(table) if table is not None else redirect("quick:queue")
    state = player_live.queue_state(request.user)
    if state["type"] == "matched":
        return redirect(state["url"])
    if state["type"] != "queue":
        messages.info(request, state["message"])
        return redirect("lobby")
    return render(request, "games/queue.html", {"queue": state})


@login_required
@require_POST
def leave_queue(request: HttpRequest) -> HttpResponse:
    """«Cancelar»."""
    if queue.cancel(request.user):
        messages.info(request, _("Has salido de la cola."))
    return redirect("lobby")


@login_required
@require_POST
def complete_with_bots(request: HttpRequest) -> HttpResponse:
    try:
        table = queue.complete_with_bots(request.user)
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("quick:queue" if exc.code == "too_soon" else "lobby")
    return redirect(table)


def _back(request: HttpRequest) -> HttpResponse:
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return redirect(target)
    return redirect("lobby")


@login_required
@require_POST
def invite(request: HttpRequest) -> HttpResponse:
    """Invite a friend (`to`, a username) to your table (`kind` `mesa`) or to be your partner in
    quick play (`kind` `pareja`, `mode`)."""
    recipient = User.objects.filter(username=request.POST.get("to", "")).first()
    try:
        invitation = invitations.send(
            request.user, recipient, request.POST.get("kind", ""), request.POST.get("mode", "")
        )
    except services.ServiceError as exc:
        messages.error(request, exc.message)
    else:
        name = isolate(invitation.recipient.public_name)
        messages.success(
            request,
            _("Invitación enviada a %(name)s: tiene un minuto para contestar.") % {"name": name},
        )
    return _back(request)


@login_required
@require_POST
def challenge(request: HttpRequest) -> HttpResponse:
    """«Retar» on a bot account's profile: `to` (its username), `mode`, `como` (`pareja`: the
    bot plays as your partner; else against you)."""
    bot = User.objects.filter(username=request.POST.get("to", "")).first()
    try:
        invitation = invitations.challenge(
            request.user,
            bot,
            request.POST.get("mode", ""),
            as_partner=request.POST.get("como") == "pareja",
        )
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("accounts:profile", bot.username) if bot else redirect("lobby")
    messages.success(
        request,
        _("Reto enviado a %(name)s: su programa tiene que aceptarlo.")
        % {"name": isolate(invitation.recipient.public_name)},
    )
    return redirect(invitation.table)


@login_required
@require_POST
def accept(request: HttpRequest, invitation_id: int) -> HttpResponse:
    try:
        url, table = invitations.accept(request.user, invitation_id)
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    if table is not None:
        services.remember_invitation(request.session, table)
    return redirect(url)


@login_required
@require_POST
def decline(request: HttpRequest, invitation_id: int) -> HttpResponse:
    """Declined from a page's notification (fetch: 204, the page stays as it is) or a form."""
    quiet = request.headers.get("X-Requested-With") == "fetch"
    try:
        invitations.decline(request.user, invitation_id)
    except services.ServiceError as exc:
        if quiet:
            return HttpResponse(status=204)
        messages.error(request, exc.message)
    return HttpResponse(status=204) if quiet else _back(request)


def lobby_context(request: HttpRequest, my_seat: Seat | None) -> dict[str, Any]:
    """The lobby's quick play panel (the whole page only) and the friends online (also in the
    part the lobby asks for again every 30 s), for a signed-in player."""
    followed = relations.friends(request.user.pk)
    context: dict[str, Any] = {
        "friends": _friends(request, my_seat, followed),
        "follows_anyone": bool(followed),
        # The box's «Jugar de pareja» buttons: it is also rendered alone, without the page's.
        "modes": Mode.choices,
    }
    if not request.htmx:
        end = queue.dodge_suspended_until(request.user)
        context["queue_suspension"] = queue.dodge_message(end) if end else None
        context["queued"] = QueuedPlayer.objects.filter(user=request.user).exists()
    return context


def _friends(
    request: HttpRequest, my_seat: Seat | None, followed: list[Any]
) -> list[dict[str, Any]]:
    """The players you follow who are online: where they sit (if you may see that table), and
    what you may invite them to."""
    if not followed:
        return []
    online = presence.online_ids()
    friends = [f for f in followed if f.pk in online]
    if not friends:
        return []
    seats = {
        s.user_id: s
        for s in Seat.objects.filter(user__in=friends, active=True).select_related("table")
    }
    queued = set(QueuedPlayer.objects.filter(user__in=friends).values_list("user_id", flat=True))
    my_table = my_seat.table if my_seat and my_seat.table.status == Table.Status.OPEN else None
    rows = []
    for friend in friends:
        seat = seats.get(friend.pk)
        table = seat.table if seat else None
        if table is not None and not services.can_view_in(table, request.user, request.session):
            table = None  # a private table is nobody else's business
        free = seat is None
        rows.append(
            {
                "user": friend,
                "table": table,
                "busy": not free,
                "queued": friend.pk in queued,
                "invite_to_table": free and my_table is not None,
                "invite_as_partner": free and my_seat is None,
            }
        )
    return rows
