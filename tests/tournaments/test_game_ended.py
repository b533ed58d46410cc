"""A tournament hears every end of its games (`games.signals.game_ended`), not only those played
out or charged: its match is settled from the `GameEnd` without waiting for the sweep."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services as games
from games.models import Seat, Table
from musweb.celery import app as celery_app
from tournaments.models import Match

from .support import current_matches, ready_tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def tasks_run_at_once() -> Iterator[None]:
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = False


def test_a_no_show_decides_the_match_as_soon_as_the_game_ends(
    tasks_run_at_once: None, django_capture_on_commit_callbacks: Any
) -> None:
    tournament, pairs = ready_tournament(2, rounds=1)
    [match] = current_matches(tournament)
    assert match.table is not None
    # Seat 1 (pair b's first player) never came, and the wait ran out.
    Seat.objects.filter(table=match.table, seat=1).update(
        connections=0,
        arrived=False,
        reconnect_deadline=timezone.now() - timedelta(seconds=1),
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert games.cancel_if_abandoned(match.table.pk)
    match.refresh_from_db()
    assert Table.objects.get(pk=match.table.pk).cancel_reason == Table.CancelReason.NO_SHOW
    assert (match.status, match.outcome, match.winner_id) == (
        Match.Status.DONE,
        Match.Outcome.NO_SHOW,
        pairs[0].pk,
    )
