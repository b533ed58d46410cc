"""On a phone every page fits the screen: nothing makes the whole page scroll sideways."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from games import services
from games.models import Table
from tests.factories import finished_game, make_players, session_key, started_table
from tests.live import screenshot

from .support import logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The narrowest phones still in use, and a common one.
WIDTHS = (320, 390)


def site_with_games() -> dict[str, Any]:
    # Long names, one without a space to break it at: they are what overflows first.
    players = make_players(["superjugadordemus2026", "celia", "dani", "eva", "fran", "gil"])
    players[0].display_name = "Bartolomé Fernández Ruiz"
    players[0].save(update_fields=["display_name"])
    games = [
        finished_game(players[:4], winner=0, rate=True),
        finished_game([players[0], players[4], players[1], players[5]], winner=1, rate=True),
        finished_game(players[:4], mode="8-reyes", winner=1, ended_by="ordago", rate=True),
    ]
    # A live table: the page everybody plays on.
    live = make_players(["quinto", "sexto", "septimo", "octavo"])
    table = started_table(live)
    return {
        "me": players[0],
        "me_key": session_key(players[0]),
        "game": games[0].pk,
        "table": table.pk,
        "table_key": session_key(live[0]),
    }


def test_no_page_scrolls_sideways_on_a_phone(live_site: str, browser: Any, orm: Any) -> None:
    data = orm(site_with_games)
    me: User = data["me"]
    pages = [
        "/",
        "/reglas/",
        "/ranking/",
        "/ranking/?mode=8-reyes",
        f"/jugadores/{me.username}/",
        "/partidas/",
        f"/partidas/{data['game']}/",
        f"/partidas/{data['game']}/?mano=1&paso=3",
        "/cuentas/ajustes/",
        "/cuentas/contrasena/",
    ]
    for width in WIDTHS:
        viewport = {"width": width, "height": 800}
        page = logged_in_page(browser, live_site, data["me_key"], viewport)
        for path in pages:
            response = page.goto(f"{live_site}{path}")
            assert response is not None and response.status == 200, path
            overflow = page.evaluate("document.documentElement.scrollWidth") - width
            if overflow > 0:
                screenshot(page, f"phone-overflow-{width}-{path.strip('/').replace('/', '-')}")
            assert overflow <= 0, f"{path} at {width} px is {overflow} px too wide"
        player = logged_in_page(browser, live_site, data["table_key"], viewport)
        player.goto(f"{live_site}/mesas/{data['table']}/")
        player.locator("#actions.has-acts, .seat .hand").first.wait_for(timeout=10_000)
        overflow = player.evaluate("document.documentElement.scrollWidth") - width
        assert overflow <= 0, f"the table at {width} px is {overflow} px too wide"
        assert not page.js_errors and not player.js_errors
    orm(lambda: services.cancel_game(data["table"], Table.CancelReason.SYSTEM))
    assert orm(lambda: Table.objects.get(pk=data["table"]).status) == Table.Status.CANCELLED
