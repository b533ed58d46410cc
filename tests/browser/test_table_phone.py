"""Phones first (issue 15): a compact header, the actions always at hand when it is your turn,
the log and the chat as tabs with unread counts, a second step before an órdago, long names cut
short on the felt, and cards that move (unless the player asks for reduced motion)."""

from __future__ import annotations

from typing import Any

import pytest

from games.services import chat
from tests.factories import make_players, play_steps, session_key, stacked_table
from tests.live import screenshot

from .support import PHONE, logged_in_page, plain

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000
HANDS = {0: "12o 12c 11o 11c", 1: "6o 6c 10o 5c", 2: "7o 7c 10e 7e", 3: "11e 10b 12b 2e"}
LONG = "FranciscoJavierDeLaSantisimaTrinidadYTodosLosSantos"

IN_VIEW_JS = """(sel) => {
  const r = document.querySelector(sel).getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
}"""


def open_table(browser: Any, live_site: str, key: str, table_id: int, **options: Any) -> Any:
    page = logged_in_page(browser, live_site, key, options.pop("viewport", PHONE))
    if options.get("reduced_motion"):
        page.emulate_media(reduced_motion="reduce")
    page.goto(f"{live_site}/mesas/{table_id}/")
    page.wait_for_selector('#mus-table[data-connected="1"]', timeout=TIMEOUT)
    return page


def test_on_a_phone_the_turn_is_always_at_hand_and_the_chat_counts_what_is_unread(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, ["maite", "inaki", "ane", "jon"])
    table = orm(stacked_table, players, HANDS, 0)
    page = open_table(browser, live_site, orm(session_key, players[0]), table.pk)
    page.wait_for_selector("#mus-table.my-turn", timeout=TIMEOUT)
    # A compact header: the site's bar is one line, the score and its buttons another.
    assert page.locator(".site-header").bounding_box()["height"] <= 48
    assert page.locator(".scorebar").bounding_box()["height"] <= 44
    assert page.locator("#site-nav").is_hidden()
    page.get_by_role("button", name="Menú").click()
    assert page.locator("#site-nav").is_visible()
    page.get_by_role("button", name="Menú").click()
    # The turn: a bar at the bottom of the screen, with the clock, wherever the page is.
    assert page.evaluate(IN_VIEW_JS, "#actions")
    assert "Tu turno" in page.inner_text("#actions-turn")
    screenshot(page, "issue15-phone-your-turn")
    page.screenshot(path="test-artifacts/issue15-phone-your-turn-screen.png")
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate(IN_VIEW_JS, "#actions")
    assert page.evaluate(IN_VIEW_JS, 'button[data-act="mus"]')

    # Log and chat are tabs: a line in the hidden chat is counted on its tab and in the header.
    assert page.locator("#side-chat").is_hidden() and page.locator("#side-log").is_visible()
    orm(chat.post, players[1], table.pk, "¡Suerte!")
    orm(chat.post, players[2], table.pk, "Vamos allá")
    page.locator("#tab-chat .unread").get_by_text("2").wait_for(timeout=TIMEOUT)
    assert page.inner_text("#chat-jump-count") == "2"
    page.locator("#tab-chat").click()
    assert page.locator("#side-chat").is_visible() and page.locator("#side-log").is_hidden()
    page.locator("#tab-chat .unread").wait_for(state="hidden", timeout=TIMEOUT)
    assert page.locator("#chat-jump-count").is_hidden()
    assert page.locator("#tab-chat").get_attribute("aria-selected") == "true"
    # What the others say goes to the log tab's count while the chat is open.
    page.locator("#tab-log").focus()
    orm(play_steps, table.pk, "0 corto")  # Maite cuts herself: the grande begins
    page.wait_for_selector('#mus-table[data-phase="lance"]', timeout=TIMEOUT)
    assert page.locator("#side-log").is_hidden()
    assert page.inner_text("#tab-log .unread") == "1"
    screenshot(page, "issue15-phone-tabs")
    assert page.js_errors == []


def test_an_ordago_asks_twice(live_site: str, browser: Any, orm: Any) -> None:
    players = orm(make_players, ["maite", "inaki", "ane", "jon"])
    table = orm(stacked_table, players, HANDS, 0)
    orm(play_steps, table.pk, "0 corto")
    page = open_table(browser, live_site, orm(session_key, players[0]), table.pk)
    # The amount chooser folds away on a phone (the bar stays low over the cards).
    assert page.locator("#envido-more").is_hidden()
    page.get_by_role("button", name="Otra cantidad").click()
    assert page.locator("#envido-more").is_visible()
    assert page.locator("#envido-toggle").get_attribute("aria-expanded") == "true"
    v = int(page.get_attribute("#mus-table", "data-v"))
    page.locator('#act-row button[data-act="ordago"]').click()
    assert page.locator("#confirm-ordago").is_visible() and page.locator("#act-row").is_hidden()
    assert "partida entera" in page.inner_text("#confirm-ordago")
    screenshot(page, "issue15-phone-ordago-confirm")
    page.get_by_role("button", name="Mejor no").click()
    assert page.locator("#act-row").is_visible()
    assert int(page.get_attribute("#mus-table", "data-v")) == v  # nothing was sent
    page.locator('#act-row button[data-act="ordago"]').click()
    page.get_by_role("button", name="Sí, órdago").click()
    page.wait_for_selector("#bet.ordago", timeout=TIMEOUT)
    assert page.js_errors == []


def test_a_long_name_is_cut_short_on_the_felt_and_shown_whole_on_a_tap(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, ["maite", LONG.lower(), "ane", "jon"])
    table = orm(stacked_table, players, HANDS, 0)
    page = open_table(browser, live_site, orm(session_key, players[0]), table.pk)
    name = page.locator(".seat.pos-right .seat-name")
    assert plain(name.get_attribute("title")).startswith(LONG.lower())
    assert page.evaluate(
        "() => { const t = document.querySelector('.seat.pos-right .seat-name-text');"
        " return t.scrollWidth > t.clientWidth; }"
    )
    assert name.bounding_box()["height"] < 30  # one line, not a tower of letters
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    name.click()
    assert "full" in name.get_attribute("class")
    assert LONG.lower() in name.inner_text()
    screenshot(page, "issue15-phone-long-name")
    assert page.js_errors == []


@pytest.mark.parametrize("reduced", [False, True])
def test_dealt_and_changed_cards_slide_in_unless_motion_is_reduced(
    live_site: str, browser: Any, orm: Any, reduced: bool
) -> None:
    players = orm(make_players, ["maite", "inaki", "ane", "jon"])
    table = orm(stacked_table, players, HANDS, 0)
    page = open_table(
        browser, live_site, orm(session_key, players[0]), table.pk, reduced_motion=reduced
    )
    assert page.locator(".card-img.arrive").count() == 0  # opening the page deals nothing
    orm(play_steps, table.pk, "0 mus", "1 mus", "2 mus", "3 mus")
    orm(play_steps, table.pk, "1 descarte 5c", "2 descarte 10e", "3 descarte 2e 12b")
    page.wait_for_selector('#mus-table[data-phase="descarte"]', timeout=TIMEOUT)
    page.locator(".hand.mine .card-btn").nth(3).click()
    page.locator('#act-row button[data-act="descarte"]').click()
    page.wait_for_selector('#mus-table[data-phase="mus"]', timeout=TIMEOUT)
    arriving = page.evaluate(
        """() => [...document.querySelectorAll('.card-img.arrive')].map((img) =>
             [img.closest('.seat').dataset.pos, getComputedStyle(img).animationName])"""
    )
    # One new card for Maite, one for Iñaki and Ane, two for Jon.
    assert sorted(pos for pos, _ in arriving) == ["bottom", "left", "left", "right", "top"]
    assert {anim for _, anim in arriving} == ({"none"} if reduced else {"deal-in"})
    assert page.js_errors == []
