"""The site's password hash (accounts/hashers.py): Argon2id at OWASP's first recommended setting
for every new password; a password stored before (PBKDF2) still signs in and is stored again
with Argon2id; every check runs in the hashing thread."""

from __future__ import annotations

import threading
from typing import Any

import argon2
import pytest
from django.conf import settings as site_settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.hashers import check_password, make_password
from django.test import Client

from accounts import hashers
from accounts.models import User
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

LOGIN_URL = "/cuentas/entrar/"


@pytest.fixture(autouse=True)
def _site_hashers(settings: Any) -> None:
    """The site's own hashers, not the tests' fast one (tests/accounts/conftest.py)."""
    settings.PASSWORD_HASHERS = site_settings.SITE_PASSWORD_HASHERS


class OldPBKDF2(hashers.PBKDF2PasswordHasher):
    """A PBKDF2 hash as stored before Argon2id (fewer iterations: the same format, quicker)."""

    iterations = 1_000


def stored_before(user: User, password: str = PASSWORD) -> str:
    user.password = OldPBKDF2().encode(password, OldPBKDF2().salt())
    user.save(update_fields=["password"])
    return user.password


def test_a_new_password_is_stored_with_argon2id_at_owasps_setting() -> None:
    encoded = make_password(PASSWORD)
    assert encoded.startswith("argon2$")
    parameters = argon2.extract_parameters(encoded.removeprefix("argon2"))
    assert parameters.type is argon2.Type.ID
    assert (parameters.memory_cost, parameters.time_cost, parameters.parallelism) == (
        19 * 1024,
        2,
        1,
    )
    assert check_password(PASSWORD, encoded)
    assert not check_password(PASSWORD + "x", encoded)


def test_a_new_account_signs_in_with_its_argon2id_hash(client: Client) -> None:
    user = make_user("argonia")
    assert user.password.startswith("argon2$argon2id$")
    response = client.post(LOGIN_URL, {"username": "argonia", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session[SESSION_KEY] == str(user.pk)


def test_a_password_stored_with_pbkdf2_signs_in_and_is_stored_again_with_argon2id(
    client: Client,
) -> None:
    user = make_user("veterana")
    old = stored_before(user)
    assert old.startswith("pbkdf2_sha256$1000$")
    response = client.post(LOGIN_URL, {"username": "veterana", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session[SESSION_KEY] == str(user.pk)
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$")
    assert check_password(PASSWORD, user.password)


def test_a_wrong_password_leaves_an_old_hash_as_it_was(client: Client) -> None:
    user = make_user("veterano")
    old = stored_before(user)
    response = client.post(LOGIN_URL, {"username": "veterano", "password": "no-es-esta"})
    assert response.status_code == 200
    assert SESSION_KEY not in client.session
    user.refresh_from_db()
    assert user.password == old


def test_checking_an_argon2id_hash_runs_in_the_hashing_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Django's Argon2 hasher checks without calling `encode`: the site's runs `verify` in the
    # hashing thread too.
    encoded = make_password(PASSWORD)
    threads: list[str] = []
    checked = argon2.PasswordHasher.verify

    def noting(self: argon2.PasswordHasher, *args: Any) -> bool:
        threads.append(threading.current_thread().name)
        return checked(self, *args)

    monkeypatch.setattr(argon2.PasswordHasher, "verify", noting)
    assert check_password(PASSWORD, encoded)
    assert len(threads) == 1 and threads[0].startswith("password-hashing")
