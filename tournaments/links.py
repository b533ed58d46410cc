"""A tournament's game says so on its table's page, with the way back to the tournament
(`games.hooks.provide_table_links`): where its players find the next round once this game is
over; and in the lists of games, players' histories among them (`games.hooks.provide_table_tags`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from games.hooks import TableLink

from .models import Match
from .queries import round_name


def _link(match: Match) -> TableLink:
    tournament = match.tournament
    text = _("%(name)s · %(round)s") % {
        "name": tournament.name,
        "round": round_name(tournament, match.round),
    }
    return TableLink(text, tournament.get_absolute_url())


def tournament_link(table: Any) -> list[TableLink]:
    match = Match.objects.filter(table_id=table.pk).select_related("tournament").first()
    return [] if match is None else [_link(match)]


def tournament_tags(table_ids: Sequence[int]) -> dict[int, TableLink]:
    """The tournament games among `table_ids`, each with its tournament and round, for the lists
    of games (`games.hooks.provide_table_tags`): one query."""
    matches = Match.objects.filter(table_id__in=table_ids).select_related("tournament")
    return {match.table_id: _link(match) for match in matches if match.table_id is not None}
