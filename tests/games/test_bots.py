"""Bots at tables: filling seats, practice games, and bots playing through a real Celery worker."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.utils.text import slugify

from accounts import bots as accounts_bots
from accounts.models import User
from games import engine, services
from games.models import Table
from games.services import bots
from tests.factories import login, seat_all, start_seated, started_table
from tests.live import celery_worker, wait_until


@pytest.mark.django_db
def test_the_bot_pool_exists_from_the_migrations() -> None:
    pool = User.objects.filter(is_bot=True)
    assert {u.display_name for u in pool} == {f"Bot {n}" for n in accounts_bots.BOT_NAMES}
    assert "bot-nerea" in {u.username for u in pool}
    assert not any(u.has_usable_password() for u in pool)


@pytest.mark.django_db
def test_players_holding_the_bots_usernames_are_never_seated_as_bots(
    make_user: Callable[..., User],
) -> None:
    """Accounts that took every bot's username before names were reserved (made here without
    the sign-up form, as they were then) and a pool to make again: practice seats bots."""
    User.objects.filter(is_bot=True).delete()
    squatters = {make_user(f"bot-{slugify(n)}").pk for n in accounts_bots.BOT_NAMES}
    player = make_user()
    table = bots.start_practice(player, "4-reyes")
    others = [s.user for s in table.seats.select_related("user") if s.user != player]
    assert len(others) == 3 and all(u.is_bot for u in others)
    assert not squatters & {u.pk for u in others}
    assert User.objects.get(username="bot-lola-2").display_name == "Bot Lola"


@pytest.mark.django_db
def test_the_host_fills_the_empty_seats_with_bots_and_the_table_stops_counting(
    make_user: Callable[..., User],
) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    services.take_seat(guest, table.pk, 2)
    login(host).post(f"/mesas/{table.pk}/bots/")
    table.refresh_from_db()
    seated = {s.seat: s.user for s in table.seats.select_related("user")}
    assert seated[0] == host and seated[2] == guest
    assert seated[1].is_bot and seated[3].is_bot
    assert seated[1] != seated[3]
    assert not table.rated


@pytest.mark.django_db
def test_only_the_host_adds_bots_and_only_before_the_start(
    make_user: Callable[..., User],
) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    services.take_seat(guest, table.pk, 1)
    response = login(guest).post(f"/mesas/{table.pk}/bots/", follow=True)
    assert "Solo el anfitrión puede añadir bots." in [str(m) for m in response.context["messages"]]
    assert table.seats.count() == 2
    players = [make_user() for _ in range(4)]
    full = seat_all(players)
    with pytest.raises(services.ServiceError) as excinfo:
        bots.fill_with_bots(players[0], full.pk)
    assert excinfo.value.code == "full"


@pytest.mark.django_db
def test_practice_starts_at_once_against_three_bots_and_is_unrated(
    make_user: Callable[..., User],
) -> None:
    player = make_user()
    response = login(player).post("/mesas/practicar/", {"mode": "8-reyes"})
    table = Table.objects.get()
    assert response["Location"] == f"/mesas/{table.pk}/"
    assert table.status == Table.Status.PLAYING and table.mode == "8-reyes"
    assert table.practice and table.private and not table.rated
    seats = {s.seat: s.user for s in table.seats.select_related("user")}
    assert seats[0] == player
    assert all(seats[i].is_bot for i in (1, 2, 3))
    assert f"/mesas/{table.pk}/" not in login(make_user()).get("/").content.decode()


@pytest.mark.django_db
def test_a_finished_practice_offers_another_practice_in_the_same_mode(
    make_user: Callable[..., User], four_players: list[User]
) -> None:
    player = make_user()
    client = login(player)
    client.post("/mesas/practicar/", {"mode": "8-reyes"})
    first = Table.objects.get()
    assert services.cancel_game(first.pk, Table.CancelReason.SYSTEM)
    page = client.get(f"/mesas/{first.pk}/").content.decode()
    # The result box (shown by the script when the game is over) holds the form, not a report
    # link: there are only bots to report.
    assert 'id="practice-again"' in page and 'name="mode" value="8-reyes"' in page
    assert 'id="report-link"' not in page
    # And the way to go over it on the game page, hand by hand.
    assert f'id="replay-link" href="/partidas/{first.pk}/"' in page
    response = client.post("/mesas/practicar/", {"mode": "8-reyes"})
    second = Table.objects.exclude(pk=first.pk).get()
    assert response["Location"] == f"/mesas/{second.pk}/"
    assert second.practice and second.mode == "8-reyes" and second.status == Table.Status.PLAYING
    # A table of people keeps its report link and offers no practice.
    table = started_table(four_players)
    page = login(four_players[0]).get(f"/mesas/{table.pk}/").content.decode()
    assert 'id="report-link"' in page and 'id="practice-again"' not in page


@pytest.mark.django_db
def test_a_game_against_bots_only_offers_neither_a_report_nor_a_rematch(
    make_user: Callable[..., User],
) -> None:
    # Not a practice: a table its host filled with bots. Only bots to report, none to ask.
    host = make_user()
    table = services.create_table(host, "4-reyes")
    bots.fill_with_bots(host, table.pk)
    start_seated(host, table)
    assert services.cancel_game(table.pk, Table.CancelReason.SYSTEM)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    client = login(host)
    page = client.get(f"/mesas/{table.pk}/").content.decode()
    assert 'id="report-link"' not in page and 'id="rematch-poll"' not in page
    assert 'id="practice-again"' in page
    box = client.get(f"/mesas/{table.pk}/revancha/", HTTP_HX_REQUEST="true")
    assert box.status_code == 204


@pytest.mark.django_db
def test_the_bots_at_a_table_all_have_different_names(make_user: Callable[..., User]) -> None:
    # Sixteen names, three bots: a repeat used to come up in about one practice in six.
    for _ in range(40):
        table = bots.start_practice(make_user(), "4-reyes")
        names = list(table.seats.values_list("user__display_name", flat=True))
        assert len(set(names)) == 4
        services.cancel_game(table.pk, Table.CancelReason.SYSTEM)
    host = make_user(display_name="Bot Lola")
    table = services.create_table(host, "4-reyes")
    bots.fill_with_bots(host, table.pk)
    names = list(table.seats.values_list("user__display_name", flat=True))
    assert sorted(set(names)) == sorted(names) and len(names) == 4


@pytest.mark.django_db
def test_no_bot_takes_the_name_of_a_player_at_the_table(make_user: Callable[..., User]) -> None:
    # «Bot Maite» beside Maite: the log «Maite: Paso» could be either.
    seated = {"Maite", "iñaki_g", "Nérea Ruiz"}
    for _ in range(5):
        chosen = {u.display_name for u in bots.bot_accounts(13, seated)}
        assert not chosen & {"Bot Maite", "Bot Iñaki", "Bot Nerea"}
    host = make_user(display_name="Maite")
    table = services.create_table(host, "4-reyes")
    bots.fill_with_bots(host, table.pk)
    names = set(table.seats.values_list("user__display_name", flat=True))
    assert "Bot Maite" not in names and len(names) == 4


@pytest.mark.django_db
def test_a_player_leaves_a_practice_and_may_start_another_at_once(
    make_user: Callable[..., User],
) -> None:
    player = make_user()
    client = login(player)
    client.post("/mesas/practicar/", {"mode": "4-reyes"})
    first = Table.objects.get()
    # While it is live the lobby offers the way out (the other forms wait until then).
    lobby = client.get("/").content.decode()
    assert f'action="/mesas/{first.pk}/dejar-practica/"' in lobby
    assert (
        f'action="/mesas/{first.pk}/dejar-practica/"'
        in client.get(first.get_absolute_url()).content.decode()
    )
    assert client.post("/mesas/practicar/", {"mode": "4-reyes"})["Location"] == "/"
    assert Table.objects.count() == 1  # refused: still seated at the first
    response = client.post(f"/mesas/{first.pk}/dejar-practica/", follow=True)
    assert "Has dejado la práctica." in response.content.decode()
    first.refresh_from_db()
    assert first.status == Table.Status.CANCELLED and first.cancel_reason == "practica"
    assert first.record is not None and not first.rated
    assert "dejar-practica" not in client.get(first.get_absolute_url()).content.decode()
    response = client.post("/mesas/practicar/", {"mode": "4-reyes"})
    second = Table.objects.exclude(pk=first.pk).get()
    assert response["Location"] == f"/mesas/{second.pk}/" and second.practice


@pytest.mark.django_db
@pytest.mark.parametrize("case", ["people", "not_mine", "over", "no_table"])
def test_it_refuses_to_end_a_game_that_is_not_your_live_practice(
    case: str, make_user: Callable[..., User], four_players: list[User]
) -> None:
    player = make_user()
    if case == "people":
        table, code, player = started_table(four_players), "not_practice", four_players[0]
    elif case == "not_mine":
        table, code = bots.start_practice(make_user(), "4-reyes"), "not_seated"
    elif case == "over":
        table, code = bots.start_practice(player, "4-reyes"), "over"
        services.cancel_game(table.pk, Table.CancelReason.SYSTEM)
    else:
        table, code = Table(pk=987654), "not_seated"
    before = list(Table.objects.order_by("pk").values_list("pk", "status", "version"))
    with pytest.raises(services.ServiceError) as excinfo:
        bots.leave_practice(player, table.pk)
    assert excinfo.value.code == code
    assert list(Table.objects.order_by("pk").values_list("pk", "status", "version")) == before
    # Through the page: the reason, back in the lobby, nothing changed.
    response = login(player).post(f"/mesas/{table.pk}/dejar-practica/", follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert str(excinfo.value.message) in response.content.decode()
    assert list(Table.objects.order_by("pk").values_list("pk", "status", "version")) == before


@pytest.mark.django_db
def test_practice_refuses_an_unknown_mode(make_user: Callable[..., User]) -> None:
    login(make_user()).post("/mesas/practicar/", {"mode": "nada"})
    assert Table.objects.count() == 0


@pytest.mark.django_db
def test_a_bot_turn_for_an_old_version_does_nothing(make_user: Callable[..., User]) -> None:
    table = bots.start_practice(make_user(), "4-reyes", random.Random(5))
    table.refresh_from_db()
    assert bots.play_bot_turn(table.pk, table.version - 1) is False
    assert Table.objects.get(pk=table.pk).version == table.version


@pytest.mark.django_db
def test_a_bot_whose_clock_runs_out_still_plays_its_own_choice(
    make_user: Callable[..., User],
) -> None:
    table = bots.start_practice(make_user(), "4-reyes", random.Random(2))
    table.refresh_from_db()
    game = services.game_of(table)
    if 0 in game.to_act():  # the human speaks first: let them say mus
        services.apply_action(table, engine.Action(0, "mus"))
        table.refresh_from_db()
    from datetime import timedelta

    from django.utils import timezone

    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert services.play_defaults(table.pk, table.version) >= 1


def play_human(table: Table, action: engine.Action) -> bool:
    """The human's move; a bot moving at the same moment wins the race, as in a browser."""
    try:
        services.apply_action(table, action)
    except services.ServiceError as exc:
        assert exc.code in ("conflict", "not_your_turn", "illegal_act"), exc.code
        return False
    return True


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bots_play_their_turns_through_a_real_worker_and_never_stall(
    make_user: Callable[..., User], settings: Any
) -> None:
    settings.MUS_BOT_DELAY_MS = 0
    player = make_user()
    rnd = random.Random(9)
    with celery_worker(MUS_BOT_DELAY_MS="0"):
        table = bots.start_practice(player, "4-reyes", random.Random(9))
        hands_seen = 1
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and hands_seen < 3:
            table.refresh_from_db()
            if table.status != Table.Status.PLAYING:
                break
            game = services.game_of(table)
            legal = engine.legal_actions(game, 0)
            if game.phase == "recuento":
                if play_human(table, engine.Action(0, "repartir")):
                    hands_seen += 1
                continue
            if legal:
                choice = rnd.choice(legal)
                action = {"act": choice["act"]}
                if choice["act"] == "envido":
                    action["to"] = choice["min"]
                if choice["act"] == "descarte":
                    action["cards"] = engine.view(game, 0)["you"]["cards"][:2]
                play_human(table, engine.Action.from_dict(action, seat=0))
                continue
            # A bot's move (any change of the table) before the next look.
            moved = Table.objects.filter(pk=table.pk).exclude(version=table.version)
            wait_until(
                moved.exists, timeout=10, every=0.05, message=f"bots stalled in {game.phase}"
            )
    table.refresh_from_db()
    assert hands_seen >= 3 or table.status == Table.Status.FINISHED
    actions = [a for hand in table.record["hands"] for a in hand["actions"]]
    assert {a["seat"] for a in actions} >= {1, 2, 3}


@pytest.mark.django_db(transaction=True)
def test_a_practice_that_fails_to_start_leaves_no_table_behind(
    make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    """All or nothing: a failure after the table is created must not leave the player seated
    at a hidden table (they could not start another practice nor sit anywhere)."""
    player = make_user()

    def broken_deal(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the deal failed")

    monkeypatch.setattr(engine, "new_game", broken_deal)
    with pytest.raises(RuntimeError):
        bots.start_practice(player, "4-reyes")
    assert not Table.objects.exists()
    assert services.live_seat_of(player) is None
    monkeypatch.undo()
    assert bots.start_practice(player, "4-reyes").status == Table.Status.PLAYING
