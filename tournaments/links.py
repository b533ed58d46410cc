"""A tournament's game says so on its table's page, with the way back to the tournament
(`games.hooks.provide_table_links`): where its players find the next round once this game is
over."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.hooks import TableLink

from .models import Match
from .queries import round_name


def tournament_link(table: Any) -> list[TableLink]:
    match = Match.objects.filter(table_id=table.pk).select_related("tournament").first()
    if match is None:
        return []
    tournament = match.tournament
    text = _("%(name)s · %(round)s") % {
        "name": tournament.name,
        "round": round_name(tournament, match.round),
    }
    return [TableLink(text, tournament.get_absolute_url())]
