"""What a tournament tells its players wherever they are on the site: their table is ready, a
partner invites them, an invitation was answered.

Through the games app's messages to a player (`games.services.tell`): every page of a
signed-in player holds a socket (`/ws/jugador/`) that shows them with a chime (docs/protocol.md),
each sent once the change that caused it is committed, its words in the player's own language.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import override

from accounts.models import User
from accounts.names import isolate
from games.services import tell

from ..models import Match, Pair


def table_ready(match: Match, table_id: int) -> None:
    """«Tu mesa del torneo está lista»: to the four players, with the link and a chime."""
    url = reverse("games:table", args=[table_id])
    tournament = match.tournament
    for pair in match.pairs():
        for user in (pair.first, pair.second):
            tell(
                user,
                {
                    "type": "tournament_table",
                    "tournament": tournament.pk,
                    "name": tournament.name,
                    "round": match.round,
                    "table": table_id,
                    "url": url,
                    "sound": True,
                },
                _("Tu mesa del torneo está lista"),
            )


def invited(pair: Pair) -> None:
    """The partner is told who invites them, with the tournament's page to answer."""
    tournament = pair.tournament
    tell(
        pair.second,
        {
            "type": "tournament_invitation",
            "tournament": tournament.pk,
            "name": tournament.name,
            "from": {"name": pair.first.public_name, "username": pair.first.username},
            "url": tournament.get_absolute_url(),
            "sound": True,
            "link": _link(pair.second),
        },
        lambda: (
            _("%(name)s te invita a jugar el torneo «%(tournament)s» como su pareja.")
            % {"name": isolate(pair.first.public_name), "tournament": tournament.name}
        ),
    )


def answered(pair: Pair) -> None:
    """The inviter is told their partner's answer."""
    accepted = pair.status == Pair.Status.REGISTERED
    tell(
        pair.first,
        {
            "type": "tournament_answer",
            "tournament": pair.tournament.pk,
            "status": pair.status,
            "url": pair.tournament.get_absolute_url(),
            "link": _link(pair.first),
        },
        _("Tu pareja ha aceptado: estáis inscritos en el torneo.")
        if accepted
        else _("Tu pareja ha rechazado la invitación al torneo."),
    )


def _link(user: User) -> str:
    """The words of the notice's link, in `user`'s language."""
    with override(user.language or "es"):
        return str(_("Ver el torneo"))
