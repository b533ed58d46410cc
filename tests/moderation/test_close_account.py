"""«Cerrar mi cuenta» (issue #35.1): from the settings with the password, or by staff at the
player's request; what the account leaves, what is erased, what stays, and the refusals."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.test import Client

from accounts.models import Block, Follow, NameClaim, PendingEmail, User
from games import services, socket_codes
from games.models import ChatMessage, Invitation, QueuedPlayer, Table
from moderation import closing
from moderation.actions import ModerationError
from moderation.models import ModerationAction
from musweb.asgi import application
from rankings.models import PlayerRating, RatingChange
from tests.factories import (
    PASSWORD,
    finished_game,
    login,
    seat_all,
    session_cookie,
    started_table,
)
from tests.sockets import join, receive
from tests.tournaments.support import make_tournament
from tournaments import services as tournaments
from tournaments.models import Pair, Tournament

CLOSE = "/cuentas/cerrar/"


def close_by_form(client: Client, password: str = PASSWORD) -> Any:
    return client.post(CLOSE, {"password": password})


@pytest.mark.django_db
def test_the_settings_page_links_to_closing_the_account_and_downloading_the_data(
    client: Client, make_user: Callable[..., User]
) -> None:
    login(make_user("pilar"), client)
    page = client.get("/cuentas/ajustes/").content.decode()
    assert 'href="/cuentas/cerrar/"' in page and "Cerrar mi cuenta" in page
    assert 'href="/cuentas/mis-datos/"' in page and "Descargar mis datos" in page
    explained = client.get(CLOSE).content.decode()
    assert "No se puede deshacer" in explained and "Jugador retirado" in explained


@pytest.mark.django_db
def test_closing_needs_the_password_and_a_wrong_one_changes_nothing(
    client: Client, make_user: Callable[..., User]
) -> None:
    pilar = make_user("pilar", email="pilar@example.com")
    login(pilar, client)
    for password in ("", "otra-cosa"):
        page = close_by_form(client, password)
        assert page.status_code == 200
        assert "contraseña" in page.content.decode()
    pilar.refresh_from_db()
    assert pilar.is_active and pilar.closed_at is None and pilar.email == "pilar@example.com"
    assert not ModerationAction.objects.exists()


@pytest.mark.django_db
def test_a_closed_account_is_erased_signs_in_no_more_and_its_name_stays_claimed(
    client: Client, make_user: Callable[..., User]
) -> None:
    pilar = make_user("pilar", email="pilar@example.com", display_name="Pili", first_name="P")
    PendingEmail.objects.create(user=pilar, email="nueva@example.com")
    other = make_user("otro")
    Follow.objects.create(follower=pilar, followed=other)
    Follow.objects.create(follower=other, followed=pilar)
    Block.objects.create(blocker=pilar, blocked=make_user("pesado"))
    login(pilar, client)
    session_cookie(pilar)  # a second session, on another device
    done = close_by_form(client)
    assert done.status_code == 302 and done["Location"] == "/"
    assert "Tu cuenta está cerrada" in client.get("/").content.decode()

    pilar.refresh_from_db()
    assert pilar.closed_at is not None and not pilar.is_active
    assert pilar.username == f"~retirado-{pilar.pk}"
    assert (pilar.email, pilar.display_name, pilar.first_name) == ("", "", "")
    assert not pilar.has_usable_password()
    assert pilar.public_name == "Jugador retirado"
    assert not Follow.objects.exists() and not Block.objects.exists()
    assert not PendingEmail.objects.exists()
    owners = {s.get_decoded().get("_auth_user_id") for s in Session.objects.all()}
    assert str(pilar.pk) not in owners

    entry = ModerationAction.objects.get(kind=ModerationAction.Kind.CLOSE_ACCOUNT)
    assert entry.moderator is None and entry.target == pilar and entry.target_name == "pilar"
    assert entry.details["by_player"] is True and entry.details["sessions_ended"] == 2

    # Signing in is refused, by the old name and by the tombstone.
    for username in ("pilar", pilar.username):
        refused = Client().post("/cuentas/entrar/", {"username": username, "password": PASSWORD})
        assert refused.status_code == 200 and "_auth_user_id" not in refused.client.session
    # Nobody may sign up as «pilar» or «Pili», or anything that looks like them.
    for name in ("pilar", "PILAR", "pi1ar", "Pili"):
        taken = Client().post(
            "/cuentas/registro/",
            {
                "username": name,
                "password1": "Otra-clave-larga-9",
                "password2": "Otra-clave-larga-9",
            },
        )
        assert taken.status_code == 200, name
        assert not User.objects.filter(username=name).exists()
    assert NameClaim.holder("pilar") == pilar
    # The profile says who left and shows nothing of theirs; nobody follows a closed account.
    profile = Client().get(f"/jugadores/{pilar.username}/")
    assert profile.status_code == 410 and "Jugador retirado" in profile.content.decode()
    assert Client().get("/jugadores/pilar/").status_code == 404
    follower = login(other)
    assert follower.post(f"/jugadores/{pilar.username}/seguir/").status_code == 404


@pytest.mark.django_db
def test_closing_mid_queue_leaves_the_queue_and_the_partner_is_told(
    client: Client, make_user: Callable[..., User]
) -> None:
    pilar, pareja = make_user("pilar"), make_user("pareja")
    services.queue.join(pilar, "4-reyes", partner=pareja)
    assert QueuedPlayer.objects.count() == 2
    login(pilar, client)
    assert close_by_form(client).status_code == 302
    assert not QueuedPlayer.objects.exists()


@pytest.mark.django_db
def test_closing_cancels_the_pending_invitations_both_ways(
    client: Client, make_user: Callable[..., User]
) -> None:
    pilar, ana, luis = make_user("pilar"), make_user("ana"), make_user("luis")
    Follow.objects.create(follower=pilar, followed=ana)
    Follow.objects.create(follower=luis, followed=pilar)
    sent = services.invitations.send(pilar, ana, Invitation.Kind.PAIR, "4-reyes")
    received = services.invitations.send(luis, pilar, Invitation.Kind.PAIR, "4-reyes")
    login(pilar, client)
    assert close_by_form(client).status_code == 302
    statuses = set(
        Invitation.objects.filter(pk__in=[sent.pk, received.pk]).values_list("status", flat=True)
    )
    assert statuses == {Invitation.Status.CANCELLED}
    entry = ModerationAction.objects.get(kind=ModerationAction.Kind.CLOSE_ACCOUNT)
    assert entry.details["invitations_cancelled"] == 2


@pytest.mark.django_db
def test_closing_withdraws_from_a_tournament_not_started_and_its_invitations(
    client: Client, make_user: Callable[..., User]
) -> None:
    tournament = make_tournament()
    other = make_tournament(
        name="Otro torneo",
        starts_at=tournament.starts_at + timedelta(days=2),
        registration_deadline=tournament.starts_at + timedelta(days=2),
    )
    pilar, ana, luis = make_user("pilar"), make_user("ana"), make_user("luis")
    tournaments.invite(pilar, tournament.pk, "ana")
    registered = tournaments.accept(ana, tournament.pk)
    invitation = tournaments.invite(luis, other.pk, "pilar")
    login(pilar, client)
    assert close_by_form(client).status_code == 302
    registered.refresh_from_db()
    invitation.refresh_from_db()
    assert registered.status == Pair.Status.WITHDRAWN
    assert invitation.status == Pair.Status.WITHDRAWN
    # Her partner is free to register with somebody else.
    assert tournaments.invite(ana, tournament.pk, "luis").status == Pair.Status.INVITED


@pytest.mark.django_db
def test_closing_at_an_open_table_stands_up_or_closes_the_hosts_table(
    four_players: list[User],
) -> None:
    table = seat_all(four_players)
    closing.close_account(four_players[2])
    assert sorted(table.seats.values_list("seat", flat=True)) == [0, 1, 3]
    closing.close_account(four_players[0])  # the host
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


@pytest.mark.django_db
def test_closing_during_a_game_is_refused_with_the_reason_and_allowed_once_it_ends(
    client: Client, four_players: list[User]
) -> None:
    table = started_table(four_players)
    pilar = four_players[1]
    login(pilar, client)
    page = client.get(CLOSE).content.decode()
    assert "Estás jugando una partida" in page
    refused = close_by_form(client)
    assert refused.status_code == 409
    assert "Estás jugando una partida" in refused.content.decode()
    pilar.refresh_from_db()
    assert pilar.is_active and pilar.closed_at is None
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING  # nobody's game is touched
    with pytest.raises(ModerationError):
        closing.close_account(pilar)
    services.cancel_game(table.pk, Table.CancelReason.MODERATOR)
    assert close_by_form(client).status_code == 302


@pytest.mark.django_db
def test_closing_during_a_tournament_under_way_is_refused_so_the_partner_keeps_playing(
    client: Client, make_user: Callable[..., User]
) -> None:
    pilar, ana = make_user("pilar"), make_user("ana")
    tournament = make_tournament(status=Tournament.Status.RUNNING, name="Copa de invierno")
    Pair.objects.create(tournament=tournament, first=ana, second=pilar, status=Pair.Status.PLAYING)
    login(pilar, client)
    refused = close_by_form(client)
    assert refused.status_code == 409
    assert "Juegas el torneo «Copa de invierno»" in refused.content.decode()
    pilar.refresh_from_db()
    assert pilar.is_active and pilar.closed_at is None
    Pair.objects.update(status=Pair.Status.ELIMINATED)
    assert close_by_form(client).status_code == 302


@pytest.mark.django_db
def test_staff_close_an_account_on_request_from_the_admin_into_the_audit_log(
    admin_client: Client, moderator: User, make_user: Callable[..., User]
) -> None:
    pilar = make_user("pilar", email="pilar@example.com")
    url = f"/admin/accounts/user/{pilar.pk}/moderar/cerrar-cuenta/"
    assert "Petición del jugador" in admin_client.get(url).content.decode()
    done = admin_client.post(url, {"confirmar": "1", "reason": "Correo del 5 de diciembre"})
    assert done.status_code == 302
    pilar.refresh_from_db()
    assert pilar.closed_at is not None and pilar.email == ""
    entry = ModerationAction.objects.get(kind=ModerationAction.Kind.CLOSE_ACCOUNT)
    assert (entry.moderator, entry.target_name) == (moderator, "pilar")
    assert entry.reason == "Correo del 5 de diciembre" and entry.details["by_player"] is False


@pytest.mark.django_db
def test_a_closed_player_is_jugador_retirado_in_the_others_history_and_game_page_and_the_ladder_agrees(
    four_players: list[User], client: Client
) -> None:
    table = finished_game(four_players, winner=0, rate=True)
    ChatMessage.objects.create(table=table, user=four_players[1], seat=1, text="¡Buena mano!")
    before = {
        (r.user_id, r.mode): (r.rating, r.games, r.wins)
        for r in PlayerRating.objects.filter(user__in=four_players)
    }
    changes = list(RatingChange.objects.order_by("pk").values_list("user_id", "before", "after"))
    call_command("recompute_ratings", "--check")

    closing.close_account(four_players[1])

    after = {
        (r.user_id, r.mode): (r.rating, r.games, r.wins)
        for r in PlayerRating.objects.filter(user__in=four_players)
    }
    assert after == before
    assert (
        list(RatingChange.objects.order_by("pk").values_list("user_id", "before", "after"))
        == changes
    )
    call_command("recompute_ratings", "--check")

    login(four_players[0], client)
    for url in (f"/jugadores/{four_players[0].username}/", f"/partidas/{table.pk}/"):
        page = _shown(client.get(url).content.decode())
        assert "Jugador retirado" in page, url
        assert four_players[1].username not in page.replace(four_players[0].username, "")
    # The ladder keeps the place, under the new name.
    board = _shown(client.get("/ranking/", {"modo": table.mode}).content.decode())
    assert "Jugador retirado" in board and four_players[1].username not in board
    # In English too.
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert "Retired player" in client.get(f"/partidas/{table.pk}/").content.decode()


def _shown(page: str) -> str:
    """`page` without its CSRF token: 64 random letters and digits hold a short name like «p1»
    once in a few dozen pages."""
    return re.sub(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]*"', r"\1", page)


# --------------------------------------------------------------------------------------------
# With real sockets.
# --------------------------------------------------------------------------------------------
async def close_code(comm: WebsocketCommunicator) -> int:
    while True:
        output = await comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output.get("code")


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_closing_an_account_closes_its_sockets_at_a_table_and_on_every_page(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(seat_all)(four_players)
    pilar = four_players[3]
    host = await join(table, four_players[0])
    at_table = await join(table, pilar)
    cookie = await database_sync_to_async(session_cookie)(pilar)
    page = WebsocketCommunicator(
        application,
        "/ws/jugador/",
        headers=[
            (b"host", b"localhost"),
            (b"origin", b"http://localhost"),
            (b"cookie", cookie.encode()),
        ],
    )
    connected, _ = await page.connect()
    assert connected
    await database_sync_to_async(closing.close_account)(pilar)
    # As after a log-out (4401), not a ban (4403): nothing was done to the player.
    assert await close_code(at_table) == socket_codes.CLOSE_NOT_LOGGED_IN
    assert await close_code(page) == socket_codes.CLOSE_NOT_LOGGED_IN
    # The other players' sockets at the table stay open.
    await host.send_to(text_data='{"type": "ping"}')
    while (await receive(host))["type"] != "pong":
        pass
    await host.disconnect()
