"""A player's bot account on its profile's ratings panel (issue #36, docs/bot-api.md)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import bot_accounts
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_a_bot_accounts_profile_shows_the_bots_ladders_only() -> None:
    bot_accounts.create_bot_account(make_user("dueña"), "Trasto")
    page = Client().get("/jugadores/Trasto/").content.decode()
    assert "no puntúan en el ranking de las personas" in page
    assert "Bots · 4 reyes" in page and "Bots · 8 reyes" in page
    assert "Mus · 4 reyes" not in page  # no people's ladder shown for it
    person = Client().get("/jugadores/dueña/").content.decode()
    assert "Mus · 4 reyes" in person and "no puntúan" not in person
    assert "Bots · 4 reyes" not in person  # a person without bots-ladder games
