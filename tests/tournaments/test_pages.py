"""The tournament pages: the list, a tournament's page and its polled part (which takes a
player to their new table), the forms behind each button, and the winners on profiles."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from tests.factories import login
from tests.site.test_names_isolated import DISPLAY, USERNAME, assert_isolated
from tests.site.test_translations import english_page
from tournaments import services
from tournaments.models import Pair, Tournament

from .support import (
    check_in_all,
    current_matches,
    finish_table,
    make_tournament,
    play_round,
    ready_tournament,
    register_pairs,
    start_now,
)

pytestmark = pytest.mark.django_db


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_list_shows_upcoming_running_and_finished_tournaments(make_user: Any) -> None:
    upcoming = make_tournament(name="Próximo de los jueves")
    running, _pairs = ready_tournament(2, rounds=1, name="Ya en juego")
    page = Client().get("/torneos/").content.decode()
    assert "Próximo de los jueves" in page and "Ya en juego" in page
    assert 'hx-get="/torneos/"' in page
    play_round(running)
    polled = Client().get("/torneos/", HTTP_HX_REQUEST="true").content.decode()
    assert polled.startswith('<div id="tournaments-live"')
    assert "Ganadores:" in polled
    assert upcoming.get_absolute_url() in polled


def test_a_pair_registers_and_checks_in_through_the_page(make_user: Any) -> None:
    tournament = make_tournament()
    ana, luis = make_user("ana"), make_user("luis")
    page = login(ana).get(tournament.get_absolute_url()).content.decode()
    assert 'name="companero"' in page
    response = login(ana).post(
        f"/torneos/{tournament.pk}/inscribirse/", {"companero": "luis"}, follow=True
    )
    assert "Invitación enviada" in messages_of(response)[0]
    assert "Esperando a que" in response.content.decode()
    luis_page = login(luis).get(tournament.get_absolute_url()).content.decode()
    assert "te invita a jugar este torneo" in luis_page
    response = login(luis).post(f"/torneos/{tournament.pk}/aceptar/", follow=True)
    assert messages_of(response) == ["Estáis inscritos."]
    assert ">Estoy</button>" in response.content.decode()
    response = login(luis).post(f"/torneos/{tournament.pk}/estoy/", follow=True)
    assert messages_of(response) == ["Confirmado: estás en el torneo."]
    pair = Pair.objects.get()
    assert pair.second_checked_in_at is not None and pair.first_checked_in_at is None


def test_an_invited_player_may_still_register_with_somebody_else_from_the_page(
    make_user: Any,
) -> None:
    tournament = make_tournament()
    pest, luis, _eva = make_user("pesado"), make_user("luis"), make_user("eva")
    services.invite(pest, tournament.pk, "luis")
    page = login(luis).get(tournament.get_absolute_url()).content.decode()
    assert "te invita a jugar este torneo" in page and 'name="companero"' in page
    assert "Inscribirte con otra pareja rechaza la invitación que tienes." in page
    response = login(luis).post(
        f"/torneos/{tournament.pk}/inscribirse/", {"companero": "eva"}, follow=True
    )
    assert "Invitación enviada" in messages_of(response)[0]
    assert Pair.objects.get(first=pest).status == Pair.Status.DECLINED


def test_the_forms_say_why_they_refuse(make_user: Any) -> None:
    tournament = make_tournament()
    ana = make_user("ana")
    response = login(ana).post(
        f"/torneos/{tournament.pk}/inscribirse/", {"companero": "ana"}, follow=True
    )
    assert messages_of(response) == ["No puedes ser tu propia pareja: invita a otro jugador."]
    response = login(ana).post(f"/torneos/{tournament.pk}/estoy/", {"jugador": "luis"}, follow=True)
    assert messages_of(response) == [
        "Solo puedes confirmar por ti: tu pareja pulsa «Estoy» desde su cuenta."
    ]
    response = login(ana).post(f"/torneos/{tournament.pk}/retirarse/", follow=True)
    assert messages_of(response) == ["No estás inscrito en este torneo."]


def test_the_forms_need_a_signed_in_player_a_post_and_the_csrf_token(make_user: Any) -> None:
    tournament = make_tournament()
    url = f"/torneos/{tournament.pk}/inscribirse/"
    response = Client().post(url, {"companero": "luis"})
    assert response.status_code == 302 and "/cuentas/entrar/" in response["Location"]
    assert login(make_user("ana")).get(url).status_code == 405
    strict = login(make_user("eva"), Client(enforce_csrf_checks=True))
    assert strict.post(url, {"companero": "ana"}).status_code == 403
    assert not Pair.objects.exists()
    assert Client().get("/torneos/999999/").status_code == 404


def test_the_polled_page_takes_a_player_to_their_new_table(make_user: Any) -> None:
    tournament, pairs = ready_tournament(2, rounds=2)
    table = current_matches(tournament)[0].table
    client = login(pairs[0].first)
    # The page as it was before the table came (it knew of no table): off to the table.
    response = client.get(f"/torneos/{tournament.pk}/?mesa=0", HTTP_HX_REQUEST="true")
    assert response.status_code == 204
    assert response["HX-Redirect"] == f"/mesas/{table.pk}/"
    # A page opened while the table is in play says so, and its polls leave the player there.
    page = client.get(f"/torneos/{tournament.pk}/").content.decode()
    assert "Tu mesa del torneo está lista" in page
    assert f'?mesa={table.pk}"' in page
    polled = client.get(f"/torneos/{tournament.pk}/?mesa={table.pk}", HTTP_HX_REQUEST="true")
    assert polled.status_code == 200 and "HX-Redirect" not in polled
    # Somebody else watching is never sent anywhere.
    other = Client().get(f"/torneos/{tournament.pk}/?mesa=0", HTTP_HX_REQUEST="true")
    assert other.status_code == 200


def test_a_finished_tournament_keeps_its_page_and_stops_polling() -> None:
    tournament, _pairs = ready_tournament(2, rounds=1)
    play_round(tournament)
    page = Client().get(f"/torneos/{tournament.pk}/").content.decode()
    assert "Ganadores:" in page and "hx-trigger" not in page.split('id="tournament-live"')[1]
    assert "ver la partida" in page


def test_the_winners_are_on_their_profiles() -> None:
    tournament, pairs = ready_tournament(2, rounds=1, name="Copa de otoño")
    play_round(tournament)
    tournament.refresh_from_db()
    winner = tournament.winner
    assert winner is not None
    for player in (winner.first, winner.second):
        page = Client().get(f"/jugadores/{player.username}/").content.decode()
        assert "Torneos ganados" in page and "Copa de otoño" in page
    loser = next(p for p in pairs if p.pk != winner.pk)
    assert (
        "Torneos ganados"
        not in Client().get(f"/jugadores/{loser.first.username}/").content.decode()
    )


def test_the_pages_isolate_the_names(make_user: Any) -> None:
    """An Arabic display name (as in tests/site/test_names_isolated.py)."""
    tournament = make_tournament(format=Tournament.Format.KNOCKOUT, rounds=None)
    leila, other = make_user("leila"), make_user("otro")
    services.invite(leila, tournament.pk, other.username)
    services.accept(other, tournament.pk)
    User.objects.filter(pk=leila.pk).update(username=USERNAME, display_name=DISPLAY)
    pairs = [Pair.objects.get(), *register_pairs(tournament, 1)]
    assert_isolated(Client().get(tournament.get_absolute_url()).content.decode(), DISPLAY)
    check_in_all(tournament, pairs)
    start_now(tournament)
    page = Client().get(tournament.get_absolute_url()).content.decode()
    assert_isolated(page, DISPLAY)  # the rounds, and the bracket's SVG text (FSI…PDI)


def test_a_tournament_page_costs_the_same_queries_whatever_its_size(make_user: Any) -> None:
    def queries(n: int) -> int:
        tournament, pairs = ready_tournament(n, prefix=f"p{n}-", rounds=3, name=f"de {n}")
        play_round(tournament)
        client = login(pairs[0].first)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(tournament.get_absolute_url()).status_code == 200
        return len(captured)

    assert queries(4) == queries(8)


def test_the_tournament_pages_are_in_english_for_an_english_player(make_user: Any) -> None:
    swiss, pairs = ready_tournament(4, rounds=2, name="Open")
    play_round(swiss)
    knockout, _ = ready_tournament(4, prefix="k", format=Tournament.Format.KNOCKOUT, rounds=None)
    make_tournament(name="Next")
    player = pairs[0].first
    User.objects.filter(pk=player.pk).update(language="en")
    client = login(User.objects.get(pk=player.pk))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    spanish = ["Torneos", "Próximos", "Clasificación", "Ronda", "Cuadro", "Parejas", " y ", "Tu "]
    english_page(
        client, "/torneos/", ["Tournaments", "Upcoming", "In progress", "Swiss, 2 rounds"], spanish
    )
    english_page(
        client,
        swiss.get_absolute_url(),
        [
            "Your tournament table is ready",
            "Go to your table",
            "Standings",
            "Points",
            "Round 2",
            "Round 1",
            "Your pair",
        ],
        spanish,
    )
    english_page(client, knockout.get_absolute_url(), ["Bracket", "Semifinals", "Final"], spanish)


def test_a_tournament_table_links_back_to_its_tournament() -> None:
    tournament, pairs = ready_tournament(2, rounds=1, name="Copa de la peña")
    table = current_matches(tournament)[0].table
    page = login(pairs[0].first).get(f"/mesas/{table.pk}/").content.decode()
    assert f'href="{tournament.get_absolute_url()}">Copa de la peña · Ronda 1</a>' in page
    play_round(tournament)
    page = login(pairs[0].first).get(f"/mesas/{table.pk}/").content.decode()
    assert "Copa de la peña · Ronda 1" in page  # the finished table too: where the next comes


def test_the_invitation_and_the_check_in_read_naturally_in_both_languages(
    make_user: Any,
) -> None:
    tournament = make_tournament()
    ana, luis = make_user("ana"), make_user("luis")
    services.invite(ana, tournament.pk, luis.username)
    url = f"/torneos/{tournament.pk}/"
    page = login(luis).get(url).content.decode()
    assert "te invita a jugar este torneo como su pareja." in page
    services.accept(luis, tournament.pk)
    services.check_in(luis, tournament.pk)
    page = login(ana).get(url).content.decode()
    assert '<span class="ok">ha confirmado</span>' in page and "sin confirmar" in page
    ana.language = "en"
    ana.save(update_fields=["language"])
    english = login(ana)
    english.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    page = english.get(url).content.decode()
    assert '<span class="ok">checked in</span>' in page and "not checked in" in page


def test_a_result_won_by_an_ordago_says_so(make_user: Any) -> None:
    """40–0 reads like a thrashing; won by an órdago it was one lance, and the page says so."""
    tournament, _pairs = ready_tournament(4, rounds=1)
    first, second = current_matches(tournament)
    finish_table(first.table, 0, loser_tantos=0, ended_by="ordago")
    finish_table(second.table, 1, loser_tantos=12)
    services.run(tournament.pk)
    page = Client().get(f"/torneos/{tournament.pk}/").content.decode()
    assert page.count("a órdago</span>") == 1
    assert '40–0 <span class="badge ordago">a órdago</span>' in page and "12–40" in page


def test_the_page_counts_down_to_the_start_at_every_poll() -> None:
    tournament = make_tournament()  # starts in 5 minutes
    page = Client().get(f"/torneos/{tournament.pk}/").content.decode()
    when = re.search(r'id="tournament-countdown"><time datetime="([^"]+)">', page)
    assert when and datetime.fromisoformat(when[1]) == tournament.starts_at
    assert "Empieza en 4\xa0minutos" in page or "Empieza en 5\xa0minutos" in page
    live = Client().get(f"/torneos/{tournament.pk}/", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="tournament-countdown"' in live  # the polled part carries it
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/torneos/{tournament.pk}/").content.decode()
    assert "Starts in 4\xa0minutes" in english or "Starts in 5\xa0minutes" in english
    # The start time come, the countdown gives way to what is happening.
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    page = Client().get(f"/torneos/{tournament.pk}/").content.decode()
    assert "Empieza en" not in page and "Empezando" in page


def test_a_tournament_game_says_so_in_the_players_history() -> None:
    tournament, pairs = ready_tournament(2, rounds=1, name="Copa de la peña")
    table = current_matches(tournament)[0].table
    play_round(tournament)
    player = pairs[0].first
    history = login(player).get(f"/partidas/?jugador={player.username}").content.decode()
    row = history[history.index(f'href="/partidas/{table.pk}/"') :]
    assert row[: row.index("</li>")].count("Copa de la peña · Ronda 1") == 1
    profile = Client().get(f"/jugadores/{player.username}/").content.decode()
    assert "Copa de la peña · Ronda 1" in profile


def test_english_times_are_24_hour_like_the_dates_beside_them() -> None:
    starts = timezone.now().replace(hour=13, minute=28, second=0, microsecond=0)  # 14:28 Madrid
    starts += timedelta(days=1)
    tournament = make_tournament(starts_at=starts, registration_deadline=starts)
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/torneos/{tournament.pk}/").content.decode()
    opens = timezone.localtime(tournament.checkin_opens_at).strftime("%H:%M")
    assert f"from {opens}" in page and "p.m." not in page and "a.m." not in page
