"""The table admin: lists, search, the record and the chat, cancelling games."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import ChatMessage, Table
from moderation import actions
from moderation.models import ModerationAction
from rankings import services as rating_services
from tests.factories import finished_game, seat_all, started_table

from .support import action_post, confirm_post

pytestmark = pytest.mark.django_db

TABLES = reverse("admin:games_table_changelist")
CHAT = reverse("admin:games_chatmessage_changelist")


def listed(response) -> list[int]:
    return sorted(response.context["cl"].queryset.values_list("pk", flat=True))


def test_the_table_list_filters_by_status_mode_privacy_and_rating(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    players = [make_user() for _ in range(8)]
    playing = started_table(players[:4])
    waiting = services.create_table(players[4], "8-reyes", private=True, rated=False)
    assert listed(admin_client.get(TABLES, {"status__exact": "jugando"})) == [playing.pk]
    assert listed(admin_client.get(TABLES, {"mode__exact": "8-reyes"})) == [waiting.pk]
    assert listed(admin_client.get(TABLES, {"private__exact": "1"})) == [waiting.pk]
    assert listed(admin_client.get(TABLES, {"rated__exact": "0"})) == [waiting.pk]
    Table.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - timedelta(days=30))
    week = admin_client.get(TABLES, {"created_at__gte": str(timezone.now() - timedelta(days=7))})
    assert listed(week) == [playing.pk]


def test_the_table_list_searches_by_id_and_by_player(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    players = [make_user(f"jugona{i}") for i in range(4)]
    loner = make_user("solitaria", display_name="La Sota")
    table = seat_all(players)
    other = services.create_table(loner, "4-reyes")
    assert listed(admin_client.get(TABLES, {"q": str(table.pk)})) == [table.pk]
    assert listed(admin_client.get(TABLES, {"q": f"#{other.pk}"})) == [other.pk]
    assert listed(admin_client.get(TABLES, {"q": "jugona2"})) == [table.pk]
    assert listed(admin_client.get(TABLES, {"q": "sota"})) == [other.pk]
    assert listed(admin_client.get(TABLES, {"q": "nadie"})) == []


def test_a_tables_page_shows_the_pretty_record_and_the_chat_read_only(
    admin_client: Client, four_players: list[User]
) -> None:
    table = started_table(four_players)
    ChatMessage.objects.create(table=table, user=four_players[1], seat=1, text="¡Envido!")
    url = reverse("admin:games_table_change", args=[table.pk])
    response = admin_client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    assert "¡Envido!" in page
    assert 'name="_save"' not in page  # nothing to save: tables change through the services
    assert 'name="chat-0-text"' not in page  # chat lines are shown, not edited
    assert reverse("admin:games_table_cancel", args=[table.pk]) in page
    # The record of a game in progress holds everybody's cards: shown once it is over.
    assert '<pre class="game-record">' not in page
    services.cancel_game(table.pk, Table.CancelReason.MODERATOR)
    page = admin_client.get(url).content.decode()
    assert '<pre class="game-record">' in page
    assert "&quot;format&quot;: &quot;mus-record/1&quot;" in page
    assert '<pre class="game-record">{\n  &quot;' in page  # indented, one key a line


def test_a_finished_tables_page_links_to_its_rematch(
    admin_client: Client, four_players: list[User]
) -> None:
    from games import services

    old = finished_game(four_players)
    new = services.rematch(four_players[0], old.pk)
    page = admin_client.get(reverse("admin:games_table_change", args=[old.pk])).content.decode()
    assert f'href="{reverse("admin:games_table_change", args=[new.pk])}"' in page


def test_a_table_cannot_be_added_deleted_or_edited_in_the_admin(
    admin_client: Client, four_players: list[User]
) -> None:
    table = started_table(four_players)
    assert admin_client.get(reverse("admin:games_table_add")).status_code == 403
    delete = admin_client.post(
        reverse("admin:games_table_delete", args=[table.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403
    before = Table.objects.get(pk=table.pk)
    admin_client.post(
        reverse("admin:games_table_change", args=[table.pk]), {"status": "terminada", "rated": ""}
    )
    after = Table.objects.get(pk=table.pk)
    assert (after.status, after.rated, after.version) == (
        before.status,
        before.rated,
        before.version,
    )


def test_cancelling_from_the_list_asks_for_the_reason_first(
    admin_client: Client, four_players: list[User]
) -> None:
    table = started_table(four_players)
    response = action_post(admin_client, TABLES, "cancel_games", [table.pk])
    assert response.status_code == 200
    assert 'name="reason"' in response.content.decode()
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    empty = confirm_post(admin_client, TABLES, "cancel_games", [table.pk], reason="  ")
    assert empty.status_code == 200 and empty.context["form"].errors["reason"]
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_cancelling_a_game_in_progress_is_unrated_keeps_the_record_and_is_logged(
    admin_client: Client, four_players: list[User], moderator: User
) -> None:
    table = started_table(four_players)
    response = confirm_post(
        admin_client, TABLES, "cancel_games", [table.pk], reason="Fallo del servidor"
    )
    assert response.status_code == 302
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED
    assert (table.cancel_reason, table.cancel_note) == ("moderacion", "Fallo del servidor")
    assert table.record is not None
    assert not rating_services.is_ratable(table)
    state = services.state_for(table, four_players[0])
    assert state["status"] == "cancelada" and state["cancel_reason"] == "moderacion"
    assert "Fallo del servidor" not in json.dumps(state)  # the moderator's note stays private
    entry = ModerationAction.objects.get()
    assert (entry.kind, entry.table_id, entry.reason, entry.moderator) == (
        "cancelar",
        table.pk,
        "Fallo del servidor",
        moderator,
    )


def test_cancelling_tables_that_are_not_playing_changes_nothing(
    admin_client: Client, four_players: list[User]
) -> None:
    table = seat_all(four_players)
    response = action_post(admin_client, TABLES, "cancel_games", [table.pk])
    assert response.status_code == 302
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN
    assert not ModerationAction.objects.exists()
    with pytest.raises(actions.ModerationError):
        actions.cancel_game(None, table, "motivo")


def test_cancelling_from_a_tables_page_returns_to_it(
    admin_client: Client, four_players: list[User]
) -> None:
    table = started_table(four_players)
    url = reverse("admin:games_table_cancel", args=[table.pk])
    assert 'name="reason"' in admin_client.get(url).content.decode()
    done = admin_client.post(url, {"confirmar": "1", "reason": "Colusión evidente"})
    assert done.status_code == 302
    assert done.url == reverse("admin:games_table_change", args=[table.pk])
    assert Table.objects.get(pk=table.pk).status == Table.Status.CANCELLED


def test_the_chat_admin_searches_text_and_player_and_filters_by_table(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    players = [make_user(f"charla{i}") for i in range(8)]
    one, two = started_table(players[:4]), started_table(players[4:])
    a = ChatMessage.objects.create(table=one, user=players[0], seat=0, text="buena mano")
    b = ChatMessage.objects.create(table=two, user=players[5], seat=1, text="vaya suerte")
    assert listed(admin_client.get(CHAT, {"q": "suerte"})) == [b.pk]
    assert listed(admin_client.get(CHAT, {"q": "charla0"})) == [a.pk]
    assert listed(admin_client.get(CHAT, {"mesa": str(two.pk)})) == [b.pk]
    assert listed(admin_client.get(CHAT, {"mesa": "nada"})) == []
    assert (
        admin_client.get(reverse("admin:games_chatmessage_change", args=[a.pk])).status_code == 200
    )
    assert admin_client.get(reverse("admin:games_chatmessage_add")).status_code == 403
    assert (
        admin_client.post(reverse("admin:games_chatmessage_delete", args=[a.pk]), {"post": "yes"})
    ).status_code == 403
