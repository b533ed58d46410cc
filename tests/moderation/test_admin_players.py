"""The player admin: ban, unban, mute and unmute from the list and from a player's page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Table
from moderation.models import ModerationAction
from tests.factories import login, seat_all, session_cookie, staff_with

from .support import action_post, confirm_post

pytestmark = pytest.mark.django_db

USERS = reverse("admin:accounts_user_changelist")


def session_owners() -> set[str]:
    return {s.get_decoded().get("_auth_user_id") for s in Session.objects.all()}


def measure_url(user: User, slug: str) -> str:
    return reverse("admin:accounts_user_measure", args=[user.pk, slug])


def test_the_ban_action_first_asks_for_the_reason_and_an_optional_end(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    player = make_user("pilar")
    response = action_post(admin_client, USERS, "ban_players", [player.pk])
    assert response.status_code == 200
    page = response.content.decode()
    assert 'name="reason"' in page and 'name="until"' in page
    assert 'name="confirmar"' in page and "pilar" in page
    player.refresh_from_db()
    assert not player.is_banned
    assert not ModerationAction.objects.exists()


def test_the_ban_action_refuses_a_missing_reason_or_a_past_end(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    player = make_user("pilar")
    missing = confirm_post(admin_client, USERS, "ban_players", [player.pk], reason="")
    assert missing.status_code == 200
    assert missing.context["form"].errors["reason"]
    past = (timezone.localtime() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    late = confirm_post(
        admin_client, USERS, "ban_players", [player.pk], reason="Trampas", until=past
    )
    assert late.context["form"].errors["until"]
    assert not User.objects.get(pk=player.pk).is_banned


def test_the_ban_action_bans_every_chosen_player_until_the_date_given(
    admin_client: Client, four_players: list[User]
) -> None:
    table = seat_all(four_players)
    session_cookie(four_players[2])
    until = timezone.localtime() + timedelta(days=7)
    response = confirm_post(
        admin_client,
        USERS,
        "ban_players",
        [four_players[2].pk, four_players[3].pk],
        reason="Colusión",
        until=until.strftime("%Y-%m-%dT%H:%M"),
    )
    assert response.status_code == 302
    for player in four_players[2:]:
        player.refresh_from_db()
        assert player.is_banned and player.ban_reason == "Colusión"
        assert abs(player.banned_until - until) < timedelta(minutes=1)
    assert session_owners() == {str(admin_client.session["_auth_user_id"])}
    assert sorted(table.seats.values_list("seat", flat=True)) == [0, 1]
    entries = ModerationAction.objects.filter(kind="expulsar")
    assert sorted(entries.values_list("target_name", flat=True)) == ["p2", "p3"]
    assert {e.moderator_name for e in entries} == {"moderadora"}
    messages = [str(m) for m in admin_client.get(USERS).context["messages"]]
    assert any("2" in m for m in messages)


def test_unban_mute_and_unmute_actions_apply_and_are_logged(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    player = make_user("pilar", banned_at=timezone.now(), ban_reason="Antes")
    assert confirm_post(admin_client, USERS, "unban_players", [player.pk]).status_code == 302
    assert not User.objects.get(pk=player.pk).is_banned
    confirm_post(admin_client, USERS, "mute_players", [player.pk], reason="Insultos")
    assert User.objects.get(pk=player.pk).is_muted
    confirm_post(admin_client, USERS, "unmute_players", [player.pk], reason="Ya vale")
    assert not User.objects.get(pk=player.pk).is_muted
    assert list(ModerationAction.objects.order_by("pk").values_list("kind", flat=True)) == [
        "readmitir",
        "silenciar",
        "quitar_silencio",
    ]


def test_the_moderator_is_refused_banning_themselves_with_a_message(
    admin_client: Client, moderator: User
) -> None:
    response = confirm_post(admin_client, USERS, "ban_players", [moderator.pk], reason="Prueba")
    assert response.status_code == 302
    assert not User.objects.get(pk=moderator.pk).is_banned
    messages = [str(m) for m in admin_client.get(USERS).context["messages"]]
    assert any("ti mismo" in m for m in messages)


def test_a_players_page_links_to_each_measure_and_its_moderation_history(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    player = make_user("pilar", muted=True)
    page = admin_client.get(reverse("admin:accounts_user_change", args=[player.pk]))
    html = page.content.decode()
    for slug in ("expulsar", "silenciar", "quitar-silencio"):
        assert measure_url(player, slug) in html
    assert measure_url(player, "readmitir") not in html  # not banned
    assert f"target__id__exact={player.pk}" in html


def test_the_ban_form_on_a_players_page_bans_and_returns_to_the_page(
    admin_client: Client, four_players: list[User]
) -> None:
    player = four_players[1]
    table = seat_all(four_players)
    form = admin_client.get(measure_url(player, "expulsar"))
    assert form.status_code == 200 and 'name="reason"' in form.content.decode()
    done = admin_client.post(
        measure_url(player, "expulsar"), {"confirmar": "1", "reason": "Nombre ofensivo"}
    )
    assert done.status_code == 302
    assert done.url == reverse("admin:accounts_user_change", args=[player.pk])
    player.refresh_from_db()
    assert player.is_banned and player.banned_until is None
    assert not table.seats.filter(user=player).exists()
    unban = admin_client.post(measure_url(player, "readmitir"), {"confirmar": "1"})
    assert unban.status_code == 302
    assert not User.objects.get(pk=player.pk).is_banned


def test_the_measure_page_names_the_players_and_leads_back_without_changing_anything(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    player = make_user("pilar", display_name="La Sota")
    page = admin_client.get(measure_url(player, "silenciar"))
    assert page.templates[0].name == "moderation/admin/measure.html"
    html = page.content.decode()
    assert '<ul class="moderation-objects">' in html and "La Sota" in html
    back = reverse("admin:accounts_user_change", args=[player.pk])
    assert f'href="{back}" class="button cancel-link">Volver sin cambiar nada</a>' in html
    assert not User.objects.get(pk=player.pk).is_muted


def test_an_unknown_measure_is_404(admin_client: Client, make_user: Callable[..., User]) -> None:
    player = make_user("pilar")
    assert admin_client.get(measure_url(player, "fusilar")).status_code == 404


def test_a_ban_typed_into_the_players_page_applies_the_whole_ban(
    admin_client: Client, four_players: list[User]
) -> None:
    player = four_players[2]
    table = seat_all(four_players)
    session_cookie(player)
    url = reverse("admin:accounts_user_change", args=[player.pk])
    form = admin_client.get(url).context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None
        and name
        not in ("groups", "user_permissions", "password", "date_joined", "last_login", "banned_at")
    }
    now = timezone.localtime()
    data.update(
        {
            "date_joined_0": timezone.localtime(player.date_joined).strftime("%Y-%m-%d"),
            "date_joined_1": timezone.localtime(player.date_joined).strftime("%H:%M:%S"),
            "banned_at_0": now.strftime("%Y-%m-%d"),
            "banned_at_1": now.strftime("%H:%M:%S"),
            "ban_reason": "Trampas",
        }
    )
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    player.refresh_from_db()
    assert player.is_banned and player.ban_reason == "Trampas"
    assert str(player.pk) not in session_owners()
    assert Table.objects.get(pk=table.pk).seats.filter(user=player).count() == 0
    entry = ModerationAction.objects.get()
    assert (entry.kind, entry.target, entry.reason) == ("expulsar", player, "Trampas")


def test_a_ban_typed_into_the_players_page_needs_a_reason(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    player = make_user("pilar")
    url = reverse("admin:accounts_user_change", args=[player.pk])
    form = admin_client.get(url).context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None
        and name
        not in ("groups", "user_permissions", "password", "date_joined", "last_login", "banned_at")
    }
    now = timezone.localtime()
    data.update(
        {
            "date_joined_0": now.strftime("%Y-%m-%d"),
            "date_joined_1": now.strftime("%H:%M:%S"),
            "banned_at_0": now.strftime("%Y-%m-%d"),
            "banned_at_1": now.strftime("%H:%M:%S"),
            "ban_reason": "",
        }
    )
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["ban_reason"]
    assert not User.objects.get(pk=player.pk).is_banned


def test_staff_without_the_change_permission_get_no_measures(
    client: Client, make_user: Callable[..., User]
) -> None:
    helper = staff_with("view_user")
    player = make_user("pilar")
    login(helper, client)
    listing = client.get(USERS)
    assert listing.status_code == 200
    assert "ban_players" not in listing.content.decode()
    assert client.get(measure_url(player, "expulsar")).status_code == 403
    refused = client.post(measure_url(player, "expulsar"), {"confirmar": "1", "reason": "x"})
    assert refused.status_code == 403
    assert not User.objects.get(pk=player.pk).is_banned


def test_staff_with_the_change_permission_can_ban(
    client: Client, make_user: Callable[..., User]
) -> None:
    helper = staff_with("view_user", "change_user", "view_moderationaction")
    player = make_user("pilar")
    login(helper, client)
    response = confirm_post(client, USERS, "ban_players", [player.pk], reason="Insultos")
    assert response.status_code == 302
    assert User.objects.get(pk=player.pk).is_banned
    log = client.get(reverse("admin:moderation_moderationaction_changelist"))
    assert log.status_code == 200 and "pilar" in log.content.decode()
