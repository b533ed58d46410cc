"""Fixtures for the rankings tests (finished games and ladders come from tests/factories.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from accounts.models import User
from musweb.celery import app as celery_app
from tests.factories import UserFactory


@pytest.fixture
def players(db: None) -> Callable[[int], list[User]]:
    """``players(n)``: n fresh players, jug0, jug1…"""
    return UserFactory("jug").many


@pytest.fixture
def rated_on_finish() -> Iterator[None]:
    """Finished games are rated as on the site: game_ended → rankings.rate_game, run here."""
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = False
