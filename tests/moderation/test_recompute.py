"""Recomputing the ladders from the table admin: a Celery task, its result in the audit log."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from moderation import actions, tasks
from moderation.models import ModerationAction
from musweb.celery import app as celery_app
from rankings import recompute as rating_recompute
from rankings.models import PlayerRating
from rankings.tasks import recompute_ratings_task
from tests.factories import finished_game, login, make_user
from tests.live import celery_worker, wait_until

from .support import action_post, confirm_post

TABLES = reverse("admin:games_table_changelist")
REASON = "Tras corregir partidas"


@pytest.fixture
def eager() -> Iterator[None]:
    """Tasks run at once, in this process (their links and error links too)."""
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


@pytest.fixture
def tampered(four_players: list[User]) -> int:
    """A rated game, and its winner's stored rating changed by hand; return the table id."""
    table = finished_game(four_players, winner=0, rate=True)
    PlayerRating.objects.filter(user=four_players[0]).update(rating=3000)
    return table.pk


def winner_rating(four_players: list[User]) -> float:
    return PlayerRating.objects.get(user=four_players[0]).rating


def shown_messages(client: Client) -> list[str]:
    return [str(m) for m in client.get(TABLES).context["messages"]]


@pytest.mark.django_db
def test_recomputing_the_ladders_logs_the_request_then_queues_the_rankings_task(
    admin_client: Client,
    tampered: int,
    four_players: list[User],
    django_capture_on_commit_callbacks: Callable[..., object],
) -> None:
    first = action_post(admin_client, TABLES, "recompute_ratings", [tampered])
    assert first.status_code == 200 and 'name="confirmar"' in first.content.decode()
    with (
        mock.patch.object(recompute_ratings_task, "apply_async") as apply_async,
        django_capture_on_commit_callbacks(execute=True),
    ):
        done = confirm_post(admin_client, TABLES, "recompute_ratings", [tampered], reason=REASON)
    assert done.status_code == 302
    entry = ModerationAction.objects.get()
    assert (entry.kind, entry.reason, entry.details) == (
        "recalcular",
        REASON,
        {"status": "encargado"},
    )
    apply_async.assert_called_once_with(
        link=tasks.record_recompute.s(entry.pk),
        link_error=tasks.record_recompute_failure.s(entry.pk),
    )
    assert winner_rating(four_players) == 3000  # nothing recomputed inside the request
    assert any("encargado" in m for m in shown_messages(admin_client))


@pytest.mark.django_db
def test_recomputing_the_ladders_runs_the_rankings_task_and_is_logged(
    admin_client: Client,
    tampered: int,
    four_players: list[User],
    eager: None,
    django_capture_on_commit_callbacks: Callable[..., object],
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        done = confirm_post(admin_client, TABLES, "recompute_ratings", [tampered], reason=REASON)
    assert done.status_code == 302
    entry = ModerationAction.objects.get()
    assert entry.kind == "recalcular" and entry.reason == REASON
    assert "rated games" in entry.details["output"]
    assert entry.details["status"] == "hecho"
    assert (entry.details["games"], entry.details["differences"]) == (1, 1)
    assert "The stored ladders were replaced." in entry.details["output"]
    assert winner_rating(four_players) == 1500  # four new accounts: their first game moves nobody
    page = admin_client.get(
        reverse("admin:moderation_moderationaction_change", args=[entry.pk])
    ).content.decode()
    assert "<dt>status</dt><dd><pre>hecho</pre></dd>" in page
    assert "player ladders" in page and "\nThe stored ladders were replaced.</pre>" in page


@pytest.mark.django_db
def test_a_recompute_that_fails_on_the_worker_is_written_into_its_entry(
    moderator: User,
    tampered: int,
    eager: None,
    django_capture_on_commit_callbacks: Callable[..., object],
) -> None:
    with (
        mock.patch.object(rating_recompute, "recompute", side_effect=RuntimeError("disco lleno")),
        django_capture_on_commit_callbacks(execute=True),
    ):
        entry = actions.recompute_ratings(moderator, REASON)
    entry.refresh_from_db()
    assert entry.details == {"status": "fallido", "error": "RuntimeError: disco lleno"}


@pytest.mark.django_db(transaction=True)
def test_recomputing_says_so_when_the_task_cannot_be_queued(
    four_players: list[User], moderator: User, client: Client
) -> None:
    table = finished_game(four_players)
    login(moderator, client)
    with mock.patch.object(
        recompute_ratings_task, "apply_async", side_effect=ConnectionError("broker caído")
    ):
        confirm_post(client, TABLES, "recompute_ratings", [table.pk])
    assert any("broker caído" in m for m in shown_messages(client))
    entry = ModerationAction.objects.get()
    assert entry.details == {"status": "fallido", "error": "broker caído"}


@pytest.mark.django_db
def test_a_result_is_written_into_its_entry_once(moderator: User) -> None:
    entry = actions.record(moderator, ModerationAction.Kind.RECOMPUTE, status=tasks.QUEUED)
    assert tasks.record_recompute({"output": "1 rated games"}, entry.pk) is True
    assert tasks.record_recompute({"output": "otra vez"}, entry.pk) is False
    assert tasks.record_recompute_failure(None, RuntimeError("tarde"), None, entry.pk) is False
    entry.refresh_from_db()
    assert entry.details == {"status": "hecho", "output": "1 rated games"}
    other = actions.mute(moderator, make_user("pilar"), "Insultos")
    assert tasks.record_recompute({"output": "x"}, other.pk) is False  # not a recompute entry
    assert tasks.record_recompute({"output": "x"}, 999_999) is False


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_recomputes_the_ladders_and_fills_in_the_entry(
    four_players: list[User], moderator: User, client: Client
) -> None:
    table = finished_game(four_players, winner=0, rate=True)
    PlayerRating.objects.filter(user=four_players[0]).update(rating=3000)
    login(moderator, client)
    with celery_worker():
        done = confirm_post(client, TABLES, "recompute_ratings", [table.pk], reason=REASON)
        assert done.status_code == 302
        entry = ModerationAction.objects.get()
        wait_until(
            lambda: ModerationAction.objects.get(pk=entry.pk).details["status"] != "encargado",
            timeout=30,
            every=0.2,
        )
        entry.refresh_from_db()
    assert entry.details["status"] == "hecho", entry.details
    assert "The stored ladders were replaced." in entry.details["output"]
    assert winner_rating(four_players) == 1500  # four new accounts: their first game moves nobody
