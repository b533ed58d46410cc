"""Games with a player's bot account at the table go on the bots ladder of their mode, for every
seat, and never on the people's ladders (issue #36, docs/bot-api.md «Ratings»)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts import bot_accounts
from accounts.models import User
from games import services
from games.models import Abandonment, Seat, Table
from games.services import bots as site_bots
from games.services import lobby
from rankings.models import Acquaintance, PlayerRating, RatedGame, RatingBucket, RatingChange
from rankings.recompute import recompute
from tests.factories import establish, login, play_out, seat_all, start_seated, started_table

pytestmark = pytest.mark.django_db

BOTS = "b4-reyes"


def ladder(mode: str) -> dict[int, tuple[float, int, int]]:
    return {r.user_id: (r.rating, r.games, r.wins) for r in PlayerRating.objects.filter(mode=mode)}


def with_a_bot(players: Callable[[int], list[User]]) -> list[User]:
    """Three people and, at seat 1, the first one's bot account «Trasto»."""
    owner, partner, rival = players(3)
    return [owner, bot_accounts.create_bot_account(owner, "Trasto"), partner, rival]


@pytest.fixture
def played(
    rated_on_finish: None, django_capture_on_commit_callbacks: Callable[..., Any]
) -> Callable[[Table, int], Table]:
    """``played(table, seed)``: a started table played to its end, and rated as on the site
    (game_ended, once committed → the rankings.rate_game task)."""

    def play(table: Table, seed: int = 7) -> Table:
        with django_capture_on_commit_callbacks(execute=True):
            return play_out(table, seed=seed)

    return play


Play = Callable[[Table, int], Table]


def bot_game(four: list[User], played: Play, seed: int = 1) -> Table:
    """A game at a table that admits bots, played to the end and rated."""
    return played(started_table(four, seed=seed, bots_allowed=True), seed)


def test_a_game_with_a_players_bot_moves_the_bots_ladder_and_never_the_peoples(
    players: Callable[[int], list[User]], played: Play
) -> None:
    four = with_a_bot(players)
    people = [four[0], four[2], four[3]]
    establish(four, BOTS)
    establish(people)
    peoples_before = ladder("4-reyes")
    table = bot_game(four, played)
    assert (table.status, table.rated, table.unrated_reason) == (
        Table.Status.FINISHED,
        False,
        Table.UnratedReason.BOTS,
    )
    winners = {p.pk for seat, p in enumerate(four) if seat % 2 == table.winner_team}
    assert ladder(BOTS) == {p.pk: (1510, 31, 1) if p.pk in winners else (1490, 31, 0) for p in four}
    assert ladder("4-reyes") == peoples_before
    assert RatedGame.objects.get(table=table).mode == BOTS
    assert set(RatingChange.objects.filter(table=table).values_list("mode", flat=True)) == {BOTS}
    page = Client().get(f"/partidas/{table.pk}/").content.decode()
    assert "Cuenta solo para el ranking de bots." in page


def test_a_game_without_players_bots_never_touches_the_bots_ladder(
    players: Callable[[int], list[User]], played: Play
) -> None:
    four = players(4)
    played(started_table(four), 7)
    assert {games for _r, games, _w in ladder("4-reyes").values()} == {1}
    # A table that admits bots where only people sat: unrated, on no ladder.
    unrated = played(started_table(four, seed=2, bots_allowed=True), 2)
    assert (unrated.rated, unrated.unrated_reason) == (False, "")
    assert not RatedGame.objects.filter(table=unrated).exists()
    assert not PlayerRating.objects.exclude(mode="4-reyes").exists()
    assert not RatingBucket.objects.exclude(mode="4-reyes").exists()


def test_a_game_with_a_players_bot_and_the_sites_bots_is_on_no_ladder(
    players: Callable[[int], list[User]], played: Play
) -> None:
    four = with_a_bot(players)
    table = services.create_table(four[0], "4-reyes", bots_allowed=True)
    for seat in (1, 2):
        services.take_seat(four[seat], table.pk, seat, table.invite_token)
    site_bots.fill_with_bots(four[0], table.pk)
    table = played(start_seated(four[0], table), 7)
    assert (table.status, table.rated, table.unrated_reason) == (Table.Status.FINISHED, False, "")
    assert not RatedGame.objects.exists() and not PlayerRating.objects.exists()


def test_a_bot_that_abandons_a_bots_ladder_game_is_charged_there_alone(
    players: Callable[[int], list[User]],
    rated_on_finish: None,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    four = with_a_bot(players)
    establish(four, BOTS)
    table = started_table(four, bots_allowed=True)
    Seat.objects.filter(table=table, user=four[1]).update(
        connections=0, reconnect_deadline=timezone.now() - timedelta(seconds=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert services.cancel_if_abandoned(table.pk)
    assert Abandonment.objects.get(table=table).user == four[1]  # counts towards a suspension
    [change] = RatingChange.objects.filter(table=table)
    assert (change.user_id, change.mode, change.won) == (four[1].pk, BOTS, False)
    assert change.after < change.before
    assert not PlayerRating.objects.filter(mode="4-reyes").exists()


def test_the_recompute_rebuilds_the_bots_ladder_exactly(
    players: Callable[[int], list[User]], played: Play
) -> None:
    four = with_a_bot(players)
    people = players(4)
    bot_game(four, played, seed=1)
    played(started_table(people, seed=3), 3)
    bot_game(four, played, seed=2)
    stored = {
        (r.user_id, r.mode): (r.rating, r.games, r.met, r.wins) for r in PlayerRating.objects.all()
    }
    changes = set(RatingChange.objects.values_list("user_id", "table_id", "mode", "after"))
    assert {mode for _u, mode in stored} == {"4-reyes", BOTS}
    call_command("recompute_ratings", "--check")  # raises CommandError on a difference
    for model in (RatingChange, RatedGame, Acquaintance, PlayerRating, RatingBucket):
        model.objects.all().delete()
    recompute(write=True)
    assert {
        (r.user_id, r.mode): (r.rating, r.games, r.met, r.wins) for r in PlayerRating.objects.all()
    } == stored
    assert set(RatingChange.objects.values_list("user_id", "table_id", "mode", "after")) == changes
    assert recompute(write=False)[1] == []


def test_the_leaderboards_bots_page_lists_a_bot_and_the_profiles_show_it(
    players: Callable[[int], list[User]], played: Play
) -> None:
    four = with_a_bot(players)
    bot_game(four, played)
    board = Client().get("/ranking/?modo=b4-reyes").content.decode()
    assert "Trasto" in board and "Bots · 4 reyes" in board and 'id="bots-ladder-note"' in board
    people = Client().get("/ranking/?modo=4-reyes").content.decode()
    assert "Trasto" not in people and "Bots · 4 reyes" in people  # the choice, beside the modes
    bot_page = Client().get("/jugadores/Trasto/").content.decode()
    assert "Bots · 4 reyes" in bot_page and "?modo=b4-reyes" in bot_page
    owner_page = Client().get(f"/jugadores/{four[0].username}/").content.decode()
    assert "Bots · 4 reyes" in owner_page and "Mus · 4 reyes" in owner_page
    assert "ranking de bots</span>" in owner_page  # the game in their list, not «sin puntuar»
    assert "sin puntuar</span>" not in owner_page
    stranger = players(5)[4]
    stranger_page = Client().get(f"/jugadores/{stranger.username}/").content.decode()
    assert "Mus · 4 reyes" in stranger_page and "Bots · 4 reyes" not in stranger_page


def test_a_table_that_admits_bots_says_it_counts_for_the_bots_ladder_only(
    players: Callable[[int], list[User]],
) -> None:
    four = with_a_bot(players)
    table = seat_all(four, bots_allowed=True)
    client = login(four[0])
    assert "solo ranking de bots" in client.get(f"/mesas/{table.pk}/").content.decode()
    start_seated(four[0], table)
    page = client.get(f"/mesas/{table.pk}/").content.decode()
    assert "Cuenta solo para el ranking de bots." in page


def test_a_bots_ladder_table_shows_the_bots_ladder_ratings_beside_its_seats(
    players: Callable[[int], list[User]],
) -> None:
    four = with_a_bot(players)
    others = players(4)
    for person in (four[0], others[0]):
        PlayerRating.objects.create(user=person, mode="4-reyes", rating=1777, games=40)
        PlayerRating.objects.create(user=person, mode=BOTS, rating=1234, games=40)
    waiting = seat_all(four, bots_allowed=True)
    assert lobby.table_cards([waiting])[0][0]["seats"][0].rating.rating == 1234
    started = start_seated(four[0], waiting)
    assert lobby.table_cards([started])[0][0]["seats"][0].rating.rating == 1234
    page = login(four[0]).get(f"/mesas/{started.pk}/").content.decode()
    assert '"0": "1234"' in page and "1777" not in page
    friendly = seat_all(others)  # a people's table: their people's rating
    assert lobby.table_cards([friendly])[0][0]["seats"][0].rating.rating == 1777


def test_the_leaderboard_marks_a_bot_account_with_its_owners_name(
    players: Callable[[int], list[User]], played: Play
) -> None:
    four = with_a_bot(players)
    bot_game(four, played)
    board = Client().get("/ranking/?modo=b4-reyes").content.decode()
    assert 'class="badge bot-of">bot de <bdi>jug0</bdi></span>' in board
    assert board.count("bot-of") == 1  # the people beside it are not marked
