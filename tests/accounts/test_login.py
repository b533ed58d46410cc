from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django.urls import reverse
from django.utils import formats, timezone, translation

from accounts.models import User
from tests.factories import PASSWORD, login, make_user

pytestmark = pytest.mark.django_db

LOGIN_URL = "/cuentas/entrar/"
LOGOUT_URL = "/cuentas/salir/"
WRONG = "no-es-la-contrasena"


def log_in(client: Client, username: str, password: str = PASSWORD, **extra: str):
    return client.post(LOGIN_URL, {"username": username, "password": password, **extra})


def non_field_codes(response) -> set[str]:
    return {e.code for e in response.context["form"].non_field_errors().as_data()}


def test_the_login_and_logout_urls_are_the_ones_the_protocol_promises() -> None:
    assert reverse("accounts:login") == LOGIN_URL
    assert reverse("accounts:logout") == LOGOUT_URL


def test_it_shows_the_login_form_in_spanish(client: Client) -> None:
    response = client.get(LOGIN_URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'name="username"' in page and 'name="password"' in page
    assert "Nombre de usuario" in page
    assert reverse("accounts:password_reset") in page
    assert reverse("accounts:signup") in page


def test_it_logs_in_with_the_right_password_and_redirects(client: Client) -> None:
    user = make_user(username="pilar")
    response = log_in(client, "pilar")
    assert response.status_code == 302
    assert response.url == reverse(settings.LOGIN_REDIRECT_URL)
    assert client.session[SESSION_KEY] == str(user.pk)


def test_it_follows_next_after_login(client: Client) -> None:
    make_user(username="pilar")
    response = log_in(client, "pilar", next="/ranking/")
    assert response.url == "/ranking/"


def test_it_refuses_a_wrong_password(client: Client) -> None:
    make_user(username="pilar")
    response = log_in(client, "pilar", WRONG)
    assert response.status_code == 200
    assert non_field_codes(response) == {"invalid_login"}
    assert "Nombre de usuario o contraseña incorrectos" in response.content.decode()
    assert SESSION_KEY not in client.session


def test_it_refuses_an_unknown_username_the_same_way(client: Client) -> None:
    response = log_in(client, "nadie")
    assert response.status_code == 200
    assert non_field_codes(response) == {"invalid_login"}
    assert SESSION_KEY not in client.session


def test_a_signed_in_player_visiting_login_is_sent_on(player_client: Client) -> None:
    assert player_client.get(LOGIN_URL).status_code == 302


def test_it_tells_a_banned_player_the_reason_and_until_when(client: Client) -> None:
    until = timezone.now() + timedelta(days=3)
    make_user(
        username="pilar",
        banned_at=timezone.now(),
        banned_until=until,
        ban_reason="Insultos en el chat",
    )
    response = log_in(client, "pilar")
    assert response.status_code == 200
    assert SESSION_KEY not in client.session
    assert non_field_codes(response) == {"banned"}
    page = response.content.decode()
    with translation.override("es"):
        local = timezone.localtime(until)
        shown_until = formats.date_format(local, "DATETIME_FORMAT")
    assert f"Tu cuenta está suspendida hasta el {shown_until} ({local.tzname()})." in page
    assert "Motivo: Insultos en el chat" in page


def test_it_tells_a_player_banned_without_end_that_the_ban_is_indefinite(client: Client) -> None:
    make_user(username="pilar", banned_at=timezone.now())
    response = log_in(client, "pilar")
    assert non_field_codes(response) == {"banned"}
    page = response.content.decode()
    assert "Tu cuenta está suspendida indefinidamente." in page
    assert "Motivo" not in page


def test_a_ban_reason_is_escaped(client: Client) -> None:
    make_user(username="pilar", banned_at=timezone.now(), ban_reason="<b>spam</b>")
    page = log_in(client, "pilar").content.decode()
    assert "&lt;b&gt;spam&lt;/b&gt;" in page
    assert "<b>spam</b>" not in page


def test_it_does_not_reveal_a_ban_to_a_wrong_password(client: Client) -> None:
    make_user(username="pilar", banned_at=timezone.now(), ban_reason="Trampas")
    response = log_in(client, "pilar", WRONG)
    assert non_field_codes(response) == {"invalid_login"}
    page = response.content.decode()
    assert "suspendida" not in page
    assert "Trampas" not in page


def test_an_expired_ban_no_longer_stops_the_player(client: Client) -> None:
    user = make_user(
        username="pilar",
        banned_at=timezone.now() - timedelta(days=10),
        banned_until=timezone.now() - timedelta(days=1),
    )
    response = log_in(client, "pilar")
    assert response.status_code == 302
    assert client.session[SESSION_KEY] == str(user.pk)


def test_it_tells_an_inactive_account_it_is_deactivated(client: Client) -> None:
    make_user(username="pilar", is_active=False)
    response = log_in(client, "pilar")
    assert response.status_code == 200
    assert SESSION_KEY not in client.session
    assert non_field_codes(response) == {"inactive"}
    assert "Esta cuenta está desactivada" in response.content.decode()


def test_it_does_not_reveal_deactivation_to_a_wrong_password(client: Client) -> None:
    make_user(username="pilar", is_active=False)
    response = log_in(client, "pilar", WRONG)
    assert non_field_codes(response) == {"invalid_login"}
    assert "desactivada" not in response.content.decode()


def test_logout_by_post_ends_the_session(player_client: Client) -> None:
    response = player_client.post(LOGOUT_URL)
    assert response.status_code == 302
    assert response.url == reverse(settings.LOGOUT_REDIRECT_URL)
    assert SESSION_KEY not in player_client.session


def test_logout_by_get_is_refused(player_client: Client, player: User) -> None:
    response = player_client.get(LOGOUT_URL)
    assert response.status_code == 405
    assert player_client.session[SESSION_KEY] == str(player.pk)


def test_logout_enforces_csrf(player: User) -> None:
    client = login(player, enforce_csrf_checks=True)
    assert client.post(LOGOUT_URL).status_code == 403
    assert client.session[SESSION_KEY] == str(player.pk)


class TestThrottling:
    """django-axes locks a username from an address after AXES_FAILURE_LIMIT failures."""

    def test_it_locks_out_after_the_failure_limit(self, client: Client) -> None:
        make_user(username="pilar")
        limit = settings.AXES_FAILURE_LIMIT
        for _ in range(limit - 1):
            assert log_in(client, "pilar", WRONG).status_code == 200
        response = log_in(client, "pilar", WRONG)
        assert response.status_code == 429
        assert "accounts/lockout.html" in [t.name for t in response.templates]
        assert "Demasiados intentos fallidos" in response.content.decode()

    def test_a_locked_out_player_cannot_log_in_even_with_the_right_password(
        self, client: Client
    ) -> None:
        make_user(username="pilar")
        for _ in range(settings.AXES_FAILURE_LIMIT):
            log_in(client, "pilar", WRONG)
        response = log_in(client, "pilar")
        assert response.status_code == 429
        page = response.content.decode()
        assert "Vuelve a intentarlo dentro de 15 minutos" in page
        assert SESSION_KEY not in client.session

    def test_one_failure_short_of_the_limit_still_lets_the_right_password_in(
        self, client: Client
    ) -> None:
        make_user(username="pilar")
        for _ in range(settings.AXES_FAILURE_LIMIT - 1):
            log_in(client, "pilar", WRONG)
        assert log_in(client, "pilar").status_code == 302

    def test_a_lockout_does_not_reveal_a_ban(self, client: Client) -> None:
        make_user(username="pilar", banned_at=timezone.now(), ban_reason="Trampas")
        for _ in range(settings.AXES_FAILURE_LIMIT):
            log_in(client, "pilar", WRONG)
        response = log_in(client, "pilar")
        assert response.status_code == 429
        assert "Trampas" not in response.content.decode()

    def test_the_lockout_is_per_username(self, client: Client) -> None:
        make_user(username="pilar")
        make_user(username="pepe")
        for _ in range(settings.AXES_FAILURE_LIMIT):
            log_in(client, "pilar", WRONG)
        assert log_in(client, "pepe").status_code == 302
