"""«Descargar mis datos» (issue #35.2): what the file holds, what it never holds, the limit, and
the large export made by the Celery task."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.test import Client, override_settings

from accounts.models import Block, Follow, PendingEmail, User
from games.models import ChatMessage
from moderation import tasks
from moderation.models import DataExport, Report
from musweb.celery import app as celery_app
from tests.factories import finished_game, login, started_table
from tests.live import celery_worker, wait_until

DATA = "/cuentas/mis-datos/"


def download(client: Client) -> dict[str, Any]:
    response = client.post(DATA)
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"].startswith("attachment;")
    return json.loads(response.content)


@pytest.fixture
def scene(four_players: list[User], make_user: Callable[..., User]) -> dict[str, Any]:
    """Pilar (seat 0) with a finished rated game, a game in play, chat of hers and of others,
    a report she made and one made against her, follows and blocks both ways."""
    pilar, luis, ana, eva = four_players
    User.objects.filter(pk=pilar.pk).update(email="pilar@example.com", display_name="Pili")
    User.objects.filter(pk=luis.pk).update(email="luis-secreto@example.com")
    pilar.refresh_from_db()
    PendingEmail.objects.create(user=pilar, email="pilar-nueva@example.com")
    PendingEmail.objects.create(user=luis, email="luis-pendiente@example.com")
    ended = finished_game(four_players, winner=0, rate=True)
    live = started_table(four_players)
    ChatMessage.objects.create(table=ended, user=pilar, seat=0, text="¡Vaya órdago!")
    ChatMessage.objects.create(table=ended, user=luis, seat=1, text="Línea privada de Luis")
    Report.objects.create(
        reporter=pilar, reported=luis, table=ended, reason="insultos", text="Me insultó"
    )
    Report.objects.create(
        reporter=ana, reported=pilar, table=ended, reason="insultos", text="Denuncia contra Pilar"
    )
    Follow.objects.create(follower=pilar, followed=ana)
    Follow.objects.create(follower=eva, followed=pilar)
    Block.objects.create(blocker=pilar, blocked=make_user("pesado"))
    Block.objects.create(blocker=luis, blocked=pilar)
    return {"pilar": pilar, "ended": ended, "live": live, "players": four_players}


@pytest.mark.django_db
def test_the_export_holds_the_players_own_data(client: Client, scene: dict[str, Any]) -> None:
    pilar, ended, live = scene["pilar"], scene["ended"], scene["live"]
    login(pilar, client)
    data = download(client)
    assert data["format"] == "barajamos-datos/1"
    assert data["account"]["username"] == pilar.username
    assert data["account"]["email"] == "pilar@example.com"
    assert data["account"]["pending_email"]["email"] == "pilar-nueva@example.com"
    assert data["settings"] == {"display_name": "Pili", "language": "es"}
    assert len(data["sign_ins"]) == 1  # the log-in of this test
    assert {r["mode"] for r in data["ratings"]} == {"4-reyes"}
    assert [c["table"] for c in data["rating_history"]] == [ended.pk]
    games = {g["table"]: g for g in data["games"]}
    assert set(games) == {ended.pk, live.pk}
    assert games[ended.pk]["record"]["format"] == "mus-record/1"
    assert [p["you"] for p in games[ended.pk]["players"]] == [True, False, False, False]
    assert [m["text"] for m in data["chat"]] == ["¡Vaya órdago!"]
    assert [(r["reported"], r["text"]) for r in data["reports_made"]] == [
        (scene["players"][1].public_name, "Me insultó")
    ]
    assert [f["username"] for f in data["follows"]] == [scene["players"][2].username]
    assert [b["username"] for b in data["blocks"]] == ["pesado"]


@pytest.mark.django_db
def test_the_export_never_holds_another_players_private_data(
    client: Client, scene: dict[str, Any]
) -> None:
    login(scene["pilar"], client)
    data = download(client)
    text = json.dumps(data, ensure_ascii=False)
    assert "luis-secreto@example.com" not in text  # nobody else's email
    assert "luis-pendiente@example.com" not in text
    assert "Línea privada de Luis" not in text  # nor their chat lines
    assert "Denuncia contra Pilar" not in text  # nor reports made against her
    assert "blocked_by" not in text and scene["players"][3].username not in {
        f["username"] for f in data["follows"]
    }
    # The game in play gives no record: its cards are hidden from its own players too.
    live = next(g for g in data["games"] if g["table"] == scene["live"].pk)
    assert live["record"] is None
    assert "deck" not in json.dumps(live)


@pytest.mark.django_db
@override_settings(MUS_DATA_EXPORTS_PER_DAY=2)
def test_the_export_is_limited_per_day(client: Client, make_user: Callable[..., User]) -> None:
    login(make_user("pilar"), client)
    download(client)
    download(client)
    refused = client.post(DATA)
    assert refused.status_code == 429
    assert "2 veces en las últimas 24 horas" in refused.content.decode()
    assert DataExport.objects.count() == 2


@pytest.mark.django_db
def test_the_export_needs_a_signed_in_player(client: Client) -> None:
    assert client.post(DATA).status_code == 302
    assert client.get(DATA + "1/").status_code == 302


@pytest.mark.django_db(transaction=True)
@override_settings(MUS_DATA_EXPORT_INLINE_GAMES=0)
def test_a_large_export_is_made_by_the_celery_task_on_its_queue_and_downloaded_later(
    client: Client, scene: dict[str, Any], make_user: Callable[..., User]
) -> None:
    pilar = scene["pilar"]
    login(pilar, client)
    with mock.patch.object(tasks.export_player_data, "apply_async") as apply_async:
        queued = client.post(DATA)
    assert queued.status_code == 302
    row = DataExport.objects.get()
    assert row.status == DataExport.Status.PENDING
    apply_async.assert_called_once_with((row.pk,))
    # Heavy work: routed by its name to the heavy workers' queue, away from the turn clocks.
    route = celery_app.amqp.router.route({}, tasks.export_player_data.name)
    assert route["queue"].name == settings.MUS_HEAVY_QUEUE
    page = client.get(DATA).content.decode()
    assert "Estamos preparando tus datos" in page
    again = client.post(DATA)  # one at a time
    assert again.status_code == 429 and "Ya estamos preparando" in again.content.decode()

    assert tasks.export_player_data(row.pk) is True  # what the worker runs
    assert tasks.export_player_data(row.pk) is False  # a redelivered message does nothing
    page = client.get(DATA).content.decode()
    assert f"/cuentas/mis-datos/{row.pk}/" in page
    file = client.get(f"/cuentas/mis-datos/{row.pk}/")
    assert file["Content-Disposition"].startswith("attachment;")
    data = json.loads(file.content)
    assert data["account"]["email"] == "pilar@example.com"
    assert "Línea privada de Luis" not in file.content.decode()
    # Nobody else downloads it.
    other = login(make_user("curiosa"))
    assert other.get(f"/cuentas/mis-datos/{row.pk}/").status_code == 404


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@override_settings(MUS_DATA_EXPORT_INLINE_GAMES=0)
def test_a_real_heavy_worker_makes_a_large_export(client: Client, scene: dict[str, Any]) -> None:
    login(scene["pilar"], client)
    with celery_worker(role="heavy") as worker:
        assert client.post(DATA).status_code == 302
        row = DataExport.objects.get()
        wait_until(
            lambda: DataExport.objects.get(pk=row.pk).status != DataExport.Status.PENDING,
            timeout=30,
            every=0.2,
        )
        assert worker.finished("moderation.export_player_data") == 1
    row.refresh_from_db()
    assert row.status == DataExport.Status.READY
    data = json.loads(client.get(f"/cuentas/mis-datos/{row.pk}/").content)
    assert data["account"]["email"] == "pilar@example.com"
    assert {g["table"] for g in data["games"]} == {scene["ended"].pk, scene["live"].pk}
