"""The tournaments a player has won, on their profile (`accounts.profile`'s `sections`)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.http import HttpRequest

from .models import Tournament

#: The most tournament wins listed on a profile (the latest).
WINS_SHOWN = 20


def tournaments_won(player: Any) -> list[Tournament]:
    return list(
        Tournament.objects.filter(status=Tournament.Status.FINISHED)
        .filter(Q(winner__first=player) | Q(winner__second=player))
        .select_related("winner__first", "winner__second")
        .order_by("-finished_at")[:WINS_SHOWN]
    )


def profile_provider(request: HttpRequest, player: Any) -> dict[str, Any]:
    won = tournaments_won(player)
    if not won:
        return {}
    return {"sections": ["tournaments/_profile_wins.html"], "tournament_wins": won}
