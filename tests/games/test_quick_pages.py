"""Quick play's pages: «Jugar ya» in the lobby, the queue page, «Cancelar», «Completar con bots»,
and the friends the lobby shows."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone, translation

from accounts import relations
from accounts.models import User
from games import services
from games.models import QueueDodge, QueuedPlayer, QueueEntry, Table
from games.services import presence, queue
from tests.factories import UserFactory, login, started_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(db: None) -> list[User]:
    return UserFactory("w").many(5)


def test_the_lobby_offers_jugar_ya_in_both_modes(people: list[User]) -> None:
    page = login(people[0]).get("/").content.decode()
    assert 'action="/jugar/"' in page
    # One click per mode; the mode a newcomer is offered first (8 reyes) leads.
    eight, four = page.index("Jugar ya · Mus · 8 reyes"), page.index("Jugar ya · Mus · 4 reyes")
    assert eight < four


def test_jugar_ya_goes_to_the_queue_page(people: list[User]) -> None:
    client = login(people[0])
    response = client.post("/jugar/", {"mode": "8-reyes"})
    assert response["Location"] == "/jugar/"
    page = client.get("/jugar/").content.decode()
    assert "Buscando partida · Mus · 8 reyes" in page
    assert "1 jugador en la cola" in page
    assert 'action="/jugar/salir/"' in page
    assert "/static/js/player/queue.js" in page


def test_the_fourth_goes_straight_to_the_table(people: list[User]) -> None:
    for p in people[:3]:
        queue.join(p, "4-reyes")
    response = login(people[3]).post("/jugar/", {"mode": "4-reyes"})
    table = Table.objects.get()
    assert response["Location"] == f"/mesas/{table.pk}/"
    # The others' queue page, opened late, sends them to the table too.
    assert login(people[0]).get("/jugar/")["Location"] == f"/mesas/{table.pk}/"


def test_the_queue_page_of_a_player_not_waiting_goes_back_to_the_lobby(people: list[User]) -> None:
    response = login(people[0]).get("/jugar/", follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert "No estás en la cola." in response.content.decode()


def test_a_refusal_is_said_in_the_lobby(people: list[User]) -> None:
    services.create_table(people[0], "4-reyes")
    response = login(people[0]).post("/jugar/", {"mode": "4-reyes"}, follow=True)
    assert "Ya estás sentado en una mesa" in response.content.decode()
    assert not QueuedPlayer.objects.exists()


def test_cancelar_leaves_the_queue(people: list[User]) -> None:
    queue.join(people[0], "4-reyes")
    response = login(people[0]).post("/jugar/salir/", follow=True)
    assert "Has salido de la cola." in response.content.decode()
    assert not QueuedPlayer.objects.exists()


def test_completar_con_bots_is_refused_too_soon_and_then_deals(people: list[User]) -> None:
    queue.join(people[0], "4-reyes")
    client = login(people[0])
    response = client.post("/jugar/bots/", follow=True)
    assert response.redirect_chain[-1][0] == "/jugar/"
    assert "Espera un poco" in response.content.decode()
    QueueEntry.objects.update(joined_at=timezone.now() - timedelta(seconds=30))
    response = client.post("/jugar/bots/")
    table = Table.objects.get()
    assert response["Location"] == f"/mesas/{table.pk}/"
    assert not table.rated


def test_the_queue_is_for_signed_in_players(client: Client) -> None:
    assert client.post("/jugar/", {"mode": "4-reyes"})["Location"].startswith("/cuentas/entrar/")
    assert client.get("/jugar/")["Location"].startswith("/cuentas/entrar/")
    assert not QueueEntry.objects.exists()


def test_a_player_suspended_from_quick_play_is_told_in_the_lobby(people: list[User]) -> None:
    QueueDodge.objects.bulk_create(QueueDodge(user=people[0]) for _ in range(2))
    page = login(people[0]).get("/").content.decode()
    assert "No te presentaste a varias partidas rápidas" in page
    assert 'action="/jugar/"' not in page


def test_the_lobby_lists_the_friends_online_where_they_sit(people: list[User]) -> None:
    me, sitting, free, offline, stranger = people
    for friend in (sitting, free, offline):
        relations.follow(me, friend)
    for p in (me, sitting, free, stranger):
        presence.touch(p.pk)
    table = services.create_table(sitting, "4-reyes")
    page = login(me).get("/", HTTP_HX_REQUEST="true").content.decode()
    assert f'data-friend="{sitting.username}"' in page
    assert f"esperando en la mesa #{table.pk}" in page
    assert f'data-friend="{free.username}"' in page
    assert f'data-friend="{offline.username}"' not in page
    assert f'data-friend="{stranger.username}"' not in page
    # Not seated: the free friend may be invited as a partner, nobody to a table.
    assert 'name="kind" value="pareja"' in page
    assert 'name="kind" value="mesa"' not in page


def test_a_friend_at_a_private_table_is_not_given_away(people: list[User]) -> None:
    me, friend = people[:2]
    relations.follow(me, friend)
    presence.touch(friend.pk)
    table = services.create_table(friend, "4-reyes", private=True)
    page = login(me).get("/", HTTP_HX_REQUEST="true").content.decode()
    assert f"/mesas/{table.pk}/" not in page
    assert "en una mesa" in page


def test_a_seated_host_may_invite_free_friends_to_the_table(people: list[User]) -> None:
    me, friend = people[:2]
    relations.follow(me, friend)
    presence.touch(friend.pk)
    services.create_table(me, "4-reyes")
    page = login(me).get("/", HTTP_HX_REQUEST="true").content.decode()
    assert 'name="kind" value="mesa"' in page
    assert 'name="kind" value="pareja"' not in page


def test_quick_play_and_friends_read_in_english(people: list[User]) -> None:
    me, friend = people[:2]
    User.objects.filter(pk=me.pk).update(language="en")
    relations.follow(me, friend)
    presence.touch(friend.pk)
    client = login(User.objects.get(pk=me.pk))
    lobby = client.get("/").content.decode()
    for text in ("Play now", "Your friends", "Play as partners:", "Notification sound: on"):
        assert text in lobby
    client.post("/jugar/", {"mode": "4-reyes"})
    page = client.get("/jugar/").content.decode()
    assert "Looking for a game · Mus · 4 kings" in page or "Looking for a game ·" in page
    assert "You have been waiting" in page and "1 player in the queue" in page
    assert "invites you to play as their partner" in page  # the notices' words, on every page


@pytest.mark.parametrize(
    ("url", "data"),
    [
        ("/jugar/", {"mode": "4-reyes"}),
        ("/jugar/salir/", {}),
        ("/jugar/bots/", {}),
        ("/invitaciones/", {"to": "w1", "kind": "pareja", "mode": "4-reyes"}),
        ("/invitaciones/{id}/aceptar/", {}),
        ("/invitaciones/{id}/rechazar/", {}),
        ("/jugadores/w1/seguir/", {}),
        ("/jugadores/w1/dejar-de-seguir/", {}),
        ("/jugadores/w1/bloquear/", {}),
        ("/jugadores/w1/desbloquear/", {}),
    ],
)
def test_every_new_form_refuses_a_post_without_the_csrf_token(
    people: list[User], url: str, data: dict[str, str]
) -> None:
    from games.models import Invitation
    from games.services import invitations

    relations.follow(people[1], people[0])
    invitation = invitations.send(people[1], people[0], "pareja", "4-reyes")
    queue.join(people[0], "8-reyes")
    client = login(people[0], enforce_csrf_checks=True)
    response = client.post(url.format(id=invitation.pk), data)
    assert response.status_code == 403
    assert Invitation.objects.get().status == Invitation.Status.PENDING
    assert QueuedPlayer.objects.filter(user=people[0]).exists()
    assert relations.follows(people[1].pk, people[0].pk)
    assert not relations.Block.objects.exists() and not relations.follows(
        people[0].pk, people[1].pk
    )


def test_the_friends_and_the_partners_names_are_isolated(people: list[User]) -> None:
    from tests.site.test_names_isolated import assert_isolated

    me, friend = people[:2]
    User.objects.filter(pk=friend.pk).update(display_name="ليلى")
    friend = User.objects.get(pk=friend.pk)
    relations.follow(me, friend)
    presence.touch(friend.pk)
    assert_isolated(login(me).get("/", HTTP_HX_REQUEST="true").content.decode(), "ليلى")
    queue.join(me, "4-reyes", partner=friend)
    assert_isolated(login(me).get("/jugar/").content.decode(), "ليلى")


def test_joining_the_queue_over_and_over_is_refused_after_the_limit(
    people: list[User], settings: Any
) -> None:
    settings.MUS_QUEUE_JOINS = 10
    queue.join(people[1], "4-reyes")  # somebody waiting meanwhile
    client = login(people[0])
    for _ in range(10):
        assert client.post("/jugar/", {"mode": "4-reyes"})["Location"] == "/jugar/"
        assert client.post("/jugar/salir/")["Location"] == "/"
    response = client.post("/jugar/", {"mode": "4-reyes"}, follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert (
        "Has entrado en la cola demasiadas veces seguidas: espera un poco antes de volver a "
        "entrar." in response.content.decode()
    )
    assert list(QueuedPlayer.objects.values_list("user_id", flat=True)) == [people[1].pk]
    assert QueueEntry.objects.count() == 1
    # In English too; and another player is not limited by this one's joins.
    with pytest.raises(services.ServiceError) as refused:
        queue.join(people[0], "4-reyes")
    assert refused.value.code == "queue_rate"
    with translation.override("en"):
        assert str(refused.value.message) == (
            "You have joined the queue too many times in a row: wait a little before joining again."
        )
    assert login(people[2]).post("/jugar/", {"mode": "4-reyes"})["Location"] == "/jugar/"
    # A pair from an accepted invitation is not counted (invitations have their own limits):
    # they make the fourth and fifth, and a table.
    assert queue.join(people[0], "4-reyes", partner=people[3]) is not None


def page_state(client: Client, table: Table) -> dict[str, Any]:
    """The `state` the table's page carries (its `table-state` script)."""
    page = client.get(f"/mesas/{table.pk}/").content.decode()
    start = page.index('<script id="table-state" type="application/json">')
    text = page[page.index(">", start) + 1 : page.index("</script>", start)]
    return json.loads(text)


def test_a_matched_player_sees_no_card_of_theirs_on_the_page_until_they_come_to_the_table(
    people: list[User],
) -> None:
    table = None
    for p in people[:4]:
        table = queue.join(p, "4-reyes")
    assert table is not None
    me = people[0]
    dealt = services.state_for(table, me)["you"]["cards"]
    assert len(dealt) == 4
    client = login(me)
    # Matched, not come yet: «Cancelar» would be a dodge, so the page shows no hand to dodge.
    you = page_state(client, table)["you"]
    assert you["cards"] == [] and you["legal"] == []
    # Their table's socket comes: from then on the page has them too (leaving now is
    # abandoning a game, not a dodge).
    services.socket_opened(table.pk, me.pk, "mesa-de-prueba")
    assert page_state(client, table)["you"]["cards"] == dealt
    services.socket_closed("mesa-de-prueba")
    assert page_state(client, table)["you"]["cards"] == dealt
    assert queue.cancel(me) is False  # no dodge any more
    # A table made by hand is not quick play's: its page always shows the hand.
    others = UserFactory("h").many(4)
    other = started_table(others)
    cards = services.state_for(other, others[0])["you"]["cards"]
    assert page_state(login(others[0]), other)["you"]["cards"] == cards
