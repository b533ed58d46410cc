"""A regular's first hour at the table (issue 31): their own four cards in view at every phase,
on a laptop and on a phone, never under the action bar or a chip; the lances of the last hand
after the game; the phone's lobby with «Jugar ya» first."""

from __future__ import annotations

from typing import Any

import pytest

from games import engine, services
from games.models import Table
from tests.factories import make_players, play_steps, session_key, stacked_table
from tests.live import screenshot

from .support import PHONE, logged_in_page, plain

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000
LAPTOP = {"width": 1366, "height": 800}
VIEWPORTS = {"desktop": LAPTOP, "phone": PHONE}
NAMES = ["maite", "inaki", "ane", "jon"]
HANDS = {0: "12o 12c 11o 11c", 1: "6o 6c 10o 5c", 2: "7o 7c 10e 7e", 3: "11e 10b 12b 2e"}
# Grande querido, chica en paso, pares no querido, juego querido: a recuento of four lances.
TO_RECUENTO = (
    *("0 paso", "1 paso", "2 paso", "3 envido 2", "0 quiero", "2 no_quiero"),
    *("0 paso", "1 paso", "2 paso", "3 paso"),
    *("0 envido 2", "1 no_quiero"),
    *("0 paso", "2 envido 2", "3 envido 5", "0 quiero", "2 quiero"),
)
# Grande and chica en paso; at pares Iñaki goes órdago, Maite and Ane accept: the game ends.
TO_END = (
    *("0 paso", "1 paso", "2 paso", "3 paso"),
    *("0 paso", "1 paso", "2 paso", "3 paso"),
    *("0 paso", "1 ordago", "0 quiero", "2 quiero"),
)

# Only Maite has juego (40): she wins it without a bet, and her chip says so at length.
HANDS_40 = {0: "12o 12c 11o 11c", 1: "6o 6c 10o 5c", 2: "7o 7c 10e 6e", 3: "11e 10b 4b 2e"}


def pass_to_recuento(table_id: int) -> None:
    """Every player passes (or refuses) until the hand reaches its recuento."""
    for _ in range(40):
        table = Table.objects.get(pk=table_id)
        game = services.game_of(table)
        assert game is not None
        if game.phase == "recuento":
            return
        seat = game.to_act()[0]
        acts = [a["act"] for a in engine.legal_actions(game, seat)]
        act = next(a for a in ("corto", "paso", "no_quiero") if a in acts)
        services.apply_action(table, engine.Action(seat, act))
    raise AssertionError("no recuento")


# What covers each of the player's cards, or is off screen: [] when all four are seen whole.
HIDDEN_CARDS_JS = """() => {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const boxes = (sel) => [...document.querySelectorAll(sel)]
    .filter((n) => n.offsetParent !== null || getComputedStyle(n).position === "fixed")
    .map((n) => [sel, n.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && r.height > 0);
  const cards = boxes(".seat.pos-bottom .hand .card-img");
  const covers = [...boxes("#actions"), ...boxes(".chip"), ...boxes(".bubble"), ...boxes(".side-tabs")];
  const cut = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const problems = [];
  if (cards.length !== 4) problems.push(`${cards.length} cards`);
  cards.forEach(([, r], i) => {
    if (r.left < 0 || r.top < 0 || r.right > vw || r.bottom > vh)
      problems.push(`card ${i} off screen: ${Math.round(r.top)}..${Math.round(r.bottom)} of ${vh}`);
    for (const [sel, c] of covers)
      if (cut(r, c)) problems.push(`card ${i} under ${sel}`);
  });
  return problems;
}"""

# Chips (what a hand won, pares and juego) that run off the screen's sides.
CHIPS_OFF_JS = """() => {
  const vw = document.documentElement.clientWidth;
  return [...document.querySelectorAll(".chip")]
    .map((n) => [n.textContent, n.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && (r.left < 0 || r.right > vw))
    .map(([t]) => t);
}"""

# The bar's own colour and opacity: nothing under it shows through.
BAR_OPAQUE_JS = """() => {
  const bar = document.getElementById("actions");
  const bg = getComputedStyle(bar).backgroundColor;
  const alpha = bg.startsWith("rgba") ? parseFloat(bg.split(",")[3]) : 1;
  return alpha === 1 && getComputedStyle(bar).opacity === "1";
}"""


def open_table(
    browser: Any, live_site: str, orm: Any, user: Any, table: Any, viewport: dict
) -> Any:
    page = logged_in_page(browser, live_site, orm(session_key, user), viewport)
    page.emulate_media(reduced_motion="reduce")  # cards still: their boxes are where they stay
    page.goto(f"{live_site}/mesas/{table.pk}/")
    page.wait_for_selector('#mus-table[data-connected="1"]', timeout=TIMEOUT)
    return page


def seen_whole(page: Any, phase: str, name: str) -> None:
    page.wait_for_selector(f'#mus-table[data-phase="{phase}"]', timeout=TIMEOUT)
    page.wait_for_timeout(300)  # the bar's height settles (ResizeObserver)
    page.screenshot(path=f"test-artifacts/{name}-screen.png")
    screenshot(page, name)
    assert page.evaluate(HIDDEN_CARDS_JS) == [], name
    assert page.evaluate(CHIPS_OFF_JS) == [], name
    assert page.evaluate(BAR_OPAQUE_JS), name


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_your_four_cards_are_in_view_at_every_phase(
    live_site: str, browser: Any, orm: Any, size: str
) -> None:
    viewport = VIEWPORTS[size]
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    page = open_table(browser, live_site, orm, players[0], table, viewport)
    page.wait_for_selector("#mus-table.my-turn", timeout=TIMEOUT)
    seen_whole(page, "mus", f"issue31-cards-1-mus-{size}")
    orm(play_steps, table.pk, "0 mus", "1 mus", "2 mus", "3 mus")
    seen_whole(page, "descarte", f"issue31-cards-2-descarte-{size}")
    page.close()

    players = orm(make_players, [f"{n}2" for n in NAMES])  # one table at a time each
    table = orm(stacked_table, players, HANDS, 0)
    orm(play_steps, table.pk, "0 corto", "0 paso", "1 paso", "2 paso", "3 envido 2")
    page = open_table(browser, live_site, orm, players[0], table, viewport)
    seen_whole(page, "lance", f"issue31-cards-3-lances-{size}")
    orm(play_steps, table.pk, *TO_RECUENTO[4:])
    seen_whole(page, "recuento", f"issue31-cards-4-recuento-{size}")
    page.close()

    players = orm(make_players, [f"{n}3" for n in NAMES])
    table = orm(stacked_table, players, HANDS, 0)
    orm(play_steps, table.pk, "0 corto", *TO_END)
    page = open_table(browser, live_site, orm, players[0], table, viewport)
    page.locator("#rematch button").first.wait_for(timeout=TIMEOUT)
    seen_whole(page, "terminada", f"issue31-cards-5-end-{size}")
    # The result and the rematch are in view too.
    for selector in ("#result-title", "#rematch button"):
        box = page.locator(selector).first.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"]
    assert page.js_errors == []


def test_on_a_phone_a_long_chip_at_a_side_seat_stays_on_screen(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS_40, 0)
    orm(pass_to_recuento, table.pk)
    # Iñaki has Maite on his left: «Juego · juego de 40» by the screen's edge.
    page = open_table(browser, live_site, orm, players[1], table, PHONE)
    page.wait_for_selector('#mus-table[data-phase="recuento"]', timeout=TIMEOUT)
    assert "Juego · juego de 40" in page.inner_text(".seat.pos-left .chips")
    screenshot(page, "issue31-long-chip-phone")
    assert page.evaluate(CHIPS_OFF_JS) == []
    assert page.evaluate(HIDDEN_CARDS_JS) == []


def test_after_the_game_the_phone_lances_tab_shows_the_last_hand(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    page = open_table(browser, live_site, orm, players[0], table, PHONE)
    page.locator("#tab-lances").click()
    # Before any lance, the tab says there is none yet (not an empty table).
    assert page.inner_text("#lances-side tbody") == (
        "Todavía no se ha jugado ningún lance en esta mano."
    )
    orm(play_steps, table.pk, "0 corto", *TO_END)
    page.wait_for_selector('#mus-table[data-phase="terminada"]', timeout=TIMEOUT)
    page.locator("#tab-lances").click()
    rows = page.locator("#lances-side tr.lance-row")
    assert rows.count() == 3
    assert rows.nth(2).is_visible()
    assert "maite · duples" in plain(rows.nth(2).inner_text())
    page.locator("#side-lances").scroll_into_view_if_needed()
    screenshot(page, "issue31-lances-tab-after-the-game-phone")
    assert page.js_errors == []


def test_partners_who_vote_differently_read_as_one_answer_and_stale_bubbles_go(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    # Iñaki bets; Ane refuses but Maite raises: the raise is their answer. Iñaki raises again
    # while Jon accepts: the raise is theirs. Maite and Ane answer it now.
    orm(play_steps, table.pk, "0 corto", "0 paso", "1 envido 2", "2 no_quiero", "0 envido 4")
    orm(play_steps, table.pk, "3 quiero", "1 envido 7")
    page = open_table(browser, live_site, orm, players[0], table, LAPTOP)
    page.wait_for_selector("#mus-table.my-turn", timeout=TIMEOUT)
    bubble = lambda pos: plain(page.locator(f".seat.pos-{pos} .bubble").text_content())  # noqa: E731
    assert page.locator(".seat.pos-top .bubble").is_hidden()  # Ane's «No quiero» is gone
    assert page.locator(".seat.pos-left .bubble").is_hidden()  # and Jon's «Quiero»
    assert bubble("right").startswith("Tres más")
    assert bubble("bottom").startswith("Dos más")
    lines = [plain(t) for t in page.locator("#log li").all_inner_texts()]
    assert "ane No quiero no cuenta" in lines
    assert "maite y ane: Dos más 4 en la mesa" in lines
    assert "jon Quiero no cuenta" in lines
    assert lines[-1] == "inaki y jon: Tres más 7 en la mesa"
    screenshot(page, "issue31-pair-answer-desktop")
    assert page.js_errors == []


def test_the_recuento_row_says_what_beat_what_and_a_tie_won_by_mano(
    live_site: str, browser: Any, orm: Any
) -> None:
    # Maite (mano) and Iñaki hold the same hand, 31: she wins every lance by mano.
    tied = {0: "12o 12c 7o 4o", 1: "12e 12b 7c 4c", 2: "11o 10o 6o 5o", 3: "11c 10c 6c 5e"}
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, tied, 0)
    orm(pass_to_recuento, table.pk)
    page = open_table(browser, live_site, orm, players[1], table, PHONE)
    page.wait_for_selector('#mus-table[data-phase="recuento"]', timeout=TIMEOUT)

    def row(lance: str) -> Any:
        return page.locator(f'#lances-center tr.lance-row[data-lance="{lance}"]')

    for lance in ("grande", "chica"):
        beat = row(lance).locator(".beat")
        assert beat.is_visible()  # in the row, not a tooltip a phone never shows
        assert plain(beat.inner_text()) == "empata con inaki: gana por mano"
    assert plain(row("juego").locator(".beat").inner_text()) == (
        "empata con inaki (31): gana por mano"
    )
    screenshot(page, "issue31-ties-phone")
    assert page.js_errors == []


def drop(table_id: int, seat: int, seconds: int) -> None:
    """`seat`'s player dropped: their seat waits for them `seconds` more."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Seat

    Seat.objects.filter(table_id=table_id, seat=seat).update(
        connections=0, reconnect_deadline=timezone.now() + timedelta(seconds=seconds)
    )


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_seat_whose_player_dropped_says_so_and_what_its_seconds_are(
    live_site: str, browser: Any, orm: Any, size: str
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    orm(drop, table.pk, 1, 40)  # Iñaki, on Maite's right
    page = open_table(browser, live_site, orm, players[0], table, VIEWPORTS[size])
    away = page.locator(".seat.pos-right .seat-away")
    away.wait_for(timeout=TIMEOUT)
    text = " ".join(away.inner_text().split())
    assert text.startswith("Sin conexión Le quedan ")
    assert text.endswith(" s para toda la partida; a 0, se cancela.")
    # Whole, inside its seat and on screen.
    seat = page.locator(".seat.pos-right").bounding_box()
    box = away.bounding_box()
    width = VIEWPORTS[size]["width"]
    assert seat["x"] <= box["x"] and box["x"] + box["width"] <= min(
        width, seat["x"] + seat["width"]
    )
    screenshot(page, f"issue31-dropped-seat-{size}")
    assert page.js_errors == []


def open_tables(hosts: list[Any]) -> None:
    for host in hosts:
        services.create_table(host, "4-reyes")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_jugar_ya_is_the_first_thing_in_the_lobby(
    live_site: str, browser: Any, orm: Any, size: str
) -> None:
    me, *hosts = orm(make_players, ["maite", "inaki", "ane", "jon"])
    orm(open_tables, hosts)
    page = logged_in_page(browser, live_site, orm(session_key, me), VIEWPORTS[size])
    page.goto(f"{live_site}/")
    page.locator("#lobby-open li").nth(2).wait_for(timeout=TIMEOUT)
    quick = page.locator(".quick-play").bounding_box()
    button = page.locator(".quick-play button").first.bounding_box()
    tables = page.locator("#lobby-open").bounding_box()
    height = VIEWPORTS[size]["height"]
    # «Jugar ya» and its first button on the first screen, without scrolling.
    assert button["y"] + button["height"] <= height
    if size == "phone":
        assert quick["y"] + quick["height"] <= tables["y"]  # above the tables
    else:
        assert quick["x"] >= tables["x"] + tables["width"]  # the right column, at its top
        assert quick["y"] <= tables["y"]
    page.screenshot(path=f"test-artifacts/issue31-lobby-{size}-screen.png")
    assert page.js_errors == []
