"""Lobby, tables and seats through the public HTTP contract (docs/protocol.md)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.models import Seat, Table
from games.services.storage import compare_and_set
from tests.factories import finished_game, login, seat_all, start_seated, started_table

pytestmark = pytest.mark.django_db


def messages_of(response: object) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_a_player_creates_a_public_table_and_sits_at_it(make_user: Callable[..., User]) -> None:
    host = make_user()
    response = login(host).post("/mesas/nueva/", {"mode": "8-reyes"})
    table = Table.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/mesas/{table.pk}/"
    assert table.mode == "8-reyes" and not table.private and table.rated
    assert list(table.seats.values_list("seat", "user")) == [(0, host.pk)]


def test_the_lobby_lists_open_tables_with_their_mode_host_and_seats(
    make_user: Callable[..., User],
) -> None:
    host, guest = make_user("anfitriona"), make_user("invitado")
    table = services.create_table(host, "4-reyes")
    services.take_seat(guest, table.pk, 1)
    page = login(make_user()).get("/").content.decode()
    assert "Mus · 4 reyes" in page
    assert "anfitriona" in page and "invitado" in page
    assert page.count(f'action="/mesas/{table.pk}/sentarse/"') == 2


def test_the_lobby_fragment_is_served_to_htmx_alone(make_user: Callable[..., User]) -> None:
    services.create_table(make_user(), "8-reyes")
    response = login(make_user()).get("/", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="lobby-live"')
    assert "Mus · 8 reyes" in html
    assert "<html" not in html


def test_it_refuses_an_unknown_mode(make_user: Callable[..., User]) -> None:
    response = login(make_user()).post("/mesas/nueva/", {"mode": "9-reyes"}, follow=True)
    assert Table.objects.count() == 0
    assert "Modalidad desconocida." in messages_of(response)


def test_it_refuses_a_post_without_the_csrf_token(make_user: Callable[..., User]) -> None:
    client = login(make_user(), enforce_csrf_checks=True)
    response = client.post("/mesas/nueva/", {"mode": "4-reyes"})
    assert response.status_code == 403
    assert Table.objects.count() == 0


def test_anonymous_visitors_are_sent_to_log_in(make_user: Callable[..., User]) -> None:
    response = Client().post("/mesas/nueva/", {"mode": "4-reyes"})
    assert response.status_code == 302
    assert response["Location"].startswith("/cuentas/entrar/")


def test_it_refuses_a_taken_seat(make_user: Callable[..., User]) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    response = login(guest).post(f"/mesas/{table.pk}/sentarse/", {"seat": 0}, follow=True)
    assert "Ese asiento ya está ocupado." in messages_of(response)
    assert list(table.seats.values_list("user", flat=True)) == [host.pk]


@pytest.mark.parametrize("seat", ["4", "-1", "dos", ""])
def test_it_refuses_a_seat_that_does_not_exist(make_user: Callable[..., User], seat: str) -> None:
    table = services.create_table(make_user(), "4-reyes")
    response = login(make_user()).post(f"/mesas/{table.pk}/sentarse/", {"seat": seat}, follow=True)
    assert "Ese asiento no existe." in messages_of(response)
    assert table.seats.count() == 1


def test_it_refuses_a_full_table(make_user: Callable[..., User]) -> None:
    players = [make_user() for _ in range(4)]
    table = seat_all(players)
    response = login(make_user()).post(f"/mesas/{table.pk}/sentarse/", {"seat": 2}, follow=True)
    assert "La mesa está completa." in messages_of(response)
    assert table.seats.count() == 4


def test_a_player_sits_at_one_table_at_a_time(make_user: Callable[..., User]) -> None:
    player = make_user()
    first = services.create_table(player, "4-reyes")
    other = services.create_table(make_user(), "4-reyes")
    client = login(player)
    response = client.post(f"/mesas/{other.pk}/sentarse/", {"seat": 1}, follow=True)
    assert any("Ya estás sentado en otra mesa" in m for m in messages_of(response))
    response = client.post("/mesas/nueva/", {"mode": "4-reyes"}, follow=True)
    assert any("Ya estás sentado en otra mesa" in m for m in messages_of(response))
    assert Seat.objects.filter(user=player).count() == 1
    assert Table.objects.count() == 2
    assert first.seats.get().user == player


def test_a_player_changes_seat_and_leaves_before_the_start(make_user: Callable[..., User]) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    client = login(guest)
    client.post(f"/mesas/{table.pk}/sentarse/", {"seat": 1})
    client.post(f"/mesas/{table.pk}/sentarse/", {"seat": 3})
    assert table.seats.get(user=guest).seat == 3
    client.post(f"/mesas/{table.pk}/levantarse/")
    assert not table.seats.filter(user=guest).exists()
    # Free again to sit elsewhere.
    other = services.create_table(make_user(), "4-reyes")
    client.post(f"/mesas/{other.pk}/sentarse/", {"seat": 2})
    assert other.seats.filter(user=guest, seat=2).exists()


def test_only_the_host_starts_and_only_with_four_seated(make_user: Callable[..., User]) -> None:
    players = [make_user() for _ in range(4)]
    table = services.create_table(players[0], "4-reyes")
    response = login(players[0]).post(f"/mesas/{table.pk}/empezar/", follow=True)
    assert "Hacen falta cuatro jugadores para empezar." in messages_of(response)
    for i in (1, 2, 3):
        services.take_seat(players[i], table.pk, i)
    response = login(players[1]).post(f"/mesas/{table.pk}/empezar/", follow=True)
    assert "Solo el anfitrión puede empezar la partida." in messages_of(response)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    for i, player in enumerate(players):  # all four with the table open (docs/rules.md §8.3)
        services.socket_opened(table.pk, player.pk, f"here-{i}")
    response = login(players[0]).post(f"/mesas/{table.pk}/empezar/")
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert table.phase == "mus"
    assert table.record["first_mano"] in (0, 1, 2, 3)


def test_the_first_mano_is_drawn_by_lot(make_user: Callable[..., User]) -> None:
    manos = Counter()
    for seed in range(24):
        players = [make_user() for _ in range(4)]
        table = seat_all(players)
        start_seated(players[0], table, random.Random(seed))
        table.refresh_from_db()
        manos[table.record["first_mano"]] += 1
        services.cancel_game(table.pk, Table.CancelReason.SYSTEM)
    assert set(manos) == {0, 1, 2, 3}


def test_nobody_can_leave_or_change_seat_once_the_game_started(
    make_user: Callable[..., User],
) -> None:
    players = [make_user() for _ in range(4)]
    table = seat_all(players)
    start_seated(players[0], table)
    client = login(players[2])
    response = client.post(f"/mesas/{table.pk}/levantarse/", follow=True)
    assert any("ya ha empezado" in m for m in messages_of(response))
    response = client.post(f"/mesas/{table.pk}/sentarse/", {"seat": 2}, follow=True)
    assert table.seats.get(user=players[2]).seat == 2


def test_the_host_removes_a_seated_player_before_the_start(make_user: Callable[..., User]) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    services.take_seat(guest, table.pk, 1)
    response = login(guest).post(f"/mesas/{table.pk}/expulsar/", {"seat": 0}, follow=True)
    assert "Solo el anfitrión puede hacer eso." in messages_of(response)
    login(host).post(f"/mesas/{table.pk}/expulsar/", {"seat": 1})
    assert list(table.seats.values_list("user", flat=True)) == [host.pk]


def test_the_host_closes_the_table_and_it_leaves_the_lobby(make_user: Callable[..., User]) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    services.take_seat(guest, table.pk, 1)
    response = login(guest).post(f"/mesas/{table.pk}/cerrar/", follow=True)
    assert "Solo el anfitrión puede cerrar la mesa." in messages_of(response)
    response = login(host).post(f"/mesas/{table.pk}/cerrar/")
    assert response["Location"] == "/"
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert table.seats.count() == 0
    assert f"/mesas/{table.pk}/" not in login(guest).get("/").content.decode()


def test_a_private_table_is_not_listed_and_needs_the_invite_link(
    make_user: Callable[..., User],
) -> None:
    host, friend, stranger = make_user(), make_user(), make_user()
    login(host).post("/mesas/nueva/", {"mode": "4-reyes", "private": "on"})
    table = Table.objects.get()
    assert table.private and not table.rated
    assert len(table.invite_token) >= 20
    assert f"/mesas/{table.pk}/" not in login(stranger).get("/").content.decode()
    stranger_client = login(stranger)
    assert stranger_client.get(f"/mesas/{table.pk}/").status_code == 404
    stranger_client.post(f"/mesas/{table.pk}/sentarse/", {"seat": 1})
    assert table.seats.count() == 1
    assert stranger_client.get("/mesas/invitacion/not-the-token/").status_code == 404
    friend_client = login(friend)
    response = friend_client.get(f"/mesas/invitacion/{table.invite_token}/")
    assert response["Location"] == f"/mesas/{table.pk}/"
    assert friend_client.get(f"/mesas/{table.pk}/").status_code == 200
    friend_client.post(f"/mesas/{table.pk}/sentarse/", {"seat": 1})
    assert table.seats.filter(user=friend, seat=1).exists()


def test_the_host_of_a_private_table_sees_the_invite_link(make_user: Callable[..., User]) -> None:
    host = make_user()
    client = login(host)
    client.post("/mesas/nueva/", {"mode": "4-reyes", "private": "on", "rated": "on"})
    table = Table.objects.get()
    assert table.rated
    page = client.get(f"/mesas/{table.pk}/").content.decode()
    assert f"/mesas/invitacion/{table.invite_token}/" in page


def test_the_waiting_table_fragment_refreshes_once_the_game_starts(
    make_user: Callable[..., User],
) -> None:
    players = [make_user() for _ in range(4)]
    table = seat_all(players)
    client = login(players[1])
    fragment = client.get(f"/mesas/{table.pk}/espera/", headers={"HX-Request": "true"})
    assert fragment.content.decode().lstrip().startswith('<div id="waiting"')
    start_seated(players[0], table)
    response = client.get(f"/mesas/{table.pk}/espera/", headers={"HX-Request": "true"})
    assert response["HX-Refresh"] == "true"


def test_a_stale_lobby_change_loses_the_compare_and_set(make_user: Callable[..., User]) -> None:
    host = make_user()
    table = services.create_table(host, "4-reyes")
    stale = Table.objects.get(pk=table.pk)
    services.take_seat(make_user(), table.pk, 1)
    with pytest.raises(services.Conflict) as excinfo:
        compare_and_set(stale, private=True)
    assert excinfo.value.code == "conflict"


def test_the_lobby_shows_each_seated_players_rating_in_the_tables_mode(
    make_user: Callable[..., User], django_assert_max_num_queries: Callable[..., object]
) -> None:
    from games.services import bots
    from rankings.models import PlayerRating

    veteran, newcomer, host = make_user("veterana"), make_user("novata"), make_user("anfitrion")
    PlayerRating.objects.create(user=veteran, mode="8-reyes", rating=1634.4, games=45)
    PlayerRating.objects.create(user=veteran, mode="4-reyes", rating=1402.0, games=3)
    table = services.create_table(veteran, "8-reyes")
    services.take_seat(newcomer, table.pk, 1)
    with_bots = services.create_table(host, "4-reyes")
    bots.fill_with_bots(host, with_bots.pk)
    client = login(make_user())
    page = client.get("/").content.decode()
    card = page[page.index(f'data-table="{table.pk}"') :]
    card = card[: card.index("</li>")]
    # The 8-reyes rating, established (no «?»); a newcomer starts at 1500, provisional.
    assert ">1634<" in card and "1402" not in card
    assert ">1500?<" in card
    assert "«?» tras una puntuación: es provisional" in page  # said once, not on every seat
    bot_card = page[page.index(f'data-table="{with_bots.pk}"') :]
    bot_card = bot_card[: bot_card.index("</li>")]
    assert bot_card.count("seat-rating") == 1  # the host only: bots have no rating
    # One query for all the ratings, however many tables: the lobby is polled every 2 s.
    for _ in range(5):
        extra = services.create_table(make_user(), "4-reyes")
        services.take_seat(make_user(), extra.pk, 2)
    with django_assert_max_num_queries(10):  # 10 today, with seven tables and the friends online
        client.get("/", HTTP_HX_REQUEST="true")


def test_the_table_page_gives_each_persons_rating_for_the_names_on_the_felt(
    make_user: Callable[..., User],
) -> None:
    from games.services import bots
    from rankings.models import PlayerRating

    host, guest = make_user("ramona"), make_user("sergio")
    PlayerRating.objects.create(user=host, mode="4-reyes", rating=1587.6, games=31)
    table = services.create_table(host, "4-reyes")
    services.take_seat(guest, table.pk, 2)
    bots.fill_with_bots(host, table.pk)
    start_seated(host, table)
    response = login(guest).get(f"/mesas/{table.pk}/")
    # Seats 1 and 3 are bots: no rating. JSON keys are strings.
    assert response.context["seat_ratings"] == {0: "1588", 2: "1500?"}
    assert '<script id="seat-ratings" type="application/json">{"0": "1588", "2": "1500?"}' in (
        response.content.decode()
    )


def test_a_host_who_leaves_a_table_of_bots_closes_it(make_user: Callable[..., User]) -> None:
    """Handed to a bot, nobody could start or close the table: it stayed in the lobby forever."""
    from games.services import bots

    host = make_user()
    table = services.create_table(host, "4-reyes")
    bots.fill_with_bots(host, table.pk)
    services.leave_seat(host, table.pk)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert not table.seats.exists()
    assert f'data-table="{table.pk}"' not in login(make_user()).get("/").content.decode()


def test_a_host_who_leaves_hands_the_table_to_a_person_not_a_bot(
    make_user: Callable[..., User],
) -> None:
    from games.services import bots

    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    bots.fill_with_bots(host, table.pk)  # seats 1-3 go to bots first
    services.kick(host, table.pk, 2)
    services.take_seat(guest, table.pk, 2)
    services.leave_seat(host, table.pk)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    assert table.host_id == guest.pk


def checked_modes(page: str) -> list[str]:
    import re

    return re.findall(r'name="mode" value="([^"]+)" checked', page)


def test_new_tables_and_practice_offer_the_mode_the_player_played_last(
    make_user: Callable[..., User],
) -> None:
    player = make_user("lucia")
    client = login(player)
    # A newcomer is offered 8 reyes, the usual mode online, to create and to practise.
    assert checked_modes(client.get("/").content.decode()) == ["8-reyes", "8-reyes"]
    client.post("/mesas/nueva/", {"mode": "4-reyes"})
    assert checked_modes(client.get("/").content.decode()) == []  # seated: no forms
    client.post(f"/mesas/{Table.objects.get().pk}/levantarse/")
    assert checked_modes(client.get("/").content.decode()) == ["4-reyes", "4-reyes"]
    # Elsewhere (a new session): the mode of the last game they played.
    four = [make_user(name) for name in ("marta", "nora", "olga", "pia")]
    finished_game(four, "4-reyes")
    assert checked_modes(login(four[0]).get("/").content.decode()) == ["4-reyes", "4-reyes"]


def test_only_a_private_table_asks_whether_it_counts_for_the_ranking(
    make_user: Callable[..., User],
) -> None:
    page = login(make_user()).get("/").content.decode()
    # The box is there for a private table (shown by the styles when «Privada» is ticked).
    assert 'class="choice private-only"><input type="checkbox" name="rated"' in page
    assert 'class="form-help public-only"' in page


def _card_html(page: str, table: Table) -> str:
    start = page.index(f'<li class="table-card panel" data-table="{table.pk}"')
    return page[start : page.index("</li>", start)]


def test_a_card_shows_the_pairs_together_the_onlookers_and_no_host_for_quick_play(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = started_table(four_players)
    Table.objects.filter(pk=table.pk).update(quick=True)
    watcher, other = make_user("mirona"), make_user("miron")
    services.socket_opened(table.pk, watcher.pk, "w1")
    services.socket_opened(table.pk, watcher.pk, "w2")  # two tabs: one person
    services.socket_opened(table.pk, other.pk, "w3")
    services.socket_opened(table.pk, four_players[0].pk, "p0")  # a player is no onlooker
    card = _card_html(Client().get("/").content.decode(), table)
    # Pair A (seats 0 and 2) then pair B (1 and 3), each seat's name in its place.
    assert re.findall(r'data-seat="(\d)"', card) == ["0", "2", "1", "3"]
    assert card.index(four_players[2].public_name) < card.index(four_players[1].public_name)
    assert "Anfitrión" not in card  # quick play seated them: nobody hosted it
    assert "2 mirando" in card
    hosted = services.create_table(make_user("anfitrion"), "4-reyes")
    card = _card_html(Client().get("/").content.decode(), hosted)
    assert "Anfitrión" in card and "mirando" not in card
    assert re.findall(r'name="seat" value="(\d)"', card) == ["2", "1", "3"]
