"""Issue 19 in a browser: a finished game's hand analysis, asked for on its page, made by a real
Celery worker while the page shows its progress, then the summary and each step's decision; and
practice against «fuerte» bots, named so at the table."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Seat
from tests.factories import finished_game, make_players, session_key
from tests.live import celery_worker, screenshot

from .support import DESKTOP, PHONE, logged_in_page, plain

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TIMEOUT = 10_000
#: A worker analyses the whole game (a few hundred decisions at most, with few samples).
ANALYSIS_TIMEOUT = 120_000


def test_a_player_analyses_a_finished_game_and_reads_each_decision(
    live_site: str, browser: Any, orm: Any
) -> None:
    def setup() -> tuple[int, str, int]:
        players = make_players(["ana", "bego", "carmen", "dani"])
        table = finished_game(players, winner=1, ended_by="ordago")
        return table.pk, session_key(players[0]), table.record["hands"][0]["actions"][0]["seat"]

    game, key, first_seat = orm(setup)
    names = ["ana", "bego", "carmen", "dani"]
    with celery_worker(MUS_ANALYSIS_SAMPLES="60"):
        page = logged_in_page(browser, live_site, key, PHONE)
        page.goto(f"{live_site}/partidas/{game}/")
        page.locator("#analyse-button").click()
        # The progress first (polled every second), then the summary.
        page.locator("#analysis progress, #analysis [role=status]").first.wait_for(timeout=TIMEOUT)
        page.locator("#analysis-worst").wait_for(timeout=ANALYSIS_TIMEOUT)
        summary = plain(page.inner_text("#analysis"))
        assert "Las decisiones más caras" in summary
        assert all(name in summary for name in names)  # each player's totals
        # The replay on screen now shows the decision at its step, from its player's view.
        page.locator("#analysis-step").wait_for(timeout=TIMEOUT)
        step = plain(page.inner_text("#analysis-step"))
        assert f"Decisión de {names[first_seat]}" in step
        for lance in ("Grande", "Chica", "Pares", "Juego"):
            assert lance in step
        assert page.locator("#analysis-step meter").count() == 4
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.locator("#analysis").scroll_into_view_if_needed()
        screenshot(page, "issue19-analysis-phone")
        # A step on: the next decision's analysis comes with it.
        page.keyboard.press("ArrowRight")
        page.get_by_text("Mano 1 · paso 1 de").wait_for(timeout=TIMEOUT)
        page.locator("#analysis-step").wait_for(timeout=TIMEOUT)
        assert page.js_errors == []

        desk = logged_in_page(browser, live_site, key, DESKTOP)
        desk.goto(f"{live_site}/partidas/{game}/")  # made once, shown at once
        assert "Las decisiones más caras" in desk.inner_text("#analysis")
        assert desk.locator("#analysis-step").count() == 1
        screenshot(desk, "issue19-analysis-desktop")
        assert desk.js_errors == []


def test_practice_against_strong_bots_names_them_so_at_the_table(
    live_site: str, browser: Any, orm: Any
) -> None:
    (player,) = orm(make_players, ["elena"])
    page = logged_in_page(browser, live_site, orm(session_key, player), DESKTOP)
    page.goto(f"{live_site}/")
    form = page.locator("form.practice")
    form.locator('select[name="level"]').select_option("fuerte")
    form.locator("button[type=submit]").click()
    page.wait_for_selector('#mus-table[data-connected="1"]', timeout=TIMEOUT)
    names = [plain(n) for n in page.locator(".seat-name-text").all_inner_texts()]
    bots = [n for n in names if n.startswith("Bot ")]
    assert len(bots) == 3 and all(n.endswith("(fuerte)") for n in bots), names
    levels = orm(
        lambda: set(
            Seat.objects.filter(user__is_bot=True, table__host=player).values_list(
                "bot_level", flat=True
            )
        )
    )
    assert levels == {"fuerte"}
    assert page.js_errors == []
