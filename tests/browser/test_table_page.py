"""Four people play a hand of Mus in four browsers, only by clicking the table page."""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.models import User
from games import services
from games.models import Table
from tests.factories import finished_game, make_players, session_key, started_table
from tests.live import screenshot

from .support import DESKTOP, PHONE, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CARD_SRC = re.compile(r"/cards/((?:[1-7]|1[0-2])[oceb])\.svg$")
TIMEOUT = 10_000


def version(page: Any) -> int:
    return int(page.get_attribute("#mus-table", "data-v"))


def wait_past(pages: list[Any], v: int) -> None:
    """Wait until every page has drawn a state newer than `v`."""
    for page in pages:
        page.wait_for_function(
            "v => +document.getElementById('mus-table').dataset.v > v", arg=v, timeout=TIMEOUT
        )


def button(page: Any, act: str) -> Any:
    return page.locator(f'#act-row button[data-act="{act}"]')


VISIBLE_ACTS_JS = """() => [...document.querySelectorAll('#act-row button[data-act]')]
  .filter((b) => b.offsetParent !== null).map((b) => b.dataset.act)"""


def who_can(pages: list[Any], act: str) -> list[Any]:
    """The pages that show the button for `act`."""
    return [p for p in pages if act in p.evaluate(VISIBLE_ACTS_JS)]


def click(pages: list[Any], page: Any, act: str) -> None:
    v = version(page)
    button(page, act).click()
    wait_past(pages, v)


SNAPSHOT_JS = """() => {
  const root = document.getElementById("mus-table");
  const imgs = [...document.querySelectorAll("img")];
  const hand = (pos) => [...document.querySelectorAll(`.seat.pos-${pos} .hand img.card-img`)];
  return {
    phase: root.dataset.phase,
    srcs: imgs.map((img) => img.getAttribute("src") || ""),
    mine: hand("bottom").map((img) => [img.dataset.code, img.alt]),
    others: ["right", "top", "left"].flatMap(hand).map((img) => img.dataset.code),
    score: document.getElementById("score-line").innerText.trim(),
  };
}"""


def snapshot(page: Any) -> dict[str, Any]:
    """What the page shows, in one round trip."""
    return page.evaluate(SNAPSHOT_JS)


def card_codes_shown(shown: dict[str, Any]) -> list[str]:
    """Codes of every face-up card image on the page (from the image files)."""
    return [m.group(1) for src in shown["srcs"] if (m := CARD_SRC.search(src))]


def expected_score_line(orm: Any, table: Table, seat: int) -> str:
    scores = orm(lambda: Table.objects.get(pk=table.pk).scores) or [0, 0]
    ours, theirs = scores[seat % 2], scores[1 - seat % 2]
    return f"Nosotros {ours}/40 · Ellos {theirs}/40"


def state_of(orm: Any, table: Table, user: User) -> dict[str, Any]:
    return orm(lambda: services.state_for(Table.objects.get(pk=table.pk), user))


def check_hidden_hands(orm: Any, pages: list[Any], players: list[User], table: Table) -> None:
    """Each page shows its own four cards and nobody else's (backs only), and the score."""
    for seat, page in enumerate(pages):
        own = state_of(orm, table, players[seat])["you"]["cards"]
        shown = snapshot(page)
        assert len(own) == 4
        assert sorted(card_codes_shown(shown)) == sorted(own)
        assert sorted(code for code, _alt in shown["mine"]) == sorted(own)
        assert all(alt for _code, alt in shown["mine"])  # named for screen readers
        assert shown["others"] == ["back"] * 12
        assert shown["score"] == expected_score_line(orm, table, seat)


def test_four_players_play_a_complete_hand_through_the_ui(
    live_site: str, browser: Any, orm: Any
) -> None:
    players = orm(make_players, ["ana", "bruno", "carmen", "dani", "eva"])
    onlooker_user = players.pop()
    table = orm(started_table, players, seed=11)
    viewports = [DESKTOP, PHONE, DESKTOP, PHONE]
    pages = [
        logged_in_page(browser, live_site, orm(session_key, user), viewports[seat])
        for seat, user in enumerate(players)
    ]
    onlooker = logged_in_page(browser, live_site, orm(session_key, onlooker_user), PHONE)
    for page in [*pages, onlooker]:  # they all load side by side
        page.goto(f"{live_site}/mesas/{table.pk}/", wait_until="commit")
    for page in [*pages, onlooker]:
        page.wait_for_selector('#mus-table[data-connected="1"][data-phase="mus"]', timeout=TIMEOUT)

    # A phone never scrolls sideways.
    for page in (pages[1], pages[3], onlooker):
        assert page.evaluate(
            "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )
    # Somebody who is not seated watches the table without any card.
    watching = snapshot(onlooker)
    assert card_codes_shown(watching) == []
    assert watching["mine"] == [["back", watching["mine"][0][1]]] * 4
    assert watching["score"] == "Pareja A 0/40 · Pareja B 0/40"
    assert onlooker.locator("#actions").is_hidden()
    screenshot(onlooker, "table-1-onlooker-phone")

    # Seats are drawn relative to the viewer: partner on top, rivals at the sides.
    for seat, page in enumerate(pages):
        for pos, other in (
            ("bottom", seat),
            ("right", seat + 1),
            ("top", seat + 2),
            ("left", seat + 3),
        ):
            name = players[other % 4].username
            assert page.inner_text(f".seat.pos-{pos} .seat-name bdi") == name
    check_hidden_hands(orm, pages, players, table)
    mano = state_of(orm, table, players[0])["mano"]
    assert pages[0].locator(f'.seat[data-seat="{mano}"] .mano-chip').is_visible()
    for seat, page in enumerate(pages):
        screenshot(page, f"table-1-dealt-seat{seat}")

    # Everybody says «Mus», in turn.
    for _ in range(4):
        (speaker,) = who_can(pages, "mus")
        assert speaker.locator("#turn-text").inner_text() == "Tu turno"
        # The others read whose turn it is, the name isolated in the sentence (FSI … PDI).
        other = next(page for page in pages if page is not speaker)
        turn_text = other.eval_on_selector("#turn-text", "e => e.textContent")
        assert f"\u2068{players[pages.index(speaker)].username}\u2069" in turn_text
        click(pages, speaker, "mus")
    for page in pages:
        assert page.get_attribute("#mus-table", "data-phase") == "descarte"

    # The discard: everybody picks two cards at the same time, then «Descartar».
    for page in pages:
        cards = page.locator(".hand.mine .card-btn")
        cards.nth(0).click()
        cards.nth(2).click()
        assert page.locator(".hand.mine .card-btn.picked").count() == 2
        assert button(page, "descarte").inner_text() == "Descartar 2"
    screenshot(pages[1], "table-2-discard-phone")
    for page in pages:
        v = version(page)
        button(page, "descarte").click()
        # Sent: the buttons stay disabled until the next state comes.
        wait_past([page], v)
    for page in pages:
        page.wait_for_selector('#mus-table[data-phase="mus"]', timeout=TIMEOUT)
        # Everybody sees how many cards each player changed.
        assert page.locator(".chip.changed").count() == 4
    check_hidden_hands(orm, pages, players, table)

    # The first to speak cuts: the lances begin.
    (cutter,) = who_can(pages, "corto")
    click(pages, cutter, "corto")
    for page in pages:
        assert page.get_attribute("#mus-table", "data-phase") == "lance"
        assert page.inner_text("#phase-label").strip().lower() == "grande"

    # Grande: the opener bets 2 with the quick button, the rivals accept; then everybody passes.
    bet_made = False
    for _ in range(40):
        phase = pages[0].get_attribute("#mus-table", "data-phase")
        if phase != "lance":
            break
        voters = who_can(pages, "quiero")
        if voters:
            for voter in voters:
                click(pages, voter, "quiero")
            continue
        (opener,) = who_can(pages, "paso")
        if not bet_made:
            quick = opener.locator('#act-row button[data-act="envido"][data-quick]')
            assert quick.inner_text() == "Envido 2"
            v = version(opener)
            quick.click()
            wait_past(pages, v)
            bet_made = True
            for page in pages:
                assert "Envite: 2" in page.inner_text("#bet")
                assert page.locator(".bubble.said-envido").count() == 1
            screenshot(pages[0], "table-3-envido-desktop")
            screenshot(pages[1], "table-3-envido-phone")
            continue
        click(pages, opener, "paso")
    else:  # pragma: no cover - the hand must end
        pytest.fail("the hand did not reach the recuento")

    # The recuento: all four hands face up and the Lance · Ganador · Tantos table.
    hands = state_of(orm, table, players[0])["hands"]
    for seat, page in enumerate(pages):
        page.wait_for_selector('#mus-table[data-phase="recuento"]', timeout=TIMEOUT)
        shown = snapshot(page)
        assert sorted(card_codes_shown(shown)) == sorted(c for hand in hands for c in hand)
        assert "back" not in shown["others"]
        head = page.inner_text("#lances-center thead")
        assert re.search(r"Lance\s+Ganador\s+Tantos", head, re.IGNORECASE)
        rows = page.locator("#lances-center tbody tr")
        assert rows.count() >= 3
        assert "Grande" in rows.first.inner_text()
        assert shown["score"] == expected_score_line(orm, table, seat)
        screenshot(page, f"table-4-recuento-seat{seat}")

    # The onlooker sees the four hands too, now that they are shown.
    shown = snapshot(onlooker)
    assert sorted(card_codes_shown(shown)) == sorted(c for hand in hands for c in hand)

    # Nobody deals by hand: each presses «Seguir», the hand comes when all four have.
    assert who_can(pages, "repartir") == pages
    for page in pages[:3]:
        click(pages, page, "repartir")
    assert who_can(pages, "repartir") == [pages[3]]
    click(pages, pages[3], "repartir")
    for page in pages:
        page.wait_for_selector('#mus-table[data-phase="mus"]', timeout=TIMEOUT)
    check_hidden_hands(orm, pages, players, table)
    screenshot(pages[3], "table-5-second-hand-phone")

    for page in [*pages, onlooker]:
        assert page.js_errors == []


def test_the_players_of_a_finished_game_ask_for_a_rematch_and_meet_at_the_new_table(
    live_site: str, browser: Any, orm: Any
) -> None:
    def setup() -> tuple[int, list[str], list[str]]:
        players = make_players(["rosa", "tomas", "ursula", "victor"])
        table = finished_game(players, private=True)
        return table.pk, [session_key(p) for p in players], [p.username for p in players]

    old, keys, names = orm(setup)
    pages = [logged_in_page(browser, live_site, keys[i], PHONE) for i in (0, 1)]
    for page in pages:
        page.goto(f"{live_site}/mesas/{old}/")
        page.locator("#result").wait_for(timeout=10_000)
    # Rosa asks; Tomás, who keeps the page open, sees it without reloading and joins.
    pages[0].get_by_role("button", name="Pedir la revancha").click()
    pages[0].wait_for_url(re.compile(r".*/mesas/\d+/$"), timeout=10_000)
    new = int(pages[0].url.rstrip("/").rsplit("/", 1)[1])
    assert new != old
    pages[1].get_by_text(f"{names[0]} pide la revancha (1 de 4).").wait_for(timeout=10_000)
    screenshot(pages[1], "rematch-1-asked-phone")
    pages[1].get_by_role("button", name="Jugar la revancha").click()
    pages[1].wait_for_url(f"{live_site}/mesas/{new}/", timeout=10_000)
    seats = orm(lambda: dict(Table.objects.get(pk=new).seats.values_list("seat", "user__username")))
    assert seats == {0: names[0], 1: names[1]}
    screenshot(pages[1], "rematch-2-new-table-phone")
    for page in pages:
        assert not page.js_errors


def test_a_chime_says_the_turn_has_come_unless_the_player_turned_it_off(
    live_site: str, browser: Any, orm: Any
) -> None:
    from games import engine

    players = orm(make_players, ["irene", "jon", "kike", "lara"])
    table = orm(started_table, players, seed=3)
    mano = orm(lambda: services.game_of(Table.objects.get(pk=table.pk)).mano)
    last = (mano + 3) % 4  # speaks fourth in every round
    page = logged_in_page(browser, live_site, orm(session_key, players[last]), DESKTOP)
    page.goto(f"{live_site}/mesas/{table.pk}/")
    page.wait_for_selector('#mus-table[data-connected="1"][data-phase="mus"]', timeout=TIMEOUT)

    def chimes() -> int:
        return int(page.evaluate("() => document.getElementById('mus-table').dataset.chimes || 0"))

    def play(seat: int, act: str) -> None:
        def run() -> None:
            fresh = Table.objects.get(pk=table.pk)
            cards = None
            if act == "descarte":
                cards = (services.game_of(fresh).hand_codes(seat)[0],)
            services.apply_action(fresh, engine.Action(seat, act, cards=cards))

        orm(run)

    # Everybody's rating beside their name (nobody here has played a rated game yet).
    assert page.locator(".seat.pos-bottom .seat-elo").inner_text() == "1500?"
    assert page.locator(".seat .seat-elo").count() == 4
    # Opening the page is not the turn arriving; somebody else's turn makes no sound.
    assert chimes() == 0
    v = version(page)
    play(mano, "mus")
    play((mano + 1) % 4, "mus")
    wait_past([page], v + 1)  # both drawn (the chime would come with the drawing)
    assert chimes() == 0
    play((mano + 2) % 4, "mus")
    page.wait_for_selector("#mus-table.my-turn", timeout=TIMEOUT)
    assert chimes() == 1
    # Turned off, and remembered by the browser: the next turn arrives in silence.
    page.locator("#sound-toggle").click()
    assert page.locator("#sound-toggle").get_attribute("aria-pressed") == "false"
    assert page.locator("#sound-toggle").inner_text() == "Sonido: no"
    page.reload()
    page.wait_for_selector('#mus-table[data-connected="1"].my-turn', timeout=TIMEOUT)
    assert page.locator("#sound-toggle").get_attribute("aria-pressed") == "false"
    play(last, "mus")  # everybody said mus: all four discard, the turn stays with everybody
    for seat in range(4):
        play(seat, "descarte")
    play(mano, "corto")  # the new mus round after the discard: the mano cuts, grande begins
    page.wait_for_selector('#mus-table[data-phase="lance"]', timeout=TIMEOUT)
    for offset in range(3):  # grande: the three before speak first
        play((mano + offset) % 4, "paso")
    page.wait_for_selector("#mus-table.my-turn", timeout=TIMEOUT)
    assert chimes() == 0
    assert not page.js_errors
