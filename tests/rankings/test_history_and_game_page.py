"""/partidas/: a player's games with filters, and /partidas/<id>/ with the hand-by-hand replay."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import engine
from games.models import Table
from rankings import queries
from tests.factories import establish, finished_game, login, play_out, started_table

pytestmark = pytest.mark.django_db

HISTORY = reverse("game_history")
HTMX = {"HTTP_HX_REQUEST": "true"}


def ids(response: object) -> list[int]:
    return [row.id for row in response.context["page"].rows]


def test_a_players_history_lists_their_ended_games_latest_first(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    establish(four)
    won = finished_game(four, winner=0, rate=True)
    lost = finished_game(four, winner=1, rate=True)
    cancelled = finished_game(four, status=Table.Status.CANCELLED)
    started_table(players(4))  # somebody else's game in progress: never listed
    response = client.get(HISTORY, {"jugador": four[0].username})
    assert response.status_code == 200
    assert ids(response) == [cancelled.pk, lost.pk, won.pk]
    page = response.content.decode()
    assert "Ganada" in page and "Perdida" in page and "Cancelada" in page
    assert reverse("game_detail", args=[won.pk]) in page
    assert "+10" in page  # the rating change of the first (equal) game


def test_history_filters_by_mode_and_result(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    won4 = finished_game(four, "4-reyes", winner=0)
    lost4 = finished_game(four, "4-reyes", winner=1)
    won8 = finished_game(four, "8-reyes", winner=0)
    cancelled = finished_game(four, "8-reyes", status=Table.Status.CANCELLED)
    me = four[0].username
    assert ids(client.get(HISTORY, {"jugador": me, "resultado": "ganadas"})) == [won8.pk, won4.pk]
    assert ids(client.get(HISTORY, {"jugador": me, "resultado": "perdidas"})) == [lost4.pk]
    assert ids(client.get(HISTORY, {"jugador": me, "resultado": "canceladas"})) == [cancelled.pk]
    assert ids(client.get(HISTORY, {"jugador": me, "modo": "8-reyes"})) == [cancelled.pk, won8.pk]
    # Seat 1 is on the other team: the same game is lost for them.
    other = four[1].username
    assert ids(client.get(HISTORY, {"jugador": other, "resultado": "ganadas"})) == [lost4.pk]


def test_history_pages_with_htmx(client: Client, players: Callable[[int], list[User]]) -> None:
    four = players(4)
    games = [finished_game(four) for _ in range(queries.HISTORY_PAGE + 2)]
    first = client.get(HISTORY, {"jugador": four[0].username})
    assert first.context["next_url"] == f"?jugador={four[0].username}&pagina=2"
    second = client.get(HISTORY, {"jugador": four[0].username, "pagina": 2}, **HTMX)
    body = second.content.decode()
    assert "<html" not in body
    assert ids(second) == [games[1].pk, games[0].pk]


def test_private_games_show_only_to_their_players_and_staff(
    client: Client, players: Callable[[int], list[User]], make_user: Callable[..., User]
) -> None:
    four = players(4)
    private = finished_game(four, private=True)
    public = finished_game(four)
    me = four[0].username
    assert ids(client.get(HISTORY, {"jugador": me})) == [public.pk]
    assert client.get(reverse("game_detail", args=[private.pk])).status_code == 404
    login(make_user("mirona"), client)
    assert ids(client.get(HISTORY, {"jugador": me})) == [public.pk]
    assert client.get(reverse("game_detail", args=[private.pk])).status_code == 404
    login(four[3], client)
    assert ids(client.get(HISTORY, {"jugador": me})) == [public.pk, private.pk]
    assert client.get(reverse("game_detail", args=[private.pk])).status_code == 200
    login(make_user("staff", is_staff=True), client)
    assert ids(client.get(HISTORY, {"jugador": me})) == [public.pk, private.pk]
    assert client.get(reverse("game_detail", args=[private.pk])).status_code == 200


def test_the_history_without_a_player_is_your_own_or_everybodys(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four, others = players(4), players(4)
    mine = finished_game(four)
    theirs = finished_game(others)
    assert ids(client.get(HISTORY)) == [theirs.pk, mine.pk]
    login(four[0], client)
    assert ids(client.get(HISTORY)) == [mine.pk]
    assert client.get(HISTORY, {"jugador": "nadie-con-ese-nombre"}).status_code == 404


def test_the_game_page_shows_pairs_score_rating_changes_and_how_it_ended(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    establish(four)
    table = finished_game(four, winner=1, rate=True)
    response = client.get(reverse("game_detail", args=[table.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    for user in four:
        assert user.public_name in page
    assert f"{table.scores[0]}" in page and f"{table.scores[1]}" in page
    assert "1500 → 1510 (+10)" in page and "1500 → 1490 (−10)" in page
    assert "cuenta un" not in page  # established rivals: the result counted in full
    assert "Gana la pareja B" in page
    assert reverse("game_record", args=[table.pk]) in page


def test_the_game_page_says_when_a_game_was_won_by_ordago_or_cancelled(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    ordago = finished_game(four, winner=0, ended_by="ordago")
    assert "con un órdago" in client.get(reverse("game_detail", args=[ordago.pk])).content.decode()
    cancelled = finished_game(four, status=Table.Status.CANCELLED)
    page = client.get(reverse("game_detail", args=[cancelled.pk])).content.decode()
    assert "se canceló" in page


def test_a_game_in_progress_has_no_page_yet(client: Client, four_players: list[User]) -> None:
    table = started_table(four_players)
    response = client.get(reverse("game_detail", args=[table.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("games:table", args=[table.pk])
    assert client.get(reverse("game_detail", args=[987654])).status_code == 404


def test_the_replay_steps_through_every_action_with_all_cards_visible(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    table = finished_game(four, winner=0)
    record = table.record
    url = reverse("game_detail", args=[table.pk])
    first_hand = record["hands"][0]
    dealt = client.get(url, {"mano": 1, "paso": 0})
    step = dealt.context["step"]
    assert step.step == 0 and step.said == []
    # The deal: card i goes to seat (mano + i) % 4 (docs/game-record.md), every hand face up.
    mano = record["first_mano"]
    for seat in range(4):
        expected = {first_hand["deck"][i] for i in range(16) if (mano + i) % 4 == seat}
        assert set(step.hands[seat]) == expected
    page = dealt.content.decode()
    assert len(re.findall(r'class="card-img small"', page)) >= 16
    # Every step of every hand replays, and the last one is the stored result.
    for n, hand in enumerate(record["hands"], 1):
        for k in (0, 1, len(hand["actions"])):
            step = client.get(url, {"mano": n, "paso": k}, **HTMX).context["step"]
            assert (step.hand_no, step.step) == (n, k)
            assert len(step.said) == k
    last_hand = len(record["hands"])
    last = client.get(url, {"mano": last_hand, "paso": len(record["hands"][-1]["actions"])})
    assert last.context["step"].scores == table.scores
    assert last.context["step"].phase == "terminada"
    assert last.context["nav"]["next"] is None
    # Without parameters: the deal of the first hand, no lance played yet (nothing given away).
    default = client.get(url).context
    assert (default["step"].hand_no, default["step"].step) == (1, 0)
    assert default["step"].lances == []
    assert default["hands"][-1]["scores"] == table.scores


def test_the_replay_heads_what_was_said_with_the_lance_it_was_said_in(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    # «Envido 2» alone does not say whether it was at grande or at chica.
    table = play_out(started_table(players(4)), seed=5)
    url = reverse("game_detail", args=[table.pk])
    order = ["Mus", "Grande", "Chica", "Pares", "Juego", "Punto"]
    betting = {"paso", "envido", "quiero", "no_quiero", "ordago"}
    for n, hand in enumerate(table.record["hands"], 1):
        for k in range(len(hand["actions"]) + 1):
            said = client.get(url, {"mano": n, "paso": k}, **HTMX).context["step"].said
            headings = [s["heading"] for s in said if s["heading"]]
            assert headings == sorted(headings, key=order.index) and len(set(headings)) == len(
                headings
            )
            if said:
                assert said[0]["heading"]
            current = None
            for entry in said:
                current = entry["heading"] or current
                assert (current != "Mus") == (entry["act"] in betting), (n, k, entry)
    page = client.get(url, {"mano": 1, "paso": len(table.record["hands"][0]["actions"])})
    page = page.content.decode()
    assert 'class="rankings-said-lance">Mus</li>' in page
    assert re.search(r'class="rankings-said-lance">(Grande|Chica|Pares|Juego|Punto)</li>', page)


def test_replay_steps_are_fragments_for_htmx_and_links_without_it(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    table = finished_game(players(4))
    url = reverse("game_detail", args=[table.pk])
    fragment = client.get(url, {"mano": 1, "paso": 1}, **HTMX)
    body = fragment.content.decode()
    assert "<html" not in body and 'hx-target="#replay"' in body
    nav = fragment.context["nav"]
    assert nav["previous"] == "?mano=1&paso=0" and nav["next"] == "?mano=1&paso=2"
    assert nav["first"] == "?mano=1&paso=0"
    # Out-of-range steps are clamped, nonsense is ignored.
    assert client.get(url, {"mano": 999, "paso": -4}).context["step"].step == 0
    assert client.get(url, {"mano": "x", "paso": "y"}).status_code == 200


def test_a_game_played_through_the_site_replays_on_its_page(
    client: Client, four_players: list[User]
) -> None:
    table = play_out(started_table(four_players), seed=5)
    assert table.status == Table.Status.FINISHED
    response = client.get(reverse("game_detail", args=[table.pk]))
    assert response.status_code == 200
    assert response.context["hands"][-1]["scores"] == table.scores


def test_the_record_download_is_the_stored_record_and_replays_to_the_stored_score(
    client: Client, players: Callable[[int], list[User]], four_players: list[User]
) -> None:
    for table in (
        finished_game(players(4), "8-reyes", winner=1),
        play_out(started_table(four_players)),
    ):
        response = client.get(reverse("game_record", args=[table.pk]))
        assert response.status_code == 200
        downloaded = json.loads(response.content)
        assert downloaded == table.record
        result = engine.replay_result(downloaded)
        assert result["scores"] == table.scores
        assert result["winner"] == table.winner_team
        assert result["ended_by"] == table.ended_by


def test_the_game_page_and_history_speak_english_too(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    table = finished_game(four, winner=1, rate=True)
    page = client.get(reverse("game_detail", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en")
    text = page.content.decode()
    assert "Pair B wins by reaching 40 tantos." in text and "Hand by hand" in text
    assert "Gana la pareja" not in text
    history = client.get(HISTORY, {"jugador": four[0].username}, HTTP_ACCEPT_LANGUAGE="en")
    assert "Lost" in history.content.decode()


def test_a_record_that_does_not_replay_leaves_the_rest_of_the_game_page(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    table = finished_game(players(4))
    for broken in ({"format": "mus-record/1", "hands": []}, {"nonsense": True}):
        Table.objects.filter(pk=table.pk).update(record=broken)
        response = client.get(reverse("game_detail", args=[table.pk]))
        assert response.status_code == 200
        assert response.context["replay_error"]
        assert "No se ha podido reproducir" in response.content.decode()


def test_the_game_page_says_how_much_a_game_against_new_players_counted(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    veterans, newcomers = players(2), players(2)
    establish(veterans)
    # A veteran and a newcomer in each pair.
    table = finished_game([veterans[0], veterans[1], newcomers[0], newcomers[1]], rate=True)
    page = client.get(reverse("game_detail", args=[table.pk])).content.decode()
    # Two brand-new accounts at the table: the game counted for nobody, and the page says why.
    assert page.count("1500 → 1500 (±0)") == 4 and page.count("cuenta un 0 %") == 4
    assert page.count("alguien en la mesa lleva menos de 3 partidas puntuadas") == 4
    assert 'id="damped-note"' in page and "jugadores distintos" in page


def test_an_ordago_game_page_names_the_lance_and_the_hands_that_decided_it(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    table = finished_game(four, winner=1, ended_by="ordago")
    page = client.get(reverse("game_detail", args=[table.pk])).content.decode()
    assert "Gana la pareja B con un órdago." in page
    end = re.search(r'class="rankings-ordago-end">([^<]+)<', page)
    assert end and end.group(1).startswith("Órdago a")
    assert "querido: las cartas de" in end.group(1)


def test_english_dates_are_day_month_year(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    four = players(4)
    when = datetime(2026, 12, 1, 18, 30, tzinfo=ZoneInfo("Europe/Madrid"))
    table = finished_game(four, finished_at=when)
    english = client.get(
        reverse("game_detail", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "1 Dec 2026, 18:30" in english and "12/01/2026" not in english
    history = client.get(HISTORY, {"jugador": four[0].username}, HTTP_ACCEPT_LANGUAGE="en")
    assert "1 Dec 2026, 18:30" in history.content.decode()


def test_the_replay_opens_at_the_deal_and_fills_the_lances_as_they_are_reached(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    table = finished_game(four, winner=0)
    url = reverse("game_detail", args=[table.pk])
    actions = table.record["hands"][0]["actions"]
    seen: list[int] = []
    for k in range(len(actions) + 1):
        step = client.get(url, {"mano": 1, "paso": k}, **HTMX).context["step"]
        seen.append(len(step.lances))
        if not step.shown:
            # Before the recuento a lance the cards decide does not say who won it.
            assert all(not row["known"] for row in step.lances if row["winner"] is None)
            assert all(row["parts"] == [] for row in step.lances)
    assert seen[0] == 0 and seen == sorted(seen) and seen[-1] >= 4
    last = client.get(url, {"mano": 1, "paso": len(actions)}, **HTMX).context["step"]
    assert last.shown and any(row["won_by"] for row in last.lances)


def test_the_replay_lays_the_seats_out_as_the_viewer_sat_and_marks_clock_plays(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    table = finished_game(four, winner=0)
    record = copy.deepcopy(table.record)  # (finished_game shares its records between tests)
    record["hands"][0]["actions"][0]["by"] = "clock"
    Table.objects.filter(pk=table.pk).update(record=record)
    url = reverse("game_detail", args=[table.pk])
    login(four[1], client)
    response = client.get(url, {"mano": 1, "paso": 1})
    layout = {p["pos"]: p["seat"] for p in response.context["step_players"]}
    assert layout == {"bottom": 1, "right": 2, "top": 3, "left": 0}  # partner at the top
    said = response.context["step"].said[0]
    assert said["clock"] and said["label"].endswith("(tiempo)")
    assert 'class="latest by-clock"' in response.content.decode()
