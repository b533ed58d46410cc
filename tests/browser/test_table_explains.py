"""The table explains itself (issue 15): the recuento broken down lance by lance with the hands
that won, raises said as players say them, the first hand's cut to mano and the postre, and an
órdago's end that names the lance and the hands."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import make_players, play_steps, session_key, stacked_table
from tests.live import screenshot

from .support import PHONE, logged_in_page, plain

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000
LAPTOP = {"width": 1366, "height": 768}

# 4 reyes, seat 0 mano. Maite (0): duples of reyes and caballos, 40. Iñaki (1): a par of seises,
# 27. Ane (2): medias of sietes, 31. Jon (3): no pares, 32.
HANDS = {0: "12o 12c 11o 11c", 1: "6o 6c 10o 5c", 2: "7o 7c 10e 7e", 3: "11e 10b 12b 2e"}
NAMES = ["maite", "inaki", "ane", "jon"]
# Grande: Jon bets 2, accepted. Chica en paso. Pares: Maite bets 2, refused (deje 1). Juego:
# Ane bets 2, Jon raises to 5 («Tres más»), accepted.
TO_RECUENTO = (
    "0 corto",
    *("0 paso", "1 paso", "2 paso", "3 envido 2", "0 quiero", "2 no_quiero"),
    *("0 paso", "1 paso", "2 paso", "3 paso"),
    *("0 envido 2", "1 no_quiero"),
    *("0 paso", "2 envido 2", "3 envido 5", "0 quiero", "2 quiero"),
)


def open_table(
    browser: Any, live_site: str, orm: Any, user: Any, table: Any, viewport: dict
) -> Any:
    page = logged_in_page(browser, live_site, orm(session_key, user), viewport)
    page.goto(f"{live_site}/mesas/{table.pk}/")
    page.wait_for_selector('#mus-table[data-connected="1"]', timeout=TIMEOUT)
    return page


def row_text(page: Any, lance: str) -> str:
    """The recuento row of `lance` with the line of its parts under it, as one text."""
    return plain(
        page.evaluate(
            """(lance) => {
          const row = document.querySelector(`#lances-center tr.lance-row[data-lance="${lance}"]`);
          const next = row.nextElementSibling;
          const parts = next && next.classList.contains("parts-row") ? next.innerText : "";
          return `${row.innerText} | ${parts}`.replace(/\\s+/g, " ").trim();
        }""",
            lance,
        )
    )


def test_the_recuento_says_what_each_lance_is_made_of_and_which_hand_won_it(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    orm(play_steps, table.pk, *TO_RECUENTO)
    maite = open_table(browser, live_site, orm, players[0], table, LAPTOP)
    inaki = open_table(browser, live_site, orm, players[1], table, PHONE)
    for page in (maite, inaki):
        page.wait_for_selector('#mus-table[data-phase="recuento"]', timeout=TIMEOUT)
    # Each lance's tantos as the parts a player would add up, with the names of the hands.
    # A lance of one part needs no sum.
    # The hand it beat is in the row too (issue 31: a phone has no hover).
    assert row_text(maite, "grande") == "Grande querido, 2 Nosotros maite gana a jon 2 |"
    pares = row_text(maite, "pares")
    assert "no querido" in pares and "Nosotros" in pares
    assert "deje 1 + duples de maite 3 + medias de ane 2" in pares
    assert pares.split("|")[0].strip().endswith("6")
    juego = row_text(maite, "juego")
    assert "ane · 31" in juego
    assert "envite 5 + juego de maite (40) 2 + 31 de ane 3" in juego  # in speaking order
    chica = row_text(inaki, "chica")
    assert "Nosotros" in chica and "jon" in chica  # Iñaki's side: Jon's two won the chica
    # The hands that won are marked on the felt, with the combination they won with.
    ane = maite.locator(".seat.pos-top")
    assert "Juego · 31" in ane.locator(".chips").inner_text()
    assert maite.locator(".seat.pos-bottom .chips").inner_text() == "Grande"
    assert maite.locator(".seat.pos-bottom .hand.won").count() == 1
    screenshot(maite, "issue15-recuento-desktop")
    screenshot(inaki, "issue15-recuento-phone")
    assert maite.js_errors == [] and inaki.js_errors == []


def test_a_raise_reads_as_players_say_it_and_the_chooser_offers_more(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    orm(play_steps, table.pk, "0 corto", "0 envido 2", "1 envido 7")
    maite = open_table(browser, live_site, orm, players[0], table, LAPTOP)
    # Jon has still to answer: Iñaki's raise is secret until he does.
    orm(play_steps, table.pk, "3 no_quiero")
    maite.locator(".seat.pos-right .bubble").get_by_text("Cinco más").wait_for(timeout=TIMEOUT)
    assert "7 en la mesa" in maite.inner_text(".seat.pos-right .bubble")
    assert "Cinco más" in maite.inner_text("#log")
    # Maite answers: the quick raise is «Dos más», the chooser counts what she adds.
    quick = maite.locator('#act-row button[data-act="envido"][data-quick]')
    assert quick.inner_text() == "Dos más" and quick.get_attribute("data-to") == "9"
    assert maite.inner_text("#envido-amount-label") == "Tantos más"
    maite.fill("#envido-amount", "10")
    maite.press("#envido-amount", "Tab")
    chosen = maite.locator("#envido-chosen")
    assert chosen.inner_text() == "Diez más" and chosen.get_attribute("data-to") == "17"
    maite.fill("#envido-amount", "12")
    maite.press("#envido-amount", "Tab")
    assert chosen.inner_text() == "12 más"
    screenshot(maite, "issue15-raise-desktop")
    maite.screenshot(path="test-artifacts/issue15-raise-desktop-screen.png")
    assert maite.js_errors == []


def test_the_first_hand_cut_is_announced_and_the_postre_shown(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    page = open_table(browser, live_site, orm, players[0], table, PHONE)
    # Maite is mano, Jon (on her left) postre.
    assert page.locator(".seat.pos-bottom .mano-chip").is_visible()
    assert page.locator(".seat.pos-left .postre-chip").is_visible()
    assert page.locator(".postre-chip:visible").count() == 1
    orm(play_steps, table.pk, "0 mus", "1 corto")
    page.wait_for_selector('#mus-table[data-phase="lance"]', timeout=TIMEOUT)
    note = "inaki corta y pasa a ser mano"
    assert note in plain(page.inner_text("#table-note"))
    assert note in plain(page.locator("#log").text_content())
    assert page.locator(".seat.pos-right .mano-chip").is_visible()
    assert page.locator(".seat.pos-bottom .postre-chip").is_visible()
    screenshot(page, "issue15-cut-to-mano-phone")
    assert page.js_errors == []


def test_an_ordago_end_names_the_lance_and_the_hands_and_the_result_is_in_view(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    orm(play_steps, table.pk, "0 corto", "0 paso", "1 paso", "2 paso", "3 paso")
    orm(play_steps, table.pk, "0 paso", "1 paso", "2 paso", "3 paso")  # grande, chica en paso
    maite = open_table(browser, live_site, orm, players[0], table, LAPTOP)
    jon = open_table(browser, live_site, orm, players[3], table, PHONE)
    # Pares: Maite passes, Iñaki goes órdago; Maite accepts.
    orm(play_steps, table.pk, "0 paso", "1 ordago")
    maite.wait_for_selector("#confirm-ordago[hidden]", state="attached", timeout=TIMEOUT)
    maite.wait_for_function(
        "() => +document.getElementById('mus-table').dataset.soundOrdago === 1", timeout=TIMEOUT
    )
    v = int(maite.get_attribute("#mus-table", "data-v"))
    maite.locator('#act-row button[data-act="quiero"]').click()
    maite.wait_for_function(  # her vote is in before Ane's
        "v => +document.getElementById('mus-table').dataset.v > v", arg=v, timeout=TIMEOUT
    )
    orm(play_steps, table.pk, "2 no_quiero")
    for page in (maite, jon):
        page.wait_for_selector('#mus-table[data-phase="terminada"]', timeout=TIMEOUT)
    text = plain(maite.inner_text("#result-text"))
    assert text == (
        "Órdago a pares, querido: las cartas de maite (duples) ganan a las de inaki (par)."
    )
    assert "0 · " not in text
    assert maite.inner_text("#result-title") == "¡Habéis ganado la partida!"
    assert maite.evaluate("() => +document.getElementById('mus-table').dataset.soundEnd") == 1
    # At 1366×768 the result and the rematch are on screen without scrolling.
    for selector in ("#result", "#rematch button"):
        maite.locator(selector).wait_for(timeout=TIMEOUT)
        box = maite.locator(selector).bounding_box()
        assert box is not None and box["y"] + box["height"] <= LAPTOP["height"], selector
    screenshot(maite, "issue15-ordago-end-desktop")
    screenshot(jon, "issue15-ordago-end-phone")
    assert maite.js_errors == [] and jon.js_errors == []


def test_after_the_recuento_each_player_presses_seguir_and_sees_who_is_still_reading(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    orm(play_steps, table.pk, *TO_RECUENTO)
    pages = [open_table(browser, live_site, orm, p, table, PHONE) for p in players]
    for page in pages:
        page.wait_for_selector('#mus-table[data-phase="recuento"]', timeout=TIMEOUT)
        assert page.locator('#act-row button[data-act="repartir"]').inner_text() == "Seguir"
        assert page.inner_text("#actions-turn").startswith("Siguiente mano")
        # The next hand comes by itself when the recuento's clock runs out: it counts down.
        assert page.locator("#clock").is_visible()
        assert page.inner_text("#bar-clock").endswith(" s")
    pages[0].locator('#act-row button[data-act="repartir"]').click()
    pages[0].wait_for_selector("#mus-table:not(.my-turn)", timeout=TIMEOUT)
    assert plain(pages[0].inner_text("#turn-text")) == (
        "Esperando a que inaki, ane y jon pulsen «Seguir»"
    )
    pages[1].locator(".seat.pos-left .bubble", has_text="Listo").wait_for(timeout=TIMEOUT)
    for page in pages[1:3]:
        page.locator('#act-row button[data-act="repartir"]').click()
    pages[0].wait_for_function(
        "() => document.getElementById('turn-text').textContent.replace(/[\\u2068\\u2069]/g, '')"
        " === 'Esperando a que jon pulse «Seguir»'",
        timeout=TIMEOUT,
    )
    screenshot(pages[3], "issue15-seguir-phone")
    pages[3].locator('#act-row button[data-act="repartir"]').click()
    for page in pages:
        page.wait_for_selector('#mus-table[data-phase="mus"]', timeout=TIMEOUT)
        assert page.js_errors == []


def test_an_action_the_clock_played_is_marked_as_such(
    live_site: str, browser: Any, orm: Any
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games import services
    from games.models import Table

    players = orm(make_players, NAMES)
    table = orm(stacked_table, players, HANDS, 0)
    orm(play_steps, table.pk, "0 corto")
    maite = open_table(browser, live_site, orm, players[0], table, LAPTOP)
    jon = open_table(browser, live_site, orm, players[3], table, PHONE)

    def time_runs_out() -> None:
        Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        assert services.play_defaults(table.pk) == 1

    orm(time_runs_out)  # Maite's turn to open the grande: the clock says «Paso» for her
    for page, pos in ((maite, "bottom"), (jon, "right")):
        bubble = page.locator(f".seat.pos-{pos} .bubble.by-clock")
        bubble.wait_for(timeout=TIMEOUT)
        assert bubble.inner_text() == "Paso (tiempo)"
        entry = page.locator("#log .log-entry.by-clock")
        assert entry.count() == 1 and plain(entry.text_content()) == "maite Paso (tiempo)"
    screenshot(maite, "issue15-clock-played-desktop")
    screenshot(jon, "issue15-clock-played-phone")
    assert maite.js_errors == [] and jon.js_errors == []
