"""A player's bots on screen (issue #36): «Mis bots» with a new token, «Retar» on a bot's
profile, and the bot named with its owner at the table; on a desktop and on a phone."""

from __future__ import annotations

from typing import Any

import pytest

from accounts import bot_accounts
from games import services
from games.models import Table
from tests.factories import make_user, session_key, started_table
from tests.live import screenshot

from .support import PHONE, logged_in_page, plain

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 800}


def owner_and_bot_at_a_table() -> dict[str, Any]:
    owner = make_user("dueña")
    bot = bot_accounts.create_bot_account(owner, "Trasto")
    people = [make_user(n) for n in ("ana", "blas", "celia")]
    table = started_table([*people, bot], bots_allowed=True)
    return {
        "owner_key": session_key(owner),
        "person_key": session_key(people[0]),
        "table": table.pk,
    }


def test_a_players_bots_on_screen(live_site: str, browser: Any, orm: Any) -> None:
    data = orm(owner_and_bot_at_a_table)
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        owner = logged_in_page(browser, live_site, data["owner_key"], viewport)
        owner.goto(f"{live_site}/cuentas/bots/")
        owner.get_by_role("button", name="Crear un token").click()
        token = owner.locator("code.bot-token").inner_text()
        assert token.startswith("mus_")
        screenshot(owner, f"bot-accounts-{name}")
        assert owner.evaluate("document.documentElement.scrollWidth") <= viewport["width"]

        person = logged_in_page(browser, live_site, data["person_key"], viewport)
        person.goto(f"{live_site}/jugadores/Trasto/")
        assert "bot de dueña" in plain(person.locator("h1").inner_text())
        assert person.get_by_role("button", name="Retar").is_visible()
        screenshot(person, f"bot-profile-{name}")
        person.goto(f"{live_site}/mesas/{data['table']}/")
        person.locator(".seat").first.wait_for(timeout=10_000)
        person.get_by_text("Trasto (bot de dueña)").first.wait_for(timeout=10_000)
        screenshot(person, f"bot-at-table-{name}")
        assert person.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        assert not owner.js_errors and not person.js_errors
    orm(lambda: services.cancel_game(data["table"], Table.CancelReason.SYSTEM))
