"""Who may do what: own seat only, host-only table changes, staff-only admin, CSRF everywhere."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts import bot_accounts
from accounts.models import User
from games import services
from games.models import Seat, Table
from moderation.models import Report
from tests.factories import login, seat_all, started_table
from tests.sockets import connect_all, receive, receive_state, welcomed


# --------------------------------------------------------------------------------------------
# A seated player acts for their own seat only.
# --------------------------------------------------------------------------------------------
async def _latest_states(comms: list[Any]) -> list[dict[str, Any]]:
    states = await welcomed(comms)
    for i, comm in enumerate(comms):
        while not await comm.receive_nothing(timeout=0.05):
            message = await receive(comm)
            if message["type"] == "state":
                states[i] = message
    return states


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize("named", ["the seat to act", "their own seat"])
async def test_an_action_naming_a_seat_is_refused_as_malformed_and_changes_nothing(
    four_players: list[User], named: str
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comms = await connect_all(table, four_players)
    states = await _latest_states(comms)
    to_act = next(i for i in range(4) if states[i]["you"]["legal"])
    sender = (to_act + 1) % 4
    seat = to_act if named == "the seat to act" else sender
    legal = states[to_act]["you"]["legal"][0]
    before = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    message = {"type": "action", "v": states[sender]["v"], "act": legal["act"], "seat": seat}
    await comms[sender].send_to(text_data=json.dumps(message))
    error = await receive(comms[sender])
    assert error["type"] == "error" and error["code"] == "malformed"
    assert (await receive(comms[sender]))["type"] == "state"
    after = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    assert (after.version, after.record) == (before.version, before.record)
    for comm in comms:
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_player_seated_elsewhere_cannot_act_at_another_table(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    others = [await database_sync_to_async(make_user)(f"otra{i}") for i in range(4)]
    await database_sync_to_async(started_table)(others)
    [comm] = await connect_all(table, others[:1])
    state = await receive_state(comm)
    assert state["you"] is None
    await comm.send_to(text_data=json.dumps({"type": "action", "v": state["v"], "act": "mus"}))
    while (error := await receive(comm))["type"] != "error":
        pass
    assert error["code"] == "not_seated"
    await comm.disconnect()


# --------------------------------------------------------------------------------------------
# Only the host starts, closes or clears seats of a table.
# --------------------------------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "data"),
    [("start", {}), ("close", {}), ("kick", {"seat": "0"}), ("kick", {"seat": "2"})],
)
def test_only_the_host_may_start_close_or_remove_players_over_http(
    four_players: list[User], name: str, data: dict[str, str]
) -> None:
    table = seat_all(four_players)
    guest = login(four_players[1])
    response = guest.post(reverse(f"games:{name}", args=[table.pk]), data)
    assert response.status_code in (302, 400)
    after = Table.objects.get(pk=table.pk)
    assert (after.status, after.version) == (Table.Status.OPEN, table.version)
    assert Seat.objects.filter(table=table).count() == 4
    messages = [str(m) for m in guest.get("/").context["messages"]]
    assert any("anfitrión" in m for m in messages)


@pytest.mark.django_db
def test_the_host_may_start_their_table(four_players: list[User]) -> None:
    table = seat_all(four_players)
    for i, player in enumerate(four_players):  # all four at the table (docs/rules.md §8.3)
        services.socket_opened(table.pk, player.pk, f"here-{i}")
    login(four_players[0]).post(reverse("games:start", args=[table.pk]))
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


@pytest.mark.django_db
def test_a_private_table_needs_its_invitation_to_be_seen_or_sat_at(
    four_players: list[User],
) -> None:
    table = services.create_table(four_players[0], "4-reyes", private=True)
    stranger = login(four_players[1])
    assert stranger.get(reverse("games:table", args=[table.pk])).status_code == 404
    stranger.post(reverse("games:sit", args=[table.pk]), {"seat": "1"})
    assert not Seat.objects.filter(table=table, user=four_players[1]).exists()
    stranger.get(reverse("games:invite", args=[table.invite_token]))
    stranger.post(reverse("games:sit", args=[table.pk]), {"seat": "1"})
    assert Seat.objects.filter(table=table, user=four_players[1]).exists()


# --------------------------------------------------------------------------------------------
# The admin is for staff only.
# --------------------------------------------------------------------------------------------
ADMIN_PAGES = [
    "admin:index",
    "admin:accounts_user_changelist",
    "admin:moderation_report_changelist",
    "admin:moderation_moderationaction_changelist",
    "admin:games_table_changelist",
    "admin:games_chatmessage_changelist",
]


@pytest.mark.django_db
@pytest.mark.parametrize("page", ADMIN_PAGES)
def test_the_admin_sends_anonymous_visitors_and_non_staff_players_to_its_login(
    make_user: Callable[..., User], page: str
) -> None:
    url = reverse(page)
    for client in (Client(), login(make_user("jugadora"))):
        response = client.get(url)
        assert response.status_code == 302
        assert response.url.startswith(reverse("admin:login"))


@pytest.mark.django_db
def test_a_non_staff_player_cannot_use_the_admins_measures(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = started_table(four_players)
    victim = make_user("victima")
    player = login(four_players[1])
    player.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "ban_players", "_selected_action": [victim.pk], "confirmar": "1", "reason": "x"},
    )
    player.post(
        reverse("admin:accounts_user_measure", args=[victim.pk, "expulsar"]),
        {"confirmar": "1", "reason": "x"},
    )
    player.post(
        reverse("admin:games_table_cancel", args=[table.pk]), {"confirmar": "1", "reason": "x"}
    )
    assert not User.objects.get(pk=victim.pk).is_banned
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


# --------------------------------------------------------------------------------------------
# CSRF on every form.
# --------------------------------------------------------------------------------------------
def _patterns(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry.callback


def test_no_view_of_the_site_is_exempt_from_csrf_but_the_bot_apis() -> None:
    """The bot API's views sign in by a token only, never by a cookie (docs/bot-api.md), so no
    page can forge a request to them: they alone need no CSRF token."""
    exempt = [
        route for route, view in _patterns(get_resolver()) if getattr(view, "csrf_exempt", False)
    ]
    assert exempt and all(route.startswith(bot_accounts.API_PATH.lstrip("/")) for route in exempt)


POST_ENDPOINTS = [
    ("games:create", False, {"mode": "4-reyes"}),
    ("games:practice", False, {"mode": "4-reyes"}),
    ("games:sit", True, {"seat": "1"}),
    ("games:stand", True, {}),
    ("games:start", True, {}),
    ("games:kick", True, {"seat": "1"}),
    ("games:close", True, {}),
    ("games:fill_bots", True, {}),
    ("games:rematch", True, {}),
    ("games:leave_practice", True, {}),
    ("moderation:report", True, {"jugador": "p1", "motivo": "insultos"}),
    ("accounts:logout", False, {}),
    ("accounts:settings", False, {"display_name": "Hack"}),
    ("accounts:password_change", False, {}),
    ("set_language", False, {"language": "en"}),
    ("admin:accounts_user_changelist", False, {"action": "ban_players"}),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "with_table", "data"), POST_ENDPOINTS)
def test_every_form_refuses_a_post_without_the_csrf_token(
    four_players: list[User], name: str, with_table: bool, data: dict[str, str]
) -> None:
    table = seat_all(four_players)
    User.objects.filter(pk=four_players[0].pk).update(is_staff=True, is_superuser=True)
    client = login(User.objects.get(pk=four_players[0].pk), enforce_csrf_checks=True)
    url = reverse(name, args=[table.pk] if with_table else [])
    response = client.post(url, data)
    assert response.status_code == 403
    assert Table.objects.get(pk=table.pk).version == table.version
    assert Table.objects.count() == 1
    assert not Report.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["accounts:login", "accounts:signup", "accounts:password_reset"])
def test_the_anonymous_forms_refuse_a_post_without_the_csrf_token(name: str) -> None:
    response = Client(enforce_csrf_checks=True).post(reverse(name), {"username": "x"})
    assert response.status_code == 403
