"""axe-core finds no accessibility violation on the site's pages (desktop and phone, both languages).

axe (bundled by axe-playwright-python) is evaluated through the DevTools protocol, which the
site's strict CSP does not restrict; the pages themselves run as they do for players.
"""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from accounts.models import User
from games import services
from games.models import Table
from tests.factories import (
    finished_game,
    make_players,
    play_steps,
    session_key,
    stacked_table,
    started_table,
)

from .support import DESKTOP, PHONE, logged_in_page
from .test_table_explains import HANDS as RECUENTO_HANDS
from .test_table_explains import TO_RECUENTO

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def site() -> dict[str, Any]:
    players = make_players(["amaia", "bruno", "carla", "dario"])
    game = finished_game(players, winner=0, rate=True)
    live = started_table(make_players(["eneko", "fabiola", "gorka", "helena"]))
    waiting = services.create_table(make_players(["ines"])[0], "8-reyes")
    # A hand at its recuento: the breakdown of each lance, the winning hands, «Seguir».
    counted = make_players(["jone", "koldo", "leire", "mikel"])
    recuento = stacked_table(counted, RECUENTO_HANDS, 0)
    play_steps(recuento.pk, *TO_RECUENTO)
    viewer: User = players[0]
    return {
        "me": viewer.username,
        "key": session_key(viewer),
        "live_key": session_key(live.seats.get(seat=0).user),
        "recuento_key": session_key(counted[0]),
        "game": game.pk,
        "game_steps": len(game.record["hands"][0]["actions"]),
        "live": live.pk,
        "recuento": recuento.pk,
        "waiting": waiting.pk,
    }


def violations(page: Any) -> list[str]:
    page.wait_for_load_state("networkidle")
    found = Axe().run(page).response["violations"]
    return [
        f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in found
    ]


def test_no_page_has_an_accessibility_violation(live_site: str, browser: Any, orm: Any) -> None:
    data = orm(site)
    signed_in = [
        "/",
        "/reglas/",
        "/ranking/",
        f"/jugadores/{data['me']}/",
        "/partidas/",
        f"/partidas/{data['game']}/?mano=1&paso=4",
        f"/partidas/{data['game']}/",  # the replay at the deal
        f"/partidas/{data['game']}/?mano=1&paso={data['game_steps']}",  # its recuento
        "/cuentas/ajustes/",
        "/cuentas/correo/",
        f"/mesas/{data['waiting']}/",
        f"/mesas/{data['game']}/",  # the finished table, its result box
        f"/mesas/{data['live']}/",  # watched by somebody not seated
    ]
    anonymous = ["/cuentas/entrar/", "/cuentas/registro/", "/cuentas/contrasena/olvidada/"]
    found: dict[str, list[str]] = {}
    for viewport, language in ((DESKTOP, "es"), (PHONE, "en")):
        # A signed-in player's own setting chooses the language; a visitor's cookie.
        orm(User.objects.update, language=language)
        page = logged_in_page(browser, live_site, data["key"], viewport)
        for path in signed_in:
            page.goto(f"{live_site}{path}")
            found[f"{path} {viewport['width']} {language}"] = violations(page)
        player = logged_in_page(browser, live_site, data["live_key"], viewport)
        player.goto(f"{live_site}/mesas/{data['live']}/")
        player.locator(".seat .hand").first.wait_for(timeout=10_000)
        if language == "en":
            assert "Tables" in player.text_content(".site-header")  # (a phone folds the menu)
        found[f"the live table as a player {viewport['width']} {language}"] = violations(player)
        # The recuento, spelled out; on a phone the log and chat tabs, the chat tab open.
        counting = logged_in_page(browser, live_site, data["recuento_key"], viewport)
        counting.goto(f"{live_site}/mesas/{data['recuento']}/")
        counting.locator("#lances-center .parts-row").first.wait_for(timeout=10_000)
        found[f"the recuento {viewport['width']} {language}"] = violations(counting)
        if counting.locator("#tab-chat").is_visible():
            counting.locator("#tab-chat").click()
            found[f"the chat tab {viewport['width']} {language}"] = violations(counting)
        visitor = browser.new_context(viewport=viewport).new_page()
        visitor.context.add_cookies(
            [{"name": "django_language", "value": language, "url": live_site}]
        )
        for path in [*anonymous, f"/mesas/{data['live']}/"]:  # a public table, watched
            visitor.goto(f"{live_site}{path}")
            found[f"{path} anonymous {viewport['width']} {language}"] = violations(visitor)
    assert {where: v for where, v in found.items() if v} == {}
    orm(lambda: services.cancel_game(data["live"], Table.CancelReason.SYSTEM))
