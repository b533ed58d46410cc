"""Fixtures for the rankings tests (finished games and ladders come from tests/factories.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accounts.models import User
from tests.factories import UserFactory


@pytest.fixture
def players(db: None) -> Callable[[int], list[User]]:
    """``players(n)``: n fresh players, jug0, jug1…"""
    return UserFactory("jug").many
