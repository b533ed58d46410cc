"""Factories and fixtures for the accounts tests."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

import accounts.profile
from accounts.models import User

PASSWORD = "baraja-de-40-cartas"
BACKEND = "accounts.backends.ActiveAccountBackend"

_numbers = itertools.count(1)


def make_user(**fields: Any) -> User:
    """A saved player with a usable password (`PASSWORD` unless `password=` is given)."""
    password = fields.pop("password", PASSWORD)
    fields.setdefault("username", f"jugador{next(_numbers)}")
    user = User(**fields)
    user.set_password(password)
    user.save()
    return user


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """The production hasher is deliberately slow; these tests hash hundreds of passwords."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _only_accounts_profile_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    """Test the profile page's own defaults, whatever other apps (rankings, games) register."""
    monkeypatch.setattr(accounts.profile, "_providers", [])


@pytest.fixture
def user_factory(db: None) -> Callable[..., User]:
    return make_user


@pytest.fixture
def player(db: None) -> User:
    return make_user(username="carmen", display_name="Carmen", email="carmen@example.com")


@pytest.fixture
def player_client(client: Client, player: User) -> Client:
    """A client signed in as `player`."""
    client.force_login(player, backend=BACKEND)
    return client
