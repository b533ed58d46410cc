"""What a tournament tells its players wherever they are on the site: their table is ready, a
partner invites them, an invitation was answered.

Everything goes through `_tell`, the one place that knows how a message reaches a player's
pages (the player's socket, `/ws/jugador/`, docs/protocol.md); each message is sent once the
change that caused it is committed, its words in the player's own language.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import override

from accounts.models import User
from games.services.groups import send_group

from ..models import Match, Pair

#: The player's group and the message type every page's socket relays as it is.
PLAYER_MESSAGE = "player.message"


def player_group(user_id: int) -> str:
    return f"player-{user_id}"


def _tell(user: User, message: dict[str, Any], text: Any) -> None:
    with override(user.language or "es"):
        message = {**message, "message": str(text)}
    payload = {"type": PLAYER_MESSAGE, "message": message}
    transaction.on_commit(lambda: send_group(player_group(user.pk), payload))


def table_ready(match: Match, table_id: int) -> None:
    """«Tu mesa del torneo está lista»: to the four players, with the link and a chime."""
    url = reverse("games:table", args=[table_id])
    tournament = match.tournament
    for pair in match.pairs():
        for user in (pair.first, pair.second):
            _tell(
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
    _tell(
        pair.second,
        {
            "type": "tournament_invitation",
            "tournament": tournament.pk,
            "name": tournament.name,
            "from": {"name": pair.first.public_name, "username": pair.first.username},
            "url": tournament.get_absolute_url(),
            "sound": True,
        },
        _("Te invitan a jugar un torneo en pareja"),
    )


def answered(pair: Pair) -> None:
    """The inviter is told their partner's answer."""
    accepted = pair.status == Pair.Status.REGISTERED
    _tell(
        pair.first,
        {
            "type": "tournament_answer",
            "tournament": pair.tournament.pk,
            "status": pair.status,
            "url": pair.tournament.get_absolute_url(),
        },
        _("Tu pareja ha aceptado: estáis inscritos en el torneo.")
        if accepted
        else _("Tu pareja ha rechazado la invitación al torneo."),
    )
