"""The replay opens at the deal and is laid out as the table was (issue 15), the lobby asks
about the ranking only for a private table, and leaving a practice asks first."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import finished_game, make_players, session_key
from tests.live import screenshot

from .support import PHONE, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000
LAPTOP = {"width": 1366, "height": 768}


def test_the_replay_opens_at_the_deal_with_the_seats_as_at_the_table(
    live_site: str, browser: Any, orm: Any
) -> None:
    def setup() -> tuple[int, str, int]:
        players = make_players(["nerea", "oier", "paula", "quique"])
        table = finished_game(players, winner=0)
        return table.pk, session_key(players[1]), len(table.record["hands"][0]["actions"])

    game, key, steps = orm(setup)
    for viewport, name in ((LAPTOP, "desktop"), (PHONE, "phone")):
        page = logged_in_page(browser, live_site, key, viewport)
        page.goto(f"{live_site}/partidas/{game}/")
        where = page.inner_text(".rankings-replay-where")
        assert where == f"Mano 1 · paso 0 de {steps}"
        assert "Aún no se ha jugado ningún lance." in page.inner_text("#replay")
        # Oier (seat 1) sees himself at the bottom and his partner Quique at the top.
        assert "oier" in page.inner_text(".rankings-replay-seat.pos-bottom")
        assert "quique" in page.inner_text(".rankings-replay-seat.pos-top")
        top = page.locator(".rankings-replay-seat.pos-top").bounding_box()
        bottom = page.locator(".rankings-replay-seat.pos-bottom").bounding_box()
        assert top["y"] < bottom["y"]
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.locator("#replay").scroll_into_view_if_needed()
        screenshot(page, f"issue15-replay-at-the-deal-{name}")
        # A step on with the keyboard; at the end of the hand every lance is there.
        page.keyboard.press("ArrowRight")
        page.get_by_text(f"Mano 1 · paso 1 de {steps}").wait_for(timeout=TIMEOUT)
        page.goto(f"{live_site}/partidas/{game}/?mano=1&paso={steps}")
        assert page.locator(".rankings-lances tr.lance-row").count() >= 4
        assert page.js_errors == []


def test_the_ranking_box_shows_only_for_a_private_table(
    live_site: str, browser: Any, orm: Any
) -> None:
    (player,) = orm(make_players, ["rebeca"])
    page = logged_in_page(browser, live_site, orm(session_key, player), PHONE)
    page.goto(f"{live_site}/")
    form = page.locator("form.create-table").first
    rated = form.locator('input[name="rated"]')
    assert rated.is_hidden()
    assert form.locator(".public-only").is_visible()
    assert form.locator('input[name="mode"][value="8-reyes"]').is_checked()
    form.locator('input[name="private"]').check()
    assert rated.is_visible() and rated.is_checked()
    assert form.locator(".public-only").is_hidden()
    assert page.js_errors == []


def test_leaving_a_practice_asks_first(live_site: str, browser: Any, orm: Any) -> None:
    (player,) = orm(make_players, ["sonia"])
    page = logged_in_page(browser, live_site, orm(session_key, player), PHONE)
    page.goto(f"{live_site}/")
    page.locator("form.practice button[type=submit]").click()
    page.wait_for_selector('#mus-table[data-connected="1"]', timeout=TIMEOUT)
    questions: list[str] = []

    def answer(dialog: Any, accept: bool) -> None:
        questions.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda d: answer(d, False))
    page.get_by_role("button", name="Dejar la práctica").click()
    assert questions == ["¿Dejas la práctica? La partida se cancela y no se puede seguir."]
    assert "/mesas/" in page.url  # still at the table
    page.once("dialog", lambda d: answer(d, True))
    page.get_by_role("button", name="Dejar la práctica").click()
    page.wait_for_url(f"{live_site}/", timeout=TIMEOUT)
    assert "Has dejado la práctica." in page.inner_text(".messages")
    assert page.js_errors == []
