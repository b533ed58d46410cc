"""Password guessing: django-axes locks a username from an address, and an address across
usernames; passwords are validated."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from accounts.models import User
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

LOGIN = "/cuentas/entrar/"
GOOD = PASSWORD


def attempt(client: Client, username: str, password: str, ip: str = "203.0.113.7"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_throttling_is_configured() -> None:
    assert "axes" in settings.INSTALLED_APPS
    assert settings.MIDDLEWARE[-1] == "axes.middleware.AxesMiddleware"
    assert settings.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"
    assert 1 <= settings.AXES_FAILURE_LIMIT <= 10


def test_after_the_failure_limit_even_the_right_password_is_refused(
    client: Client, make_user: Callable[..., User]
) -> None:
    make_user("pilar")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert attempt(client, "pilar", "mal").status_code == 200
    assert attempt(client, "pilar", "mal").status_code == 429
    locked = attempt(client, "pilar", GOOD)
    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_lock_is_for_that_username_from_that_address(
    client: Client, make_user: Callable[..., User]
) -> None:
    make_user("pilar")
    make_user("pepe")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        attempt(client, "pilar", "mal")
    assert attempt(Client(), "pepe", GOOD).status_code == 302
    assert attempt(Client(), "pilar", GOOD, ip="198.51.100.9").status_code == 302


def test_a_successful_login_before_the_limit_resets_the_count(
    client: Client, make_user: Callable[..., User]
) -> None:
    make_user("pilar")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(client, "pilar", "mal")
    assert attempt(client, "pilar", GOOD).status_code == 302
    other = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert attempt(other, "pilar", "mal").status_code == 200


def test_djangos_password_validators_are_on() -> None:
    names = {v["NAME"].rsplit(".", 1)[-1] for v in settings.AUTH_PASSWORD_VALIDATORS}
    assert names >= {
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    }


@pytest.mark.parametrize("password", ["corta1", "password123", "1234567890123", "pilarpilar"])
def test_weak_passwords_are_refused(password: str) -> None:
    with pytest.raises(ValidationError):
        validate_password(password, User(username="pilarpilar"))


def test_a_strong_password_is_accepted() -> None:
    validate_password("baraja-de-40-cartas-y-8-reyes", User(username="pilar"))


# --------------------------------------------------------------------------------------------
# Password spraying: one password on many usernames from one address (#13, 8).
# --------------------------------------------------------------------------------------------
def test_twelve_usernames_with_one_password_from_one_address_are_locked_out(
    client: Client, make_user: Callable[..., User], settings: Any
) -> None:
    settings.AXES_IP_FAILURE_LIMIT = 10
    for i in range(12):
        make_user(f"victima{i}")
    codes = [attempt(Client(), f"victima{i}", "verano2026").status_code for i in range(12)]
    assert codes[:9] == [200] * 9
    assert codes[9:] == [429] * 3
    locked = attempt(Client(), "victima0", GOOD)  # even the right password, from there
    assert locked.status_code == 429
    assert "desde tu conexión" in locked.content.decode()
    # Another address is not concerned.
    assert attempt(Client(), "victima0", GOOD, ip="198.51.100.9").status_code == 302


def test_the_address_limit_counts_only_recent_failures_of_that_address(
    make_user: Callable[..., User], settings: Any
) -> None:
    settings.AXES_IP_FAILURE_LIMIT = 3
    make_user("pilar")
    for name in ("a", "b"):
        attempt(Client(), name, "mal")
    for name in ("c", "d", "e"):
        attempt(Client(), name, "mal", ip="198.51.100.9")
    assert attempt(Client(), "pilar", GOOD).status_code == 302


def test_case_variants_of_a_username_share_one_count(
    make_user: Callable[..., User], settings: Any
) -> None:
    settings.AXES_IP_FAILURE_LIMIT = 1000
    make_user("Pilar")
    for i in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(Client(), "Pilar" if i % 2 else "pILAR", "mal")
    assert attempt(Client(), "PILAR", "mal").status_code == 429


def test_the_address_limit_is_a_setting_from_the_environment() -> None:
    assert settings.AXES_IP_FAILURE_LIMIT >= settings.AXES_FAILURE_LIMIT
    assert settings.AXES_HANDLER == "accounts.throttle.AxesHandler"
