"""Inviting a friend to your table or to be your partner in quick play (games.services.invitations
and the /invitaciones/ forms): who may invite whom, and what accepting does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts import relations
from accounts.models import User
from accounts.names import isolate
from games import services
from games.models import Invitation, QueuedPlayer, Seat, Table
from games.services import invitations, queue
from games.services.errors import ServiceError
from tests.factories import UserFactory, login

pytestmark = pytest.mark.django_db
MODE = "8-reyes"


@pytest.fixture
def people(db: None) -> list[User]:
    return UserFactory("i").many(6)


@pytest.fixture
def friends(people: list[User]) -> tuple[User, User]:
    """i0 follows i1."""
    relations.follow(people[0], people[1])
    return people[0], people[1]


def refused(code: str, call: Any, *args: Any) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        call(*args)
    assert exc.value.code == code
    return exc.value


# --------------------------------------------------------------------------------------------
# Who may invite whom.
# --------------------------------------------------------------------------------------------
def test_only_a_player_you_follow_can_be_invited(people: list[User]) -> None:
    relations.follow(people[1], people[0])  # the other way round does not count
    error = refused("not_friend", invitations.send, people[0], people[1], "pareja", MODE)
    assert str(error.message) == "Sigue a este jugador para poder invitarle."


def test_nobody_can_invite_a_player_who_blocks_them(friends: tuple[User, User]) -> None:
    ana, bea = friends
    relations.block(bea, ana)
    relations.Follow.objects.create(follower=ana, followed=bea)  # as if followed before
    refused("blocked", invitations.send, ana, bea, "pareja", MODE)


def test_nobody_can_invite_a_player_they_block(friends: tuple[User, User]) -> None:
    ana, bea = friends
    relations.block(ana, bea)
    relations.Follow.objects.create(follower=ana, followed=bea)
    refused("blocked", invitations.send, ana, bea, "pareja", MODE)


def test_it_refuses_inviting_yourself_a_bot_or_nobody(people: list[User]) -> None:
    bot = User.objects.create(username="bot-y", is_bot=True)
    refused("self", invitations.send, people[0], people[0], "pareja", MODE)
    refused("bot", invitations.send, people[0], bot, "pareja", MODE)
    refused("no_player", invitations.send, people[0], None, "pareja", MODE)


def test_it_refuses_a_banned_friend(friends: tuple[User, User]) -> None:
    ana, bea = friends
    User.objects.filter(pk=bea.pk).update(banned_at=timezone.now())
    refused("no_player", invitations.send, ana, User.objects.get(pk=bea.pk), "pareja", MODE)


def test_a_friend_seated_at_a_table_is_busy(friends: tuple[User, User]) -> None:
    ana, bea = friends
    services.create_table(bea, MODE)
    error = refused("busy", invitations.send, ana, bea, "pareja", MODE)
    assert str(error.message) == f"{isolate(bea.public_name)} ya está sentado en una mesa."


def test_it_refuses_an_unknown_kind_or_mode(friends: tuple[User, User]) -> None:
    ana, bea = friends
    refused("bad_kind", invitations.send, ana, bea, "fiesta", MODE)
    refused("unknown_mode", invitations.send, ana, bea, "pareja", "mus-rapido")


def test_one_invitation_at_a_time_to_the_same_friend(friends: tuple[User, User]) -> None:
    ana, bea = friends
    invitations.send(ana, bea, "pareja", MODE)
    refused("already_invited", invitations.send, ana, bea, "pareja", MODE)


def test_invitation_spam_is_rate_limited(people: list[User]) -> None:
    sender = people[0]
    for friend in people[1:]:
        relations.follow(sender, friend)
    extra = UserFactory("extra")()
    relations.follow(sender, extra)
    for friend in people[1:]:
        invitations.send(sender, friend, "pareja", MODE)
    error = refused("invitation_rate", invitations.send, sender, extra, "pareja", MODE)
    assert "espera un minuto" in str(error.message)
    assert Invitation.objects.count() == invitations.RATE_COUNT


def test_a_table_invitation_needs_an_open_table_with_room(people: list[User]) -> None:
    ana, bea = people[:2]
    relations.follow(ana, bea)
    refused("no_table", invitations.send, ana, bea, "mesa")
    table = services.create_table(ana, MODE)
    for seat, user in enumerate(people[2:5], start=1):
        services.take_seat(user, table.pk, seat)
    refused("full", invitations.send, ana, bea, "mesa")
    services.leave_seat(people[4], table.pk)
    invitation = invitations.send(ana, bea, "mesa")
    assert invitation.table_id == table.pk and invitation.mode == MODE


def test_a_partner_invitation_needs_a_sender_free_to_play(friends: tuple[User, User]) -> None:
    ana, bea = friends
    services.create_table(ana, MODE)
    refused("already_seated", invitations.send, ana, bea, "pareja", MODE)


# --------------------------------------------------------------------------------------------
# Answers.
# --------------------------------------------------------------------------------------------
def test_accepting_a_table_invitation_sits_the_friend_at_a_free_seat(
    friends: tuple[User, User],
) -> None:
    ana, bea = friends
    table = services.create_table(ana, MODE, private=True)
    invitation = invitations.send(ana, bea, "mesa")
    url, sat_at = invitations.accept(bea, invitation.pk)
    assert url == f"/mesas/{table.pk}/" and sat_at is not None and sat_at.pk == table.pk
    # Opposite the host: the friend you invite plays as your partner, not against you.
    assert Seat.objects.get(table=table, user=bea).seat == 2
    assert Invitation.objects.get().status == Invitation.Status.ACCEPTED


def test_a_friend_invited_sits_as_your_partner_or_else_at_the_first_free_seat(
    people: list[User],
) -> None:
    ana, bea, cris, dani = people[:4]
    relations.follow(dani, bea)
    relations.follow(dani, cris)
    table = services.create_table(ana, MODE)
    services.take_seat(dani, table.pk, 1)
    invitations.accept(bea, invitations.send(dani, bea, "mesa").pk)
    assert Seat.objects.get(table=table, user=bea).seat == 3  # opposite dani, at 1
    invitations.accept(cris, invitations.send(dani, cris, "mesa").pk)
    assert Seat.objects.get(table=table, user=cris).seat == 2  # dani's partner's seat is taken


def test_accepting_a_table_invitation_leaves_the_queue(friends: tuple[User, User]) -> None:
    ana, bea = friends
    services.create_table(ana, MODE)
    invitation = invitations.send(ana, bea, "mesa")
    queue.join(bea, MODE)
    invitations.accept(bea, invitation.pk)
    assert not QueuedPlayer.objects.exists()


def test_a_table_that_filled_meanwhile_refuses_the_friend(people: list[User]) -> None:
    ana, bea = people[:2]
    relations.follow(ana, bea)
    table = services.create_table(ana, MODE)
    invitation = invitations.send(ana, bea, "mesa")
    for seat, user in enumerate(people[2:5], start=1):
        services.take_seat(user, table.pk, seat)
    refused("full", invitations.accept, bea, invitation.pk)
    assert Invitation.objects.get().status == Invitation.Status.PENDING


def test_accepting_a_partner_invitation_queues_the_pair(friends: tuple[User, User]) -> None:
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    url, table = invitations.accept(bea, invitation.pk)
    assert url == "/jugar/" and table is None
    entry = QueuedPlayer.objects.get(user=ana).entry
    assert entry.mode == MODE
    assert set(entry.players.values_list("user_id", flat=True)) == {ana.pk, bea.pk}


def test_a_partner_invitation_is_refused_when_the_inviter_is_no_longer_free(
    friends: tuple[User, User],
) -> None:
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    services.create_table(ana, MODE)
    error = refused("partner_unavailable", invitations.accept, bea, invitation.pk)
    assert str(error.message) == f"{isolate(ana.public_name)} ya no puede jugar ahora."


def test_a_suspended_friend_cannot_accept_a_partner_invitation(
    friends: tuple[User, User],
) -> None:
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    queue.QueueDodge.objects.bulk_create(queue.QueueDodge(user=bea) for _ in range(2))
    refused("queue_suspended", invitations.accept, bea, invitation.pk)


def test_an_invitation_expires_after_a_minute(friends: tuple[User, User]) -> None:
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    lasts = invitation.expires_at - invitation.created_at
    assert timedelta(seconds=59) < lasts <= timedelta(seconds=60)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    refused("expired", invitations.accept, bea, invitation.pk)
    assert invitations.pending_for(bea.pk) == []
    assert invitations.expire() == 1
    assert Invitation.objects.get().status == Invitation.Status.EXPIRED
    refused("expired", invitations.decline, bea, invitation.pk)
    assert invitations.expire() == 0
    invitations.send(ana, bea, "pareja", MODE)  # a new one may be sent now


def test_only_its_recipient_answers_an_invitation_and_only_once(
    friends: tuple[User, User], people: list[User]
) -> None:
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    refused("no_invitation", invitations.accept, people[2], invitation.pk)
    refused("no_invitation", invitations.accept, ana, invitation.pk)
    invitations.decline(bea, invitation.pk)
    refused("answered", invitations.accept, bea, invitation.pk)


# --------------------------------------------------------------------------------------------
# The forms.
# --------------------------------------------------------------------------------------------
def test_inviting_from_the_lobby_says_so(friends: tuple[User, User]) -> None:
    ana, bea = friends
    response = login(ana).post(
        "/invitaciones/", {"to": bea.username, "kind": "pareja", "mode": MODE}, follow=True
    )
    assert f"Invitación enviada a {isolate(bea.public_name)}" in response.content.decode()
    assert Invitation.objects.filter(sender=ana, recipient=bea).exists()


def test_a_refused_invitation_says_why(people: list[User]) -> None:
    response = login(people[0]).post(
        "/invitaciones/", {"to": people[1].username, "kind": "pareja", "mode": MODE}, follow=True
    )
    assert "Sigue a este jugador para poder invitarle." in response.content.decode()
    response = login(people[0]).post(
        "/invitaciones/", {"to": "nadie", "kind": "pareja", "mode": MODE}, follow=True
    )
    assert "Ese jugador no existe o no puede jugar." in response.content.decode()


def test_the_form_goes_back_to_a_page_of_the_site_only(friends: tuple[User, User]) -> None:
    ana, bea = friends
    client = login(ana)
    data = {"to": bea.username, "kind": "pareja", "mode": MODE, "next": "https://evil.example/"}
    assert client.post("/invitaciones/", data)["Location"] == "/"
    data = {"to": bea.username, "kind": "pareja", "mode": MODE, "next": "/reglas/"}
    assert client.post("/invitaciones/", data)["Location"] == "/reglas/"


def test_accepting_from_a_page_goes_to_the_table(friends: tuple[User, User]) -> None:
    ana, bea = friends
    table = services.create_table(ana, MODE, private=True)
    invitation = invitations.send(ana, bea, "mesa")
    client = login(bea)
    response = client.post(f"/invitaciones/{invitation.pk}/aceptar/")
    assert response["Location"] == f"/mesas/{table.pk}/"
    assert client.get(response["Location"]).status_code == 200  # a private table, now theirs


def test_declining_from_a_notification_keeps_the_page(friends: tuple[User, User]) -> None:
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    response = login(bea).post(
        f"/invitaciones/{invitation.pk}/rechazar/", headers={"X-Requested-With": "fetch"}
    )
    assert response.status_code == 204
    assert Invitation.objects.get().status == Invitation.Status.DECLINED


def test_answering_is_a_post_by_the_signed_in_recipient(
    friends: tuple[User, User], client: Client
) -> None:
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    assert client.post(f"/invitaciones/{invitation.pk}/aceptar/")["Location"].startswith(
        "/cuentas/entrar/"
    )
    assert login(bea).get(f"/invitaciones/{invitation.pk}/aceptar/").status_code == 405
    response = login(ana).post(f"/invitaciones/{invitation.pk}/aceptar/", follow=True)
    assert "Esa invitación no existe." in response.content.decode()
    assert Invitation.objects.get().status == Invitation.Status.PENDING
    assert not Table.objects.exists()


# --------------------------------------------------------------------------------------------
# Invitations that no longer hold: a block, a sender who left the table.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("blocker", [0, 1])
def test_a_block_cancels_a_partner_invitation_either_way(
    friends: tuple[User, User], blocker: int
) -> None:
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    relations.block(friends[blocker], friends[1 - blocker])
    assert Invitation.objects.get().status == Invitation.Status.CANCELLED
    response = login(bea).post(f"/invitaciones/{invitation.pk}/aceptar/", follow=True)
    assert "Ya has contestado a esa invitación." in response.content.decode()
    assert not QueuedPlayer.objects.exists()  # never one queue entry as partners


def test_a_block_cancels_a_table_invitation_to_a_private_table(
    friends: tuple[User, User],
) -> None:
    ana, bea = friends
    table = services.create_table(ana, MODE, private=True)
    invitation = invitations.send(ana, bea, "mesa")
    relations.block(ana, bea)
    refused("answered", invitations.accept, bea, invitation.pk)
    assert not Seat.objects.filter(table=table, user=bea).exists()
    assert invitations.pending_for(bea.pk) == []


def test_accepting_checks_blocks_again(friends: tuple[User, User]) -> None:
    """A block made in the same instant as the answer (here: written without its signal)."""
    ana, bea = friends
    invitation = invitations.send(ana, bea, "pareja", MODE)
    relations.Block.objects.create(blocker=ana, blocked=bea)
    error = refused("blocked", invitations.accept, bea, invitation.pk)
    assert str(error.message) == "Esta invitación ya no vale."
    assert Invitation.objects.get().status == Invitation.Status.CANCELLED
    assert not QueuedPlayer.objects.exists()


@pytest.mark.parametrize("how", ["kicked", "left"])
def test_a_guest_who_leaves_a_private_table_takes_their_invitations_with_them(
    people: list[User], how: str
) -> None:
    host, guest, friend = people[:3]
    relations.follow(guest, friend)
    table = services.create_table(host, MODE, private=True)
    services.take_seat(guest, table.pk, 1, table.invite_token)
    invitation = invitations.send(guest, friend, "mesa")
    if how == "kicked":
        services.kick(host, table.pk, 1)
    else:
        services.leave_seat(guest, table.pk)
    assert Invitation.objects.get().status == Invitation.Status.CANCELLED
    refused("answered", invitations.accept, friend, invitation.pk)
    assert not Seat.objects.filter(table=table, user=friend).exists()


def test_accepting_checks_the_sender_still_sits_at_the_table(people: list[User]) -> None:
    host, guest, friend = people[:3]
    relations.follow(guest, friend)
    table = services.create_table(host, MODE, private=True)
    services.take_seat(guest, table.pk, 1, table.invite_token)
    invitation = invitations.send(guest, friend, "mesa")
    Seat.objects.filter(user=guest).delete()  # gone without the services (a race)
    error = refused("sender_left", invitations.accept, friend, invitation.pk)
    assert "ya no está en esa mesa" in str(error.message)
    assert not Seat.objects.filter(table=table, user=friend).exists()
