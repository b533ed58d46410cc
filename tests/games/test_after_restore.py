"""`manage.py after_restore`: the games that were live in a restored backup are cancelled by the
system, unrated, nobody charged (the restore drill, tests/site/test_backup_restore.py, runs it
on a real restored copy)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.models import Abandonment, Seat, Table
from rankings.models import RatedGame
from tests.factories import UserFactory, finished_game, seat_all, started_table

pytestmark = pytest.mark.django_db


def test_it_cancels_the_live_games_as_the_system_and_charges_nobody() -> None:
    make = UserFactory()
    live = started_table(make.many(4))
    # As a restore finds it: every player gone for hours, every reconnection budget spent.
    Seat.objects.filter(table=live).update(
        connections=0, reconnect_deadline=timezone.now() - timedelta(hours=3)
    )
    waiting = seat_all(make.many(4))
    over = finished_game(make.many(4), rate=True)
    out = StringIO()
    call_command("after_restore", stdout=out)
    assert f"1 games in play cancelled (unrated, nobody charged): {live.pk}" in out.getvalue()
    live.refresh_from_db()
    assert live.status == Table.Status.CANCELLED
    assert live.cancel_reason == Table.CancelReason.SYSTEM
    assert live.record["ended"] == {"reason": "sistema", "abandoned_seat": None}
    assert not Abandonment.objects.exists()
    assert not RatedGame.objects.filter(table=live).exists()
    assert Table.objects.get(pk=waiting.pk).status == waiting.status
    assert Table.objects.get(pk=over.pk).status == Table.Status.FINISHED


def test_with_nothing_live_it_changes_nothing() -> None:
    over = finished_game(UserFactory().many(4))
    out = StringIO()
    call_command("after_restore", stdout=out)
    assert out.getvalue().strip() == "0 games in play cancelled (unrated, nobody charged)"
    assert Table.objects.get(pk=over.pk).status == Table.Status.FINISHED
