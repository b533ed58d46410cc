"""The finished table's rematch box (htmx): asked for only while the tab is in view, and no more
once the rematch has started."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from tests.factories import finished_game, make_players, session_key

from .support import PHONE, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

POLL_MS = 4000
# The page sees itself in the background until the test says otherwise.
HIDDEN_TAB_JS = """
window.testHidden = true;
Object.defineProperty(Document.prototype, "hidden", { get: () => window.testHidden });
"""


def test_the_rematch_box_asks_only_in_view_and_stops_once_the_rematch_has_started(
    live_site: str, browser: Any, orm: Any
) -> None:
    def setup() -> tuple[int, list[Any], str]:
        players = make_players(["wanda", "xavi", "yago", "zoe"])
        table = finished_game(players)
        return table.pk, players, session_key(players[1])

    old, players, key = orm(setup)
    page = logged_in_page(browser, live_site, key, PHONE)
    asked: list[int] = []
    page.on("response", lambda r: asked.append(r.status) if "/revancha/" in r.url else None)
    page.add_init_script(HIDDEN_TAB_JS)
    page.goto(f"{live_site}/mesas/{old}/")
    page.locator("#result").wait_for(timeout=10_000)
    page.wait_for_timeout(POLL_MS + 1000)
    assert asked == []  # a tab in the background asks nothing
    assert page.locator("#rematch").inner_text() == ""

    page.evaluate("() => { window.testHidden = false; }")
    page.get_by_role("button", name="Pedir la revancha").wait_for(timeout=POLL_MS + 3000)
    assert asked and set(asked) == {200}

    for player in players:  # all four ask: the fourth starts the rematch
        orm(services.rematch, player, old)
    page.get_by_role("link", name="Ir a la revancha").wait_for(timeout=POLL_MS + 3000)
    assert asked[-1] == 286
    seen = len(asked)
    page.wait_for_timeout(POLL_MS + 1000)
    assert len(asked) == seen  # 286: nothing left to wait for, nothing more asked
    assert page.locator("#rematch .rematch-text").inner_text() == "Revancha: 4 de 4 en la mesa."
    assert not page.js_errors
