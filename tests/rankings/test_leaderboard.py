"""/ranking/: one ladder per mode, paginated and searchable with HTMX."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from rankings import queries, services
from rankings.models import PlayerRating
from tests.factories import establish, finished_game, login

pytestmark = pytest.mark.django_db

URL = reverse("rankings:leaderboard")
HTMX = {"HTTP_HX_REQUEST": "true"}


def ladder_of(users: list[User], mode: str = "4-reyes", games: int = 40) -> list[PlayerRating]:
    """Ratings 2000, 1990, … for ``users`` in order."""
    rows = [
        PlayerRating.objects.create(
            user=u,
            mode=mode,
            rating=2000 - 10 * i,
            games=games,
            wins=games // 2,
            best_rating=2000 - 10 * i,
            last_played_at=timezone.now(),
            **PlayerRating.player_fields(u.username, u.display_name),
        )
        for i, u in enumerate(users)
    ]
    services.rebuild_buckets()
    return rows


def test_the_leaderboard_lists_rated_players_best_first(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    establish(four)
    finished_game(four, winner=0, rate=True)
    response = client.get(URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Ranking" in page and "<html" in page
    rows = response.context["page"].rows
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert {r.user_id for r in rows[:2]} == {four[0].pk, four[2].pk}
    assert "1510" in page and "1490" in page
    assert "3 %" in page and "0 %" in page  # 1 win in 31 games, none in 31


def test_provisional_ratings_are_marked_and_can_be_left_out(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    a, b = players(2)
    PlayerRating.objects.create(user=a, mode="4-reyes", rating=1600, games=5, wins=3)
    PlayerRating.objects.create(user=b, mode="4-reyes", rating=1550, games=31, wins=20)
    page = client.get(URL).content.decode()
    assert "1600<abbr" in page  # the «?» of a provisional rating
    assert "1550<abbr" not in page
    established = client.get(URL, {"definitivos": "1"})
    assert [r.user_id for r in established.context["page"].rows] == [b.pk]


def test_each_mode_has_its_own_ladder(client: Client, players: Callable[[int], list[User]]) -> None:
    a, b = players(2)
    ladder_of([a], "4-reyes")
    ladder_of([b], "8-reyes")
    assert [r.user_id for r in client.get(URL).context["page"].rows] == [a.pk]
    eight = client.get(URL, {"modo": "8-reyes"})
    assert [r.user_id for r in eight.context["page"].rows] == [b.pk]
    assert client.get(URL, {"modo": "nada"}).context["mode"] == "4-reyes"


def test_banned_players_are_hidden_until_their_ban_ends(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    a, b, c = players(3)
    ladder_of([a, b, c])
    b.banned_at = timezone.now()
    b.save()
    c.banned_at = timezone.now() - timedelta(days=3)
    c.banned_until = timezone.now() - timedelta(days=1)  # served
    c.save()
    rows = client.get(URL).context["page"].rows
    assert [r.user_id for r in rows] == [a.pk, c.pk]
    assert [r.rank for r in rows] == [1, 2]


def test_pages_follow_each_other_and_the_fragment_swaps_in(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    users = players(queries.LEADERBOARD_PAGE + 3)
    ladder_of(users)
    first = client.get(URL)
    assert len(first.context["page"].rows) == queries.LEADERBOARD_PAGE
    assert first.context["next_url"] == "?modo=4-reyes&pagina=2"
    second = client.get(URL, {"pagina": "2"}, **HTMX)
    body = second.content.decode()
    assert "<html" not in body and "<table" in body
    assert [r.rank for r in second.context["page"].rows] == [26, 27, 28]
    assert second.context["previous_url"] == "?modo=4-reyes&pagina=1"
    assert second.context["next_url"] is None
    assert second["Vary"] and "HX-Request" in second["Vary"]
    assert client.get(URL, {"pagina": "x"}).context["page"].number == 1


def test_search_finds_players_by_name_and_keeps_their_ladder_place(
    client: Client, players: Callable[[int], list[User]], make_user: Callable[..., User]
) -> None:
    others = players(5)
    pepa = make_user("pepa", display_name="La Pepa")
    ladder_of([*others[:3], pepa, *others[3:]])
    response = client.get(URL, {"q": "pep"}, **HTMX)
    rows = response.context["page"].rows
    assert [(r.user_id, r.rank) for r in rows] == [(pepa.pk, 4)]
    assert "La Pepa" in response.content.decode()
    by_display = client.get(URL, {"q": "la p"})
    assert [r.user_id for r in by_display.context["page"].rows] == [pepa.pk]
    nobody = client.get(URL, {"q": "zzz"}, **HTMX).content.decode()
    assert "zzz" in nobody and "<table" not in nobody


def test_a_history_restore_gets_the_whole_page(client: Client) -> None:
    response = client.get(URL, HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert "<html" in response.content.decode()


def test_the_leaderboard_speaks_english_too(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    ladder_of(players(1))
    response = client.get(URL, HTTP_ACCEPT_LANGUAGE="en")
    page = response.content.decode()
    assert "Rank" in page and "Last played" in page and "Established ratings only" in page
    assert "Puesto" not in page


def test_search_follows_a_player_who_changes_their_name(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    establish(four)
    finished_game(four, rate=True)
    four[2].display_name = "Txomin"
    four[2].save()
    rows = client.get(URL, {"q": "TXO"}).context["page"].rows
    assert [r.user_id for r in rows] == [four[2].pk]
    assert rows[0].rank == 2  # the two winners share 1510: the older row first


@pytest.mark.parametrize("established", [False, True], ids=["everybody", "established"])
def test_a_searched_players_place_is_their_place_on_the_whole_ladder(
    client: Client, players: Callable[[int], list[User]], established: bool
) -> None:
    import random

    rng = random.Random(4)
    users = players(40)
    for i, user in enumerate(users):
        # Ties on purpose (same rating in one bucket), provisional and established players.
        PlayerRating.objects.create(
            user=user,
            mode="4-reyes",
            rating=rng.choice([1499.5, 1500.25, 1500.75, 1612.0]) + rng.randrange(3) * 7,
            games=rng.choice([3, 30, 45]),
            wins=1,
            **PlayerRating.player_fields(user.username, ""),
        )
        if i % 9 == 4:
            user.banned_at = timezone.now()
            user.save()
    services.rebuild_buckets()
    params = {"definitivos": "1"} if established else {}
    whole = client.get(URL, {**params, "pagina": 1}).context["page"]
    places = {row.user_id: row.rank for row in whole.rows}
    second = client.get(URL, {**params, "pagina": 2}).context["page"]
    places |= {row.user_id: row.rank for row in second.rows}
    assert sorted(places.values()) == list(range(1, len(places) + 1))
    for user in users[::3]:
        found = client.get(URL, {**params, "q": user.username}).context["page"].rows
        assert {row.user_id: row.rank for row in found if row.user_id == user.pk} == (
            {user.pk: places[user.pk]} if user.pk in places else {}
        )


def test_the_ranking_opens_on_the_mode_the_player_plays_most(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    finished_game(four, "8-reyes", rate=True)
    finished_game(four, "8-reyes", rate=True)
    finished_game(four, "4-reyes", rate=True)
    assert client.get("/ranking/").context["mode"] == "4-reyes"  # a visitor: the first mode
    login(four[0], client)
    assert client.get("/ranking/").context["mode"] == "8-reyes"
    assert client.get("/ranking/", {"modo": "4-reyes"}).context["mode"] == "4-reyes"


def test_a_visitor_opens_the_ranking_on_the_mode_that_has_players(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    """4 reyes comes first in the list, but an empty ladder is no welcome when 8 reyes has
    players: a visitor, or a player with no rated game, opens on the mode with most players."""
    four = players(4)
    finished_game(four, "8-reyes", rate=True)
    assert client.get("/ranking/").context["mode"] == "8-reyes"
    newcomer = players(1)[0]
    login(newcomer, client)
    assert client.get("/ranking/").context["mode"] == "8-reyes"
    assert client.get("/ranking/", {"modo": "4-reyes"}).context["mode"] == "4-reyes"
