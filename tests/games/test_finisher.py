"""Every way a game ends goes through one finisher (games.services.finish): the record's end
written once, whoever must be charged charged once, and one `game_ended` with the outcome."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Abandonment, QueueDodge, Seat, Table
from games.services import bots, queue
from games.services.endings import LADDER_RESULT, GameEnd, ending_of, ladder_result
from tests.endings import endings_sent
from tests.factories import play_out, started_table

pytestmark = pytest.mark.django_db

MODE = "4-reyes"


def run_out(table: Table, user: User, *, arrived: bool = True) -> None:
    """The player's reconnection budget ran out (having come to the table, or never)."""
    Seat.objects.filter(table=table, user=user).update(
        connections=0,
        arrived=arrived,
        disconnected_at=timezone.now() - timedelta(minutes=2),
        reconnect_deadline=timezone.now() - timedelta(seconds=1),
    )


def test_a_game_played_out_is_announced_once_with_its_winner(
    four_players: list[User], django_capture_on_commit_callbacks: Any
) -> None:
    table = started_table(four_players)
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        play_out(table)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert sent == [
        GameEnd(table.pk, "", winner_team=table.winner_team, scores=tuple(table.scores))
    ]
    assert sent[0].played_out and sent[0].ladder_result == (table.winner_team, None)
    assert ending_of(table) == sent[0]


def test_an_abandonment_is_charged_once_and_announced_once(
    four_players: list[User], django_capture_on_commit_callbacks: Any
) -> None:
    table = started_table(four_players)
    run_out(table, four_players[1])
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        assert services.cancel_if_abandoned(table.pk)
        assert not services.cancel_if_abandoned(table.pk)  # the sweep again: nothing more
    table.refresh_from_db()
    [ending] = sent
    assert (ending.reason, ending.seat, ending.charged) == ("abandono", 1, True)
    assert ending.ladder_result == (0, 1)  # the pair left behind wins; only seat 1 moves
    assert ending.losing_teams == {1}
    assert list(Abandonment.objects.values_list("user_id", "seat")) == [(four_players[1].pk, 1)]
    assert ending_of(table) == ending


def test_leaving_an_unrated_game_is_announced_uncharged(
    four_players: list[User], django_capture_on_commit_callbacks: Any
) -> None:
    table = started_table(four_players, private=True, rated=False)
    run_out(table, four_players[2])
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        assert services.cancel_if_abandoned(table.pk)
    [ending] = sent
    assert (ending.reason, ending.seat, ending.charged, ending.ladder_result) == (
        "abandono",
        2,
        False,
        None,
    )
    assert not Abandonment.objects.exists()


def test_a_player_who_never_came_is_a_no_show_charged_nothing(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    players = make_user.many(4)
    table = services.start_arranged(players, MODE)
    run_out(table, players[3], arrived=False)
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        assert services.cancel_if_abandoned(table.pk)
    [ending] = sent
    assert (ending.reason, ending.seat, ending.charged, ending.ladder_result) == (
        "ausencia",
        3,
        False,
        None,
    )
    assert ending.losing_teams == {1}
    assert not Abandonment.objects.exists()


@override_settings(MUS_RECONNECT_SECONDS=60)
def test_quick_plays_no_show_charges_each_dodger_once(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    players = make_user.many(4)
    table = None
    for player in players:
        table = queue.join(player, MODE)
    assert table is not None
    Table.objects.filter(pk=table.pk).update(
        started_at=timezone.now() - timedelta(seconds=queue.SHOW_UP_SECONDS + 1)
    )
    Seat.objects.filter(table=table, user__in=players[:3]).update(arrived=True)
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        assert queue.cancel_no_shows() == 1
        assert queue.cancel_no_shows() == 0
    [ending] = sent
    assert (ending.table_id, ending.reason, ending.seat, ending.charged) == (
        table.pk,
        "ausencia",
        None,
        False,
    )
    assert list(QueueDodge.objects.values_list("user_id", flat=True)) == [players[3].pk]


def test_leaving_a_practice_is_announced_once(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    user = make_user()
    table = bots.start_practice(user, MODE)
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        assert bots.leave_practice(user, table.pk)
        with pytest.raises(services.ServiceError):
            bots.leave_practice(user, table.pk)
    assert [(e.table_id, e.reason, e.ladder_result) for e in sent] == [(table.pk, "practica", None)]


def test_after_restore_ends_every_live_game_through_the_finisher(
    four_players: list[User], make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    live = started_table(four_players)
    practice = bots.start_practice(make_user(), MODE)
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        call_command("after_restore", stdout=StringIO())
    assert sorted((e.table_id, e.reason, e.charged) for e in sent) == [
        (live.pk, "sistema", False),
        (practice.pk, "sistema", False),
    ]
    assert not Seat.objects.filter(table__in=[live, practice], active=True).exists()


def test_the_ladder_result_and_its_query_agree(
    four_players: list[User], django_capture_on_commit_callbacks: Any
) -> None:
    """`ladder_result` (Python) and `LADDER_RESULT` (a query) are one rule."""
    played = play_out(started_table(four_players))
    played.refresh_from_db()
    ends = {played.pk: ending_of(played)}
    for reason, arrived in (("abandono", True), ("ausencia", False)):
        table = started_table(four_players)
        run_out(table, four_players[0], arrived=arrived)
        assert services.cancel_if_abandoned(table.pk)
        table.refresh_from_db()
        assert table.cancel_reason == reason
        ends[table.pk] = ending_of(table)
    cancelled = started_table(four_players)
    services.cancel_game(cancelled.pk, Table.CancelReason.ABANDONED, abandoned_seat=2)
    cancelled.refresh_from_db()
    ends[cancelled.pk] = ending_of(cancelled)
    counted = set(Table.objects.filter(LADDER_RESULT).values_list("pk", flat=True))
    assert counted == {pk for pk, e in ends.items() if e is not None and e.ladder_result}
    assert len(counted) == 2  # played out, and the abandonment charged
    assert ladder_result("cancelada", None, None) is None
    assert ladder_result("terminada", 1, None) == (1, None)
