"""One way a game moves a ladder (`services.apply_game`), for the rating task that hears the
finisher's `game_ended` and for the recompute alike; one rule for which games count."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from itertools import product
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Seat, Table
from rankings import recompute
from rankings import services as rating_services
from rankings.models import PlayerRating, RatedGame, RatingChange
from tests.endings import endings_sent
from tests.factories import play_out, started_table

pytestmark = pytest.mark.django_db


def spy(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[int]:
    """The tables `module.apply_game` is called for."""
    calls: list[int] = []
    real = rating_services.apply_game

    def counting(game: rating_services.LadderGame, *args: Any) -> list[rating_services.Change]:
        calls.append(game.table_id)
        return real(game, *args)

    monkeypatch.setattr(module, "apply_game", counting)
    return calls


def test_each_end_that_counts_is_rated_once_and_the_recompute_gives_the_same_ladder(
    players: Callable[[int], list[User]],
    rated_on_finish: None,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    four = players(4)
    applied = spy(monkeypatch, rating_services)
    with endings_sent(django_capture_on_commit_callbacks) as sent:
        played = play_out(started_table(four, seed=3))
        left = started_table(four, seed=4)
        Seat.objects.filter(table=left, user=four[2]).update(
            connections=0, reconnect_deadline=timezone.now() - timedelta(seconds=1)
        )
        assert services.cancel_if_abandoned(left.pk)
        cancelled = started_table(four, seed=5)
        services.cancel_game(cancelled.pk, Table.CancelReason.MODERATOR, note="prueba")
    assert [e.table_id for e in sent] == [played.pk, left.pk, cancelled.pk]
    assert applied == [played.pk, left.pk]  # the moderator's cancel moves nobody
    assert list(RatedGame.objects.order_by("pk").values_list("table_id", "abandoned_seat")) == [
        (played.pk, None),
        (left.pk, 2),
    ]
    assert not rating_services.rate_table(played.pk) and not rating_services.rate_table(left.pk)
    assert applied == [played.pk, left.pk]

    replayed = spy(monkeypatch, recompute)
    ladder, differences = recompute.recompute(write=False)
    assert differences == []
    assert replayed == [played.pk, left.pk]
    stored = RatingChange.objects.values_list("user_id", "table_id", "before", "after")
    assert sorted((c.user_id, c.table_id, c.before, c.after) for c in ladder.changes) == sorted(
        stored
    )
    rows = {(r.user_id, r.mode): r for r in PlayerRating.objects.all()}
    assert {k: (r.rating, r.games, r.met) for k, r in ladder.ratings.items()} == {
        k: (r.rating, r.games, r.met) for k, r in rows.items()
    }


def test_which_tables_are_on_a_ladder_is_one_rule_in_python_and_in_queries(
    players: Callable[[int], list[User]],
) -> None:
    [host] = players(1)
    tables = [
        Table.objects.create(
            mode="4-reyes", host=host, practice=practice, rated=rated, unrated_reason=reason
        )
        for practice, rated, reason in product(
            (False, True), (False, True), ("", *Table.UnratedReason.values)
        )
    ]
    by_python = {t.pk for t in tables if rating_services.ladder_of(t) is not None}
    by_query = set(Table.objects.filter(rating_services.ON_A_LADDER).values_list("pk", flat=True))
    assert by_python == by_query
    assert len(by_query) == 4  # rated (any reason noted), or unrated for the bots ladder
