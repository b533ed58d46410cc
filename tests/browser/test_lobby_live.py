"""The lobby updates itself: a table created in one browser appears in another without reloading
(pushed over /ws/sala/ by beat's lobby task), and a visitor who may not sit sees «libre»."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Table
from tests.factories import PASSWORD
from tests.live import celery_worker, screenshot

from .support import DESKTOP, PHONE

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000


def sign_up(browser: Any, base_url: str, username: str, viewport: dict[str, int]) -> Any:
    """A new visitor creates an account through the form and lands on the lobby."""
    page = browser.new_context(viewport=viewport, locale="es-ES").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    page.goto(f"{base_url}/cuentas/registro/")
    page.fill('input[name="username"]', username)
    page.fill('input[name="password1"]', PASSWORD)
    page.fill('input[name="password2"]', PASSWORD)
    page.locator('form[action="/cuentas/registro/"] button[type="submit"]').click()
    page.wait_for_url(f"{base_url}/", timeout=TIMEOUT)
    assert username in page.inner_text(".site-header")
    return page


def test_a_new_table_appears_in_the_lobby_without_reloading(
    live_site: str, browser: Any, orm: Any
) -> None:
    with celery_worker(beat=True, MUS_LOBBY_SECONDS="1"):
        play_the_scene(live_site, browser, orm)


def play_the_scene(live_site: str, browser: Any, orm: Any) -> None:
    visitor = browser.new_context(viewport=PHONE, locale="en-GB").new_page()
    visitor_errors: list[str] = []
    visitor.on("pageerror", lambda exc: visitor_errors.append(str(exc)))
    visitor.goto(f"{live_site}/")
    host = sign_up(browser, live_site, "lucia", DESKTOP)
    guest = sign_up(browser, live_site, "mateo", PHONE)

    # The guest watches the lobby; a marker on `window` proves the page is never reloaded.
    guest.evaluate("() => { window.sameLobbyPage = true; }")
    assert guest.locator("li.table-card").count() == 0
    screenshot(guest, "lobby-1-empty-phone")

    host.locator('form[action="/mesas/nueva/"] button[type=submit]').click()
    host.wait_for_url(f"{live_site}/mesas/*/", timeout=TIMEOUT)
    table_id = int(host.url.rstrip("/").rsplit("/", 1)[1])
    assert orm(lambda: Table.objects.get(pk=table_id).host.username) == "lucia"
    screenshot(host, "lobby-2-host-waiting")

    card = guest.locator(f'li.table-card[data-table="{table_id}"]')
    card.wait_for(timeout=TIMEOUT)  # pushed within a second or two
    assert guest.evaluate("() => window.sameLobbyPage === true")
    assert "lucia" in card.inner_text()
    screenshot(guest, "lobby-3-table-appeared-phone")

    # A visitor (in English) sees the same table, its seats free but no form to sit.
    seen = visitor.locator(f'li.table-card[data-table="{table_id}"]')
    seen.wait_for(timeout=TIMEOUT)
    assert seen.locator("button", has_text="Sit down").first.is_hidden()
    assert seen.locator(".seat-free", has_text="free").first.is_visible()

    card.locator("button", has_text="Sentarse").first.click()
    guest.wait_for_url(f"{live_site}/mesas/{table_id}/", timeout=TIMEOUT)
    assert "mateo" in guest.inner_text(".seats-big")

    # The visitor's card changes in place (an update without the lists, whose order is the same).
    visitor.locator(f'li.table-card[data-table="{table_id}"]', has_text="mateo").wait_for(
        timeout=TIMEOUT
    )
    assert visitor.locator("li.table-card").count() == 1

    # The host's waiting page is told over the table's socket (its poll is every 30 s, beyond
    # this wait): the guest shows up in a seat.
    host.locator(".seats-big .seat-name", has_text="mateo").wait_for(timeout=TIMEOUT)
    seated = orm(
        lambda: sorted(Table.objects.get(pk=table_id).seats.values_list("seat", flat=True))
    )
    assert seated == [0, 1]
    screenshot(host, "lobby-4-guest-seated-host")
    screenshot(guest, "lobby-5-guest-seated-phone")

    assert host.js_errors == [] and guest.js_errors == [] and visitor_errors == []
