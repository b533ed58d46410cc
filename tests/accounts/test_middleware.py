from datetime import timedelta

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User

pytestmark = pytest.mark.django_db

PAGE = "/cuentas/ajustes/"


def test_a_player_banned_while_signed_in_is_logged_out_and_told_why(
    player_client: Client, player: User
) -> None:
    assert player_client.get(PAGE).status_code == 200
    player.banned_at = timezone.now()
    player.ban_reason = "Trampas"
    player.save()
    response = player_client.get(PAGE)
    assert response.status_code == 302
    assert response.url == reverse("accounts:login")
    assert SESSION_KEY not in player_client.session
    page = player_client.get(response.url).content.decode()
    assert "Tu cuenta está suspendida. Se ha cerrado tu sesión." in page
    assert "Motivo: Trampas" in page


def test_the_session_stays_ended_after_a_temporary_ban_expires(
    player_client: Client, player: User
) -> None:
    player.banned_at = timezone.now()
    player.banned_until = timezone.now() + timedelta(hours=1)
    player.save()
    player_client.get(PAGE)
    User.objects.filter(pk=player.pk).update(banned_until=timezone.now() - timedelta(seconds=1))
    response = player_client.get(PAGE)
    assert response.status_code == 302
    assert response.url.startswith(reverse("accounts:login"))  # login_required, not signed in


def test_a_player_deactivated_while_signed_in_is_logged_out(
    player_client: Client, player: User
) -> None:
    player.is_active = False
    player.save()
    response = player_client.get("/jugadores/carmen/")
    assert response.status_code == 302
    assert SESSION_KEY not in player_client.session
    page = player_client.get(response.url).content.decode()
    assert "Tu cuenta está desactivada. Se ha cerrado tu sesión." in page


def test_a_post_from_a_banned_player_does_nothing(player_client: Client, player: User) -> None:
    player.banned_at = timezone.now()
    player.save()
    response = player_client.post(PAGE, {"display_name": "Otra", "language": "es"})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.display_name == "Carmen"


def test_an_htmx_request_from_a_banned_player_is_redirected_by_htmx(
    player_client: Client, player: User
) -> None:
    player.banned_at = timezone.now()
    player.save()
    response = player_client.get(PAGE, headers={"hx-request": "true"})
    assert response.status_code == 204
    assert response["HX-Redirect"] == reverse("accounts:login")


def test_a_session_of_a_deleted_account_is_dropped(player_client: Client, player: User) -> None:
    player.delete()
    response = player_client.get("/jugadores/nadie/")
    assert response.status_code == 404
    assert SESSION_KEY not in player_client.session


def test_a_good_standing_player_is_left_alone(player_client: Client, player: User) -> None:
    assert player_client.get(PAGE).status_code == 200
    assert player_client.session[SESSION_KEY] == str(player.pk)
