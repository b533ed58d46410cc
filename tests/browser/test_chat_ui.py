"""Table chat in the browser: lines appear for everybody, as text, never as markup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.factories import make_players, session_key, started_table
from tests.live import screenshot

from .support import DESKTOP, PHONE, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_chat_lines_reach_the_table_as_plain_text(
    live_site: str, browser: Any, orm: Callable[..., Any]
) -> None:
    players = orm(make_players, ["ana", "bruno", "carmen", "dani"])
    table = orm(started_table, players)
    ana = logged_in_page(browser, live_site, orm(session_key, players[0]), DESKTOP)
    bruno = logged_in_page(browser, live_site, orm(session_key, players[1]), PHONE)
    for page in (ana, bruno):
        page.goto(f"{live_site}/mesas/{table.pk}/")
        page.wait_for_selector("#mus-table[data-connected='1']", timeout=20_000)
    bruno.locator("#tab-chat").click()  # on a phone the chat is a tab
    ana.fill("#chat-input", "<b>hola</b> & buena suerte")
    ana.click("#chat-form button[type=submit]")
    line = bruno.locator("#chat-log li").last
    line.wait_for(timeout=10_000)
    assert "<b>hola</b> & buena suerte" in line.inner_text()
    assert bruno.locator("#chat-log b").count() == 0
    # The speaker's name is isolated from the line (a right-to-left name reorders nothing).
    assert line.locator("strong bdi").inner_text() == "ana"
    bruno.click("#quick-phrases button[data-phrase='Buena mano']")
    ana.locator("#chat-log li", has_text="Buena mano").wait_for(timeout=10_000)
    screenshot(ana, "chat-desktop")
    screenshot(bruno, "chat-phone")
    assert ana.js_errors == [] and bruno.js_errors == []
