"""Helpers for the browser tests: players, a started table and logged-in Playwright pages.

Everything here that touches the database must run through the `orm` fixture (see conftest).
"""

from __future__ import annotations

import random
from typing import Any

from django.conf import settings

from accounts.models import User
from accounts.sessions import new_session_key as session_key_for  # noqa: F401 - shared helper
from games import services
from games.models import Table

PASSWORD = "Contraseña-muy-segura-1"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def make_players(names: list[str]) -> list[User]:
    return [User.objects.create_user(username=name, password=PASSWORD) for name in names]


def started_table(players: list[User], mode: str = "4-reyes", seed: int = 1) -> Table:
    """Seats players[i] at seat i and deals the first hand from a seeded deck."""
    table = services.create_table(players[0], mode)
    for seat in range(1, 4):
        services.take_seat(players[seat], table.pk, seat)
    services.start_game(players[0], table.pk, random.Random(seed))
    table.refresh_from_db()
    return table


def logged_in_page(browser: Any, base_url: str, session_key: str, viewport: dict[str, int]) -> Any:
    """A page in a fresh browser context that carries a logged-in session cookie."""
    context = browser.new_context(viewport=viewport, locale="es-ES")
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session_key, "url": base_url}]
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    page.js_errors = errors  # checked by the tests: no JS errors, no CSP violations
    return page
