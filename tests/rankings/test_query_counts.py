"""Every page makes the same number of SQL queries whatever the amount of data."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.models import Table
from tests.factories import finished_game, login

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

# Queries per page for an anonymous visitor. A signed-in one adds the session and the user (2);
# the history without ?jugador= is then their own (3 more: it is a player's history). Every list
# of games adds one: which of them are tournament games (games.hooks.table_tags).
EXPECTED = {
    # Without ?modo=, a visitor's ranking opens on the mode whose ladder has most players: + 1.
    "leaderboard": 2,  # the page of ratings with their players
    "leaderboard_fragment": 1,
    "leaderboard_search": 3,  # + the ladder places of the players found
    "profile": 9,  # accounts' user + ratings, chart, totals with partner, latest games (+ tags)
    # + the table the player sits at now and their abandonments (games' status lines)
    # + the tournaments they won (tournaments' section)
    "history": 3,  # the player + their games (with seats, names and rating changes) + tags
    "history_fragment": 3,
    "history_everybody": 2,  # the games with their seats + tags
    "game": 3,  # the table, its seats, its rating changes
}
# The ranking without ?modo= opens on the mode a signed-in player plays most: one more.
SIGNED_IN = {name: count + 2 for name, count in EXPECTED.items()} | {
    "history_everybody": 4,
    "leaderboard": 4,
    "leaderboard_search": 5,
}


def season(pool: list[User], games: int, seed: int) -> Table:
    """``games`` games of pool[0] with three others: both modes, a few cancelled and private."""
    rng = random.Random(seed)
    last = None
    for i in range(games):
        four = [pool[0], *rng.sample(pool[1:], 3)]
        mode = ("4-reyes", "8-reyes")[i % 2]
        if i % 10 == 9:
            last = finished_game(four, mode, status=Table.Status.CANCELLED)
        else:
            last = finished_game(four, mode, winner=rng.randrange(2), private=i % 7 == 6, rate=True)
    assert last is not None
    return last


def requests(player: User, game: Table) -> dict[str, tuple[str, dict[str, Any], dict[str, str]]]:
    board = reverse("rankings:leaderboard")
    history = reverse("game_history")
    return {
        "leaderboard": (board, {}, {}),
        "leaderboard_fragment": (board, {"modo": "8-reyes", "pagina": "2"}, HTMX),
        "leaderboard_search": (board, {"q": player.username[:3]}, HTMX),
        "profile": (reverse("accounts:profile", args=[player.username]), {}, {}),
        "history": (history, {"jugador": player.username}, {}),
        "history_fragment": (
            history,
            {"jugador": player.username, "modo": "4-reyes", "resultado": "ganadas"},
            HTMX,
        ),
        "history_everybody": (history, {"modo": "4-reyes"}, {}),
        "game": (reverse("game_detail", args=[game.pk]), {"mano": "1", "paso": "2"}, {}),
    }


@pytest.mark.parametrize("size", [(5, 6), (30, 90)], ids=["small", "larger"])
def test_each_page_makes_a_fixed_number_of_queries(
    client: Client,
    players: Callable[[int], list[User]],
    django_assert_num_queries: Callable[..., Any],
    size: tuple[int, int],
) -> None:
    pool = players(size[0])
    game = season(pool, size[1], seed=size[0])
    Table.objects.filter(pk=game.pk).update(private=False)
    for name, (url, params, headers) in requests(pool[0], game).items():
        with django_assert_num_queries(EXPECTED[name]):
            response = client.get(url, params, **headers)
        assert response.status_code == 200, name


def test_a_signed_in_visitor_adds_only_the_session_and_user_queries(
    client: Client,
    players: Callable[[int], list[User]],
    django_assert_num_queries: Callable[..., Any],
) -> None:
    pool = players(6)
    game = season(pool, 10, seed=3)
    Table.objects.filter(pk=game.pk).update(private=False)
    login(pool[1], client)
    for name, (url, params, headers) in requests(pool[0], game).items():
        with django_assert_num_queries(SIGNED_IN[name]):
            client.get(url, params, **headers)
