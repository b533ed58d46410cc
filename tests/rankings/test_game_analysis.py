"""The hand analysis on a finished game's page (rankings.analysis): asked for, run by its Celery
task, kept with the game, shown per decision and summarised; never for a game that is not over;
limited per player; seen by whoever may see the game page."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone, translation

from accounts.models import User
from games import services
from games.engine import analysis as engine_analysis
from games.models import Table
from rankings import analysis, analysis_pages, tasks
from rankings.models import GameAnalysis
from tests.engine.test_analysis import FakeAdviser, bot_game
from tests.factories import ended_table, finished_game, login, started_table

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def _few_samples(settings: Any) -> None:
    settings.MUS_ANALYSIS_SAMPLES = 12


@pytest.fixture
def sent() -> Iterator[list[list[Any]]]:
    """The analysis tasks sent to the broker (their arguments), instead of sending them."""
    calls: list[list[Any]] = []
    with mock.patch.object(
        analysis.current_app, "send_task", lambda name, args: calls.append([name, *args])
    ):
        yield calls


def short_game(players: list[User], **kwargs: Any) -> Table:
    """A finished game that ended with an órdago (a short one: a quick analysis)."""
    return finished_game(players, ended_by="ordago", **kwargs)


def ask(client: Client, table: Table) -> Any:
    return client.post(f"/partidas/{table.pk}/analisis/", **HX)


@pytest.mark.django_db
def test_a_player_asks_for_the_analysis_and_the_task_makes_it_once(
    four_players: list[User],
    sent: list[list[Any]],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    table = short_game(four_players)
    client = login(four_players[0])
    with django_capture_on_commit_callbacks(execute=True):
        response = ask(client, table)
    assert response.status_code == 200
    body = response.content.decode()
    assert 'hx-trigger="every 1s"' in body  # the panel polls while it is not made
    assert "En cola" in body
    assert sent == [[analysis.ANALYSE_TASK, table.pk]]
    item = GameAnalysis.objects.get(table=table)
    assert item.status == GameAnalysis.Status.PENDING
    assert item.total == sum(len(h["actions"]) for h in table.record["hands"])

    assert tasks.analyse_game(table.pk) is True
    item.refresh_from_db()
    assert item.status == GameAnalysis.Status.DONE and item.done == item.total
    assert len(item.result["decisions"]) == item.total

    panel = client.get(f"/partidas/{table.pk}/analisis/", **HX)
    text = panel.content.decode()
    assert "every 1s" not in text  # made: the polling stops
    assert panel["HX-Trigger"] == "analysis-ready"
    assert "Las decisiones más caras" in text and 'id="analysis-worst"' in text
    # A second request and a duplicate task message compute nothing again.
    with django_capture_on_commit_callbacks(execute=True):
        ask(login(four_players[1]), table)
    assert len(sent) == 1
    assert tasks.analyse_game(table.pk) is False
    assert GameAnalysis.objects.get(table=table).result == item.result


@pytest.mark.django_db
def test_each_step_of_the_replay_shows_its_decision_from_its_players_point_of_view(
    four_players: list[User], sent: list[list[Any]]
) -> None:
    table = short_game(four_players)
    analysis.request_analysis(four_players[0], table)
    tasks.analyse_game(table.pk)
    first = table.record["hands"][0]["actions"][0]
    page = login(four_players[2]).get(f"/partidas/{table.pk}/?mano=1&paso=0")
    step = page.context["step_analysis"]
    assert step["decision"]["seat"] == first["seat"]
    assert [c["lance"] for c in step["decision"]["chances"]] == [
        "grande",
        "chica",
        "pares",
        "juego",
    ]
    assert all(0 <= c["percent"] <= 100 for c in step["decision"]["chances"])
    text = page.content.decode()
    assert 'id="analysis-step"' in text and "Decisión de" in text
    assert "bot fuerte" in text
    # The HTMX step of the replay carries it too.
    fragment = login(four_players[2]).get(f"/partidas/{table.pk}/?mano=1&paso=1", **HX)
    assert 'id="analysis-step"' in fragment.content.decode()


@pytest.mark.django_db
def test_a_game_in_play_is_never_analysed(four_players: list[User], sent: list[list[Any]]) -> None:
    table = started_table(four_players)
    client = login(four_players[0])
    response = ask(client, table)
    assert "Solo se analizan partidas terminadas" in response.content.decode()
    assert client.get(f"/partidas/{table.pk}/analisis/", **HX).status_code == 404
    with pytest.raises(services.ServiceError) as refused:
        analysis.request_analysis(four_players[0], table)
    assert refused.value.code == "not_finished"
    assert not GameAnalysis.objects.exists() and sent == []


@pytest.mark.django_db
def test_an_open_table_is_not_analysed(make_user: Callable[..., User]) -> None:
    host = make_user()
    table = services.create_table(host, "4-reyes")
    with pytest.raises(services.ServiceError) as refused:
        analysis.request_analysis(host, table)
    assert refused.value.code == "not_finished"


@pytest.mark.django_db
def test_a_cancelled_game_is_not_analysed(four_players: list[User], sent: list[list[Any]]) -> None:
    table = ended_table(four_players, status=Table.Status.CANCELLED)
    response = ask(login(four_players[0]), table)
    assert "Una partida cancelada no se analiza" in response.content.decode()
    assert not GameAnalysis.objects.exists() and sent == []


@pytest.mark.django_db
def test_the_task_refuses_a_game_that_is_not_finished_even_if_one_was_queued(
    four_players: list[User], sent: list[list[Any]]
) -> None:
    table = short_game(four_players)
    analysis.request_analysis(four_players[0], table)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.PLAYING)
    assert tasks.analyse_game(table.pk) is False
    item = GameAnalysis.objects.get(table=table)
    assert item.status == GameAnalysis.Status.FAILED and item.result is None


@pytest.mark.django_db
def test_a_visitor_sees_an_analysis_of_a_public_game_but_may_not_ask_for_one(
    four_players: list[User], sent: list[list[Any]]
) -> None:
    table = short_game(four_players)
    visitor = Client()
    page = visitor.get(f"/partidas/{table.pk}/").content.decode()
    assert "Entra para analizarla" in page and 'id="analyse-button"' not in page
    response = visitor.post(f"/partidas/{table.pk}/analisis/")
    assert response.status_code == 302 and "/cuentas/entrar/" in response["Location"]
    assert not GameAnalysis.objects.exists()
    analysis.request_analysis(four_players[0], table)
    tasks.analyse_game(table.pk)
    page = visitor.get(f"/partidas/{table.pk}/").content.decode()
    assert "Las decisiones más caras" in page


@pytest.mark.django_db
def test_a_private_games_analysis_is_as_hidden_as_its_page(
    four_players: list[User], make_user: Callable[..., User], sent: list[list[Any]]
) -> None:
    table = short_game(four_players, private=True)
    stranger = login(make_user())
    assert ask(stranger, table).status_code == 404
    assert stranger.get(f"/partidas/{table.pk}/analisis/", **HX).status_code == 404
    assert not GameAnalysis.objects.exists()
    assert ask(login(four_players[3]), table).status_code == 200


@pytest.mark.django_db
def test_one_analysis_under_way_per_player(four_players: list[User], sent: list[list[Any]]) -> None:
    first, second = short_game(four_players), short_game(four_players)
    analysis.request_analysis(four_players[0], first)
    response = ask(login(four_players[0]), second)
    assert "Ya tienes un análisis en marcha" in response.content.decode()
    assert not GameAnalysis.objects.filter(table=second).exists()
    # Another player may ask for it, and asking again for your own costs nothing.
    analysis.request_analysis(four_players[1], second)
    assert analysis.request_analysis(four_players[0], first).status == "pendiente"
    tasks.analyse_game(first.pk)
    third = short_game(four_players)
    assert analysis.request_analysis(four_players[0], third).status == "pendiente"


@pytest.mark.django_db
def test_a_player_asks_for_at_most_so_many_new_analyses_an_hour(
    four_players: list[User], sent: list[list[Any]], settings: Any
) -> None:
    settings.MUS_ANALYSES_PER_HOUR = 2
    settings.MUS_ANALYSES_RUNNING_PER_PLAYER = 10
    games = [short_game(four_players) for _ in range(3)]
    for table in games[:2]:
        analysis.request_analysis(four_players[2], table)
    with pytest.raises(services.ServiceError) as refused:
        analysis.request_analysis(four_players[2], games[2])
    assert refused.value.code == "analysis_rate"
    assert not GameAnalysis.objects.filter(table=games[2]).exists()


@pytest.mark.django_db
def test_an_analysis_lost_with_its_worker_may_be_asked_for_again(
    four_players: list[User],
    sent: list[list[Any]],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    table = short_game(four_players)
    with django_capture_on_commit_callbacks(execute=True):
        analysis.request_analysis(four_players[0], table)
    long_ago = timezone.now() - timedelta(hours=1)
    GameAnalysis.objects.filter(table=table).update(
        status=GameAnalysis.Status.RUNNING, updated_at=long_ago
    )
    # No longer counted as under way: the same player may ask for another game meanwhile.
    other = short_game(four_players)
    with django_capture_on_commit_callbacks(execute=True):
        analysis.request_analysis(four_players[0], other)
        analysis.request_analysis(four_players[1], table)
    assert GameAnalysis.objects.get(table=table).status == GameAnalysis.Status.PENDING
    assert [args[1] for args in sent] == [table.pk, other.pk, table.pk]
    assert tasks.analyse_game(table.pk) is True


@pytest.mark.django_db
def test_a_failed_analysis_says_so_and_may_be_asked_for_again(
    four_players: list[User], sent: list[list[Any]]
) -> None:
    table = short_game(four_players)
    analysis.request_analysis(four_players[0], table)
    with mock.patch.object(analysis.engine_analysis, "analyse", side_effect=ValueError("boom")):
        assert tasks.analyse_game(table.pk) is False
    page = login(four_players[0]).get(f"/partidas/{table.pk}/").content.decode()
    assert "El análisis de esta partida falló" in page
    assert analysis.request_analysis(four_players[0], table).status == "pendiente"


@pytest.mark.django_db
def test_the_site_analyses_at_most_so_many_games_at_once_and_says_so(
    four_players: list[User], sent: list[list[Any]], settings: Any
) -> None:
    settings.MUS_ANALYSES_IN_FLIGHT = 2
    games = [short_game(four_players) for _ in range(4)]
    for player, table in zip(four_players[:2], games, strict=False):
        analysis.request_analysis(player, table)
    response = ask(login(four_players[2]), games[2])
    assert "Ahora mismo se están analizando muchas partidas" in response.content.decode()
    assert not GameAnalysis.objects.filter(table=games[2]).exists()
    with pytest.raises(services.ServiceError) as refused:
        analysis.request_analysis(four_players[3], games[3])
    assert refused.value.code == "analysis_busy"
    with translation.override("en"):
        assert str(refused.value.message) == (
            "Many games are being analysed right now. Ask again in a few minutes."
        )
    # One done frees a place; asking for one under way still costs nothing.
    tasks.analyse_game(games[0].pk)
    assert analysis.request_analysis(four_players[3], games[3]).status == "pendiente"
    assert analysis.request_analysis(four_players[2], games[1]).status == "pendiente"


def test_the_analysis_says_a_raise_as_the_table_said_it() -> None:
    # The table said «Dos más» (two over the bet), not the total «Envido 4».
    result = engine_analysis.analyse(bot_game(1), advise=FakeAdviser())
    raised = next(d for d in result["decisions"] if d["action"].get("more") == 2)
    row = analysis_pages.decision_row(raised, ["Maite", "Iñaki", "Nerea", "Unai"])
    assert row["said"] == "Dos más"
    opening = next(
        d
        for d in result["decisions"]
        if d["action"]["act"] == "envido" and "more" not in d["action"]
    )
    assert analysis_pages.decision_row(opening, ["a", "b", "c", "d"])["said"] == (
        f"Envido {opening['action']['to']}"
    )


def _costly(seen: dict[str, Any], rng: Any, **_: Any) -> dict[str, Any]:
    """An adviser for whom only the last legal option is any good: nearly every decision costs."""
    advice = FakeAdviser()(seen, rng)
    last = len(advice["options"]) - 1
    for i, option in enumerate(advice["options"]):
        option["value"] = 0.9 if i == last else 0.0
    return advice


@pytest.mark.django_db
def test_the_summary_gives_each_players_average_and_costliest_decision_never_a_sum_past_100(
    four_players: list[User], sent: list[list[Any]]
) -> None:
    table = finished_game(four_players)
    analysis.request_analysis(four_players[0], table)
    real = engine_analysis.analyse
    with mock.patch.object(
        analysis.engine_analysis, "analyse", lambda record, **kw: real(record, **kw, advise=_costly)
    ):
        assert tasks.analyse_game(table.pk) is True
    item = GameAnalysis.objects.get(table=table)
    decisions = item.result["decisions"]
    assert sum(s["cost"] for s in item.result["summary"]["seats"]) > 1  # the sum would be nonsense
    text = login(four_players[0]).get(f"/partidas/{table.pk}/analisis/", **HX).content.decode()
    assert "Coste total" not in text
    assert "Coste medio" in text and "La más cara" in text
    seats = analysis_pages.panel(item, ["a", "b", "c", "d"])["seats"]
    for seat in seats:
        costs = [
            d["cost"] for d in decisions if d["seat"] == seat["seat"] and d["cost"] is not None
        ]
        assert seat["max_points"] == round(100 * max(costs), 1) <= 100
        assert seat["mean_points"] == round(100 * sum(costs) / len(costs), 1)
        assert f"−{seat['mean_points']}".replace(".", ",") in text
    # What was said, quoted as each language quotes: «Paso», “Pass”.
    assert "dijo «" in text
    four_players[0].language = "en"
    four_players[0].save(update_fields=["language"])
    english = login(four_players[0])
    english.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    text = english.get(f"/partidas/{table.pk}/analisis/", **HX).content.decode()
    assert "said “" in text and "«" not in text and "»" not in text
