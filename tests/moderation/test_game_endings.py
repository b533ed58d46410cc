"""The staff's ways of ending a game (a ban, a cancel, a tournament cancelled) go through the
games app's finisher: one `game_ended` each, with the outcome a tournament settles from."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from games.models import Abandonment, Seat, Table
from moderation import actions
from tests.endings import endings_sent
from tests.factories import started_table
from tests.tournaments.support import current_matches, ready_tournament
from tournaments.models import Match

pytestmark = pytest.mark.django_db


def test_a_ban_ends_the_game_once_naming_the_banned_players_pair(
    four_players: list[User], moderator: User, django_capture_on_commit_callbacks: Any
) -> None:
    table = started_table(four_players)
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        actions.ban(moderator, four_players[3], "trampas")
    [ending] = sent
    assert (ending.table_id, ending.reason, ending.charged, ending.ladder_result) == (
        table.pk,
        "expulsion",
        False,
        None,
    )
    assert ending.losing_teams == {1}
    assert not Abandonment.objects.exists()
    assert not Seat.objects.filter(table=table, active=True).exists()


def test_a_moderators_cancel_is_announced_once_and_blames_nobody(
    four_players: list[User], moderator: User, django_capture_on_commit_callbacks: Any
) -> None:
    table = started_table(four_players)
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        actions.cancel_game(moderator, table, "fallo del servidor")
        with pytest.raises(actions.ModerationError):
            actions.cancel_game(moderator, table, "otra vez")
    assert [(e.table_id, e.reason, e.losing_teams, e.ladder_result) for e in sent] == [
        (table.pk, "moderacion", frozenset(), None)
    ]
    assert Table.objects.get(pk=table.pk).cancel_note == "fallo del servidor"


def test_cancelling_a_tournament_ends_each_of_its_games_once(
    moderator: User, django_capture_on_commit_callbacks: Any
) -> None:
    tournament, _pairs = ready_tournament(4, rounds=1)
    tables = sorted(m.table.pk for m in current_matches(tournament))
    assert len(tables) == 2
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        actions.cancel_tournament(moderator, tournament, "lluvia")
    assert sorted((e.table_id, e.reason) for e in sent) == [(t, "moderacion") for t in tables]
    assert not Match.objects.filter(table__status=Table.Status.PLAYING).exists()
