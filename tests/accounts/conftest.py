"""Fixtures for the accounts tests."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

import accounts.profile
from accounts.models import User
from tests.factories import login, make_user


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """The production hasher is deliberately slow; these tests hash hundreds of passwords."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _only_accounts_profile_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    """Test the profile page's own defaults, whatever other apps (rankings, games) register."""
    monkeypatch.setattr(accounts.profile, "_providers", [])


@pytest.fixture
def player(db: None) -> User:
    return make_user("carmen", display_name="Carmen", email="carmen@example.com")


@pytest.fixture
def player_client(client: Client, player: User) -> Client:
    """A client signed in as `player`."""
    return login(player, client)
