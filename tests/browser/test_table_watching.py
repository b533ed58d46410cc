"""Watching (issue 15): a visitor who is not logged in watches a public table read-only, like a
logged-in onlooker, and is told plainly when a table is not theirs to watch: never an endless
«Reconectando…»."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from tests.factories import make_players, play_steps, start_seated, started_table
from tests.live import screenshot

from .support import PHONE

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000


def visitor(browser: Any) -> Any:
    page = browser.new_context(viewport=PHONE, locale="es-ES").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    return page


def test_a_visitor_who_is_not_logged_in_watches_a_public_table(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, ["olatz", "peio", "rosa", "unai"])
    table = orm(started_table, players, seed=4)
    page = visitor(browser)
    page.goto(f"{live_site}/mesas/{table.pk}/")
    page.wait_for_selector('#mus-table[data-connected="1"]', timeout=TIMEOUT)
    assert page.locator("#conn").is_hidden() and page.locator("#table-notice").is_hidden()
    assert "Estás mirando esta partida" in page.inner_text(".scorebar")
    assert page.locator(".card-img.face").count() == 0  # nobody's cards
    assert page.locator("#actions").is_hidden() and page.locator("#chat-form").count() == 0
    # The game goes on under their eyes.
    v = int(page.get_attribute("#mus-table", "data-v"))
    mano = orm(lambda: services.game_of(services.load_table(table.pk)).mano)
    orm(play_steps, table.pk, f"{mano} mus")
    page.wait_for_function(
        "v => +document.getElementById('mus-table').dataset.v > v", arg=v, timeout=TIMEOUT
    )
    assert page.locator(".bubble", has_text="¡Mus!").count() == 1
    screenshot(page, "issue15-visitor-watching-phone")
    assert page.js_errors == []


def test_a_visitor_is_told_why_a_private_table_cannot_be_watched(
    live_site: str, browser: Any, orm: Any
) -> None:
    def private_game() -> Any:
        players = make_players(["sara", "telmo", "uxue", "xabi"])
        table = services.create_table(players[0], "4-reyes", private=True)
        for seat in (1, 2, 3):
            services.take_seat(players[seat], table.pk, seat, table.invite_token)
        start_seated(players[0], table)
        table.refresh_from_db()
        return table

    table = orm(private_game)
    page = visitor(browser)
    # The invitation opens the page; watching the game needs an account.
    page.goto(f"{live_site}/mesas/invitacion/{table.invite_token}/")
    notice = page.locator("#table-notice")
    notice.wait_for(timeout=TIMEOUT)
    assert notice.inner_text() == "Entra con tu cuenta para ver esta mesa. Entrar"
    assert "/cuentas/entrar/?next=" in notice.locator("a").get_attribute("href")
    page.wait_for_timeout(1500)
    assert page.locator("#conn").is_hidden()  # no «Reconectando…»
    assert page.js_errors == []
