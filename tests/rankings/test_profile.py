"""The rankings' part of /jugadores/<username>/: ratings, chart, totals, partner, recent games."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.models import Table
from rankings.models import PlayerRating
from rankings.profile import profile_context
from tests.factories import establish, finished_game, login

pytestmark = pytest.mark.django_db


def test_a_new_player_starts_at_1500_in_both_modes(make_user: Callable[..., User]) -> None:
    context = profile_context(make_user("nueva"))
    assert [
        (m["mode"], m["rating"], m["games"], m["provisional"]) for m in context["rankings_modes"]
    ] == [
        ("4-reyes", 1500, 0, True),
        ("8-reyes", 1500, 0, True),
    ]
    assert context["rankings_modes"][0]["chart"]["empty"]
    assert context["rankings_totals"]["games"] == 0
    assert context["rankings_partner"] is None
    assert context["rankings_recent"] == []


def test_the_profile_adds_up_games_wins_ordagos_best_rating_and_partner(
    players: Callable[[int], list[User]],
) -> None:
    me, mate, x, y, other = players(5)
    establish([x, y])  # rivals the ladder knows, so the results count
    finished_game([me, x, mate, y], winner=0, rate=True)  # won with mate
    finished_game([me, x, mate, y], winner=0, ended_by="ordago", rate=True)  # won by órdago
    finished_game([x, me, y, mate], winner=0, ended_by="ordago", rate=True)  # lost by órdago
    finished_game([me, x, other, y], winner=1, rate=True)  # lost with other
    finished_game([me, x, mate, y], status=Table.Status.CANCELLED)
    finished_game([me, x, mate, y], "8-reyes", winner=1, rate=True)
    context = profile_context(me)
    totals = context["rankings_totals"]
    assert totals["games"] == 5 and totals["wins"] == 2 and totals["cancelled"] == 1
    assert totals["win_rate"] == pytest.approx(0.4)
    assert totals["ordagos_won"] == 1 and totals["ordagos_lost"] == 1
    assert context["rankings_partner"]["username"] == mate.username
    assert context["rankings_partner"]["games"] == 4
    four, eight = context["rankings_modes"]
    stored = PlayerRating.objects.get(user=me, mode="4-reyes")
    assert four["games"] == 4 and four["wins"] == 2 and four["rating"] == round(stored.rating)
    assert four["best_rating"] == round(stored.best_rating) > 1500
    assert four["chart"]["count"] == 4 and not four["chart"]["empty"]
    # Four newcomers' first game in a mode: a result against unrated rivals moves nothing.
    assert eight["games"] == 1 and eight["rating"] == 1500
    assert [row.result for row in context["rankings_recent"]][:2] == ["perdida", "cancelada"]


def test_the_public_profile_page_shows_ratings_chart_and_recent_games(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    for winner in (0, 1, 0):
        game = finished_game(four, winner=winner, rate=True)
    response = client.get(reverse("accounts:profile", args=[four[0].username]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Puntuación por modalidad" in page  # the accounts page around our parts
    assert "<svg" in page and "<polyline" in page
    assert "style=" not in page and "<script>" not in page  # nothing the CSP would refuse
    assert reverse("game_detail", args=[game.pk]) in page
    assert f"?jugador={four[0].username}" in page
    points = re.search(r'points="([^"]+)"', page).group(1).split()
    assert len(points) == 4  # 1500 and the three games
    assert "Pareja más frecuente" in page and four[2].public_name in page


def test_private_games_stay_out_of_other_peoples_view_of_a_profile(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    private = finished_game(four, private=True, rate=True)
    url = reverse("accounts:profile", args=[four[0].username])
    detail = reverse("game_detail", args=[private.pk])
    assert detail not in client.get(url).content.decode()
    login(four[0], client)
    assert detail in client.get(url).content.decode()


def test_chart_coordinates_keep_a_decimal_point_on_spanish_pages(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    for winner in (0, 1, 1):
        finished_game(four, winner=winner, rate=True)
    page = client.get(reverse("accounts:profile", args=[four[0].username])).content.decode()
    svg = page[page.index("<svg") : page.index("</svg>")]
    coordinates = re.findall(r'(?:x|y|x1|x2|y1|y2|cx|cy)="([^"]+)"', svg)
    assert coordinates and all("," not in c for c in coordinates)


def test_practice_against_bots_stays_out_of_the_statistics_and_is_labelled_practice(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    me, bot_mate, bot_x, bot_y = players(4)
    User.objects.filter(pk__in=[bot_mate.pk, bot_x.pk, bot_y.pk]).update(is_bot=True)
    practice = finished_game([me, bot_x, bot_mate, bot_y], winner=0, practice=True, private=True)
    # The player's own view and everybody else's agree: no games, no wins, no bot partner.
    for viewer in (me, None):
        context = profile_context(me, viewer)
        assert context["rankings_totals"]["games"] == 0
        assert context["rankings_totals"]["wins"] == 0
        assert context["rankings_partner"] is None
    login(me, client)
    page = client.get(reverse("accounts:profile", args=[me.username])).content.decode()
    row = page[page.index(reverse("game_detail", args=[practice.pk])) :]
    row = row[: row.index("</li>")]
    assert ">práctica<" in row and "privada" not in row and "sin puntuar" not in row


def test_counts_on_the_profile_agree_in_number(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    finished_game(four, winner=0, rate=True)
    page = client.get(reverse("accounts:profile", args=[four[0].username])).content.decode()
    assert "1 partida puntuada · 1 ganada ·" in page
    assert "La última partida · mínimo" in page
    english = client.get(
        reverse("accounts:profile", args=[four[0].username]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "1 rated game · 1 won" in english and "Last 1 games" not in english


def test_the_profile_figures_agree_for_every_viewer_and_round_their_percentages(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    """A private rated game counts in the rating's line and in the totals alike, for a stranger
    as for the player (the count shows no game); 1 win in 6 is 17 %, not 16 %."""
    four = players(4)
    finished_game(four, winner=0, rate=True)
    for _ in range(5):
        finished_game(four, winner=1, private=True, rate=True)
    url = reverse("accounts:profile", args=[four[0].username])
    for viewer in (None, four[0]):
        if viewer is not None:
            login(viewer, client)
        page = client.get(url).content.decode()
        assert "6 partidas puntuadas · 1 ganada · 17 %" in page
        totals = re.sub(r"\s+", " ", page[page.index('class="rankings-totals"') :])
        assert "<dd>6</dd>" in totals and '<dd>1 <span class="muted">(17 %)</span></dd>' in totals
