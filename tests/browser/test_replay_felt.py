"""The replay is drawn by the live table's renderer (felt.js, center.js): the same felt, seats,
speech bubbles, lance strip and recuento table as at the table, step by step, on a phone and on
a laptop, with the live table's words."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import finished_game, make_players, session_key
from tests.live import ARTIFACTS, screenshot

from .support import PHONE, logged_in_page, plain

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000
LAPTOP = {"width": 1366, "height": 800}


def test_the_replay_is_drawn_by_the_tables_renderer_step_by_step(
    live_site: str, browser: Any, orm: Any
) -> None:
    def setup() -> tuple[int, str, list[Any]]:
        players = make_players(["sara", "tomas", "ursula", "vicente"])
        table = finished_game(players, winner=0)
        hand = table.record["hands"][0]
        return table.pk, session_key(players[0]), hand["actions"]

    game, key, actions = orm(setup)
    for viewport, name in ((LAPTOP, "desktop"), (PHONE, "phone")):
        page = logged_in_page(browser, live_site, key, viewport)
        page.goto(f"{live_site}/partidas/{game}/")
        felt = page.locator("#replay .felt")
        # The felt's four seats, drawn by the renderer: names, every hand face up (the
        # renderer's face cards, not the page's first paint), the mano's chip.
        page.locator("#replay .seat .hand img.card-img.face").nth(15).wait_for(timeout=TIMEOUT)
        assert page.locator("#replay .seat .hand img.card-img.face").count() == 16
        assert page.locator("#replay .seat .hand img.card-img.small").count() == 0
        names = [plain(n) for n in page.locator("#replay .seat-name-text").all_inner_texts()]
        assert sorted(names) == ["sara", "tomas", "ursula", "vicente"]
        assert "sara" in plain(page.inner_text("#replay .seat.pos-bottom"))
        assert "ursula" in plain(page.inner_text("#replay .seat.pos-top"))
        assert page.locator("#replay .seat .mano-chip:visible").count() == 1
        assert page.locator("#replay .seat .postre-chip:visible").count() == 1
        # The middle says the phase and whose turn it is, as the table does.
        assert plain(page.text_content("#phase-label")) == "Mus"
        turn = plain(page.inner_text("#replay .seat.turn .seat-name-text"))
        assert plain(page.inner_text("#turn-text")) == f"Turno de {turn}"
        assert "Pareja A" in page.inner_text("#score-line")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        felt.scroll_into_view_if_needed()
        screenshot(page, f"replay-felt-deal-{name}")

        # One step on (HTMX swaps the step in): the renderer draws it again, the speech
        # bubble of what was said included.
        page.keyboard.press("ArrowRight")
        page.get_by_text(f"Mano 1 · paso 1 de {len(actions)}").wait_for(timeout=TIMEOUT)
        page.locator("#replay .seat .hand img.card-img.face").nth(15).wait_for(timeout=TIMEOUT)
        assert page.locator("#replay .seat .hand img.card-img.small").count() == 0
        said = plain(page.inner_text(f"#replay .seat[data-seat='{actions[0]['seat']}'] .bubble"))
        if actions[0]["act"] == "mus":
            # The same words as the replay's list of what was said (games.labels).
            assert said and said in plain(page.inner_text("#replay .rankings-said li.latest"))

        # At the end of the hand: the recuento, its lances' table with what each won with.
        page.goto(f"{live_site}/partidas/{game}/?mano=1&paso={len(actions)}")
        page.locator("#lances-side tr.lance-row").first.wait_for(timeout=TIMEOUT)
        assert page.locator("#lances-side tr.lance-row").count() >= 4
        assert page.locator("#lances-side .won-by").count() >= 1
        assert page.locator("#replay .seat .chip.won").count() >= 1
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.locator("#replay").scroll_into_view_if_needed()
        screenshot(page, f"replay-felt-recuento-{name}")
        page.locator("#mus-table").screenshot(path=str(ARTIFACTS / f"replay-felt-{name}.png"))
        assert page.js_errors == []
