"""Mutes: the flags, the audit log, and a player muted from the admin refused at the table chat."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import ChatMessage
from moderation import actions
from moderation.models import ModerationAction
from tests.factories import started_table
from tests.sockets import join, next_of, receive

from .support import confirm_post

USERS = reverse("admin:accounts_user_changelist")


@pytest.mark.django_db
def test_a_mute_without_end_and_its_end_are_logged(
    four_players: list[User], moderator: User
) -> None:
    player = four_players[3]
    actions.mute(moderator, player, "Insultos en el chat")
    player.refresh_from_db()
    assert player.muted and player.muted_until is None and player.is_muted
    actions.unmute(moderator, player, "Se ha disculpado")
    player.refresh_from_db()
    assert not player.is_muted
    kinds = list(ModerationAction.objects.order_by("pk").values_list("kind", "target_id", "reason"))
    assert kinds == [
        ("silenciar", player.pk, "Insultos en el chat"),
        ("quitar_silencio", player.pk, "Se ha disculpado"),
    ]


@pytest.mark.django_db
def test_a_mute_with_an_end_lasts_until_then(four_players: list[User], moderator: User) -> None:
    player = four_players[3]
    until = timezone.now() + timedelta(hours=2)
    entry = actions.mute(moderator, player, "Spam", until)
    player.refresh_from_db()
    assert player.is_muted and not player.muted and player.muted_until == until
    assert entry.until == until
    User.objects.filter(pk=player.pk).update(muted_until=timezone.now() - timedelta(seconds=1))
    assert not User.objects.get(pk=player.pk).is_muted


@pytest.mark.django_db
def test_a_mute_needs_a_reason(four_players: list[User], moderator: User) -> None:
    with pytest.raises(actions.ModerationError):
        actions.mute(moderator, four_players[0], " ")
    assert not User.objects.get(pk=four_players[0].pk).is_muted


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_player_muted_from_the_admin_is_refused_at_the_table_chat_and_unmuted_can_talk(
    four_players: list[User], admin_client: Client
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    player = four_players[1]
    post = database_sync_to_async(confirm_post)
    response = await post(
        admin_client, USERS, "mute_players", [player.pk], reason="Insultos", until=""
    )
    assert response.status_code == 302
    comm = await join(table, player)
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "hola"}))
    error = await next_of(comm, "error")
    assert error["code"] == "muted"
    assert error["message"]
    assert await database_sync_to_async(ChatMessage.objects.count)() == 0
    await comm.disconnect()

    response = await post(admin_client, USERS, "unmute_players", [player.pk], reason="")
    assert response.status_code == 302
    comm = await join(table, player)
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "perdón"}))
    assert (await next_of(comm, "chat"))["text"] == "perdón"
    await comm.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_player_muted_while_connected_is_refused_at_once(
    four_players: list[User], moderator: User
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm = await join(table, four_players[1])
    await next_of(comm, "chat_history")
    await database_sync_to_async(actions.mute)(moderator, four_players[1], "Insultos")
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "hola"}))
    reply = await receive(comm)
    await comm.disconnect()
    assert reply["type"] == "error" and reply["code"] == "muted"
