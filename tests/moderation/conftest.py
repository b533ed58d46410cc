"""Fixtures for the moderation tests: a moderator and the admin signed in as them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import User
from tests.factories import login


@pytest.fixture
def moderator(make_user: Callable[..., User]) -> User:
    return make_user("moderadora", is_staff=True, is_superuser=True)


@pytest.fixture
def admin_client(client: Client, moderator: User) -> Client:
    """Signed in as a superuser moderator."""
    return login(moderator, client)
